#include "launcher/record/sessions.h"

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/json_codec.h"
#include "common/text.h"
#include "launcher/record/manifest.h"

namespace cordon {
namespace {

struct RecordSummary {
  std::string exit = "running";  // until the receipt line is there
  std::string agent = "?";
  std::string workspace = "?";
};

// A byte string as a terminal line shows it: raw bytes, newlines escaped.
std::string shown(const Json& value) {
  try {
    std::string text = bytes_from_json(value);
    for (auto at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 2)) text.replace(at, 1, "\\n");
    return text;
  } catch (const Error&) {
    return "?";
  }
}

// The record's lines: the manifest, then (once the session ended) the receipt. A line that
// is not JSON, or of another format or major version, is skipped: its fields stay "?".
RecordSummary summarize_record(const std::string& text) {
  RecordSummary out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::optional<Json> doc = parse_json(line, nullptr);
    if (!doc) continue;
    if (check_format(*doc, kManifestFormat, kRecordVersion, nullptr)) {
      if (doc->contains("agent")) out.agent = shown((*doc)["agent"]);
      if (doc->contains("workspace")) out.workspace = shown((*doc)["workspace"]);
    } else if (check_format(*doc, kReceiptFormat, kRecordVersion, nullptr)) {
      const Json& receipt = (*doc)["receipt"];
      out.exit = receipt.is_object() && receipt.contains("exit_code") ? dump_line(receipt["exit_code"]) : "?";
    }
  }
  return out;
}

}  // namespace

int print_sessions_list(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    std::printf("no sessions recorded in %s\n", dir.c_str());
    return 0;
  }
  std::vector<std::string> ids;
  while (dirent* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
      ids.push_back(name.substr(0, name.size() - 5));
  }
  ::closedir(d);
  std::sort(ids.begin(), ids.end());
  std::printf("%-26s %-8s %-10s %s\n", "SESSION", "EXIT", "AGENT", "WORKSPACE");
  for (const auto& id : ids) {
    const RecordSummary r = summarize_record(read_text_file(dir + "/" + id + ".json"));
    std::printf("%-26s %-8s %-10s %s\n", id.c_str(), r.exit.c_str(), r.agent.c_str(), r.workspace.c_str());
  }
  return 0;
}

int print_session(const std::string& dir, const std::string& id) {
  if (id.find('/') != std::string::npos || id.find("..") != std::string::npos)
    throw Error("invalid session id " + id, "use an id from `cordon sessions list`", kExitConfigError);
  std::string text = read_text_file(dir + "/" + id + ".json");
  if (text.empty())
    throw Error("no session " + id + " in " + dir, "use an id from `cordon sessions list`", kExitConfigError);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace cordon
