#include "launcher/plan/visibility.h"

#include "common/paths.h"

namespace cordon {

bool visible_inside(const SessionIntent& intent, const std::string& real_path) {
  // Bound in on purpose, in either view: they cover the home's tmpfs and /tmp's.
  for (const auto& bound : bound_on_purpose(intent))
    if (path_within(real_path, bound)) return true;
  // Fresh in both views: nothing of the host's is there.
  for (const std::string& hidden :
       {intent.home.path, intent.home.account_path, std::string("/tmp"), std::string("/run"), std::string("/dev")})
    if (!hidden.empty() && path_within(real_path, hidden)) return false;
  if (intent.filesystem.view != "system") return true;
  if (path_within(real_path, "/var/tmp")) return false;
  for (const char* root : {"/usr", "/etc", "/sys"})  // the usr-merge links resolve into /usr
    if (path_within(real_path, root)) return true;
  return false;
}

}  // namespace cordon
