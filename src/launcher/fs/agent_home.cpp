#include "launcher/fs/agent_home.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <sstream>

#include "common/error.h"
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

bool is_state_file(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
}

// The leaf, made below `dir`; "" on success, else the reason.
std::string make_leaf(int dir, const std::string& name, uid_t owner, gid_t group) {
  if (!is_state_file(name)) {
    if (::mkdirat(dir, name.c_str(), 0700) != 0) return errno_text("mkdir", errno);
    ::fchownat(dir, name.c_str(), owner, group, AT_SYMLINK_NOFOLLOW);
    return "";
  }
  UniqueFd file(::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file.valid()) return errno_text("create", errno);
  const char content[] = "{}\n";
  if (::write(file.get(), content, sizeof content - 1) != static_cast<ssize_t>(sizeof content - 1))
    return errno_text("write", errno);
  ::fchown(file.get(), owner, group);
  return "";
}

// Makes `entry` below the home's descriptor; "" when made, "exists" when it was there, else why not.
std::string make_entry(int home_fd, const std::string& entry, uid_t owner, gid_t group) {
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
  return make_leaf(dir.get(), parts.back(), owner, group);
}

}  // namespace

CreatedHomeEntries create_missing_home_entries(const std::string& home, const std::vector<std::string>& entries) {
  CreatedHomeEntries out;
  UniqueFd home_fd(::open(home.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  struct stat st {};
  if (!home_fd.valid() || ::fstat(home_fd.get(), &st) != 0) {
    for (const auto& e : entries) out.problems.push_back(e + ": " + errno_text("home " + home, errno));
    return out;
  }
  for (const auto& entry : entries) {
    std::string result = make_entry(home_fd.get(), entry, st.st_uid, st.st_gid);
    if (result.empty()) out.created.push_back(entry);
    else if (result != "exists") out.problems.push_back(entry + ": " + result);
  }
  return out;
}

void create_missing_profile_entries(const std::vector<std::string>& entries, HostFacts& facts) {
  if (facts.home.empty() || entries.empty()) return;
  CreatedHomeEntries made = create_missing_home_entries(facts.home, entries);
  for (const auto& entry : made.created) {
    const std::string path = facts.home + "/" + entry;
    facts.existing_paths.insert(path);
    facts.real_home_entries[path] = real_path(path);
    if (!is_state_file(entry)) facts.directories.insert(path);
  }
  for (const auto& problem : made.problems)
    std::fprintf(stderr, "cordon: could not create the agent's home entry %s (it is not kept)\n", problem.c_str());
}

}  // namespace cordon
