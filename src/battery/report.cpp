#include "battery/report.h"

#include "common/json_codec.h"
#include "common/report_formats.h"
#include "common/text.h"

namespace cordon::battery {
namespace {

const char* tag(Status s) { return s == Status::Pass ? "PASS" : s == Status::Warn ? "WARN" : "FAIL"; }

int count(const Report& report, Status status) {
  int n = 0;
  for (const auto& r : report.results) n += r.status == status;
  return n;
}

Json bytes_or_null(const std::string& s) { return s.empty() ? Json(nullptr) : bytes_json(s); }

// The header's note in the short form: where the rest went.
constexpr const char* kFailuresOnlyNote = " (FAIL and WARN rows only; cordon verify -v shows every row)";

}  // namespace

int Report::passed() const { return count(*this, Status::Pass); }
int Report::warned() const { return count(*this, Status::Warn); }
int Report::failed() const { return count(*this, Status::Fail); }

std::string render_plain(const Report& report, bool failures_only) {
  std::string out = "cordon-battery: " + std::to_string(report.results.size()) + " checks" +
                    (failures_only ? kFailuresOnlyNote : "") + "\n";
  for (const auto& r : report.results) {
    if (failures_only && r.status == Status::Pass) continue;
    std::string status = std::string("[") + tag(r.status) + "]";
    // What a check measured may hold any byte: each row stays one line (the printer escapes the rest).
    out += "  " + status + " " + terminal_safe(r.id) + " " + terminal_safe(r.name);
    if (!r.detail.empty()) out += " \u2014 " + terminal_safe(r.detail);
    out += "\n";
  }
  out += "  Summary: " + std::to_string(report.passed()) + " PASS / ";
  if (report.warned() > 0) out += std::to_string(report.warned()) + " WARN / ";
  out += std::to_string(report.failed()) + " FAIL\n";
  return out;
}

const std::vector<Highlight>& status_colours() {
  static const std::vector<Highlight> colours{{"[PASS]", "32"}, {"[WARN]", "33"}, {"[FAIL]", "1;31"}};
  return colours;
}

std::string render_json(const Report& report) {
  Json checks = Json::array();
  for (const auto& r : report.results)
    checks.push_back({{"id", bytes_json(r.id)},
                      {"name", bytes_json(r.name)},
                      {"status", tag(r.status)},
                      {"detail", bytes_json(r.detail)},
                      {"property", bytes_json(r.property)},
                      {"mechanism", bytes_json(r.mechanism)}});
  Json document{{"format", kBatteryFormat},
                {"battery", "cordon-battery"},
                {"version", kBatteryVersion},
                {"profile", bytes_or_null(report.profile)},
                {"session_file", bytes_or_null(report.session_file)},
                {"checks", checks},
                {"pass", report.passed()},
                {"warn", report.warned()},
                {"fail", report.failed()}};
  return dump_line(document) + "\n";
}

std::string render_list(const std::vector<CheckSpec>& checks) {
  std::string out;
  for (const auto& c : checks)
    out += std::string("  ") + c.id + " " + c.name + " [" + c.property + "] " + c.mechanism + "\n";
  return out;
}

}  // namespace cordon::battery
