#include "egress_proxy/request.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// The X-Cordon-Denied code of a refusal ("" when accepted or without one).
std::string code(std::string_view head) {
  auto parsed = parse_request(head);
  auto* e = std::get_if<RequestError>(&parsed);
  return e ? e->code : "";
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

// Found by tests/fuzz/fuzz_proxy_request: "." passed the empty-host check, then lost its
// trailing dot and became an empty host (destination ":80").
TEST(ParseRequest, AHostThatIsADotAloneIsMissing) {
  EXPECT_NE(error("GET http://./ HTTP/1.1\r\nHost: a\r\n\r\n").find("missing or overlong host"), std::string::npos);
  EXPECT_NE(error("CONNECT .:443 HTTP/1.1\r\n\r\n").find("missing or overlong host"), std::string::npos);
  EXPECT_EQ(ok("CONNECT a.test.:443 HTTP/1.1\r\n\r\n").host, "a.test");
}

// The bytes RFC 9112 never allows where a proxy forwards them: 0x00-0x1F and 0x7F. LF is the
// line end, so it cannot sit inside a line; HTAB is allowed in a header value only.
std::vector<char> control_bytes() {
  std::vector<char> out;
  for (int b = 0; b < 0x20; ++b)
    if (b != '\n') out.push_back(char(b));
  out.push_back(char(0x7F));
  return out;
}

std::string hex(char c) {
  const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[(c >> 4) & 0xF] + digits[c & 0xF];
}

TEST(ParseRequest, ControlByteInAHeaderValueIsRefused) {
  for (char c : control_bytes()) {
    if (c == '\t') continue;
    for (const std::string& value : {"a" + std::string(1, c) + "b", std::string(1, c) + "ab", "ab" + std::string(1, c)})
      for (const char* method : {"GET http://a.test/", "CONNECT a.test:443"}) {
        std::string head = std::string(method) + " HTTP/1.1\r\nHost: a.test\r\nX-Evil: " + value + "\r\n\r\n";
        EXPECT_NE(error(head).find("control character in a header value (X-Evil)"), std::string::npos)
            << hex(c) << " " << method;
        EXPECT_EQ(code(head), "control-character-in-header-value") << hex(c);
      }
  }
  // The audit's case: a bare CR, which some origins read as a line end (a smuggled header).
  EXPECT_NE(error("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX-A: 1\rX-Smuggled: 2\r\n\r\n")
                .find("control character in a header value"),
            std::string::npos);
}

TEST(ParseRequest, TabAndObsTextInAHeaderValueAreKept) {
  auto r = ok("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX-A: a\tb\r\nX-B: caf\xc3\xa9\r\n\r\n");
  EXPECT_NE(r.forward_head.find("\r\nX-A: a\tb\r\n"), std::string::npos) << r.forward_head;
  EXPECT_NE(r.forward_head.find("\r\nX-B: caf\xc3\xa9\r\n"), std::string::npos) << r.forward_head;
}

TEST(ParseRequest, ControlByteInTheRequestTargetIsRefused) {
  for (char c : control_bytes()) {
    std::string b(1, c);
    for (const std::string& target : {"http://a.test/x" + b + "y", "http://a.test/?q=" + b, "http://a" + b + ".test/",
                                      "a.test:44" + b + "3", "a.test" + b + ":443", b + "a.test:443"}) {
      std::string method = target.rfind("http", 0) == 0 ? "GET " : "CONNECT ";
      std::string head = method + target + " HTTP/1.1\r\nHost: a.test\r\n\r\n";
      EXPECT_NE(error(head).find("control character in the request target"), std::string::npos)
          << hex(c) << " " << target;
      EXPECT_EQ(code(head), "control-character-in-target") << hex(c);
    }
  }
  // A space splits the request line: refused as a malformed line.
  EXPECT_NE(error("GET http://a.test/x y HTTP/1.1\r\nHost: a.test\r\n\r\n").find("request line"), std::string::npos);
  EXPECT_NE(error("CONNECT a.test :443 HTTP/1.1\r\n\r\n").find("request line"), std::string::npos);
}

TEST(ParseRequest, HeaderNameMustBeAToken) {
  std::vector<std::string> names = {"X A", "X-A ", "X-A\t", "X\"A", "X(A)", "X/A", "X\xc3\xa9", "X@A", "X[A]"};
  for (char c : control_bytes()) names.push_back("X" + std::string(1, c) + "A");
  for (const auto& name : names) {
    std::string head = "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n" + name + ": v\r\n\r\n";
    std::string message = error(head);
    EXPECT_NE(message.find("invalid header name"), std::string::npos) << hex(name[1]) << ": " << message;
    EXPECT_EQ(code(head), "invalid-header-name");
    for (char c : message) EXPECT_TRUE(c >= 0x20 && c < 0x7F) << "echoed a raw byte " << hex(c) << " in " << message;
  }
  EXPECT_NE(error("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n: v\r\n\r\n").find("invalid header name"),
            std::string::npos);
  // A line without a colon is still reported as such, its bytes quoted printably.
  EXPECT_EQ(error("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nno\x01"
                  "colon\r\n\r\n"),
            "malformed header line \"no?colon\"");
}

// A line ended by LF alone, then an empty CRLF line: that empty line ends the head (the parser
// stops there, so the head cannot run on past it).
TEST(FindHeadEnd, FirstEmptyLineEndsTheHeadWhateverItsLineEnd) {
  std::string head = "GET http://a.test/ HTTP/1.1\nHost: a.test\n\r\n";
  EXPECT_EQ(find_head_end(head + "X-After: 1\r\n\r\n"), head.size());
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\r\nHost: a\r\n\nbody"), 26u);
}

}  // namespace
}  // namespace cordon::egress
