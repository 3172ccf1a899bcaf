#include "launcher/fs/home_audit.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "launcher/fs/control_file_place.h"
#include "launcher/inputs/state_dirs.h"

namespace cordon {
namespace {

std::string snapshot_path(const std::string& sessions_dir, const std::string& id) {
  return sessions_dir + "/" + id + ".control-keys";
}

// What the session left is read up to this (a file of any size would be read whole into
// memory); past it the file is not one cordon can check, and goes back as it was at launch.
constexpr size_t kSessionFileBytes = 256U << 20;

// The detail of a state-file item for a node the session put where the agent reads.
constexpr const char* kNotAFile = "not a file: ";

std::optional<std::string> read_whole(const std::string& path, struct stat* st) {
  return read_regular_file(path, SIZE_MAX, st);
}

// Writes `text` to `path` through a new file in the same directory renamed over it; "" or why not.
std::string replace_file(const std::string& path, const std::string& text, mode_t mode, uid_t uid, gid_t gid) {
  // A name no session can have taken beforehand (mkostemp: random, O_EXCL); a pid-based one
  // could be made in advance for every pid, and the restore would fail.
  std::string tmp = path + ".cordon-XXXXXX";
  UniqueFd fd(::mkostemp(tmp.data(), O_CLOEXEC));
  if (!fd.valid()) return errno_text("create " + tmp, errno);
  ::fchown(fd.get(), uid, gid);  // a root launch rewriting a user's file keeps it theirs
  // The mode the session left, not filtered by the launcher's umask: the permission audit
  // after this (fs/loose_permissions.h) sees a loose one, tightens it and names it.
  ::fchmod(fd.get(), mode & 07777);
  // Each failure names its own call's errno (a short write sets none).
  std::string problem = write_all(fd.get(), text, "replace " + path);
  if (problem.empty() && ::fsync(fd.get()) != 0) problem = errno_text("replace " + path, errno);
  fd.reset();
  if (problem.empty() && ::rename(tmp.c_str(), path.c_str()) != 0) problem = errno_text("replace " + path, errno);
  if (!problem.empty()) ::unlink(tmp.c_str());
  return problem;
}

std::string escape_token(const std::string& key) {
  std::string out;
  for (char ch : key) {
    if (ch == '~') out += "~0";
    else if (ch == '/') out += "~1";
    else out += ch;
  }
  return out;
}

void collect(const Json& node, const std::vector<std::string>& tokens, size_t at, const std::string& pointer,
             Json& out) {
  if (at == tokens.size()) {
    out[pointer] = node;
    return;
  }
  if (!node.is_object()) return;
  if (tokens[at] == "*") {
    for (const auto& [key, child] : node.items())
      collect(child, tokens, at + 1, pointer + "/" + escape_token(key), out);
  } else if (auto it = node.find(tokens[at]); it != node.end()) {
    collect(*it, tokens, at + 1, pointer + "/" + escape_token(tokens[at]), out);
  }
}

std::vector<std::string> tokens_of(const std::string& pointer) {
  std::vector<std::string> tokens;
  size_t at = 1;
  while (at <= pointer.size()) {
    size_t slash = pointer.find('/', at);
    tokens.push_back(pointer.substr(at, slash == std::string::npos ? std::string::npos : slash - at));
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
  return tokens;
}

std::string unescape_token(const std::string& token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[++i] == '0' ? '~' : '/';
      continue;
    }
    out += token[i];
  }
  return out;
}

// `doc` at `pointer` (object keys only, as collect() makes them) set to `value`. A container
// on the way that is not an object (the session may have made it a string or an array)
// becomes one: the launch value comes back whatever the session left there.
void set_at(Json& doc, const std::string& pointer, const Json& value) {
  Json* node = &doc;
  for (const auto& token : tokens_of(pointer)) {
    if (!node->is_object()) *node = Json::object();
    node = &(*node)[unescape_token(token)];
  }
  *node = value;
}

// The session's version of `path`, kept in STATE/quarantine/SESSION/ for review; "" or why not.
std::string keep_session_version(const std::string& sessions_dir, const std::string& id, const std::string& path,
                                 const std::string& text, std::string& kept) {
  const std::string quarantine = state_dir_of(sessions_dir) + "/quarantine";
  const std::string dir = quarantine + "/" + id;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  ::chmod(quarantine.c_str(), 0700);  // the session's file may hold MCP servers' tokens
  ::chmod(dir.c_str(), 0700);
  kept = dir + path.substr(path.rfind('/'));
  UniqueFd out(::open(kept.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  const std::string context = "keep the session's " + path + " in " + kept;
  return out.valid() ? write_all(out.get(), text, context) : errno_text(context, errno);
}

// A file whose control keys cannot be checked goes back whole: the session's version to the
// quarantine, the launch copy in its place (or, absent at launch, no file).
// `now_text` null: larger than cordon reads, so not kept.
void restore_whole(FootholdAudit& audit, const std::string& sessions_dir, const std::string& id,
                   const std::string& path, const std::string* now_text, const std::string& launch_copy,
                   const struct stat& st) {
  const std::string unchecked = path + " is not JSON cordon can check after the session";
  std::string kept = "not kept (more than " + std::to_string(kSessionFileBytes >> 20) + " MiB)";
  if (now_text)
    if (std::string failed = keep_session_version(sessions_dir, id, path, *now_text, kept); !failed.empty()) {
      audit.problems.push_back(unchecked + ", and " + failed + ": left as the session wrote it");
      return;
    }
  struct stat cst {};
  const std::optional<std::string> launch = launch_copy.empty() ? std::optional<std::string>("")
                                                                : read_whole(launch_copy, &cst);
  std::string failed;
  if (!launch) failed = "its launch copy " + launch_copy + " is unreadable";
  else if (launch_copy.empty()) failed = ::unlink(path.c_str()) == 0 ? "" : errno_text("remove " + path, errno);
  else failed = replace_file(path, *launch, st.st_mode, st.st_uid, st.st_gid);
  if (!failed.empty()) {
    audit.problems.push_back(unchecked + ", and " + failed +
                             ": left as the session wrote it (the session's version is " + kept + ")");
    return;
  }
  audit.items.push_back({"state-file", path, kept,
                         launch_copy.empty() ? "removed (absent at launch)" : "put back whole as it was at launch"});
}

// One file's entry of the snapshot as snapshot_control_keys writes it: "pointers" an array of
// strings, "values" an object keyed by JSON pointers. The snapshot is read back like a record,
// every type checked: nullopt for any other shape.
struct SnapshotEntry {
  std::vector<std::string> pointers;
  Json values;
  std::string launch_copy;     // the file's bytes at launch ("": it was absent)
  bool launch_checked = true;  // false: not JSON cordon could check at launch
  // What the agent opened at the path at launch (fs/control_file_place.h); nullopt in a
  // snapshot written before cordon recorded it.
  std::optional<ControlFilePlace> place;
};

std::optional<SnapshotEntry> snapshot_entry(const Json& entry) {
  if (!entry.is_object() || !entry.contains("pointers") || !entry["pointers"].is_array() || !entry.contains("values") ||
      !entry["values"].is_object())
    return std::nullopt;
  SnapshotEntry out{{}, entry["values"], "", true, std::nullopt};
  if (entry.contains("place")) {
    out.place = place_from_json(entry["place"]);
    if (!out.place) return std::nullopt;
  }
  if (entry.contains("launch_checked")) {
    if (!entry["launch_checked"].is_boolean()) return std::nullopt;
    out.launch_checked = entry["launch_checked"].get<bool>();
  }
  if (entry.contains("launch_copy") && !entry["launch_copy"].is_null()) {
    try {
      out.launch_copy = bytes_from_json(entry["launch_copy"]);
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  for (const auto& pointer : entry["pointers"]) {
    if (!pointer.is_string() || pointer.get<std::string>().rfind('/', 0) != 0) return std::nullopt;
    out.pointers.push_back(pointer.get<std::string>());
  }
  for (const auto& [pointer, value] : out.values.items())
    if (pointer.rfind('/', 0) != 0) return std::nullopt;
  return out;
}

// The snapshot's files in the order it lists them; nullopt when it is not what
// snapshot_control_keys writes.
std::optional<std::vector<std::pair<std::string, SnapshotEntry>>> snapshot_entries(const std::string& text) {
  std::optional<Json> files = parse_json(text, nullptr);
  if (!files || !files->is_object()) return std::nullopt;
  std::vector<std::pair<std::string, SnapshotEntry>> entries;
  for (const auto& [path, entry] : files->items()) {
    std::optional<SnapshotEntry> e = snapshot_entry(entry);
    if (!e) return std::nullopt;
    entries.emplace_back(path, std::move(*e));
  }
  return entries;
}

// Whether a control key's value grants anything: an MCP server, an allowed tool, a true
// switch. An empty object or list, false, 0, "" or null grants what an absent key does.
bool grants(const Json& value) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number()) return value != 0;
  if (value.is_string() || value.is_array() || value.is_object()) return !value.empty();
  return false;
}

// The pointers whose value the session changed to one that grants something (Claude Code
// writes empty defaults for every new project: they are no change worth a word).
std::vector<std::string> granting_changes(const Json& before, const Json& after) {
  std::vector<std::string> changed;
  for (const auto& [pointer, value] : after.items())
    if (grants(value) && (!before.contains(pointer) || before[pointer] != value)) changed.push_back(pointer);
  return changed;
}

// The values the file gets back: the launch values, and the session's new keys that grant
// nothing (its empty defaults stay where the agent put them).
Json values_to_restore(const Json& launch, const Json& now) {
  Json values = launch;
  for (const auto& [pointer, value] : now.items())
    if (!launch.contains(pointer) && !grants(value)) values[pointer] = value;
  return values;
}

}  // namespace

Json control_key_values(const Json& doc, const std::vector<std::string>& pointers) {
  Json out = Json::object();
  for (const auto& pointer : pointers) collect(doc, tokens_of(pointer), 0, "", out);
  return out;
}

Json with_control_keys(Json doc, const std::vector<std::string>& pointers, const Json& launch_values) {
  const Json now = control_key_values(doc, pointers);
  for (const auto& [pointer, value] : now.items()) {
    const Json::json_pointer p(pointer);
    Json& parent = doc.at(p.parent_pointer());
    if (parent.is_object()) parent.erase(p.back());
  }
  for (const auto& [pointer, value] : launch_values.items()) set_at(doc, pointer, value);
  return doc;
}

std::string snapshot_control_keys(const std::string& sessions_dir, const std::string& id, const std::string& home,
                                  const std::string& agent) {
  const auto& keys = shipped_control_keys(agent);
  if (keys.empty()) return "";
  Json files = Json::object();
  const std::string path = snapshot_path(sessions_dir, id);
  for (size_t i = 0; i < keys.size(); ++i) {
    const ControlKeys& k = keys[i];
    struct stat st {};
    // A link (a dotfile manager's) is read at the file it leads to, as the agent reads it.
    ControlFilePlace place = control_file_place(home + "/" + k.file);
    // Only in the home itself, which no session writes. One in a state directory (a session
    // writes ~/.claude) may be a session's, left by a cordon that did not look at links: it is
    // not adopted, and goes after this session.
    if (place.kind == ControlFilePlace::Kind::Link && k.file.find('/') != std::string::npos)
      place = ControlFilePlace{ControlFilePlace::Kind::Other, "", "",
                               "a symbolic link to " + place.link + " in a directory sessions write (not adopted)"};
    std::optional<std::string> text = place.resolved.empty() ? std::nullopt : read_whole(place.resolved, &st);
    std::optional<Json> doc = text ? parse_json(*text, nullptr) : std::nullopt;
    // Not JSON cordon can check at launch, or absent (~/.claude/.config.json would replace
    // ~/.claude.json whole): any change the session makes puts it back whole, or removes it.
    Json entry = {{"pointers", k.pointers},
                  {"values", doc ? control_key_values(*doc, k.pointers) : Json::object()},
                  {"launch_checked", doc.has_value()},
                  {"launch_copy", nullptr},
                  {"place", place_json(place)}};
    // The whole file too: what the session leaves may be JSON that cordon cannot check (and
    // the agent's parser reads anyway); then the file goes back whole.
    if (text) {
      const std::string copy = path + "." + std::to_string(i);
      UniqueFd out(::open(copy.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
      if (!out.valid()) return errno_text("write " + copy, errno);
      if (std::string failed = write_all(out.get(), *text, "write " + copy); !failed.empty()) return failed;
      entry["launch_copy"] = bytes_json(copy);
    }
    files[home + "/" + k.file] = std::move(entry);
  }
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return errno_text("write " + path, errno);
  return write_all(fd.get(), files.dump() + "\n", "write " + path);
}

namespace {

// What the agent would open at `path` is not what was there at launch, and is no file cordon
// can check (a link the session made or turned elsewhere, a FIFO...): removed, with the launch
// state put back where it can be (fs/control_file_place.h).
void remove_planted_node(FootholdAudit& audit, const std::string& path, const ControlFilePlace& now,
                         const ControlFilePlace& launch, const std::string& launch_copy) {
  const std::string what = describe_place(now) + " (at launch: " + describe_place(launch) + ")";
  std::string failed = remove_planted(path, launch);
  if (failed.empty() && launch.kind == ControlFilePlace::Kind::File && !launch_copy.empty()) {
    struct stat copy_stat {};
    const std::optional<std::string> copy = read_whole(launch_copy, &copy_stat);
    const auto [uid, gid] = directory_owner(path);
    failed = copy ? replace_file(path, *copy, 0600, uid, gid) : "its launch copy " + launch_copy + " is unreadable";
  }
  if (!failed.empty()) audit.problems.push_back(path + " is " + what + ": " + failed);
  else audit.items.push_back({"state-file", path, "", kNotAFile + what});
}

// One control-key file after the session: its keys back to their launch values, or the file
// back whole, or what was planted in its place removed.
void audit_control_file(FootholdAudit& audit, const std::string& sessions_dir, const std::string& id,
                        const std::string& path, const SnapshotEntry& entry) {
  const ControlFilePlace now = control_file_place(path);
  if (now.kind == ControlFilePlace::Kind::Absent) return;  // removed during the session: nothing of it will run
  // A snapshot from before cordon recorded the place saw a file or nothing (it read O_NOFOLLOW):
  // a link there now is the session's, and is never followed.
  const ControlFilePlace launch = entry.place.value_or(ControlFilePlace{ControlFilePlace::Kind::File, "", path, ""});
  const bool same_place = now == launch;
  if (!same_place && (now.kind != ControlFilePlace::Kind::File || launch.kind == ControlFilePlace::Kind::Link))
    return remove_planted_node(audit, path, now, launch, entry.launch_copy);
  if (now.resolved.empty()) return;        // the same dangling link or node as at launch: nothing to read
  const std::string& file = now.resolved;  // the regular file the agent reads (a link's target)
  struct stat st {};
  int err = 0;
  std::optional<std::string> now_text = read_regular_file(file, kSessionFileBytes, &st, &err);
  if (!now_text) {
    if (err == EFBIG) restore_whole(audit, sessions_dir, id, file, nullptr, entry.launch_copy, st);
    else audit.problems.push_back(errno_text(file + " could not be read for its control keys", err));
    return;
  }
  if (!entry.launch_checked) {
    struct stat cst {};
    if (read_whole(entry.launch_copy, &cst) != now_text)
      restore_whole(audit, sessions_dir, id, file, &*now_text, entry.launch_copy, st);
    return;
  }
  // The session wrote it: parsed with the depth bound (common/json_codec.h), never Json::parse.
  std::optional<Json> parsed = parse_json(*now_text, nullptr);
  if (!parsed || !parsed->is_object()) {
    // Not JSON cordon can check (too deep, a number out of range, invalid UTF-8, a lone
    // surrogate...), yet the agent's own parser may read it and find what the session
    // planted: the file goes back whole, as it was at launch.
    return restore_whole(audit, sessions_dir, id, file, &*now_text, entry.launch_copy, st);
  }
  const Json now_values = control_key_values(*parsed, entry.pointers);
  const std::vector<std::string> changed = granting_changes(entry.values, now_values);
  if (changed.empty()) return;
  std::string kept;
  if (std::string failed = keep_session_version(sessions_dir, id, file, *now_text, kept); !failed.empty())
    return audit.problems.push_back(failed + ": its control keys were left as the session wrote them");
  std::string detail;
  for (const auto& p : changed) detail += (detail.empty() ? "" : ", ") + p;
  const Json restored = with_control_keys(*parsed, entry.pointers, values_to_restore(entry.values, now_values));
  if (std::string why = replace_file(file, restored.dump(2) + "\n", st.st_mode, st.st_uid, st.st_gid); !why.empty())
    return audit.problems.push_back(why + ": its control keys (" + detail + ") were left as the session wrote them");
  audit.items.push_back({"state-key", file, kept, detail});
}

}  // namespace

FootholdAudit restore_control_keys(const std::string& sessions_dir, const std::string& id) {
  FootholdAudit audit;
  const std::string snapshot = snapshot_path(sessions_dir, id);
  struct stat sst {};
  std::optional<std::string> text = read_whole(snapshot, &sst);
  if (!text) return audit;  // a profile without control keys, or a launch that never got this far
  const std::optional<std::vector<std::pair<std::string, SnapshotEntry>>> entries = snapshot_entries(*text);
  if (!entries) {
    audit.problems.push_back(snapshot + " is unreadable: the agent's control keys were not checked");
    return audit;
  }
  for (const auto& [path, entry] : *entries) audit_control_file(audit, sessions_dir, id, path, entry);
  for (const auto& [path, entry] : *entries)
    if (!entry.launch_copy.empty()) ::unlink(entry.launch_copy.c_str());
  ::unlink(snapshot.c_str());
  return audit;
}

std::string readable_pointer(const std::string& pointer) {
  std::string out;
  for (const auto& token : tokens_of(pointer)) {
    const std::string key = unescape_token(token);
    bool identifier = !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0]));
    for (char c : key) identifier = identifier && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (identifier) {
      out += (out.empty() ? "" : ".") + key;
      continue;
    }
    out += "[\"";
    for (char c : key) out += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    out += "\"]";
  }
  return out;
}

std::string control_key_line(const AuditItem& item) {
  if (item.kind == "state-file" && item.detail.rfind(kNotAFile, 0) == 0)
    return item.path + ", which the agent follows or reads for what to run, was " +
           item.detail.substr(std::string_view(kNotAFile).size()) +
           (item.detail.find("(at launch: nothing)") != std::string::npos
                ? ": removed"
                : ": removed, and what was there at launch put back");
  if (item.kind == "state-file" && item.detail.rfind("removed", 0) == 0)
    return "the session created " + item.path +
           ", which the agent reads for what to run (absent at launch): removed; the session's version is " +
           item.quarantine;
  if (item.kind == "state-file")
    return item.path +
           " was left as JSON cordon cannot check (the agent may read what the session put there): " + item.detail +
           "; the session's version is " + item.quarantine;
  // The receipt keeps the JSON pointers; people read the keys.
  std::string keys;
  for (size_t at = 0; at <= item.detail.size();) {
    size_t next = item.detail.find(", /", at);
    if (next == std::string::npos) next = item.detail.size();
    keys += (keys.empty() ? "" : ", ") + readable_pointer(item.detail.substr(at, next - at));
    at = next + 2;
  }
  return "restored " + keys + " in " + item.path +
         " to their values at launch (the session set them; the agent would run or allow what they name): the "
         "session's version is " +
         item.quarantine;
}

}  // namespace cordon
