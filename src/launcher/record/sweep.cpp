#include "launcher/record/sweep.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "common/error.h"
#include "common/json_codec.h"
#include "common/process_start.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "common/utc_time.h"
#include "launcher/budgets/cgroup_session.h"
#include "launcher/network/pasta.h"
#include "launcher/record/manifest.h"
#include "launcher/record/record_file.h"
#include "launcher/record/session_state.h"

namespace cordon {
namespace {

// The session cgroups' parents, as the manifest recorded them.
std::vector<std::string> cgroup_parents(const Json& manifest) {
  std::vector<std::string> parents;
  const Json& limits = manifest.value("limits", Json::object());
  if (!limits.is_object() || !limits.contains("cgroups") || !limits["cgroups"].is_array()) return parents;
  for (const auto& entry : limits["cgroups"]) {
    try {
      parents.push_back(bytes_from_json(entry.at("parent")));
    } catch (const std::exception&) {
    }
  }
  return parents;
}

// pasta's readiness FIFO and its dir, when the launcher died while pasta attached. Only a
// directory of ours (never a symlink) is touched.
std::string remove_pasta_dir(const std::string& id, std::vector<std::string>& removed) {
  const std::string dir = jail::pasta_temp_dir(id);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return "";
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) return dir + " is not this user's directory (left as is)";
  ::unlink((dir + "/ready").c_str());
  if (::rmdir(dir.c_str()) != 0) return errno_text("removing " + dir, errno);
  removed.push_back(dir);
  return "";
}

bool append_line(const std::string& path, const Json& document, std::string* problem) {
  const std::string context = "appending to " + path;
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC));
  // The errno of the call that failed: a short write sets none.
  const std::string failed = fd.valid() ? write_all(fd.get(), dump_line(document) + "\n", context)
                                        : errno_text(context, errno);
  if (!failed.empty() && problem) *problem = failed;
  return failed.empty();
}

// The workspace audit the killed launcher could not run (workspace/foothold_audit.h), from its manifest.
FootholdAudit audit_crashed_workspace(const std::string& id, const std::optional<Json>& manifest) {
  if (!manifest || !manifest->is_object() || !manifest->contains("workspace")) return {};
  try {
    auto paths = [&](const char* key) {
      std::vector<std::string> out;
      for (const auto& item : manifest->value(key, Json::array())) out.push_back(bytes_from_json(item));
      return out;
    };
    return audit_session_workspace(id, bytes_from_json((*manifest)["workspace"]), paths("workspace_protected"),
                                   paths("workspace_protect_absent"));
  } catch (const std::exception& e) {
    return {{}, {std::string("the manifest's workspace could not be read: ") + e.what()}};
  }
}

// The permission audit the killed launcher could not run (fs/loose_permissions.h), from its manifest.
FootholdAudit audit_crashed_permissions(const std::optional<Json>& manifest) {
  std::optional<PermissionBaseline> baseline = manifest ? permission_baseline_from(*manifest) : std::nullopt;
  if (!baseline) return {};
  std::string workspace;
  try {
    if (manifest->contains("workspace")) workspace = bytes_from_json((*manifest)["workspace"]);
  } catch (const Error&) {
    // unreadable: the state entries are still walked, the workspace's git dirs are not
  }
  return audit_session_permissions(std::move(*baseline), workspace);
}

Json crash_receipt(const std::vector<std::string>& removed, const std::vector<std::string>& problems,
                   const std::vector<std::string>& temp_dirs, const FootholdAudit& audit, const FootholdAudit& home,
                   const FootholdAudit& permissions) {
  Json receipt{
      {"ended", nullptr},
      {"launch_error", nullptr},
      {"command_ran", nullptr},
      {"exit_code", nullptr},
      {"signal", nullptr},
      {"duration_seconds", nullptr},
      {"limit_hits", Json::array()},
      {"teardown",
       {{"verified", problems.empty()},
        {"problems", bytes_array_json(problems)},
        {"cgroups_removed", bytes_array_json(removed)}}},
      {"workspace_audit", workspace_audit_json(audit)},
      {"home_audit", workspace_audit_json(home)},
      {"permissions_audit", workspace_audit_json(permissions)},
      {"crashed",
       {{"detected", utc_now()}, {"swept_by_pid", ::getpid()}, {"temp_dirs_removed", bytes_array_json(temp_dirs)}}}};
  return {{"format", kReceiptFormat}, {"version", kRecordVersion}, {"receipt", receipt}};
}

