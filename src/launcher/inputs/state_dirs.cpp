#include "launcher/inputs/state_dirs.h"

#include <unistd.h>

#include <cstdio>
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

namespace {

// One line of state next to the session records (STATE/NAME), replaced whole: written to a
// temporary file and renamed, so a reader never sees half of one line and half of another.
// Best effort: these lines summarise; the session records hold the facts.
void write_state_line(const std::string& sessions_dir, const char* name, const std::string& line) {
  const std::string path = sessions_dir + "/../" + name;
  const std::string part = path + ".part." + std::to_string(::getpid());
  {
    std::ofstream out(part, std::ios::trunc);
    out << line << "\n";
    if (!out.flush()) {
      std::remove(part.c_str());
      return;
    }
  }
  if (std::rename(part.c_str(), path.c_str()) != 0) std::remove(part.c_str());
}

std::string read_state_line(const std::string& sessions_dir, const char* name) {
  std::string text = read_text_file(sessions_dir + "/../" + name);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

}  // namespace

void record_last_verify(const std::string& dir, int battery_exit_code) {
  write_state_line(dir, "last-verify",
                   (battery_exit_code == 0 ? std::string("PASS") : "FAIL (" + std::to_string(battery_exit_code) + ")") +
                       " at " + utc_now());
}

std::string read_last_verify(const std::string& dir) { return read_state_line(dir, "last-verify"); }

void record_last_egress(const std::string& dir, const std::string& session_id, const std::string& counts) {
  write_state_line(dir, "last-egress", counts + "; session " + session_id + ", ended " + utc_now());
}

std::string read_last_egress(const std::string& dir) { return read_state_line(dir, "last-egress"); }

std::string state_dir_of(const std::string& sessions_dir) { return sessions_dir.substr(0, sessions_dir.rfind('/')); }

std::string tool_versions_cache(const std::string& dir) { return dir + "/../tool-versions"; }

}  // namespace cordon
