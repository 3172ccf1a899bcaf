// The egress proxy's request parser (egress_proxy/request.h), on bytes the sandbox sends.
//   - find_head_end ends the head after an empty line, within the buffer;
//   - parse_request never accepts a control byte (C0, DEL) in a parsed line, line ends aside
//     (HTAB in a header value aside), nor a folded header line: the proxy answers 400;
//   - what it accepts is well formed: a host of name characters, lowercase, a port 1-65535;
//     for an absolute-form request, the head forwarded to the origin ends in an empty line,
//     ends every line in CRLF, holds no other control byte than HTAB, one Host header, one
//     "Connection: close" and none of the client's hop-by-hop headers (Proxy-*, Keep-Alive).
#include <cctype>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "egress_proxy/request.h"
#include "fuzz_common.h"

namespace {
constexpr std::string_view kFuzzTarget = "proxy_request";
namespace egress = cordon::egress;

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The lines of the head up to its empty line, each without its LF or CRLF.
std::vector<std::string_view> head_lines(std::string_view head) {
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    const size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    head.remove_prefix(nl + 1);
  }
  return lines;
}

void check_forward_head(std::string_view fh) {
  FUZZ_CHECK(fh.size() >= 4 && fh.substr(fh.size() - 4) == "\r\n\r\n", "forward head does not end in CRLF CRLF");
  int host = 0, connection = 0;
  size_t start = 0;
  bool first = true;
  while (start < fh.size() - 2) {
    const size_t crlf = fh.find("\r\n", start);
    FUZZ_CHECK(crlf != std::string_view::npos, "forward head line without CRLF");
    const std::string_view line = fh.substr(start, crlf - start);
    FUZZ_CHECK(!line.empty(), "an empty line inside the forward head");
    for (char c : line)
      FUZZ_CHECK(!is_control(static_cast<unsigned char>(c)) || c == '\t',
                 "control byte in the forward head: " + cordon::fuzz::escaped(fh));
    if (!first) {
      const size_t colon = line.find(':');
      FUZZ_CHECK(colon != std::string_view::npos && colon > 0, "forward header without a name");
      const std::string name = lower(line.substr(0, colon));
      host += name == "host" ? 1 : 0;
      if (name == "connection") {
        ++connection;
        FUZZ_CHECK(line == "Connection: close", "the client's Connection header forwarded");
      }
      FUZZ_CHECK(name.rfind("proxy-", 0) != 0 && name != "keep-alive", "a hop-by-hop header forwarded: " + name);
    }
    first = false;
    start = crlf + 2;
  }
  FUZZ_CHECK(host == 1 && connection == 1, "forward head without exactly one Host and one Connection");
}

void check(std::string_view head) {
  const auto result = egress::parse_request(head);
  if (const auto* error = std::get_if<egress::RequestError>(&result)) {
    FUZZ_CHECK(error->status >= 400 && error->status <= 599 && !error->message.empty(), "an empty refusal");
    return;
  }
  const auto& req = std::get<egress::ProxyRequest>(result);
  const std::vector<std::string_view> lines = head_lines(head);
  FUZZ_CHECK(!lines.empty(), "accepted an empty head");
  for (size_t i = 0; i < lines.size(); ++i) {
    for (char c : lines[i])
      FUZZ_CHECK(!is_control(static_cast<unsigned char>(c)) || (i > 0 && c == '\t'),
                 "accepted a control byte in line " + std::to_string(i) + ": " + cordon::fuzz::escaped(lines[i]));
    FUZZ_CHECK(i == 0 || (lines[i][0] != ' ' && lines[i][0] != '\t'), "accepted a folded header line");
  }
  FUZZ_CHECK(!req.host.empty() && req.host.size() <= 253, "accepted an empty or overlong host");
  for (char c : req.host)
    FUZZ_CHECK(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
                   c == '-' || c == '_',
               "a host byte out of [a-z0-9._-]: " + cordon::fuzz::escaped(req.host));
  FUZZ_CHECK(req.port != 0, "port 0 accepted");
  if (req.form == egress::ProxyRequest::Form::Connect) {
    FUZZ_CHECK(req.method == "CONNECT" && req.forward_head.empty(), "a CONNECT with a forward head");
  } else {
    FUZZ_CHECK(req.forward_head.rfind(req.method + " /", 0) == 0, "forward head not in origin-form");
    check_forward_head(req.forward_head);
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string buffer(cordon::fuzz::as_text(data, size));  // exactly `size` bytes on the heap
  const size_t end = egress::find_head_end(buffer);
  if (end == std::string_view::npos) {
    FUZZ_CHECK(buffer.find("\n\n") == std::string::npos && buffer.find("\n\r\n") == std::string::npos,
               "an empty line find_head_end missed");
    check(buffer);  // the proxy waits for more; the parser still must not misread it
    return 0;
  }
  FUZZ_CHECK(end <= buffer.size() && buffer[end - 1] == '\n', "a head end that is no line end");
  check(std::string_view(buffer).substr(0, end));
  return 0;
}
