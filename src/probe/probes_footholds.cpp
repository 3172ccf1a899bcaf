// Footholds: plant, from inside, what would run on the host later.
// 32, the workspace: what the operator's own git would run: core.fsmonitor, an alias and a
// filter driver in .git/config (appended, and by the rename `git config` itself uses), a hook,
// a replaced hooks/ or .git, and a [workspace] protect entry.
// 33, the agent's control: append to and rename over its settings, add to its commands,
// hooks and packages, move them aside, and replace an executable a process of the session
// has mapped (common/agent_control.h, common/proc_maps.h).
// Every write that lands is taken back at once; the attempt is the evidence.
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "common/agent_control.h"
#include "common/error.h"
#include "common/paths.h"
#include "common/proc_maps.h"
#include "common/unique_fd.h"
#include "probe/context.h"
#include "probe/probe.h"
#include "probe/util.h"

namespace cordon::probe {
namespace {

// What the planted code would do on the host; never created here.
constexpr const char* kMarker = "/tmp/cordon-probe-32-ran";

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

// Appends `text`, then cuts the file back to its old size.
void try_append(Tally& t, const std::string& what, const std::string& path, const std::string& text) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return t.blocked(what + ": " + path + " " + errno_name(errno));
  struct stat st {};
  ::fstat(fd.get(), &st);
  ssize_t n = ::write(fd.get(), text.data(), text.size());
  const int err = errno;
  if (::ftruncate(fd.get(), st.st_size) != 0) t.note("could not take back the write to " + path);
  if (n > 0) return t.escaped(what + " landed in " + path + " (taken back)");
  t.blocked(what + ": writing " + path + " " + errno_name(err));
}

// Replaces dir/name the way `git config` does: a new file renamed over it.
void try_rename_over(Tally& t, const std::string& what, const std::string& dir, const std::string& name,
                     const std::string& text, const char* tag = "32") {
  UniqueFd original(::open((dir + "/" + name).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  const std::string old_text = original.valid() ? read_all(original.get()) : "";
  const std::string tmp = dir + "/" + unique_name(tag);
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid()) return t.blocked(what + ": creating " + tmp + " " + errno_name(errno));
  const std::string planted = old_text + text;
  bool written = ::write(fd.get(), planted.data(), planted.size()) == static_cast<ssize_t>(planted.size());
  fd.reset();
  if (written && ::rename(tmp.c_str(), (dir + "/" + name).c_str()) == 0) {
    UniqueFd back(::open((dir + "/" + name).c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC));
    if (!back.valid() || ::write(back.get(), old_text.data(), old_text.size()) < 0) t.note("could not restore " + name);
    return t.escaped(what + ": " + dir + "/" + name + " replaced by rename (restored)");
  }
  const int err = errno;
  ::unlink(tmp.c_str());
  t.blocked(what + ": renaming over " + dir + "/" + name + " " + errno_name(err));
}

void try_create(Tally& t, const std::string& what, const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755));
  if (!fd.valid()) return t.blocked(what + ": creating " + path + " " + errno_name(errno));
  ::unlink(path.c_str());
  t.escaped(what + ": created " + path + " (removed)");
}

// Moves `path` aside (to put another in its place); moved straight back when it works.
void try_rename_away(Tally& t, const std::string& what, const std::string& path, const char* tag = "32") {
  const std::string aside = path + unique_name(tag);
  if (::rename(path.c_str(), aside.c_str()) != 0) return t.blocked(what + ": moving " + path + " " + errno_name(errno));
  if (::rename(aside.c_str(), path.c_str()) != 0) t.note("could not move " + aside + " back");
  t.escaped(what + ": " + path + " could be moved aside (moved back)");
}

