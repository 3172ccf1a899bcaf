// cordon-egress-proxy's own confinement (egress_proxy/confine.h), with the real binary started
// as the launcher starts it (network/proxy_process.h) on a loopback listening socket: the
// test-build probes (--test-probe-open, --test-probe-abstract) write what the confined proxy
// may still do on its messages fd. Each layer is seen denying, and the control
// (--test-no-confine) is seen doing the same. Nothing is resolved and nothing is sent: the
// proxy only listens on loopback.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <map>
#include <string>

#include "common/landlock_abi.h"
#include "common/unique_fd.h"
#include "launcher/network/proxy_process.h"
#include "support.h"

namespace cordon::proxy {
namespace {

using cordon::testing::loopback_listener;

const std::string kProxy = std::string(CORDON_BUILD_DIR) + "/libexec/cordon/cordon-egress-proxy";

class ProxyConfinement : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::access(kProxy.c_str(), X_OK), 0) << kProxy << " was not built";
    secret_ = dir_.path() + "/host-secret";
    cordon::testing::write_file(secret_, "not for the proxy\n");
    ::chmod(secret_.c_str(), 0644);
    abstract_fd_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un at{};
    at.sun_family = AF_UNIX;
    std::memcpy(at.sun_path + 1, abstract_.data(), abstract_.size());
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + abstract_.size());
    ASSERT_EQ(::bind(abstract_fd_.get(), reinterpret_cast<sockaddr*>(&at), len), 0);
    ASSERT_EQ(::listen(abstract_fd_.get(), 4), 0);
  }

  // Starts and stops the proxy with `extra` options; its stop problems in "stop", and each
  // "probe WHAT: RESULT" line as WHAT -> RESULT.
  std::map<std::string, std::string> run(const std::string& landlock, std::vector<std::string> extra) {
    extra.insert(extra.end(), {"--test-probe-open", secret_, "--test-probe-abstract", abstract_});
    UniqueFd listener = loopback_listener();
    EXPECT_TRUE(listener.valid());
    EgressProxy process;
    ProxyArgs args{{"example.test"}, {}, {}, extra};
    args.landlock = landlock;
    process.start(kProxy, std::move(listener), args);
    // The probes run before it serves; a short wait lets them finish before the stop.
    for (int i = 0; i < 100 && process.messages().find("probe abstract") == std::string::npos; ++i) ::usleep(20000);
    std::map<std::string, std::string> got;
    got["stop"] = process.stop();
    messages_ = process.messages();
    for (size_t at = messages_.find("probe "); at != std::string::npos; at = messages_.find("probe ", at + 1)) {
      const size_t colon = messages_.find(": ", at), nl = messages_.find('\n', at);
      if (colon == std::string::npos || nl == std::string::npos || colon > nl) continue;
      got[messages_.substr(at + 6, colon - at - 6)] = messages_.substr(colon + 2, nl - colon - 2);
    }
    return got;
  }

  cordon::testing::TempDir dir_{"/tmp/cordon-proxy-confine-"};
  std::string secret_;
  std::string abstract_ = "cordon-proxy-confine-" + std::to_string(::getpid());
  UniqueFd abstract_fd_;
  std::string messages_;
};

TEST_F(ProxyConfinement, ControlUnconfinedOpensExecsForksSignalsAndConnects) {
  auto got = run("auto", {"--test-no-confine"});
  EXPECT_EQ(got["stop"], "") << messages_;
  EXPECT_EQ(got["open " + secret_], "success") << messages_;
  EXPECT_EQ(got["open /etc/hosts"], "success") << messages_;
  EXPECT_EQ(got["exec"], "ENOENT") << messages_;
  EXPECT_EQ(got["fork"], "success") << messages_;
  if (::geteuid() == 0) {
    EXPECT_EQ(got["capabilities"], "some") << messages_;
  }
  EXPECT_EQ(got["signal parent"], "success") << messages_;
  EXPECT_EQ(got["abstract " + abstract_], "success") << messages_;
}

TEST_F(ProxyConfinement, ConfinedReadsOnlyWhatResolutionReadsAndNeitherExecsNorForks) {
  auto got = run("auto", {});
  EXPECT_EQ(got["stop"], "") << messages_;
  EXPECT_EQ(got["exec"], "EPERM") << messages_;  // the helpers' seccomp filter
  EXPECT_EQ(got["fork"], "EPERM") << messages_;
  EXPECT_EQ(got["capabilities"], "none") << messages_;
  EXPECT_EQ(got["open /etc/hosts"], "success") << messages_;  // name resolution still reads it
  const int abi = landlock::landlock_abi().abi;
  if (abi < 1) GTEST_SKIP() << "no Landlock on this kernel: only the filter is seen";
  EXPECT_EQ(got["open " + secret_], "EACCES") << messages_;
  if (abi < 6) GTEST_SKIP() << "Landlock ABI " << abi << ": no scopes to see";
  EXPECT_EQ(got["signal parent"], "EPERM") << messages_;
  EXPECT_EQ(got["abstract " + abstract_], "EPERM") << messages_;
}

TEST_F(ProxyConfinement, LandlockOffKeepsTheFilter) {
  auto got = run("off", {});
  EXPECT_EQ(got["stop"], "") << messages_;
  EXPECT_EQ(got["open " + secret_], "success") << messages_;
  EXPECT_EQ(got["exec"], "EPERM") << messages_;
  EXPECT_EQ(got["abstract " + abstract_], "success") << messages_;
}

TEST_F(ProxyConfinement, RequiredWithoutLandlockStopsWithWhatAndFix) {
  auto got = run("required", {"--test-landlock-abi", "0"});
  EXPECT_NE(got["stop"].find("exited with status 125"), std::string::npos) << got["stop"];
  EXPECT_NE(messages_.find("landlock = \"required\""), std::string::npos) << messages_;
  EXPECT_NE(messages_.find("set [sandbox] landlock = \"auto\""), std::string::npos) << messages_;
  EXPECT_EQ(got.count("exec"), 0u) << "it went on past the refusal: " << messages_;
}

TEST_F(ProxyConfinement, AutoWithoutLandlockServesUnderTheFilter) {
  auto got = run("auto", {"--test-landlock-abi", "0"});
  EXPECT_EQ(got["stop"], "") << messages_;
  EXPECT_EQ(got["open " + secret_], "success") << messages_;
  EXPECT_EQ(got["exec"], "EPERM") << messages_;
}

}  // namespace
}  // namespace cordon::proxy
