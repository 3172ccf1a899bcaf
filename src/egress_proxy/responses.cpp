#include "egress_proxy/responses.h"

#include "common/build_config.h"

namespace cordon::egress {
namespace {

const char* status_text(int status) {
  switch (status) {
    case 200: return "Connection established";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 408: return "Request Timeout";
    case 431: return "Request Header Fields Too Large";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Error";
  }
}

std::string in_config() { return std::string(" in ") + build::kConfigPath; }

}  // namespace

std::string http_response(int status, std::string_view body, std::string_view denied_code) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + status_text(status) + "\r\n";
  if (!denied_code.empty()) out.append("X-Cordon-Denied: ").append(denied_code).append("\r\n");
  out += "Content-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n";
  out.append(body);
  return out;
}

Denial deny_not_allowed(const std::string& destination) {
  return {"not-allowed", "not in the allow-list", "add \"" + destination + "\" to [network] allow" + in_config()};
}

Denial deny_raw_ip(const std::string& destination) {
  return {"raw-ip", "raw IP destinations are not allowed without an IP rule",
          "add \"" + destination + "\" to [network] allow" + in_config()};
}

Denial deny_by_rule(const std::string& destination, const std::string& rule_text) {
  return {"denied-by-rule", "denied by rule \"" + rule_text + "\" in [network] deny",
          "remove or narrow \"" + rule_text + "\" in [network] deny" + in_config() + " to reach " + destination};
}

Denial deny_refused_address(const std::string& host, const std::string& address, const std::string& range, int port) {
  return {"refused-address",
          host + " resolves to a refused address " + address + " (in " + range +
              ": loopback, private, link-local, multicast or a host subnet)",
          "if " + address + " is meant to be reachable, add \"" + address + ":" + std::to_string(port) +
              "\" to [network] allow" + in_config()};
}

std::string denial_body(const std::string& destination, const Denial& denial) {
  return "cordon egress proxy: " + destination + " denied: " + denial.why + ".\nTo allow it: " + denial.fix + ".\n";
}

}  // namespace cordon::egress
