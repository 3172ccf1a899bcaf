// The session file: one versioned JSON document; every fact survives the round trip, whatever
// bytes it holds, and a reader refuses what it cannot read instead of guessing.
#include "common/intent.h"

#include <gtest/gtest.h>

#include "common/json_codec.h"
#include "launcher/commands/status.h"

namespace cordon {
namespace {

SessionIntent full_intent(const std::string& odd) {
  SessionIntent s;
  s.config = {"/etc/cordon/" + odd, "/etc/cordon/cordon.toml", true};
  s.agent = {"claude", {".claude", odd}, {".claude/settings.json", odd}, "/usr/local/bin/" + odd, {"--settings", odd}};
  s.home = {"/home/" + odd, "/home/acct-" + odd, {".x\nwritable /", odd}};
  s.workspace = "/src/" + odd;
  s.terminal = {"136:7", true, {"status", odd}};
  s.writable = {"/src/" + odd, "/var/cache/tool"};
  s.env_names = {"IS_SANDBOX", odd};
  s.libexec = "/usr/libexec/cordon";
  s.host_namespaces = {{"pid", "pid:[4026531836]"}, {"net", "net:[4026531840]"}};
  s.network = {NetworkMode::EgressJail,
               {"10.0.0.0/8"},
               {"169.254.0.0/16"},
               {"198.51.100.53/32"},
               "192.0.2.1",
               "198.51.100.53",
               "",
               {},
               {},
               {}};
  s.limits = {{"core=0", "nofile=1024", "pids_max=512", "wall_clock_seconds=28800"},
              {{"pids", "/sys/fs/cgroup/" + odd}}};
  s.last_verify = "2026-12-01T10:00:00Z PASS " + odd;
  return s;
}

void expect_same(const SessionIntent& a, const SessionIntent& b) {
  EXPECT_EQ(a.config.path, b.config.path);
  EXPECT_EQ(a.config.fixed_path, b.config.fixed_path);
  EXPECT_EQ(a.config.found, b.config.found);
  EXPECT_EQ(a.agent.name, b.agent.name);
  EXPECT_EQ(a.agent.home, b.agent.home);
  EXPECT_EQ(a.agent.binary, b.agent.binary);
  EXPECT_EQ(a.agent.args, b.agent.args);
  EXPECT_EQ(a.home.account_path, b.home.account_path);
  EXPECT_EQ(a.home.path, b.home.path);
  EXPECT_EQ(a.home.keep_read_only, b.home.keep_read_only);
  EXPECT_EQ(a.terminal.operator_device, b.terminal.operator_device);
  EXPECT_EQ(a.terminal.private_pty, b.terminal.private_pty);
  EXPECT_EQ(a.terminal.pass, b.terminal.pass);
  EXPECT_EQ(a.workspace, b.workspace);
  EXPECT_EQ(a.writable, b.writable);
  EXPECT_EQ(a.env_names, b.env_names);
  EXPECT_EQ(a.libexec, b.libexec);
  EXPECT_EQ(a.host_namespaces, b.host_namespaces);
  EXPECT_EQ(a.network.mode, b.network.mode);
  EXPECT_EQ(a.network.blackholes, b.network.blackholes);
  EXPECT_EQ(a.network.unreachable, b.network.unreachable);
  EXPECT_EQ(a.network.allow, b.network.allow);
  EXPECT_EQ(a.network.gateway, b.network.gateway);
  EXPECT_EQ(a.network.dns_forward, b.network.dns_forward);
  EXPECT_EQ(a.limits.values, b.limits.values);
  EXPECT_EQ(a.limits.cgroup_parents, b.limits.cgroup_parents);
  EXPECT_EQ(a.last_verify, b.last_verify);
}

TEST(Intent, EveryFactRoundTripsWhateverItsBytes) {
  for (const std::string& odd : {std::string("plain"), std::string("new\nline \"q\" \\"), std::string("n\0l", 3),
                                 std::string("\xff\xfe"), std::string("\xc0\xaf"), std::string("\xed\xa0\x80")}) {
    const SessionIntent intent = full_intent(odd);
    const std::string text = serialize_session(intent);
    EXPECT_EQ(text.find('\n'), text.size() - 1) << "one line, newline-terminated";
    EXPECT_NO_THROW(Json::parse(text)) << "strict JSON";
    std::string problem;
    auto parsed = parse_session(text, &problem);
    ASSERT_TRUE(parsed) << problem;
    expect_same(*parsed, intent);
  }
}

// Allowlist members, with the rules a run added (`cordon run --allow`).
TEST(Intent, AnAllowlistSessionKeepsItsRunsOwnRules) {
  SessionIntent intent = full_intent("plain");
  intent.network = {};
  intent.network.mode = NetworkMode::Allowlist;
  intent.network.proxy = "127.0.0.1:3128";
  intent.network.proxy_allow = {"api.anthropic.com", "registry.npmjs.org"};
  intent.network.proxy_deny = {"evil.test"};
  intent.network.proxy_run_allow = {"registry.npmjs.org"};
  std::string problem;
  auto parsed = parse_session(serialize_session(intent), &problem);
  ASSERT_TRUE(parsed) << problem;
  EXPECT_EQ(parsed->network.proxy_allow, intent.network.proxy_allow);
  EXPECT_EQ(parsed->network.proxy_deny, intent.network.proxy_deny);
  EXPECT_EQ(parsed->network.proxy_run_allow, intent.network.proxy_run_allow);
}

TEST(Intent, AHomeKeepEntryWithANewlineStaysOneStringAndAddsNoWritablePath) {
  SessionIntent intent;
  intent.home.keep_read_only = {".x\nwritable /"};
  intent.writable = {"/src/app"};
  std::string problem;
  auto parsed = parse_session(serialize_session(intent), &problem);
  ASSERT_TRUE(parsed) << problem;
  EXPECT_EQ(parsed->home.keep_read_only, std::vector<std::string>{".x\nwritable /"});
  EXPECT_EQ(parsed->writable, std::vector<std::string>{"/src/app"});
}

TEST(Intent, DocumentNamesItsFormatAndVersion) {
  Json document = Json::parse(serialize_session(full_intent("x")));
  EXPECT_EQ(document["format"], "cordon-session");
  EXPECT_EQ(document["version"], 2);
  EXPECT_EQ(document["network"]["mode"], "egress-jail");
  EXPECT_EQ(document["limits"]["values"]["nofile"], 1024);
  EXPECT_EQ(document["home"]["keep_read_only"][0], ".x\nwritable /");
}

TEST(Intent, ReadersRefuseWhatTheyCannotRead) {
  std::string problem;
  EXPECT_FALSE(parse_session("cordon-session 1\nworkspace /src\n", &problem));
  EXPECT_NE(problem.find("not a cordon session file (not JSON"), std::string::npos) << problem;
  EXPECT_FALSE(parse_session(R"({"format":"cordon-session","version":3})", &problem));
  EXPECT_NE(problem.find("version 3"), std::string::npos) << problem;
  EXPECT_FALSE(parse_session(R"({"format":"cordon-manifest","version":2})", &problem));
  EXPECT_NE(problem.find("not a cordon session file"), std::string::npos) << problem;
  EXPECT_FALSE(parse_session(R"({"format":"cordon-session","version":2,"writable":"/"})", &problem));
  EXPECT_NE(problem.find("malformed"), std::string::npos) << problem;
}

TEST(Intent, UnknownMembersAreIgnoredAndMissingOnesDefault) {
  std::string problem;
  auto parsed = parse_session(R"({"format":"cordon-session","version":2,"later":{"x":1},"workspace":"/w"})", &problem);
  ASSERT_TRUE(parsed) << problem;
  EXPECT_EQ(parsed->workspace, "/w");
  EXPECT_TRUE(parsed->writable.empty());
  EXPECT_FALSE(parsed->network.jailed());
}

TEST(Intent, StatusJsonIsStrictJsonForHostileBytes) {
  StatusView view{true, full_intent("\xff\n\""), ""};
  Json status = Json::parse(render_status_json(view));
  EXPECT_EQ(status["format"], "cordon-status");
  EXPECT_EQ(status["inside_sandbox"], true);
  EXPECT_EQ(bytes_from_json(status["workspace"]), "/src/\xff\n\"");
}

}  // namespace
}  // namespace cordon
