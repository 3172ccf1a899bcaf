#include "launcher/run/settings_notice.h"

#include <fcntl.h>
#include <unistd.h>

#include "common/print.h"
#include "common/text.h"
#include "common/unique_fd.h"

namespace cordon {
namespace {

// The control entries people edit by hand: the settings files first, at most three named.
std::string settings_files(const AgentProfile& profile, const std::string& home) {
  std::string named;
  int shown = 0;
  for (const auto& entry : profile.control) {
    const bool settings = entry.ends_with("settings.json") || entry.ends_with("config.toml") ||
                          entry.ends_with("keybindings.json") || entry.ends_with(".env");
    if (!settings || shown == 3) continue;
    named += (named.empty() ? "" : ", ") + home + "/" + entry;
    ++shown;
  }
  return named;
}

}  // namespace

void notice_read_only_settings(const std::string& sessions_dir, const AgentProfile& profile, const std::string& home,
                               const std::string& real_binary, bool interactive) {
  if (!interactive || profile.control.empty() || sessions_dir.empty()) return;
  const std::string marker = sessions_dir + "/.notice-settings-" + profile.name;
  // O_EXCL: the first session to end says it; a marker that cannot be made says nothing (a
  // notice repeated at every exit would teach people to skip cordon's lines).
  UniqueFd made(::open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!made.valid()) return;
  std::string files = settings_files(profile, home);
  if (files.empty()) files = home + "/" + profile.control.front();
  std::string line = "cordon: " + profile.name + "'s settings are read-only inside a session (" + files +
                     ", and its other control entries): a change made in the session (a theme, a permission, a "
                     "setting saved from its menus) was not kept. To change one, edit the file outside a session";
  if (!real_binary.empty()) line += ", or run " + real_binary + " outside cordon";
  print_err(terminal_safe(line) + ". (Said once per agent; docs/agents.md, Settings.)\n");
}

}  // namespace cordon
