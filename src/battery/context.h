// Everything the checks read more than once, loaded once: /proc/self/status, mountinfo, the
// environment and the launcher's session file (absent in a foreign sandbox).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/intent.h"
#include "common/mountinfo.h"

namespace cordon::battery {

struct Context {
  std::map<std::string, std::string> status;             // /proc/self/status, values trimmed
  MountTable mounts;                                     // /proc/self/mountinfo
  std::vector<std::pair<std::string, std::string>> env;  // this process's environment
  std::optional<SessionIntent> session;                  // what the launcher intended
  std::string session_path;                              // set when a session was loaded
  std::string home;                                      // session home, else $HOME
  std::string cwd;

  const std::string* env_value(const std::string& name) const;
  std::string status_value(const std::string& key) const;  // "" when absent
  std::string own_ns(const std::string& kind) const;       // readlink /proc/self/ns/KIND
  std::string host_ns(const std::string& kind) const;      // recorded by the launcher, or ""
};

// The note every fallback carries, so a reader knows the launcher's intent was not available.
inline constexpr const char* kNoSession = "no session file";

// Loads the context. `session_path` is read if it exists; `session_required` turns a missing
// file into an error. Returns nullopt with *problem for an unreadable or invalid session file.
std::optional<Context> load_context(const std::string& session_path, bool session_required, std::string* problem);

}  // namespace cordon::battery
