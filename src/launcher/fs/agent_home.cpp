#include "launcher/fs/agent_home.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <sstream>

#include "common/error.h"
#include "common/print.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "launcher/inputs/paths.h"

namespace cordon {
namespace {

std::vector<std::string> components(const std::string& entry) {
  std::vector<std::string> out;
  std::stringstream parts(entry);
  std::string part;
  while (std::getline(parts, part, '/'))
    if (!part.empty() && part != ".") out.push_back(part);
  return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// "settings.json", ".claude.json", "config.toml", "CLAUDE.md": a file; ".claude", "commands": a directory.
bool names_a_file(const std::string& entry) {
  std::string leaf = entry.substr(entry.rfind('/') + 1);
  if (leaf == ".env") return true;  // a dotenv file (Codex's, Gemini's), never a directory
  if (!leaf.empty() && leaf[0] == '.') leaf.erase(0, 1);
  return leaf.find('.') != std::string::npos;
}

// The leaf, made below `dir`; "" on success, else the reason.
std::string make_leaf(int dir, const std::string& name, uid_t owner, gid_t group, EntryShape shape) {
  if (shape == EntryShape::Directory || !names_a_file(name)) {
    if (::mkdirat(dir, name.c_str(), 0700) != 0) return errno_text("mkdir", errno);
    ::fchownat(dir, name.c_str(), owner, group, AT_SYMLINK_NOFOLLOW);
    return "";
  }
  UniqueFd file(::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file.valid()) return errno_text("create", errno);
  // An empty JSON object is a valid state and settings file for every shipped agent; an empty
  // TOML or Markdown file is valid as it is.
  const std::string content = ends_with(name, ".json") ? "{}\n" : "";
  if (std::string failed = write_all(file.get(), content, "write"); !failed.empty()) return failed;
  ::fchown(file.get(), owner, group);
  return "";
}

// Makes `entry` below the home's descriptor; "" when made, "exists" when it was there, else why not.
std::string make_entry(int home_fd, const std::string& entry, uid_t owner, gid_t group, EntryShape shape) {
  std::vector<std::string> parts = components(entry);
  if (parts.empty()) return "exists";
  UniqueFd dir(::fcntl(home_fd, F_DUPFD_CLOEXEC, 3));
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (::mkdirat(dir.get(), parts[i].c_str(), 0700) == 0)
      ::fchownat(dir.get(), parts[i].c_str(), owner, group, AT_SYMLINK_NOFOLLOW);
    else if (errno != EEXIST) return errno_text("mkdir " + parts[i], errno);
    UniqueFd next(::openat(dir.get(), parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) return errno_text(parts[i] + " is not a directory of its own", errno);
    dir = std::move(next);
  }
  struct stat st {};
  if (::fstatat(dir.get(), parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return "exists";
  return make_leaf(dir.get(), parts.back(), owner, group, shape);
}

}  // namespace

CreatedHomeEntries create_missing_home_entries(const std::string& home, const std::vector<std::string>& entries,
                                               EntryShape shape) {
  CreatedHomeEntries out;
  UniqueFd home_fd(::open(home.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  struct stat st {};
  if (!home_fd.valid() || ::fstat(home_fd.get(), &st) != 0) {
    for (const auto& e : entries) out.problems.push_back(e + ": " + errno_text("home " + home, errno));
    return out;
  }
  for (const auto& entry : entries) {
    std::string result = make_entry(home_fd.get(), entry, st.st_uid, st.st_gid, shape);
    if (result.empty()) out.created.push_back(entry);
    else if (result != "exists") out.problems.push_back(entry + ": " + result);
  }
  return out;
}

void create_missing_profile_entries(const AgentProfile& profile, HostFacts& facts) {
  if (facts.home.empty()) return;
  // State first: a control entry is made inside the state directory holding it.
  std::vector<std::string> entries = profile.home;
  entries.insert(entries.end(), profile.control.begin(), profile.control.end());
  if (entries.empty()) return;
  CreatedHomeEntries made = create_missing_home_entries(facts.home, entries);
  for (const auto& entry : made.created) {
    const std::string path = facts.home + "/" + entry;
    facts.existing_paths.insert(path);
    if (!names_a_file(entry)) facts.directories.insert(path);
  }
  note_home_entries(profile, facts);
  for (const auto& problem : made.problems)
    print_err("cordon: could not create the agent's home entry " + terminal_safe(problem) + " (it is not kept)\n");
}

}  // namespace cordon
