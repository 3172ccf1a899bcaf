#include "egress_proxy/request.h"

#include <cctype>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "common/egress_rules.h"

namespace cordon::egress {
namespace {

RequestError bad(std::string message, std::string code = {}) { return {400, std::move(message), std::move(code)}; }

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }

bool has_control(std::string_view text, bool tab_allowed) {
  for (char c : text)
    if (is_control(c) && !(tab_allowed && c == '\t')) return true;
  return false;
}

// Client bytes quoted in an answer or the log: only printable ASCII, the rest as '?'.
std::string printable(std::string_view text, size_t max) {
  std::string out(text.substr(0, max));
  for (char& c : out)
    if (is_control(c) || static_cast<unsigned char>(c) > 0x7F) c = '?';
  return out;
}

bool is_token(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos) return false;
  }
  return true;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::vector<std::string_view> split_lines(std::string_view head) {
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the blank line ending the head
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    head.remove_prefix(nl + 1);
  }
  return lines;
}

// "host:port" or "host" (then `default_port`): a name or IPv4 literal, no IPv6, no userinfo.
std::variant<std::pair<std::string, uint16_t>, RequestError> parse_authority(std::string_view text,
                                                                             std::optional<uint16_t> default_port) {
  if (text.find('[') != std::string_view::npos) return bad("IPv6 destinations are not supported");
  if (text.find('@') != std::string_view::npos) return bad("userinfo (user@host) is not accepted in a proxy target");
  std::string_view host = text, port_text;
  if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  if (host.empty() || host.size() > 253) return bad("missing or overlong host in \"" + std::string(text) + "\"");
  for (char c : host)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_')
      return bad("invalid character in host \"" + std::string(host) + "\"");
  unsigned port = 0;
  if (port_text.empty() && text.find(':') == std::string_view::npos && default_port) port = *default_port;
  else if (port_text.empty() || port_text.size() > 5) return bad("a port (1-65535) is required: host:port");
  for (char c : port_text) port = std::isdigit(static_cast<unsigned char>(c)) ? port * 10 + unsigned(c - '0') : 70000;
  if (port == 0 || port > 65535) return bad("port must be 1-65535 in \"" + std::string(text) + "\"");
  // "." alone is no host once its trailing dot goes.
  std::string name = normalize_host(host);
  if (name.empty()) return bad("missing or overlong host in \"" + std::string(text) + "\"");
  return std::pair{std::move(name), uint16_t(port)};
}

struct RequestLine {
  std::string_view method, target, version;
};

std::optional<RequestLine> split_request_line(std::string_view line) {
  size_t a = line.find(' ');
  size_t b = a == std::string_view::npos ? a : line.find(' ', a + 1);
  if (b == std::string_view::npos || line.find(' ', b + 1) != std::string_view::npos) return std::nullopt;
  RequestLine r{line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)};
  if (!is_token(r.method) || r.target.empty() || (r.version != "HTTP/1.1" && r.version != "HTTP/1.0"))
    return std::nullopt;
  return r;
}

bool hop_by_hop(std::string_view name) {
  return (name.size() >= 6 && iequals(name.substr(0, 6), "proxy-")) || iequals(name, "connection") ||
         iequals(name, "keep-alive") || iequals(name, "host");
}

// The client's headers checked and filtered for the origin; sets *saw_host.
std::variant<std::string, RequestError> filter_headers(const std::vector<std::string_view>& lines, bool* saw_host) {
  std::string kept;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.front() == ' ' || line.front() == '\t') return bad("folded header lines are not accepted");
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return bad("malformed header line \"" + printable(line, 60) + "\"");
    std::string_view name = line.substr(0, colon);
    if (!is_token(name))
      return bad("invalid header name \"" + printable(name, 60) + "\" (a header name is a token: no spaces, " +
                     "control characters or separators, and nothing between it and its colon)",
                 "invalid-header-name");
    if (has_control(line.substr(colon + 1), true))
      return bad("control character in a header value (" + std::string(name) + ")",
                 "control-character-in-header-value");
    if (iequals(name, "host")) *saw_host = true;
    if (hop_by_hop(name)) continue;
    kept.append(line).append("\r\n");
  }
  return kept;
}

std::variant<ProxyRequest, RequestError> parse_absolute(const RequestLine& rl,
                                                        const std::vector<std::string_view>& lines) {
  constexpr std::string_view kScheme = "http://";
  if (rl.target.size() < kScheme.size() || !iequals(rl.target.substr(0, kScheme.size()), kScheme))
    return bad(rl.target.front() == '/' ? "origin-form request: this is a proxy, send an absolute URL "
                                          "(http://host/path) or use CONNECT host:port"
                                        : "only http:// URLs are forwarded (use CONNECT host:port for https)");
  std::string_view rest = rl.target.substr(kScheme.size());
  size_t path_at = rest.find_first_of("/?#");
  auto authority = parse_authority(rest.substr(0, path_at), uint16_t{80});
  if (auto* e = std::get_if<RequestError>(&authority)) return *e;
  std::string path(path_at == std::string_view::npos ? "/" : rest.substr(path_at));
  if (auto hash = path.find('#'); hash != std::string::npos) path.erase(hash);
  if (path.empty() || path.front() != '/') path.insert(0, "/");
  bool saw_host = false;
  auto headers = filter_headers(lines, &saw_host);
  if (auto* e = std::get_if<RequestError>(&headers)) return *e;
  if (!saw_host) return bad("missing Host header");
  ProxyRequest req;
  req.form = ProxyRequest::Form::Absolute;
  req.method = std::string(rl.method);
  std::tie(req.host, req.port) = std::get<0>(authority);
  std::string host_header = req.port == 80 ? req.host : req.destination();
  req.forward_head = req.method + " " + path + " " + std::string(rl.version) + "\r\nHost: " + host_header + "\r\n" +
                     std::get<std::string>(headers) + "Connection: close\r\n\r\n";
  return req;
}

}  // namespace

// The first empty line, as split_lines sees it: "\n\r\n" (CRLF CRLF too) or "\n\n". Searching
// for CRLF CRLF alone would let "\n\r\n" end the parsed head before the head read ends.
size_t find_head_end(std::string_view buffer) {
  size_t cr = buffer.find("\n\r\n");
  size_t lf = buffer.find("\n\n");
  if (cr == std::string_view::npos && lf == std::string_view::npos) return std::string_view::npos;
  if (lf == std::string_view::npos || (cr != std::string_view::npos && cr < lf)) return cr + 3;
  return lf + 2;
}

std::variant<ProxyRequest, RequestError> parse_request(std::string_view head) {
  auto lines = split_lines(head);
  if (lines.empty()) return bad("empty request");
  auto rl = split_request_line(lines[0]);
  if (!rl) return bad("malformed request line (expected METHOD TARGET HTTP/1.1)");
  if (has_control(rl->target, false))
    return bad("control character in the request target", "control-character-in-target");
  if (rl->method != "CONNECT") return parse_absolute(*rl, lines);
  auto authority = parse_authority(rl->target, std::nullopt);
  if (auto* e = std::get_if<RequestError>(&authority)) return *e;
  bool saw_host = false;
  auto headers = filter_headers(lines, &saw_host);
  if (auto* e = std::get_if<RequestError>(&headers)) return *e;
  ProxyRequest req;
  req.method = "CONNECT";
  std::tie(req.host, req.port) = std::get<0>(authority);
  return req;
}

}  // namespace cordon::egress
