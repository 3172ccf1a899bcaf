// What the proxy answers when it does not relay: short plain-text HTTP responses whose body
// says what happened and, for a denial, which configuration key would allow it. Pure code.
#pragma once

#include <string>
#include <string_view>

namespace cordon::egress {

// A complete response with Content-Length and Connection: close. `denied_code` non-empty
// adds X-Cordon-Denied: CODE.
std::string http_response(int status, std::string_view body, std::string_view denied_code = {});

struct Denial {
  std::string code;  // X-Cordon-Denied: not-allowed, denied-by-rule, refused-address, raw-ip
  std::string why;   // for the log's "reason" and the body
  std::string fix;   // the body's second line
};

// The destination is not on the allow-list (a name), or a raw IP no IP rule covers.
Denial deny_not_allowed(const std::string& destination);
Denial deny_raw_ip(const std::string& destination);
Denial deny_by_rule(const std::string& destination, const std::string& rule_text);
// `host` resolved (or is) `address`, inside the refused `range`.
Denial deny_refused_address(const std::string& host, const std::string& address, const std::string& range, int port);

std::string denial_body(const std::string& destination, const Denial& denial);

}  // namespace cordon::egress
