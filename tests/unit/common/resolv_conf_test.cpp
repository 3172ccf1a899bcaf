#include "common/resolv_conf.h"

#include <gtest/gtest.h>

namespace cordon {
namespace {

TEST(ResolvConf, NameserverLinesInOrderAndNothingElse) {
  EXPECT_EQ(resolv_conf_nameservers("# a comment\nnameserver 10.0.0.2\nsearch lab.test\n nameserver  127.0.0.53 \n"
                                    "nameserver\noptions edns0\nnameserver ::1\n"),
            (std::vector<std::string>{"10.0.0.2", "127.0.0.53", "::1"}));
  EXPECT_TRUE(resolv_conf_nameservers("").empty());
}

}  // namespace
}  // namespace cordon
