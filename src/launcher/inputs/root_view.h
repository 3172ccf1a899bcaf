// What the host's root holds for the system view (common/system_view.h): which of its roots
// exist and how (a directory, or a usr-merge link), and which entries of /etc only a
// privileged owner can read.
#pragma once

#include <string>
#include <vector>

namespace cordon {

struct RootEntry {
  std::string path;         // "/usr"
  std::string link_target;  // "usr/bin" for a symbolic link; "" for a directory
};

// The system view's roots that exist on the host, in system_view_roots() order.
std::vector<RootEntry> gather_view_roots();

struct PrivateEntry {
  std::string path;
  bool directory = false;
  bool operator<(const PrivateEntry& other) const { return path < other.path; }
};

// Entries below `dir` (recursively, at most `max_depth` levels) that other users cannot read:
// a directory without o+r or o+x, or a file without o+r. A private directory is listed
// whole, not descended into. Symbolic links are not followed. Sorted.
std::vector<PrivateEntry> private_entries(const std::string& dir, int max_depth = 8);

}  // namespace cordon
