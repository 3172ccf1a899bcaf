#include <gtest/gtest.h>

#include <cerrno>

#include "common/build_config.h"
#include "common/error.h"
#include "common/network_opt_out.h"

namespace cordon {
namespace {

TEST(ErrnoName, SymbolicNames) {
  EXPECT_EQ(errno_name(0), "success");
  EXPECT_EQ(errno_name(EPERM), "EPERM");
  EXPECT_EQ(errno_name(ENOENT), "ENOENT");
  EXPECT_EQ(errno_name(ECONNREFUSED), "ECONNREFUSED");
  EXPECT_EQ(errno_name(99999), "errno 99999");
}

TEST(EgressOptOut, NamesTheConfigurationFile) {
  EXPECT_EQ(egress_jail_opt_out(),
            std::string("set [network] mode = \"offline\" (no network at all; needs no pasta) or mode = \"host\" (no "
                        "confinement) in ") +
                build::kConfigPath);
  EXPECT_NE(egress_jail_opt_out("/tmp/c.toml").find("mode = \"host\" (no confinement) in /tmp/c.toml"),
            std::string::npos);
}

}  // namespace
}  // namespace cordon