// The launcher ended but could not write its receipt: the note it left says the exit status.
Json noted_receipt(const ReceiptNote& note) {
  const long long exit_code = note.exit_code;
  const std::string& cause = note.cause;
  Json receipt{{"ended", nullptr},
               {"launch_error", nullptr},
               {"command_ran", nullptr},
               {"exit_code", exit_code},
               {"signal", nullptr},
               {"duration_seconds", nullptr},
               {"limit_hits", Json::array()},
               {"teardown", {{"verified", nullptr}, {"problems", Json::array()}, {"cgroups_removed", Json::array()}}},
               {"receipt_incomplete", {{"cause", bytes_json(cause)}, {"completed", utc_now()}}}};
  return {{"format", kReceiptFormat}, {"version", kRecordVersion}, {"receipt", receipt}};
}

// Sweeps one session whose state file lock is held. Returns the report line.
std::string sweep_one(const std::string& dir, const std::string& id, int state_fd, SweepReport& report,
                      const RecordExport* exporter) {
  const std::string record_path = dir + "/" + id + ".json";
  std::string problem;
  std::optional<std::string> text = read_record(record_path, &problem);
  if (!text) {
    ::unlink((record_path + ".tmp").c_str());  // a launcher that died while writing its manifest
    ::unlink(state_file_path(dir, id).c_str());
    return "session " + id + ": its launcher died before its record was written (state file removed)";
  }
  ParsedRecord record = parse_record(*text);
  if (record.receipt) {  // died between the receipt and the state file's removal
    ::unlink(state_file_path(dir, id).c_str());
    return "session " + id + ": already complete (state file removed)";
  }
  if (std::optional<ReceiptNote> note = receipt_failed_note(state_fd)) {
    const Json receipt = noted_receipt(*note);
    if (!append_line(record_path, receipt, &problem)) return "session " + id + ": " + problem;
    if (exporter) exporter->send(id, receipt);
    ::unlink(state_file_path(dir, id).c_str());
    return "session " + id + ": its launcher could not write the receipt (exit status " +
           std::to_string(note->exit_code) + ", " + note->cause + "); completed from its note";
  }
  std::vector<std::string> temp_dirs;
  cgroup::CgroupFinish cgroups = cgroup::sweep_session_cgroups(
      record.manifest ? cgroup_parents(*record.manifest) : std::vector<std::string>{}, id);
  std::vector<std::string> problems = cgroups.problems;
  if (std::string left = remove_pasta_dir(id, temp_dirs); !left.empty()) problems.push_back(left);
  report.problems += static_cast<int>(problems.size());
  const FootholdAudit audit = audit_crashed_workspace(id, record.manifest);
  const FootholdAudit home = audit_session_home(dir, id);
  const FootholdAudit permissions = audit_crashed_permissions(record.manifest);
  const Json receipt = crash_receipt(cgroups.removed, problems, temp_dirs, audit, home, permissions);
  if (!append_line(record_path, receipt, &problem)) return "session " + id + ": " + problem;
  if (exporter) exporter->send(id, receipt);
  ::unlink(state_file_path(dir, id).c_str());
  std::string line = "session " + id + " crashed (its launcher died without a receipt); swept";
  for (const auto& removed : cgroups.removed) line += ", removed " + removed;
  for (const auto& removed : temp_dirs) line += ", removed " + removed;
  for (const auto& p : problems) line += "; PROBLEM: " + p;
  if (!audit.items.empty())
    line += "; workspace audit: " + std::to_string(audit.items.size()) + " item(s), named above";
  if (!home.items.empty()) line += "; home audit: " + std::to_string(home.items.size()) + " item(s), named above";
  if (!permissions.items.empty())
    line += "; permissions tightened: " + std::to_string(permissions.items.size()) + " item(s), named above";
  return line;
}

// True when the record names its launcher and that process is gone (no such pid, another
// process under it, or another boot). A record not yet written says nothing: false.
bool recorded_launcher_gone(const std::string& dir, const std::string& id) {
  std::optional<std::string> text = read_record(dir + "/" + id + ".json", nullptr);
  if (!text) return false;
  ParsedRecord record = parse_record(*text);
  if (!record.manifest || !record.manifest->contains("launcher")) return false;
  try {
    const Json& launcher = (*record.manifest)["launcher"];
    if (bytes_from_json(launcher.at("boot_id")) != boot_id()) return true;
    // Read as integers only where they are: a float (1e300) or a string says nothing.
    const std::optional<long long> pid = integer_member(launcher, "pid");
    const std::optional<long long> ticks = integer_member(launcher, "start_ticks");
    if (!pid || !ticks) return false;
    std::optional<long long> started = process_start_ticks(std::to_string(*pid));
    return !started || *started != *ticks;
  } catch (const std::exception&) {
    return false;
  }
}

