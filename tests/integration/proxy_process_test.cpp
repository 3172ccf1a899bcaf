// The allowlist proxy as the launcher starts and stops it (network/proxy_process.h), with the
// real cordon-egress-proxy binary on a loopback listening socket: a stop that comes at once,
// before the proxy has set up its signal handling, must still be a clean stop (exit 0), never
// a teardown failure. Loopback only; nothing is sent.
#include "launcher/network/proxy_process.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "common/unique_fd.h"
#include "support.h"

namespace cordon::proxy {
namespace {

using cordon::testing::loopback_listener;

// Before the fix about one stop in two came before the proxy blocked SIGTERM: it died by the
// signal's default action and the launcher reported "exited with status 143".
TEST(ProxyProcess, AStopRightAfterTheStartIsClean) {
  const std::string proxy = std::string(CORDON_BUILD_DIR) + "/libexec/cordon/cordon-egress-proxy";
  ASSERT_EQ(::access(proxy.c_str(), X_OK), 0) << proxy << " was not built";
  for (int i = 0; i < 20; ++i) {
    UniqueFd listener = loopback_listener();
    ASSERT_TRUE(listener.valid());
    EgressProxy process;
    process.start(proxy, std::move(listener), ProxyArgs{{"example.test"}, {}, {}, {}});
    EXPECT_EQ(process.stop(), "") << "stop " << i << ": " << process.messages();
  }
}

}  // namespace
}  // namespace cordon::proxy
