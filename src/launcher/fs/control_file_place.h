// What an agent opens at a control file's path (~/.claude.json, ~/.claude/.config.json): the
// agent follows symbolic links, so the audit decides on what the path leads to, not on its
// name. A dotfile manager's link to a file is audited at the file it leads to; a link, FIFO or
// other node the session puts there is no file cordon can check, and is removed.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>

#include "common/json_codec.h"

namespace cordon {

struct ControlFilePlace {
  enum class Kind { Absent, File, Link, Other };
  Kind kind = Kind::Absent;
  std::string link;      // Link: its target as written
  std::string resolved;  // File: the path; Link: the regular file it leads to ("" when none)
  std::string other;     // Other: what is there ("a directory", "a FIFO", ...)

  bool operator==(const ControlFilePlace&) const = default;
};

// lstat, readlink and realpath of `path`, read now.
ControlFilePlace control_file_place(const std::string& path);

// For the snapshot (null for Absent) and back; nullopt for any other shape.
Json place_json(const ControlFilePlace& place);
std::optional<ControlFilePlace> place_from_json(const Json& j);

// How a person reads it: "a symbolic link to T", "a FIFO", ...
std::string describe_place(const ControlFilePlace& place);

// The owner of the directory that holds `path` (this process's ids when it cannot be read): what
// cordon puts back there is the user's, even from a root launch's sweep.
std::pair<uid_t, gid_t> directory_owner(const std::string& path);

// Removes what the session left at `path` (never a directory: a problem instead) and puts
// back `launch` where it can: a link is made again only when it leads where it led at launch
// (a dangling link whose target the session created is not). "" or why not.
std::string remove_planted(const std::string& path, const ControlFilePlace& launch);

}  // namespace cordon
