// The two request forms the proxy serves, parsed from a complete request head:
//   CONNECT host:port HTTP/1.x                  -> a tunnel
//   METHOD http://host[:port]/path HTTP/1.x     -> one request forwarded in origin-form
// Everything else (origin-form, https:// or other schemes, userinfo, IPv6 literals, folded or
// malformed headers, a missing Host) is a client error with a short explanation. So is every
// byte RFC 9112 never allows where the proxy would forward it: a control byte (0x00-0x1F, 0x7F)
// in the request target or, HTAB aside, in a header value, and a header name that is not a
// token. An origin may read such a byte differently from the proxy (a bare CR as a line end:
// a header the proxy never saw); refusing is the only reading both sides share. Pure code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace cordon::egress {

struct ProxyRequest {
  enum class Form { Connect, Absolute };
  Form form = Form::Connect;
  std::string method;
  std::string host;  // as the client wrote it (lowercased, trailing dot removed)
  uint16_t port = 0;
  // Absolute form: the head to send to the origin (origin-form request line, the client's
  // headers minus Proxy-*, Connection, Keep-Alive and Host, then Host and Connection: close).
  std::string forward_head;

  std::string destination() const { return host + ":" + std::to_string(port); }
};

struct RequestError {
  int status = 400;
  std::string message;
  std::string code;  // for X-Cordon-Denied (the byte-level refusals); empty: no such header
};

// Where the head ends (the index just past its first empty line), or npos while incomplete.
// Lines end in CRLF or, leniently, LF; an empty line is CRLF or LF after either.
size_t find_head_end(std::string_view buffer);

std::variant<ProxyRequest, RequestError> parse_request(std::string_view head);

}  // namespace cordon::egress
