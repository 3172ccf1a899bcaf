// The workspace as the plan sees it: a TreeView answers what exists at a path relative to the
// workspace, never following a symbolic link out of it. WorkspaceTree reads the real workspace
// (an O_NOFOLLOW walk from its directory); the launch reads it once, while gathering host facts,
// through a RecordingTree, and the plan is made from the recorded answers (a TreeSnapshot), so
// planning reads nothing from the host.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cordon {

enum class EntryKind { Missing, File, Directory, Symlink, Other };

// A view of the workspace by paths relative to it ("a/b", no leading slash).
class TreeView {
 public:
  virtual ~TreeView() = default;
  // Symlink when `rel` or any directory on the way to it is a symbolic link.
  virtual EntryKind kind(const std::string& rel) const = 0;
  virtual std::vector<std::string> list(const std::string& rel) const = 0;  // names, sorted; {} if none
  virtual std::string read(const std::string& rel) const = 0;               // a small file; "" if unreadable
};

// The real workspace as a TreeView (O_NOFOLLOW walk from the workspace directory).
class WorkspaceTree : public TreeView {
 public:
  explicit WorkspaceTree(std::string workspace) : workspace_(std::move(workspace)) {}
  EntryKind kind(const std::string& rel) const override;
  std::vector<std::string> list(const std::string& rel) const override;
  std::string read(const std::string& rel) const override;

 private:
  std::string workspace_;
};

// Opens `rel` below the directory `dir_fd` one component at a time with O_NOFOLLOW; the last
// component with `last_flags`. -1 (errno set; ELOOP for a symlink) on failure. The fd is the
// caller's to close.
int open_beneath(int dir_fd, const std::string& rel, int last_flags);

// Every answer a walk of the workspace was given, by path: the facts the plan is made from.
struct TreeSnapshot {
  bool taken = false;  // false: the workspace was not read (no workspace, or "/")
  std::map<std::string, EntryKind> kinds;
  std::map<std::string, std::vector<std::string>> lists;
  std::map<std::string, std::string> texts;
};

// Passes each question on to `tree` and keeps its answer in `snapshot`.
class RecordingTree : public TreeView {
 public:
  RecordingTree(const TreeView& tree, TreeSnapshot& snapshot) : tree_(tree), snapshot_(snapshot) {
    snapshot_.taken = true;
  }
  EntryKind kind(const std::string& rel) const override;
  std::vector<std::string> list(const std::string& rel) const override;
  std::string read(const std::string& rel) const override;

 private:
  const TreeView& tree_;
  TreeSnapshot& snapshot_;
};

// Answers from a snapshot; what was never asked is missing.
class SnapshotTree : public TreeView {
 public:
  explicit SnapshotTree(const TreeSnapshot& snapshot) : snapshot_(snapshot) {}
  EntryKind kind(const std::string& rel) const override;
  std::vector<std::string> list(const std::string& rel) const override;
  std::string read(const std::string& rel) const override;

 private:
  const TreeSnapshot& snapshot_;
};

}  // namespace cordon
