#include "launcher/record/sessions.h"

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/text.h"

namespace cordon {

int print_sessions_list(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    std::printf("no sessions recorded in %s\n", dir.c_str());
    return 0;
  }
  std::vector<std::string> ids;
  while (dirent* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) ids.push_back(name.substr(0, name.size() - 5));
  }
  ::closedir(d);
  std::sort(ids.begin(), ids.end());
  std::printf("%-26s %-8s %-10s %s\n", "SESSION", "EXIT", "AGENT", "WORKSPACE");
  for (const auto& id : ids) {
    std::string text = read_text_file(dir + "/" + id + ".json");
    auto value = [&](const std::string& key) {
      auto at = text.find("\"" + key + "\":");
      if (at == std::string::npos) return std::string("?");
      at += key.size() + 3;
      if (text[at] == '"') return text.substr(at + 1, text.find('"', at + 1) - at - 1);
      return text.substr(at, text.find_first_of(",}", at) - at);
    };
    bool finished = text.find("{\"receipt\":") != std::string::npos;
    std::printf("%-26s %-8s %-10s %s\n", id.c_str(), finished ? value("exit_code").c_str() : "running",
                value("agent").c_str(), value("workspace").c_str());
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
