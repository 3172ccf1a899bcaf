#include "launcher/plan/visibility.h"

#include "common/paths.h"

namespace cordon {
namespace {

// Bound in on purpose, in either view: they cover the home's tmpfs and /tmp's.
bool bound_on_purpose(const SessionIntent& intent, const std::string& path) {
  if (path_within(path, intent.workspace) || path_within(path, intent.libexec)) return true;
  for (const auto& w : intent.writable)
    if (path_within(path, w)) return true;
  for (const auto& e : intent.home.keep_read_only)
    if (path_within(path, intent.home.path + "/" + e)) return true;
  for (const auto& r : intent.filesystem.read)
    if (path_within(path, r)) return true;
  return false;
}

}  // namespace

bool visible_inside(const SessionIntent& intent, const std::string& real_path) {
  if (bound_on_purpose(intent, real_path)) return true;
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
