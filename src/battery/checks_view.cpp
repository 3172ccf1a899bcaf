// Check 30: unrelated host data is absent (the system view, common/system_view.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/paths.h"
#include "common/system_view.h"
#include "common/unique_fd.h"

namespace cordon::battery {
namespace {

// What the session binds on purpose and its fresh homes, each with its parents as the way to it.
std::vector<std::string> expected_paths(const Context& c) {
  std::vector<std::string> paths = bound_on_purpose(*c.session);
  for (const std::string* home : {&c.home, &c.session->home.account_path})
    if (!home->empty()) paths.push_back(*home);
  return paths;
}

// `dir` is a parent of bound paths: each of its entries must be the next step toward one.
void only_the_way(const std::string& dir, const std::vector<std::string>& bound, std::vector<std::string>& extra) {
  auto names = list_dir(dir);
  if (!names) return;
  for (const auto& name : *names) {
    const std::string child = (dir == "/" ? "" : dir) + "/" + name;
    bool on_the_way = std::any_of(bound.begin(), bound.end(),
                                  [&](const std::string& b) { return path_within(b, child); });
    if (!on_the_way) extra.push_back(child);
  }
}

// Each representative path is absent, or (on the way to something bound) holds only the way.
std::vector<std::string> present_paths(const Context& c) {
  const std::vector<std::string> bound = expected_paths(c);
  std::vector<std::string> present;
  for (const auto& path : system_view_absent_paths()) {
    if (std::any_of(bound.begin(), bound.end(), [&](const std::string& b) { return path_within(path, b); }))
      continue;  // inside something bound on purpose
    if (std::any_of(bound.begin(), bound.end(), [&](const std::string& b) { return path_within(b, path); })) {
      only_the_way(path, bound, present);
      continue;
    }
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) present.push_back(path);
  }
  std::sort(present.begin(), present.end());
  present.erase(std::unique(present.begin(), present.end()), present.end());
  return present;
}

// A file other users cannot read whose content this process reads anyway (a root launch
// owns them): the masks over /etc's private entries are missing.
void readable_private(const std::string& dir, int depth, std::vector<std::string>& out) {
  auto names = list_dir(dir);
  if (!names || depth == 0) return;
  for (const auto& name : *names) {
    const std::string path = dir + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
    if (S_ISDIR(st.st_mode)) {
      auto inside = list_dir(path);
      bool private_dir = others_cannot_read(st.st_mode);
      if (private_dir && inside && !inside->empty()) out.push_back(path + "/");
      else if (!private_dir) readable_private(path, depth - 1, out);
      continue;
    }
    if (!others_cannot_read(st.st_mode) || !S_ISREG(st.st_mode)) continue;
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    char byte;
    if (fd.valid() && ::read(fd.get(), &byte, 1) == 1) out.push_back(path);
  }
}

}  // namespace

Outcome check_system_view(const Context& c) {
  if (!c.session) return fail("no session file: cannot tell which view was intended");
  const Mount* root = c.mounts.containing("/");
  if (!root) return fail("no mount table");
  if (c.session->filesystem.view != "system")
    return fail("filesystem.view = \"" + c.session->filesystem.view +
                "\": the whole host root is readable (other projects, /srv, /opt, /var/lib)");
  if (root->fstype != "tmpfs") return fail("/ is " + root->fstype + " " + root->root + ", not the view's own tmpfs");
  if (!root->read_only()) return fail("the view's root tmpfs is writable");
  std::vector<std::string> present = present_paths(c);
  if (!present.empty()) return fail("host paths outside the view are present: " + join_some(present));
  std::vector<std::string> readable;
  readable_private("/etc", 8, readable);
  if (!readable.empty()) return fail("files only root may read are readable: " + join_some(readable));
  return pass("system view: " + std::to_string(system_view_absent_paths().size()) +
              " representative host paths absent, the root a read-only tmpfs, no root-only file of /etc readable");
}

}  // namespace cordon::battery
