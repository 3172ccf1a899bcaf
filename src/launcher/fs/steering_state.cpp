#include "launcher/fs/steering_state.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "common/agent_control.h"
#include "common/error.h"
#include "common/json_codec.h"
#include "common/paths.h"
#include "common/text.h"
#include "common/unique_fd.h"

namespace cordon {
namespace {

constexpr int kMaxDepth = 64;

std::string snapshot_path(const std::string& sessions_dir, const std::string& id) {
  return sessions_dir + "/" + id + ".steering";
}

// The names in directory `path` (none when it is not a directory or cannot be read).
std::vector<std::string> names_in(const std::string& path) {
  std::vector<std::string> names;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  DIR* dir = fd.valid() ? ::fdopendir(fd.get()) : nullptr;
  if (dir == nullptr) return names;
  fd.release();  // closedir closes it
  while (const dirent* d = ::readdir(dir)) {
    const std::string name = d->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  return names;
}

class Lister {
 public:
  Lister(std::string home, SteeringListing& out) : home_(std::move(home)), out_(out) {}

  // `rel` (relative to the home, "" = the home) matched parts[0, at): goes on below it. A link
  // on the way is an entry itself (the agent would follow it); other non-directories there
  // are not the agent's memory.
  void match(const std::string& rel, const std::vector<std::string>& parts, size_t at) {
    struct stat st {};
    if (!rel.empty() && ::lstat((home_ + "/" + rel).c_str(), &st) != 0) return;
    if (at == parts.size()) return walk(rel, 0);
    if (!rel.empty() && !S_ISDIR(st.st_mode)) return S_ISLNK(st.st_mode) ? add(rel, st) : void();
    const std::string base = rel.empty() ? "" : rel + "/";
    if (parts[at] != "*") return match(base + parts[at], parts, at + 1);
    for (const auto& name : names_in(home_ + "/" + rel)) match(base + name, parts, at + 1);
  }

 private:
  // Every non-directory below `rel`; `rel` itself when it is one (a link where the memory was).
  void walk(const std::string& rel, int depth) {
    struct stat st {};
    if (::lstat((home_ + "/" + rel).c_str(), &st) != 0) return;
    if (!S_ISDIR(st.st_mode)) return add(rel, st);
    if (depth >= kMaxDepth) return;
    for (const auto& name : names_in(home_ + "/" + rel)) walk(rel + "/" + name, depth + 1);
  }

  void add(const std::string& rel, const struct stat& st) {
    if (out_.entries.size() >= kMaxSteeringEntries) {
      out_.complete = false;
      return;
    }
    out_.entries[rel] = {static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino),
                         static_cast<long long>(st.st_size),
                         static_cast<long long>(st.st_ctim.tv_sec) * 1000000000LL + st.st_ctim.tv_nsec, st.st_mode};
  }

  std::string home_;
  SteeringListing& out_;
};

Json listing_json(const std::string& home, const std::vector<std::string>& patterns, const SteeringListing& l) {
  Json entries = Json::array();
  for (const auto& [rel, e] : l.entries)
    entries.push_back(Json::array({bytes_json(rel), e.device, e.inode, e.size, e.ctime_ns, e.mode}));
  return {{"home", bytes_json(home)}, {"patterns", patterns}, {"complete", l.complete}, {"entries", entries}};
}

std::optional<unsigned long long> unsigned_at(const Json& array, size_t i) {
  if (!array[i].is_number_unsigned()) return std::nullopt;
  return array[i].get<unsigned long long>();
}

std::optional<SteeringEntry> entry_of(const Json& row) {
  if (!row.is_array() || row.size() != 6) return std::nullopt;
  SteeringEntry e;
  const auto dev = unsigned_at(row, 1), ino = unsigned_at(row, 2), size = unsigned_at(row, 3);
  const auto ctime = unsigned_at(row, 4), mode = unsigned_at(row, 5);
  if (!dev || !ino || !size || !ctime || !mode || *size > (1ULL << 62) || *ctime > (1ULL << 62) || *mode > 0xffffffff)
    return std::nullopt;
  e.device = *dev;
  e.inode = *ino;
  e.size = static_cast<long long>(*size);
  e.ctime_ns = static_cast<long long>(*ctime);
  e.mode = static_cast<unsigned>(*mode);
  return e;
}

struct Snapshot {
  std::string home;
  std::vector<std::string> patterns;
  SteeringListing listing;
};

// The snapshot as snapshot_steering_state writes it; nullopt for anything else.
std::optional<Snapshot> parse_snapshot(const std::string& text) {
  std::optional<Json> doc = parse_json(text, nullptr);
  if (!doc || !doc->is_object() || !doc->contains("home") || !doc->contains("patterns") || !doc->contains("entries") ||
      !(*doc)["entries"].is_array() || !(*doc)["patterns"].is_array() || !doc->contains("complete") ||
      !(*doc)["complete"].is_boolean())
    return std::nullopt;
  Snapshot s;
  try {
    s.home = bytes_from_json((*doc)["home"]);
    for (const auto& p : (*doc)["patterns"]) {
      if (!p.is_string()) return std::nullopt;
      s.patterns.push_back(p.get<std::string>());
    }
    for (const auto& row : (*doc)["entries"]) {
      std::optional<SteeringEntry> e = entry_of(row);
      if (!e) return std::nullopt;
      s.listing.entries[bytes_from_json(row[0])] = *e;
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  s.listing.complete = (*doc)["complete"].get<bool>();
  if (s.home.empty() || s.home[0] != '/') return std::nullopt;
  return s;
}

}  // namespace

SteeringListing list_steering_state(const std::string& home, const std::vector<std::string>& patterns) {
  SteeringListing listing;
  Lister lister(home, listing);
  for (const auto& pattern : patterns) lister.match("", path_components(pattern), 0);
  return listing;
}

FootholdAudit steering_changes(const std::string& home, const SteeringListing& before, const SteeringListing& after) {
  FootholdAudit audit;
  for (const auto& [rel, now] : after.entries) {
    auto was = before.entries.find(rel);
    if (was == before.entries.end()) audit.items.push_back({"steering-state", home + "/" + rel, "", "added"});
    else if (!(was->second == now)) audit.items.push_back({"steering-state", home + "/" + rel, "", "changed"});
  }
  for (const auto& [rel, was] : before.entries)
    if (!after.entries.count(rel) && after.complete)
      audit.items.push_back({"steering-state", home + "/" + rel, "", "removed"});
  if (!before.complete || !after.complete)
    audit.problems.push_back("the agent's memory holds more than " + std::to_string(kMaxSteeringEntries) +
                             " entries: changes were named for the first " + std::to_string(kMaxSteeringEntries));
  return audit;
}

std::string snapshot_steering_state(const std::string& sessions_dir, const std::string& id, const std::string& home,
                                    const std::string& agent) {
  const std::vector<std::string>& patterns = shipped_steering_state(agent);
  if (patterns.empty() || home.empty() || home[0] != '/') return "";
  const std::string path = snapshot_path(sessions_dir, id);
  const std::string text = listing_json(home, patterns, list_steering_state(home, patterns)).dump() + "\n";
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return errno_text("write " + path, errno);
  return write_all(fd.get(), text, "write " + path);
}

FootholdAudit report_steering_changes(const std::string& sessions_dir, const std::string& id) {
  const std::string path = snapshot_path(sessions_dir, id);
  // cordon's own file in the state directory; the listing it holds is bounded far below this.
  std::optional<std::string> text = read_regular_file(path, 64U << 20);
  if (!text) return {};  // a profile without memory, or a launch that never got this far
  std::optional<Snapshot> snapshot = parse_snapshot(*text);
  FootholdAudit audit;
  if (!snapshot)
    audit.problems.push_back(path + " is unreadable: what the session wrote in the agent's memory is unnamed");
  else
    audit = steering_changes(snapshot->home, snapshot->listing,
                             list_steering_state(snapshot->home, snapshot->patterns));
  ::unlink(path.c_str());
  return audit;
}

std::string steering_state_line(const AuditItem& item) {
  return "the session " + item.detail + " " + item.path +
         " in the agent's memory, which it reads into its later sessions (kept as the agent's state: review it)";
}

}  // namespace cordon
