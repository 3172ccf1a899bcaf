#include "egress_proxy/responses.h"

#include <gtest/gtest.h>

#include "common/build_config.h"

namespace cordon::egress {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(HttpResponse, StatusLengthAndDeniedHeader) {
  std::string r = http_response(403, "no.\n", "not-allowed");
  EXPECT_EQ(r.rfind("HTTP/1.1 403 Forbidden\r\n", 0), 0u);
  EXPECT_TRUE(has(r, "\r\nX-Cordon-Denied: not-allowed\r\n"));
  EXPECT_TRUE(has(r, "\r\nContent-Length: 4\r\n"));
  EXPECT_TRUE(has(r, "\r\nConnection: close\r\n\r\nno.\n"));
  EXPECT_FALSE(has(http_response(400, "x"), "X-Cordon-Denied"));
  EXPECT_EQ(http_response(503, "").rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u);
}

TEST(DenialBody, NamesDestinationWhyAndTheConfigKey) {
  std::string body = denial_body("evil.test:443", deny_not_allowed("evil.test:443"));
  EXPECT_TRUE(has(body, "evil.test:443 denied: not in the allow-list"));
  EXPECT_TRUE(has(body, "add \"evil.test:443\" to [network] allow in " + std::string(build::kConfigPath)));
  EXPECT_TRUE(
      has(denial_body("d", deny_by_rule("a.test:80", "*.test")), "denied by rule \"*.test\" in [network] deny"));
  Denial refused = deny_refused_address("rebind.test", "10.1.2.3", "10.0.0.0/8", 80);
  EXPECT_EQ(refused.code, "refused-address");
  EXPECT_TRUE(has(refused.why, "resolves to a refused address 10.1.2.3"));
  EXPECT_TRUE(has(refused.fix, "add \"10.1.2.3:80\" to [network] allow"));
  EXPECT_EQ(deny_raw_ip("203.0.113.5:443").code, "raw-ip");
  EXPECT_TRUE(has(deny_raw_ip("203.0.113.5:443").fix, "\"203.0.113.5:443\" to [network] allow"));
}

}  // namespace
}  // namespace cordon::egress
