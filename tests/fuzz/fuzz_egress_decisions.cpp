// The allowlist proxy's decision log as the launcher reads it into the receipt
// (launcher/network/egress_decisions.h): parse_decisions never throws, counts every non-empty
// line exactly once (the proxy's overflow line as the decisions it counts), and keeps within its documented bounds;
// what the receipt and the terminal get of it never throws, and the terminal line carries no control byte.
#include <exception>
#include <sstream>
#include <string>

#include "common/json_codec.h"
#include "fuzz_common.h"
#include "launcher/network/egress_decisions.h"

namespace {
constexpr std::string_view kFuzzTarget = "egress_decisions";
namespace proxy = cordon::proxy;

void check(const std::string& text) {
  const proxy::EgressDecisions d = proxy::parse_decisions(text);
  long long lines = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines += line.empty() ? 0 : 1;
  FUZZ_CHECK(d.allowed >= 0 && d.denied >= 0 && d.failed >= 0 && d.unreadable >= 0, "a negative count");
  // A decision line is one decision; the proxy's overflow line counts the decisions it did not write.
  FUZZ_CHECK(d.overflow_lines >= 0 && d.overflow_counted >= 0, "a negative overflow count");
  FUZZ_CHECK(d.allowed + d.denied + d.failed - d.overflow_counted + d.overflow_lines + d.unreadable == lines,
             "a line not counted exactly once");
  FUZZ_CHECK(d.entries.is_array(), "entries is not an array");
  FUZZ_CHECK(d.entries.size() <= proxy::kKeptDecisions, "more entries kept than kKeptDecisions");
  FUZZ_CHECK(d.kept_bytes <= proxy::kKeptDecisionBytes, "more bytes kept than kKeptDecisionBytes");
  FUZZ_CHECK(static_cast<long long>(d.entries.size()) + d.dropped == d.allowed + d.denied + d.failed,
             "a decision neither kept nor dropped");
  FUZZ_CHECK(d.summary.size() <= cordon::kSummaryDestinations, "more destinations summed than kSummaryDestinations");
  long long summed = d.summary_dropped;
  for (const auto& [destination, counts] : d.summary) {
    FUZZ_CHECK(destination.size() <= cordon::kSummaryDestinationBytes + 3, "an uncut summary destination");
    summed += counts.allowed + counts.denied + counts.failed;
  }
  FUZZ_CHECK(summed == d.dropped, "dropped decisions not all summed up or counted unsummarized");
  (void)cordon::dump_line(proxy::egress_json(d));
  const std::string line = proxy::egress_summary_line(d);
  for (size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    const bool c1 = c == 0xc2 && i + 1 < line.size() && static_cast<unsigned char>(line[i + 1]) < 0xa0;
    FUZZ_CHECK(c >= 0x20 && c != 0x7f && !c1,
               "a control character in the summary line: " + cordon::fuzz::escaped(line));
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    check(std::string(cordon::fuzz::as_text(data, size)));
  } catch (const std::exception& e) {
    cordon::fuzz::violated(kFuzzTarget, std::string("threw: ") + e.what());
  } catch (...) {
    cordon::fuzz::violated(kFuzzTarget, "threw a non-exception");
  }
  return 0;
}
