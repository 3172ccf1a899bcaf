// The relay over socketpairs: client <-> [a|b] relay [c|d] <-> origin.
#include "egress_proxy/relay.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "common/unique_fd.h"

namespace cordon::egress {
namespace {

struct Pair {
  UniqueFd outer, inner;  // inner goes to the relay, non-blocking
  Pair() {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    outer.reset(sv[0]);
    inner.reset(sv[1]);
    ::fcntl(sv[1], F_SETFL, O_NONBLOCK);
  }
};

std::string read_all(int fd) {
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  return out;
}

TEST(Relay, CopiesBothWaysAndHalfCloses) {
  Pair client, origin;
  RelayCounters counters;
  RelayResult result;
  std::thread t([&] { result = relay(client.inner.get(), origin.inner.get(), {5000, -1, true}, counters); });
  std::string up(3 << 20, 'u');
  std::thread writer([&] {
    for (size_t at = 0; at < up.size();) at += size_t(::write(client.outer.get(), up.data() + at, up.size() - at));
    ::shutdown(client.outer.get(), SHUT_WR);
  });
  std::string got_up = read_all(origin.outer.get());  // ends at the relayed half-close
  writer.join();
  std::string reply = "HTTP/1.1 204 No Content\r\n\r\n";
  ASSERT_EQ(::write(origin.outer.get(), reply.data(), reply.size()), ssize_t(reply.size()));
  ::shutdown(origin.outer.get(), SHUT_WR);
  EXPECT_EQ(read_all(client.outer.get()), reply);
  t.join();
  EXPECT_EQ(got_up.size(), up.size());
  EXPECT_EQ(counters.up.load(), up.size());
  EXPECT_EQ(counters.down.load(), reply.size());
  EXPECT_EQ(result.end, RelayEnd::Closed);
  EXPECT_EQ(result.origin_status, 204);
}

TEST(Relay, IdleTimeoutEnds) {
  Pair client, origin;
  RelayCounters counters;
  RelayResult result = relay(client.inner.get(), origin.inner.get(), {50, -1, false}, counters);
  EXPECT_EQ(result.end, RelayEnd::Idle);
  EXPECT_STREQ(relay_end_text(result.end), "idle timeout");
}

TEST(Relay, StopFdEndsTheSession) {
  Pair client, origin;
  RelayCounters counters;
  UniqueFd stop(::eventfd(1, EFD_CLOEXEC));
  RelayResult result = relay(client.inner.get(), origin.inner.get(), {60000, stop.get(), false}, counters);
  EXPECT_EQ(result.end, RelayEnd::Stopped);
  EXPECT_STREQ(relay_end_text(result.end), "session ended");
}

}  // namespace
}  // namespace cordon::egress
