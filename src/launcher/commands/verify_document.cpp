#include "launcher/commands/verify_document.h"

#include "common/error.h"
#include "common/json_codec.h"
#include "common/report_formats.h"

namespace cordon {
namespace {

// A helper's output as its document: exactly one JSON document of its format and major
// version, else null with the reason in `problems`.
Json helper_document(const HelperOutput& h, const char* format, int version, std::vector<std::string>& problems) {
  std::string problem;
  if (!h.output) {
    problems.push_back(std::string(h.helper) + " wrote more than " + std::to_string(kMaxHelperOutput >> 20) +
                       " MiB to stdout: not its report");
    return nullptr;
  }
  if (h.output->find_first_not_of(" \t\r\n") == std::string::npos) {
    problems.push_back(std::string(h.helper) + " wrote no report");
    return nullptr;
  }
  std::optional<Json> document = parse_json(*h.output, &problem);
  if (!document) {
    problems.push_back(std::string(h.helper) + "'s report is not one JSON document: " + problem);
    return nullptr;
  }
  if (!check_format(*document, format, version, &problem)) {
    problems.push_back(std::string(h.helper) + "'s report: " + problem);
    return nullptr;
  }
  return *document;
}

const char* verdict_word(int exit_code) {
  switch (exit_code) {
    case kExitSuccess: return "PASS";
    case kExitChecksFailed: return "FAIL";
    case kExitInconclusive: return "INCOMPLETE";
    default: return "NOT VERIFIED";  // the teardown could not be verified (125)
  }
}

}  // namespace

VerifyDocument verify_document(const HelperOutput& battery, const std::optional<HelperOutput>& probes, bool deep,
                               int exit_code, const std::vector<OutsideVerdict>& judged_outside) {
  VerifyDocument d;
  Json battery_doc = helper_document(battery, kBatteryFormat, kBatteryVersion, d.problems);
  Json probe_doc = probes ? helper_document(*probes, kProbeFormat, kProbeVersion, d.problems) : Json(nullptr);
  d.exit_code = exit_code == kExitSuccess && !d.problems.empty() ? kExitInconclusive : exit_code;
  Json document{{"format", "cordon-verify"},
                {"version", 1},
                {"deep", deep},
                {"battery", battery_doc},
                {"probes", probe_doc},
                {"verdict", verdict_word(d.exit_code)},
                {"exit_code", d.exit_code},
                {"problems", bytes_array_json(d.problems)}};
  Json outside = Json::array();
  for (const OutsideVerdict& v : judged_outside)
    outside.push_back(
        {{"probe", v.probe}, {"verdict", v.escaped ? "ESCAPED" : "BLOCKED"}, {"evidence", bytes_json(v.evidence)}});
  document["judged_outside"] = outside;
  d.text = dump_line(document) + "\n";
  return d;
}

}  // namespace cordon
