// Review family (34): review mode's promise is that nothing the session writes reaches the host
// tree before `cordon apply`. From inside, the probe does what an agent does to the workspace
// (edits, renames, deletes and creates next to the bait `cordon verify --deep` planted there);
// every one of those must SUCCEED inside (the overlay is a normal read-write tree). Whether the
// host tree changed cannot be seen from inside: cordon verify judges it after the session
// (commands/probe_bait.h) and turns this probe's row into ESCAPED when the host copy moved.

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common/review_bait.h"
#include "probe/context.h"
#include "probe/internal.h"

namespace cordon::probe {
namespace {

std::vector<std::string> bait_in(const std::string& workspace) {
  std::vector<std::string> names;
  DIR* d = ::opendir(workspace.c_str());
  if (!d) return names;
  while (dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    if (name.rfind(kReviewBaitPrefix, 0) == 0) names.push_back(name);
  }
  ::closedir(d);
  return names;
}

bool ends_with(const std::string& text, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return text.size() >= n && text.compare(text.size() - n, n, suffix) == 0;
}

void attempt(Tally& t, const std::string& what, bool ok) {
  if (ok) t.blocked(what + ": done inside (the overlay); the host copy is judged after the session, outside");
  else t.inconclusive(what + ": " + std::strerror(errno) + " (a review workspace takes every write)");
}

void probe_review_overlay(const Context& ctx, Tally& t) {
  if (!ctx.session) {
    t.inconclusive("no session file: the workspace mode is unknown");
    return;
  }
  if (ctx.session->workspace_mode != "review") {
    t.blocked("not attempted: [workspace] mode = \"" + ctx.session->workspace_mode +
              "\": the workspace is the host's tree, its writes live by design");
    return;
  }
  const std::string& w = ctx.session->workspace;
  for (const std::string& name : bait_in(w)) {
    const std::string path = w + "/" + name;
    if (ends_with(name, kReviewBaitEdit)) {
      int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
      attempt(t, "append to " + name, fd >= 0 && ::write(fd, "probe 34\n", 9) == 9);
      if (fd >= 0) ::close(fd);
    } else if (ends_with(name, kReviewBaitRename)) {
      attempt(t, "rename " + name, ::rename(path.c_str(), (path + ".renamed").c_str()) == 0);
    } else if (ends_with(name, kReviewBaitDelete)) {
      attempt(t, "delete " + name, ::unlink(path.c_str()) == 0);
      const std::string made = w + "/" + name.substr(0, name.size() - std::strlen(kReviewBaitDelete)) + kReviewBaitNew;
      int fd = ::open(made.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
      attempt(t, "create a file beside it", fd >= 0);
      if (fd >= 0) ::close(fd);
    }
  }
  if (t.empty()) t.inconclusive("no review bait in the workspace (cordon verify --deep plants it)");
}

}  // namespace

std::vector<ProbeDef> review_probes() {
  return {
      {"34", "review-writes-stay-in-overlay", "filesystem",
       "edit, rename, delete and create in a review-mode workspace (cordon verify judges the host tree after)",
       "every write succeeds inside and the host tree is unchanged at teardown", probe_review_overlay},
  };
}

}  // namespace cordon::probe
