#include "egress_proxy/request.h"

#include <gtest/gtest.h>

namespace cordon::egress {
namespace {

ProxyRequest ok(std::string_view head) {
  auto parsed = parse_request(head);
  if (auto* e = std::get_if<RequestError>(&parsed)) {
    ADD_FAILURE() << e->message;
    return {};
  }
  return std::get<ProxyRequest>(parsed);
}

std::string error(std::string_view head) {
  auto parsed = parse_request(head);
  if (auto* e = std::get_if<RequestError>(&parsed)) {
    EXPECT_EQ(e->status, 400);
    return e->message;
  }
  ADD_FAILURE() << "accepted: " << head;
  return {};
}

TEST(FindHeadEnd, CrlfAndLf) {
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\r\nHost: a\r\n\r\nbody"), 27u);
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\nHost: a\n\nbody"), 24u);
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\r\nHost: a\r\n"), std::string_view::npos);
}

TEST(ParseRequest, Connect) {
  auto r = ok("CONNECT API.example.com.:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n");
  EXPECT_EQ(r.form, ProxyRequest::Form::Connect);
  EXPECT_EQ(r.method, "CONNECT");
  EXPECT_EQ(r.host, "api.example.com");
  EXPECT_EQ(r.port, 443);
  EXPECT_EQ(r.destination(), "api.example.com:443");
  EXPECT_EQ(ok("CONNECT 203.0.113.5:22 HTTP/1.0\r\n\r\n").port, 22);
}

TEST(ParseRequest, AbsoluteFormIsRewrittenToOriginForm) {
  auto r = ok(
      "POST http://allowed.test:8080/a/b?q=1#frag HTTP/1.1\r\nHost: allowed.test:8080\r\n"
      "Proxy-Authorization: Basic eDp5\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive\r\n"
      "Keep-Alive: 5\r\nUser-Agent: t\r\nContent-Length: 3\r\n\r\n");
  EXPECT_EQ(r.form, ProxyRequest::Form::Absolute);
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.destination(), "allowed.test:8080");
  EXPECT_EQ(r.forward_head,
            "POST /a/b?q=1 HTTP/1.1\r\nHost: allowed.test:8080\r\nUser-Agent: t\r\nContent-Length: 3\r\n"
            "Connection: close\r\n\r\n");
}

TEST(ParseRequest, AbsoluteFormDefaultsPortAndPath) {
  auto r = ok("GET http://Allowed.Test HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.destination(), "allowed.test:80");
  EXPECT_EQ(r.forward_head, "GET / HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(ok("GET http://a.test?x HTTP/1.1\r\nHost: a.test\r\n\r\n").forward_head.substr(0, 18),
            "GET /?x HTTP/1.1\r\n");
}

TEST(ParseRequest, RejectsOtherFormsWithAReason) {
  EXPECT_NE(error("GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n").find("origin-form"), std::string::npos);
  EXPECT_NE(error("GET https://a.test/ HTTP/1.1\r\nHost: a\r\n\r\n").find("http://"), std::string::npos);
  EXPECT_NE(error("GET http://a.test/ HTTP/1.1\r\n\r\n").find("Host"), std::string::npos);
  EXPECT_NE(error("GET http://u:p@a.test/ HTTP/1.1\r\nHost: a\r\n\r\n").find("userinfo"), std::string::npos);
  EXPECT_NE(error("CONNECT a.test HTTP/1.1\r\n\r\n").find("port"), std::string::npos);
  EXPECT_NE(error("CONNECT a.test:0 HTTP/1.1\r\n\r\n").find("port"), std::string::npos);
  EXPECT_NE(error("CONNECT a.test:99999 HTTP/1.1\r\n\r\n").find("port"), std::string::npos);
  EXPECT_NE(error("CONNECT [::1]:443 HTTP/1.1\r\n\r\n").find("IPv6"), std::string::npos);
  EXPECT_NE(error("CONNECT a%2e.test:443 HTTP/1.1\r\n\r\n").find("invalid character"), std::string::npos);
  EXPECT_NE(error("GET http://a.test/ HTTP/2.0\r\nHost: a\r\n\r\n").find("request line"), std::string::npos);
  EXPECT_NE(error("\x16\x03\x01garbage\r\n\r\n").find("request line"), std::string::npos);
  EXPECT_NE(error("GET  http://a.test/ HTTP/1.1\r\nHost: a\r\n\r\n").find("request line"), std::string::npos);
  EXPECT_NE(error("GET http://a.test/ HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n").find("folded"), std::string::npos);
  EXPECT_NE(error("GET http://a.test/ HTTP/1.1\r\nHost: a\r\nno colon\r\n\r\n").find("malformed header"),
            std::string::npos);
  EXPECT_NE(error("\r\n\r\n").find("empty"), std::string::npos);
}

}  // namespace
}  // namespace cordon::egress
