#include "egress_proxy/options.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace cordon::egress {
namespace {

TEST(ProxyOptions, ParsesEveryOption) {
  Options o = parse_options({"--listen-fd",
                             "3",
                             "--log-fd",
                             "4",
                             "--allow",
                             "a.test",
                             "--allow",
                             "*.b.test:22",
                             "--deny",
                             "c.b.test",
                             "--refuse",
                             "192.0.2.0/24",
                             "--max-connections",
                             "8",
                             "--max-header-bytes",
                             "4096",
                             "--idle-seconds",
                             "5",
                             "--connect-timeout-seconds",
                             "2",
                             "--header-timeout-seconds",
                             "3",
                             "--reclaim-idle-seconds",
                             "4",
                             "--landlock",
                             "required"});
  EXPECT_EQ(o.listen_fd, 3);
  EXPECT_EQ(o.log_fd, 4);
  EXPECT_EQ(o.allow, (std::vector<std::string>{"a.test", "*.b.test:22"}));
  EXPECT_EQ(o.deny, (std::vector<std::string>{"c.b.test"}));
  ASSERT_EQ(o.refuse.size(), 1u);
  EXPECT_EQ(o.refuse[0].str(), "192.0.2.0/24");
  EXPECT_EQ(o.max_connections, 8);
  EXPECT_EQ(o.max_header_bytes, 4096u);
  EXPECT_EQ(o.idle_seconds, 5);
  EXPECT_EQ(o.connect_timeout_seconds, 2);
  EXPECT_EQ(o.header_timeout_seconds, 3);
  EXPECT_EQ(o.reclaim_idle_seconds, 4);
  EXPECT_EQ(o.landlock, LandlockMode::Required);
  EXPECT_EQ(parse_options({"--listen-fd", "3", "--log-fd", "4", "--landlock", "off"}).landlock, LandlockMode::Off);
}

TEST(ProxyOptions, Defaults) {
  Options o = parse_options({"--listen-fd", "3", "--log-fd", "4"});
  EXPECT_EQ(o.max_connections, 64);
  EXPECT_EQ(o.max_header_bytes, 16384u);
  EXPECT_EQ(o.idle_seconds, 300);
  EXPECT_EQ(o.connect_timeout_seconds, 10);
  EXPECT_EQ(o.header_timeout_seconds, 10);
  EXPECT_EQ(o.reclaim_idle_seconds, 30);
  EXPECT_EQ(o.landlock, LandlockMode::Auto);
  EXPECT_FALSE(o.test_no_confine);
  EXPECT_TRUE(parse_options({"--help"}).help);
}

TEST(ProxyOptions, UsageErrors) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--listen-fd", "3"},
                                             {"--listen-fd", "x", "--log-fd", "4"},
                                             {"--listen-fd", "3", "--log-fd"},
                                             {"--listen-fd", "3", "--log-fd", "4", "--bogus", "1"},
                                             {"--listen-fd", "3", "--log-fd", "4", "--refuse", "::1"},
                                             {"--listen-fd", "3", "--log-fd", "4", "--max-connections", "0"},
                                             {"--listen-fd", "3", "--log-fd", "4", "--reclaim-idle-seconds", "0"},
                                             {"--listen-fd", "3", "--log-fd", "4", "--landlock", "on"}}) {
    try {
      parse_options(args);
      ADD_FAILURE() << "accepted " << args.back();
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 64);
    }
  }
}

}  // namespace
}  // namespace cordon::egress