// The state file's lock once its launcher is gone. A launcher killed a moment ago leaves its
// session's last processes (its forked child, the session's init) dying for about a
// millisecond, holding the lock: the sweep waits for them, at most half a second.
UniqueFd lock_crashed_session(const std::string& dir, const std::string& id) {
  UniqueFd lock = lock_if_launcher_gone(dir, id);
  if (lock.valid() || !recorded_launcher_gone(dir, id)) return lock;
  for (int tries = 0; tries < 250 && !lock.valid(); ++tries) {
    ::usleep(2000);
    lock = lock_if_launcher_gone(dir, id);
  }
  return lock;
}

}  // namespace

SweepReport sweep_crashed_sessions(const std::string& dir, const RecordExport* exporter) {
  SweepReport report;
  for (const auto& id : remove_abandoned_new_state_files(dir))
    report.lines.push_back("session " + id + ": its launcher died while making its state file (removed)");
  for (const auto& id : session_ids(live_dir(dir), ".state")) {
    // Held until this session is swept: a concurrent sweeper sees it as busy and skips it.
    UniqueFd lock = lock_crashed_session(dir, id);
    if (!lock.valid()) continue;
    report.lines.push_back(sweep_one(dir, id, lock.get(), report, exporter));
    ++report.swept;
  }
  return report;
}

SweepReport sweep_session(const std::string& dir, const std::string& id, int wait_ms, const RecordExport* exporter) {
  SweepReport report;
  UniqueFd lock;
  for (int waited = 0; waited <= wait_ms; waited += 2) {
    if (::access(state_file_path(dir, id).c_str(), F_OK) != 0) {
      // Never made, finished, or swept already; or died while making it (its lock not yet taken).
      const std::string making = live_dir(dir) + "/" + id + kNewSuffix;
      UniqueFd fd(::open(making.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC));
      if (fd.valid() && ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0 && ::unlink(making.c_str()) == 0)
        report.lines.push_back("session " + id + ": its launcher died while making its state file (removed)");
      return report;
    }
    lock = lock_if_launcher_gone(dir, id);
    if (lock.valid()) break;
    ::usleep(2000);
  }
  if (!lock.valid()) return report;
  report.lines.push_back(sweep_one(dir, id, lock.get(), report, exporter));
  ++report.swept;
  return report;
}

std::vector<std::string> crashed_session_ids(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& id : session_ids(live_dir(dir), ".state")) {
    LiveState state = probe_live_state(dir, id);
    if (state == LiveState::Crashed || state == LiveState::ReceiptFailed) out.push_back(id);
  }
  return out;
}

bool prune_due(const std::string& dir) {
  const std::string stamp = dir + "/../last-prune";
  struct stat st {};
  if (::stat(stamp.c_str(), &st) == 0 && std::time(nullptr) - st.st_mtime < kPruneIntervalSeconds) return false;
  UniqueFd touched(::open(stamp.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (touched.valid()) ::futimens(touched.get(), nullptr);
  return true;
}

std::vector<std::string> prune_records(const std::string& dir, long long keep, long long keep_days,
                                       std::vector<std::string>* kept_for_review) {
  std::vector<std::string> ids = session_ids(dir, ".json");
  std::vector<std::string> removed;
  // The id's UTC stamp is its age: "YYYYMMDDTHHMMSSZ" sorts like the time it names.
  std::string oldest_kept;
  if (keep_days > 0) oldest_kept = utc_stamp_at(std::time(nullptr) - keep_days * 86400);
  size_t left = ids.size();
  for (const auto& id : ids) {
    bool too_many = left > static_cast<size_t>(keep);
    bool too_old = !oldest_kept.empty() && id < oldest_kept;
    if (!too_many && !too_old) break;  // the rest are younger
    struct stat st {};
    if (::lstat(state_file_path(dir, id).c_str(), &st) == 0) continue;  // running or unswept: kept
    if (::lstat(review_dir(dir, id).c_str(), &st) == 0) {               // a review not yet applied or discarded
      if (kept_for_review) kept_for_review->push_back(id);
      continue;
    }
    if (::unlink((dir + "/" + id + ".json").c_str()) == 0) {
      ::unlink(transcript_path(dir, id).c_str());  // retention covers the transcript
      removed.push_back(id);
      --left;
    }
  }
  return removed;
}

}  // namespace cordon
