#include "launcher/inputs/state_dirs.h"

#include <fstream>

#include "common/paths.h"
#include "common/text.h"
#include "common/utc_time.h"

namespace cordon {

std::string sessions_dir(uid_t uid, const std::string& home, const std::string* xdg, const std::string& workspace) {
  if (uid == 0) return "/var/lib/cordon/sessions";
  bool usable = xdg && !xdg->empty() && (*xdg)[0] == '/' && !path_within(*xdg, workspace);
  return (usable ? *xdg : home + "/.local/state") + "/cordon/sessions";
}

void record_last_verify(const std::string& dir, int battery_exit_code) {
  std::string line = (battery_exit_code == 0 ? std::string("PASS")
                                             : "FAIL (" + std::to_string(battery_exit_code) + ")") +
                     " at " + utc_now() + "\n";
  std::ofstream out(dir + "/../last-verify", std::ios::trunc);
  out << line;
}

std::string read_last_verify(const std::string& dir) {
  std::string text = read_text_file(dir + "/../last-verify");
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

std::string state_dir_of(const std::string& sessions_dir) { return sessions_dir.substr(0, sessions_dir.rfind('/')); }

std::string tool_versions_cache(const std::string& dir) { return dir + "/../tool-versions"; }

}  // namespace cordon
