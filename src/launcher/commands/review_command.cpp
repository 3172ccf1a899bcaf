#include "launcher/commands/review_command.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <set>

#include "common/error.h"
#include "common/json_codec.h"
#include "common/print.h"
#include "common/text.h"
#include "common/utc_time.h"
#include "launcher/process/child_process.h"
#include "launcher/record/record_file.h"
#include "launcher/record/review_store.h"
#include "launcher/record/session_state.h"
#include "launcher/review/git_patch.h"
#include "launcher/review/layer_files.h"
#include "launcher/review/review_apply.h"
#include "launcher/review/review_changes.h"
#include "launcher/review/review_policy.h"
#include "launcher/review/review_scan.h"

namespace cordon {
namespace {

inline constexpr const char* kReviewApplyFormat = "cordon-review-apply";
inline constexpr int kReviewApplyVersion = 1;

// A review opened for reading: its base, the host workspace (checked to be the session's),
// its upper layer, and the changes between them now.
struct OpenReview {
  review::StoredReview stored;
  UniqueFd workspace, upper;
  review::ChangeSet changes;
};

std::string current_directory() {
  char buffer[PATH_MAX];
  if (!::getcwd(buffer, sizeof buffer)) throw Error(errno_text("reading the current directory", errno), "");
  return buffer;
}

OpenReview open_review(const std::string& sessions_dir, const std::string& id) {
  OpenReview r;
  r.stored = review::find_review(sessions_dir, id, id.empty() ? current_directory() : "/");
  r.workspace = review::open_reviewed_workspace(r.stored.base);
  r.upper = review::open_upper_layer(r.stored.dir);
  r.changes = review::collect_changes(r.upper.get(), r.workspace.get(), review::collect_limits(r.stored.base));
  return r;
}

review::ReadContent content_of(const OpenReview& r) {
  return [&r](const review::Change& change, review::Side side) {
    return side == review::Side::Before ? review::read_layer_file(r.workspace.get(), change.path, change.before)
                                        : review::read_layer_file(r.upper.get(), change.path, change.after);
  };
}

std::vector<review::Finding> findings_of(const review::ChangeSet& changes, const OpenReview& r, const Config& config) {
  return review::gate_git_internals(
      review::scan_changes(changes, content_of(r), review::scan_policy_for(config.review, r.stored.base)), changes);
}

bool session_running(const std::string& sessions_dir, const std::string& id) {
  return probe_live_state(sessions_dir, id) == LiveState::Running;
}

std::string finding_line(const review::Finding& f, bool accepted) {
  std::string where = terminal_safe(f.path) + (f.line > 0 ? ":" + std::to_string(f.line) : "");
  std::string state = !f.blocks() ? "shown" : accepted ? "accepted" : "blocks apply";
  return "  [" + std::string(review::class_name(f.finding_class)) + "] " + f.id + "  " + f.rule + "  " + where + "  (" +
         state + "): " + terminal_safe(f.detail) + "\n";
}

std::string findings_text(const std::vector<review::Finding>& findings, const std::set<std::string>& accepted) {
  if (findings.empty()) return "cordon: scan: no findings\n";
  size_t blocking = 0;
  std::string out;
  for (const auto& f : findings) {
    out += finding_line(f, accepted.count(f.id) != 0);
    if (f.blocks() && !accepted.count(f.id)) ++blocking;
  }
  return "cordon: scan: " + std::to_string(findings.size()) + " finding(s), " + std::to_string(blocking) +
         " blocking apply until accepted (--accept ID)\n" + out;
}

Json findings_json(const std::vector<review::Finding>& findings) {
  Json out = Json::array();
  for (const auto& f : findings)
    out.push_back({{"id", f.id},
                   {"class", review::class_name(f.finding_class)},
                   {"rule", f.rule},
                   {"path", bytes_json(f.path)},
                   {"line", f.line},
                   {"blocks", f.blocks()},
                   {"detail", bytes_json(f.detail)}});
  return out;
}

bool use_colour(const std::string& choice) {
  if (choice == "always") return true;
  if (choice == "never") return false;
  return ::isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr;
}

// A long diff on a terminal goes through a pager, as git's does: $PAGER, else `less -FRX`
// (quit if it fits, keep the colours cordon made, leave the screen as it was). The text is
// already terminal-safe: the only escape sequences in it are cordon's own colours.
void show_paged(const std::string& text) {
  struct winsize size {};
  const bool terminal = ::isatty(STDOUT_FILENO) == 1 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0;
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  if (!terminal || size.ws_row == 0 || lines < size.ws_row) {
    if (!print_sandbox_output(text)) throw Error("writing the diff to stdout failed", "");
    return;
  }
  const char* pager = std::getenv("PAGER");
  const std::string command = pager && *pager ? pager : "less -FRX";
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) throw Error(errno_text("pipe", errno), "");
  UniqueFd read_end(ends[0]), write_end(ends[1]);
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(errno_text("starting the pager", errno), "set PAGER=cat");
  if (pid == 0) {
    ::dup2(read_end.get(), STDIN_FILENO);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ChildProcess child(pid);
  read_end.reset();
  write_all(write_end.get(), text, "the pager");  // EPIPE when the person quits early: fine
  write_end.reset();
  child.wait();
}

std::vector<std::string> normalized_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (std::string p : paths) {
    while (p.rfind("./", 0) == 0) p.erase(0, 2);
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    if (p.empty() || p[0] == '/' || p == "." || p.find("/../") != std::string::npos || p.rfind("../", 0) == 0 ||
        p == "..")
      throw Error("the path " + terminal_safe(p) + " is not relative to the workspace",
                  "name paths as `cordon diff --name-status` shows them", kExitConfigError);
    out.push_back(p);
  }
  return out;
}

// The changes at or below the named paths; a path naming no change is a usage error.
review::ChangeSet selected(const review::ChangeSet& changes, const std::vector<std::string>& paths) {
  if (paths.empty()) return changes;
  review::ChangeSet out;
  std::set<std::string> used;
  for (const auto& change : changes)
    for (const auto& p : paths)
      if (change.path == p || change.path.rfind(p + "/", 0) == 0) {
        out.push_back(change);
        used.insert(p);
        break;
      }
  for (const auto& p : paths)
    if (!used.count(p))
      throw Error("the review has no change at " + terminal_safe(p), "see `cordon diff --name-status`",
                  kExitConfigError);
  return out;
}

// y/n/q per change, asked on the controlling terminal.
review::ChangeSet chosen_interactively(const review::ChangeSet& changes, const OpenReview& r) {
  UniqueFd tty(::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!tty.valid())
    throw Error("--interactive needs a terminal", "run it in a terminal, or name the paths to apply", kExitConfigError);
  review::ChangeSet out;
  for (const auto& change : changes) {
    review::ChangeSet one{change};
    const std::string shown = review::render_patch(one, content_of(r), {true, false});
    write_all(tty.get(), printable(shown) + "apply " + terminal_safe(change.path) + "? [y,n,q] ", "the terminal");
    char answer[16] = {};
    const ssize_t n = ::read(tty.get(), answer, sizeof answer - 1);
    if (n <= 0 || answer[0] == 'q') break;
    if (answer[0] == 'y') out.push_back(change);
  }
  return out;
}

std::string record_path(const std::string& sessions_dir, const std::string& id) {
  return sessions_dir + "/" + id + ".json";
}

// One line appended to the session's record: the record is the session's whole story.
void append_to_record(const std::string& sessions_dir, const std::string& id, const Json& line) {
  UniqueFd fd(::open(record_path(sessions_dir, id).c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid())
    throw Error(errno_text("appending the apply receipt to the record of " + id, errno),
                "the files above were applied; the record was pruned or moved");
  const std::string failed = write_all(fd.get(), dump_line(line) + "\n", "the session's record");
  if (!failed.empty()) throw Error(failed, "the files above were applied; the receipt could not be written");
}

Json receipt_json(const OpenReview& r, const review::ApplyOutcome& outcome,
                  const std::vector<review::Finding>& accepted) {
  Json files = Json::array(), left = Json::array(), accepted_json = Json::array();
  for (const auto& e : outcome.applied)
    files.push_back({{"path", bytes_json(e.path)},
                     {"status", review::kind_name(e.kind)},
                     {"sha256_before", e.sha256_before.empty() ? Json(nullptr) : Json(e.sha256_before)},
                     {"sha256_after", e.sha256_after.empty() ? Json(nullptr) : Json(e.sha256_after)},
                     {"note", e.note.empty() ? Json(nullptr) : bytes_json(e.note)}});
  for (const auto& c : outcome.not_applied) left.push_back({{"path", bytes_json(c.path)}, {"why", bytes_json(c.why)}});
  for (const auto& f : accepted)
    accepted_json.push_back(
        {{"id", f.id}, {"class", review::class_name(f.finding_class)}, {"rule", f.rule}, {"path", bytes_json(f.path)}});
  return {{"format", kReviewApplyFormat},
          {"version", kReviewApplyVersion},
          {"session", r.stored.id},
          {"applied_at", utc_stamp()},
          {"uid", static_cast<long long>(::getuid())},
          {"workspace", bytes_json(r.stored.base.workspace)},
          {"files", files},
          {"not_applied", left},
          {"accepted", accepted_json}};
}

std::string conflicts_text(const std::vector<review::Conflict>& conflicts) {
  std::string out;
  for (const auto& c : conflicts) out += "  " + terminal_safe(c.path) + ": " + terminal_safe(c.why) + "\n";
  return out;
}

}  // namespace

int review_diff_command(const std::string& sessions_dir, const Config& config, const ReviewOptions& o) {
  OpenReview r = open_review(sessions_dir, o.session);
  if (session_running(sessions_dir, r.stored.id))
    print_err("cordon: session " + r.stored.id + " is still running: its changes may not be complete\n");
  const std::vector<review::Finding> findings = findings_of(r.changes, r, config);
  if (o.json) {
    Json doc = review::render_json(r.changes, content_of(r));
    doc["session"] = r.stored.id;
    doc["workspace"] = bytes_json(r.stored.base.workspace);
    doc["findings"] = findings_json(findings);
    print_out(dump_line(doc) + "\n");
    return kExitSuccess;
  }
  const bool terminal = ::isatty(STDOUT_FILENO) == 1;
  const review::PatchStyle style{terminal, use_colour(o.color)};
  std::string text = o.stat          ? review::render_stat(r.changes, content_of(r), style)
                     : o.name_status ? review::render_name_status(r.changes, style)
                                     : review::render_patch(r.changes, content_of(r), style);
  if (r.changes.empty()) print_err("cordon: session " + r.stored.id + " has no pending changes\n");
  show_paged(text);
  if (!r.changes.empty()) print_err(findings_text(findings, {}));
  return kExitSuccess;
}

namespace {

// A review applied completely is gone; its session's record still says so.
bool applied_completely(const std::string& sessions_dir, const std::string& id) {
  if (id.empty() || !is_session_id(id)) return false;
  const std::vector<std::string> pending = review::review_ids(sessions_dir);
  if (std::find(pending.begin(), pending.end(), id) != pending.end()) return false;
  std::optional<std::string> text = read_record(record_path(sessions_dir, id), nullptr);
  return text && text->find("\"format\":\"" + std::string(kReviewApplyFormat) + "\"") != std::string::npos;
}

// The findings `accept` names; refuses (nothing written) an id that names none, and any
// blocking finding left unaccepted.
std::vector<review::Finding> accepted_or_refused(const std::vector<review::Finding>& findings,
                                                 const std::vector<std::string>& accept, const std::string& id) {
  const std::set<std::string> accepted_ids(accept.begin(), accept.end());
  for (const auto& wanted : accepted_ids)
    if (std::none_of(findings.begin(), findings.end(), [&](const auto& f) { return f.id == wanted; }))
      throw Error("no finding " + terminal_safe(wanted) + " in session " + id + "'s changes",
                  "accept ids as `cordon diff` lists them", kExitConfigError);
  std::vector<review::Finding> accepted;
  size_t blocking = 0;
  for (const auto& f : findings) {
    if (accepted_ids.count(f.id)) accepted.push_back(f);
    else if (f.blocks()) ++blocking;
  }
  print_err(findings_text(findings, accepted_ids));
  if (blocking)
    throw Error("apply refused: " + std::to_string(blocking) + " blocking finding(s) above are not accepted",
                "read each one (cordon diff), then accept it with --accept ID, or leave its path out; nothing was "
                "written",
                kExitChecksFailed);
  return accepted;
}

void refuse_conflicts(const std::vector<review::Conflict>& conflicts) {
  if (conflicts.empty()) return;
  print_err("cordon: the host tree changed since the session began, under " + std::to_string(conflicts.size()) +
            " path(s) the review changes:\n" + conflicts_text(conflicts));
  throw Error("apply refused: " + std::to_string(conflicts.size()) + " conflict(s) with the host tree (above)",
              "merge those by hand (cordon diff shows them), then apply the rest by naming their paths; "
              "nothing was written",
              kExitChecksFailed);
}

}  // namespace

int review_apply_command(const std::string& sessions_dir, const Config& config, const ReviewOptions& o) {
  if (applied_completely(sessions_dir, o.session)) {
    print_out("cordon: nothing to apply: session " + o.session + "'s review was applied completely (its record " +
              "holds the receipt)\n");
    return kExitSuccess;
  }
  OpenReview r = open_review(sessions_dir, o.session);
  const std::string& id = r.stored.id;
  if (session_running(sessions_dir, id))
    throw Error("session " + id + " is still running", "apply after it has ended; `cordon diff` shows it meanwhile",
                kExitChecksFailed);
  if (r.changes.empty()) {
    print_out("cordon: nothing to apply: session " + id + "'s changes are all in the host tree\n");
    return kExitSuccess;
  }
  review::ChangeSet changes = selected(r.changes, normalized_paths(o.paths));
  const std::vector<review::Finding> findings = findings_of(changes, r, config);
  const std::vector<review::Finding> accepted = accepted_or_refused(findings, o.accept, id);
  refuse_conflicts(review::find_conflicts(r.workspace.get(), r.stored.base, changes));
  if (o.interactive) changes = chosen_interactively(changes, r);
  if (o.dry_run) {
    print_out(review::render_name_status(changes, {::isatty(STDOUT_FILENO) == 1, false}));
    print_out("cordon: dry run: " + std::to_string(changes.size()) + " change(s) would be applied; nothing written\n");
    return kExitSuccess;
  }
  review::ApplyOutcome outcome = review::apply_changes(r.workspace.get(), r.upper.get(), r.stored.base, changes);
  append_to_record(sessions_dir, id, receipt_json(r, outcome, accepted));
  print_out("cordon: applied " + std::to_string(outcome.applied.size()) + " change(s) of session " + id + " to " +
            terminal_safe(r.stored.base.workspace) + "\n");
  if (!outcome.not_applied.empty()) {
    print_err("cordon: not applied:\n" + conflicts_text(outcome.not_applied));
    throw Error(std::to_string(outcome.not_applied.size()) + " change(s) were not applied (above)",
                "the rest landed (the receipt in the session's record lists them); fix these and apply again",
                kExitChecksFailed);
  }
  // Everything in: the review is complete, and its layer goes.
  if (review::collect_changes(r.upper.get(), r.workspace.get(), review::collect_limits(r.stored.base)).empty())
    review::remove_review(r.stored.dir);
  return kExitSuccess;
}

int review_discard_command(const std::string& sessions_dir, const ReviewOptions& o) {
  review::StoredReview stored = review::find_review(sessions_dir, o.session,
                                                    o.session.empty() ? current_directory() : "/");
  if (session_running(sessions_dir, stored.id))
    throw Error("session " + stored.id + " is still running", "discard it after it has ended", kExitChecksFailed);
  review::remove_review(stored.dir);
  print_out("cordon: discarded the review of session " + stored.id + " (the host tree was not touched)\n");
  return kExitSuccess;
}

}  // namespace cordon
