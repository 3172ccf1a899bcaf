// cordon-probe's options (CLI11 plus the probe's own value checks): every option the
// launcher passes (verify --deep, probe_bait.cpp) and every usage error main() turns into 64.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "probe/context.h"

namespace cordon::probe {
namespace {

// parse_options over `args` (argv[0] added), with the error it reports.
struct Parsed {
  std::optional<Options> options;
  std::string error;
};

Parsed parse(std::initializer_list<std::string> args) {
  std::vector<std::string> words = {"cordon-probe"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  Parsed p;
  p.options = parse_options(static_cast<int>(words.size()), argv.data(), &p.error);
  return p;
}

TEST(ProbeOptions, NoArgumentsGiveTheDefaults) {
  Parsed p = parse({});
  ASSERT_TRUE(p.options) << p.error;
  EXPECT_FALSE(p.options->json || p.options->list || p.options->selftest || p.options->help || p.options->version);
  EXPECT_TRUE(p.options->only.empty());
  EXPECT_FALSE(p.options->target);
  EXPECT_FALSE(p.options->checks_passed);
  EXPECT_EQ(p.options->timeout_ms, 5000);
}

TEST(ProbeOptions, Flags) {
  Parsed p = parse({"--json", "--list", "--selftest", "--version", "-h", "--failures-only"});
  ASSERT_TRUE(p.options) << p.error;
  EXPECT_TRUE(p.options->json && p.options->list && p.options->selftest && p.options->version && p.options->help);
  EXPECT_TRUE(p.options->failures_only);
  EXPECT_FALSE(parse({"--json"}).options->failures_only);
  EXPECT_TRUE(parse({"--help"}).options->help);
}

TEST(ProbeOptions, OnlyIdsArePaddedAndAccumulate) {
  Parsed p = parse({"--only", "7,44", "--only=60"});
  ASSERT_TRUE(p.options) << p.error;
  EXPECT_EQ(p.options->only, (std::vector<std::string>{"07", "44", "60"}));
}

TEST(ProbeOptions, WhatTheLauncherPasses) {
  // verify --deep: the battery's count, the bait (probe_bait.cpp) and its canaries.
  Parsed p = parse({"--checks-passed", "27", "--target-pid", "1234:987654", "--host-loopback-port", "40001",
                    "--host-abstract", "@cordon-bait-x", "--canary", "/root/.cordon-canary", "--canary", "/srv/c"});
  ASSERT_TRUE(p.options) << p.error;
  EXPECT_EQ(p.options->checks_passed, 27);
  ASSERT_TRUE(p.options->target);
  EXPECT_EQ(p.options->target->pid, 1234);
  EXPECT_EQ(p.options->target->start, 987654ULL);
  EXPECT_EQ(p.options->host_loopback_ports, (std::vector<uint16_t>{40001}));
  EXPECT_EQ(p.options->host_abstract, (std::vector<std::string>{"cordon-bait-x"}));  // '@' dropped
  EXPECT_EQ(p.options->canaries, (std::vector<std::string>{"/root/.cordon-canary", "/srv/c"}));
}

TEST(ProbeOptions, TargetPidWithoutStartTime) {
  Parsed p = parse({"--target-pid=99"});
  ASSERT_TRUE(p.options) << p.error;
  EXPECT_EQ(p.options->target->pid, 99);
  EXPECT_FALSE(p.options->target->start);
}

TEST(ProbeOptions, NetTargetsIPv4AndIPv6) {
  Parsed p = parse({"--net-targets", "tcp:10.1.2.3:8080,udp:[fd00::10]:53"});
  ASSERT_TRUE(p.options) << p.error;
  ASSERT_EQ(p.options->net_targets.size(), 2u);
  EXPECT_EQ(p.options->net_targets[0].text(), "tcp:10.1.2.3:8080");
  EXPECT_EQ(p.options->net_targets[0].family, AF_INET);
  EXPECT_EQ(p.options->net_targets[1].text(), "udp:[fd00::10]:53");
  EXPECT_EQ(p.options->net_targets[1].family, AF_INET6);
  EXPECT_FALSE(p.options->net_targets[1].tcp);
}

TEST(ProbeOptions, ListsAreBounded) {
  std::string ports;
  for (int i = 1; i <= 20; ++i) ports += (i > 1 ? "," : "") + std::to_string(1000 + i);
  Parsed p = parse({"--host-loopback-port", ports});
  ASSERT_TRUE(p.options) << p.error;
  EXPECT_EQ(p.options->host_loopback_ports.size(), 16u);
}

TEST(ProbeOptions, SingleValuesTakeTheLast) {
  Parsed p = parse({"--timeout-ms", "200", "--timeout-ms", "300"});
  ASSERT_TRUE(p.options) << p.error;
  EXPECT_EQ(p.options->timeout_ms, 300);
}

// Each usage error: no options, and the message names the problem (main() prints it, exit 64).
void expect_usage_error(std::initializer_list<std::string> args, const std::string& message_part) {
  Parsed p = parse(args);
  EXPECT_FALSE(p.options);
  EXPECT_NE(p.error.find(message_part), std::string::npos) << "error: " << p.error;
}

TEST(ProbeOptions, UnknownArgumentsAreRefused) {
  expect_usage_error({"--bogus"}, "unknown argument \"--bogus\"");
  expect_usage_error({"positional"}, "unknown argument \"positional\"");
  expect_usage_error({"--on", "44"}, "unknown argument \"--on\"");  // no prefix matching
  expect_usage_error({"--json", "extra"}, "unknown argument \"extra\"");
}

TEST(ProbeOptions, MissingValuesAndFlagValuesAreRefused) {
  expect_usage_error({"--only"}, "--only");
  expect_usage_error({"--timeout-ms"}, "--timeout-ms");
  expect_usage_error({"--json=1"}, "json");
}

TEST(ProbeOptions, BadValuesAreNamed) {
  expect_usage_error({"--only", "4x"}, "--only: \"4x\" is not a probe id");
  expect_usage_error({"--only", "100"}, "--only: \"100\" is not a probe id");
  expect_usage_error({"--checks-passed", "-1"}, "--checks-passed: \"-1\" is not a count");
  expect_usage_error({"--target-pid", "1"}, "--target-pid: \"1\" is not PID or PID:START (PID >= 2)");
  expect_usage_error({"--target-pid", "5:x"}, "--target-pid: \"5:x\": START is not a number");
  expect_usage_error({"--net-targets", "tcp:10.1.2.3"}, "no port");
  expect_usage_error({"--net-targets", "icmp:10.1.2.3:1"}, "unknown protocol");
  expect_usage_error({"--net-targets", "tcp:10.1.2.300:80"}, "not an IPv4 address");
  expect_usage_error({"--net-targets", "udp:[fd00::1:53"}, "bad [IPv6]:PORT");
  expect_usage_error({"--net-targets", "tcp:10.1.2.3:0"}, "bad port");
  expect_usage_error({"--host-loopback-port", "65536"}, "--host-loopback-port: \"65536\" is not a port");
  expect_usage_error({"--host-abstract", "@"}, "--host-abstract: a name of 1..100 bytes is needed");
  expect_usage_error({"--canary", "relative/path"}, "--canary: \"relative/path\" is not an absolute path");
  expect_usage_error({"--timeout-ms", "99"}, "--timeout-ms: \"99\" is not 100..600000");
}

TEST(ProbeOptions, UsageTextNamesEveryOptionAndTheExitStatuses) {
  const std::string usage = usage_text();
  for (const char* option :
       {"--json", "--failures-only", "--list", "--only", "--checks-passed", "--target-pid", "--net-targets", "--host-loopback-port",
        "--host-abstract", "--canary", "--timeout-ms", "--selftest", "--version", "--help"})
    EXPECT_NE(usage.find(option), std::string::npos) << option;
  EXPECT_NE(usage.find("64 usage error"), std::string::npos);
}

}  // namespace
}  // namespace cordon::probe