void plant_in_git_dir(Tally& t, const std::string& git) {
  const std::string config = git + "/config";
  try_append(t, "core.fsmonitor", config, std::string("[core]\n\tfsmonitor = touch ") + kMarker + "\n");
  try_append(t, "alias", config, std::string("[alias]\n\tst = !touch ") + kMarker + "\n");
  try_append(t, "filter driver", config, std::string("[filter \"cordon32\"]\n\tclean = touch ") + kMarker + "\n");
  try_rename_over(t, "core.fsmonitor by rename", git, "config", std::string("[core]\n\tfsmonitor = ") + kMarker + "\n");
  std::string hook = git + "/hooks/pre-commit";
  for (const char* name : {"pre-commit", "post-checkout", "pre-push", "post-merge"}) {
    hook = git + "/hooks/" + name;
    if (!exists(hook)) break;
  }
  if (exists(hook)) try_append(t, "hook", hook, std::string("touch ") + kMarker + "\n");
  else try_create(t, "hook", hook);
  try_rename_away(t, "replace hooks/", git + "/hooks");
  try_rename_away(t, "replace .git", git);
}

void probe_workspace_footholds(const Context& ctx, Tally& t) {
  const std::string git = ctx.workspace + "/.git";
  if (is_dir(git)) plant_in_git_dir(t, git);
  else if (exists(git)) try_append(t, "redirect the .git file", git, "gitdir: /tmp\n");
  if (ctx.session)
    for (const auto& path : ctx.session->workspace_protected) {
      if (path_within(path, git) || !exists(path)) continue;
      if (is_dir(path)) try_create(t, "protect-list entry", path + "/" + unique_name("32"));
      else try_append(t, "protect-list entry", path, "# cordon probe 32\n");
    }
  // Nothing there yet for a host tool to run: what appears later is the teardown audit's.
  if (t.empty())
    t.blocked("nothing to plant into: no .git and no [workspace] protect entry in " + ctx.workspace +
              " (what the agent creates later is moved by the teardown audit)");
}

bool on_tmpfs(const std::string& path) {
  struct statfs sf {};
  return ::statfs(path.c_str(), &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

void plant_in_control_entry(Tally& t, const std::string& path) {
  const std::string what = "agent control";
  if (is_dir(path)) {
    try_create(t, what, path + "/" + unique_name("33"));
    try_rename_away(t, what, path, "33");
  } else if (exists(path)) {
    try_append(t, what, path, "\n");
    try_rename_over(t, what + " by rename", parent_dir(path), path.substr(path.rfind('/') + 1), "\n", "33");
  } else if (is_dir(parent_dir(path)) && !on_tmpfs(parent_dir(path))) {
    try_create(t, what + " (missing)", path);
  }
}

void probe_agent_control(const Context& ctx, Tally& t) {
  std::vector<std::string> entries;
  if (ctx.session) {
    entries = ctx.session->agent.control;
  } else {
    for (const auto& agent : agents_with_control_entries())
      for (const auto& e : shipped_control_entries(agent))
        if (exists(ctx.home + "/" + e)) entries.push_back(e);
  }
  for (const auto& e : entries) plant_in_control_entry(t, ctx.home + "/" + e);
  // An executable a process here runs, outside the workspace (the project's own) and a tmpfs
  // (gone with the session): written in place, or replaced by a file renamed over it.
  const MappedExecutables mapped = mapped_executables();
  for (const auto& file : mapped.files) {
    if (path_within(file, ctx.workspace) || on_tmpfs(file)) continue;
    UniqueFd fd(::open(file.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (fd.valid()) t.escaped("mapped executable " + file + " opened for writing (nothing written)");
    else t.blocked("mapped executable " + file + ": opening for writing " + errno_name(errno));
    try_create(t, "replace mapped executable", parent_dir(file) + "/" + unique_name("33"));
  }
  if (mapped.truncated) t.inconclusive("the list of mapped executables is incomplete (a bound was reached)");
  if (t.empty()) t.blocked("no control entry and no mapped executable to attempt");
}

}  // namespace

std::vector<ProbeDef> foothold_probes() {
  return {
      {"32", "fs-workspace-footholds", "filesystem",
       "plant core.fsmonitor / alias / filter in .git/config, a hook, replace hooks/ or .git, write a protect entry",
       "EROFS / EBUSY for every attempt", probe_workspace_footholds},
      {"33", "fs-agent-control", "filesystem",
       "write, add to, rename over or move the agent's settings, hooks, commands and packages; replace a "
       "mapped executable",
       "EROFS / EBUSY / EACCES for every attempt", probe_agent_control},
  };
}

}  // namespace cordon::probe
