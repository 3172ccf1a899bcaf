// A Connection served over a socketpair, reclaimed while its client is still sending the head.
#include "egress_proxy/connection.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>

namespace cordon::egress {
namespace {

// Reads until EOF or the 5 s receive timeout (a bound, not a wait the test relies on).
std::string read_all(int fd) {
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  return out;
}

TEST(ConnectionReclaim, AClientStillSendingItsHeadGets408AndTheRecordSaysReclaimed) {
  int sv[2], log_pipe[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  ASSERT_EQ(::pipe2(log_pipe, O_CLOEXEC), 0);
  UniqueFd client(sv[0]), log_read(log_pipe[0]), log_write(log_pipe[1]);
  ::fcntl(sv[1], F_SETFL, O_NONBLOCK);
  Options options;
  options.max_connections = 8;
  EgressRules rules;
  AddressPolicy policy(rules, {});
  DecisionLog log(log_write.get());
  ServeContext ctx{options, rules, policy, log};
  auto connection = std::make_shared<Connection>(UniqueFd(sv[1]));
  ASSERT_TRUE(connection->ready());
  std::string half = "GET http://a.test/ HTTP/1.1\r\nHo";
  ASSERT_EQ(::write(client.get(), half.data(), half.size()), ssize_t(half.size()));
  std::thread serving([&] { connection->serve(ctx); });
  EXPECT_EQ(connection->slot_view(Connection::Clock::now()).phase, Phase::Head);
  EXPECT_TRUE(connection->reclaim(std::chrono::seconds(30)));                     // a head reader: at once
  EXPECT_FALSE(connection->reclaim(std::chrono::seconds(30)));                    // only once
  EXPECT_EQ(connection->slot_view(Connection::Clock::now()).phase, Phase::Done);  // never chosen again
  serving.join();
  EXPECT_TRUE(connection->finished());
  std::string answer = read_all(client.get());
  EXPECT_EQ(answer.rfind("HTTP/1.1 408 Request Timeout\r\n", 0), 0u) << answer;
  EXPECT_NE(answer.find("was reclaimed for another; retry"), std::string::npos) << answer;
  log_write.reset();
  std::string line = read_all(log_read.get());
  EXPECT_NE(line.find("\"status\":408"), std::string::npos) << line;
  EXPECT_NE(line.find("\"ended\":\"reclaimed: idle while the proxy was full\""), std::string::npos) << line;
}

TEST(ConnectionReclaim, WakeEndsTheSessionWithoutAReclaim) {
  int sv[2], log_pipe[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  ASSERT_EQ(::pipe2(log_pipe, O_CLOEXEC), 0);
  UniqueFd client(sv[0]), log_read(log_pipe[0]), log_write(log_pipe[1]);
  ::fcntl(sv[1], F_SETFL, O_NONBLOCK);
  Options options;
  EgressRules rules;
  AddressPolicy policy(rules, {});
  DecisionLog log(log_write.get());
  ServeContext ctx{options, rules, policy, log};
  auto connection = std::make_shared<Connection>(UniqueFd(sv[1]));
  std::thread serving([&] { connection->serve(ctx); });
  connection->wake();
  serving.join();
  log_write.reset();
  std::string line = read_all(log_read.get());
  EXPECT_NE(line.find("\"ended\":\"session ended\""), std::string::npos) << line;
}

}  // namespace
}  // namespace cordon::egress
