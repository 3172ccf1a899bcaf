#include "launcher/record/manifest.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/intent_json.h"
#include "common/print.h"
#include "common/process_start.h"
#include "common/seccomp_policy.h"
#include "common/sha256.h"
#include "common/text.h"
#include "common/utc_time.h"
#include "launcher/fs/home_audit.h"
#include "launcher/fs/steering_state.h"
#include "launcher/inputs/state_dirs.h"
#include "launcher/inputs/workspace_tree.h"
#include "launcher/record/tool_versions.h"
#include "launcher/workspace/footholds.h"

namespace cordon {
namespace {

// What a review-mode session started from (review/review_base.h), without the scanner's
// digests (they stay in the review's own 0700 directory); null in direct mode.
Json review_base_json(const WorkspaceSection& workspace) {
  if (!workspace.review || workspace.review_base.empty()) return nullptr;
  std::optional<Json> base = parse_json(workspace.review_base, nullptr);
  if (!base) return nullptr;
  base->erase("masked");
  base->erase("masked_key");
  return *base;
}

// mkdir -p with 0700 for directories cordon creates.
void make_private_dirs(const std::string& path) {
  std::string prefix;
  std::stringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    prefix += "/" + part;
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      throw Error(errno_text("creating the session state directory " + prefix, errno),
                  "make " + path + " writable by this user, or fix its parent's permissions");
  }
}

std::string kernel_release() {
  utsname u{};
  return ::uname(&u) == 0 ? std::string(u.release) : "";
}

// The same names as the intent's limits (values), plus what the launch could and could not
// enforce and where each cgroup budget lives.
Json limits_json(const LimitPlan& limits) {
  Json values = Json::object();
  for (const auto& r : limits.rlimits) values[r.name] = r.value;
  if (limits.wall_clock_seconds > 0) values["wall_clock_seconds"] = limits.wall_clock_seconds;
  Json cgroups = Json::array();
  for (const auto& b : limits.cgroup_budgets) {
    values[b.limit_key] = b.value;
    cgroups.push_back(
        {{"limit", b.limit_key}, {"cgroup", cgroup::version_name(b.version)}, {"parent", bytes_json(b.parent_dir)}});
  }
  return {{"values", values},
          {"enforced", bytes_array_json(limits.enforced)},
          {"not_enforced", bytes_array_json(limits.not_enforced)},
          {"cgroups", cgroups}};
}

// Who launched the session, for a reader of the record: the state file's lock, not these
// numbers, decides whether the launcher is still there.
Json launcher_json() {
  return {{"pid", ::getpid()},
          {"start_ticks", process_start_ticks("self").value_or(0)},
          {"boot_id", bytes_json(boot_id())}};
}

// The second filesystem layer as launched (after any test weakening): what it handles, what the
// kernel lacks, or why it is not applied; the rules by count, and the digest of the very bytes
// the step reads (null when no step runs).
Json landlock_json(const SandboxPlan& plan) {
  const landlock::LandlockSection& l = plan.landlock;
  Json digest = nullptr;
  for (const DataFile& file : plan.data_files)
    if (l.apply && (file.dest == kLandlockSentinelPath || file.dest == kLandlockRulesPath))
      digest = sha256_hex(file.content);
  return {{"mode", landlock_mode_name(l.mode)},
          {"abi", l.abi},
          {"applied", l.apply},
          {"handled", bytes_array_json(landlock::access_names(l.handled_fs))},
          {"scopes", bytes_array_json(landlock::scope_names(l.scoped))},
          {"unavailable", bytes_array_json(l.unavailable)},
          {"why_not", bytes_json(l.why_not)},
          {"rules", l.rules.size()},
          {"rules_sha256", digest}};
}

// The allowlist proxy's own confinement as launched (docs/landlock.md "The helpers outside the
// sandbox"; null in the other modes): the Landlock mode the launcher passed it, the kernel's ABI
// as asked for [sandbox] landlock, whether it enters a domain, and its filter's digest. The
// proxy fails closed where it cannot enter what this says.
Json proxy_confinement_json(const SandboxPlan& plan) {
  const auto* allowlist = std::get_if<network::AllowlistMode>(&plan.network);
  if (!allowlist) return nullptr;
  const auto& extra = allowlist->proxy_test_args;
  const bool unconfined = std::find(extra.begin(), extra.end(), "--test-no-confine") != extra.end();
  const int abi = plan.landlock.abi;
  const bool enters = !unconfined && allowlist->proxy_landlock != "off" && abi >= 1;
  return {{"landlock_mode", bytes_json(allowlist->proxy_landlock)},
          {"landlock_abi", abi},
          {"landlock", enters},
          {"scopes", bytes_array_json(enters ? landlock::scope_names(landlock::scopes_for_abi(abi))
                                             : std::vector<std::string>{})},
          {"seccomp_rules_digest", unconfined ? "none" : seccomp::rules_digest(seccomp::build_helper_rules())}};
}

Json manifest_json(const std::string& id, const Config& config, const HostFacts& facts, const SandboxPlan& plan,
                   const PermissionBaseline& permissions) {
  const std::string config_text = config.file_found ? read_text_file(config.source.file) : "";
  std::vector<std::string> env_names;
  for (const auto& [name, value] : plan.env) env_names.push_back(name);
  ToolVersions versions = tool_versions(facts, plan);
  return {
      {"format", kManifestFormat},
      {"version", kRecordVersion},
      {"session", id},
      {"started", utc_now()},
      {"launcher", launcher_json()},
      {"uid", facts.uid},
      {"user", bytes_json(facts.user)},
      {"config_path", bytes_json(config.source.file)},
      {"config_sha256", config.file_found ? Json(sha256_hex(config_text)) : Json(nullptr)},
      {"agent", bytes_json(plan.agent)},
      {"command", bytes_array_json(plan.command)},
      {"workspace", bytes_json(plan.workspace)},
      {"workspace_mode", plan.intent.workspace_mode},
      // Review mode: the session's upper layer and base (STATE/reviews/ID), null in direct mode.
      {"review_dir", plan.workspace_plan.review ? bytes_json(plan.workspace_plan.review_dir) : Json(nullptr)},
      {"review_base", review_base_json(plan.workspace_plan)},
      {"writable", bytes_array_json(plan.writable)},
      {"workspace_protected", bytes_array_json(plan.intent.workspace_protected)},
      {"workspace_protect_absent", bytes_array_json(plan.intent.workspace_protect_absent)},
      {"permissions", permission_baseline_json(permissions)},
      {"env_names", bytes_array_json(env_names)},
      {"bwrap_argv", bytes_array_json(plan.argv)},
      {"seccomp_rules_digest",
       !plan.isolation.seccomp ? "none" : seccomp::rules_digest(seccomp::build_rules({plan.isolation.allow_ptrace}))},
      {"network", network_json(plan.intent.network)},
      {"landlock", landlock_json(plan)},
      {"egress_proxy_confinement", proxy_confinement_json(plan)},
      {"terminal",
       {{"operator_device", plan.intent.terminal.operator_device},
        {"private_pty", plan.intent.terminal.private_pty},
        {"pass", bytes_array_json(plan.intent.terminal.pass)}}},
      {"limits", limits_json(plan.limits)},
      {"versions",
       {{"cordon", bytes_json(versions.cordon)},
        {"bwrap", bytes_json(versions.bwrap)},
        {"pasta", bytes_json(versions.pasta)},
        {"kernel", bytes_json(kernel_release())}}},
  };
}

// null when the launch relayed no terminal.
Json terminal_json(const TerminalOutcome& t) {
  if (!t.relayed) return nullptr;
  Json dropped = Json::object();
  for (const auto& [name, count] : t.dropped) dropped[name] = count;
  return {{"dropped", dropped},
          {"bytes_to_operator", t.bytes_to_operator},
          {"bytes_from_operator", t.bytes_from_operator},
          {"output_cut", t.output_cut}};
}

}  // namespace

namespace {

// How many items an audit keeps in the record and shows on stderr: what the session planted
// decides how many there are (100,000 hooks), so both stay bounded; the count stays exact.
constexpr size_t kAuditItemsKept = 200;
constexpr size_t kAuditItemBytes = size_t{128} * 1024;
constexpr size_t kAuditLinesShown = 20;

template <typename Line>
void print_audit(const FootholdAudit& audit, Line line, const char* problem_prefix) {
  size_t shown = 0;
  for (const auto& item : audit.items)
    if (shown++ < kAuditLinesShown) print_err("cordon: " + terminal_safe(line(item)) + "\n");
  if (audit.items.size() > kAuditLinesShown)
    printf_err("cordon: ... and %zu more (the session record lists them)\n", audit.items.size() - kAuditLinesShown);
  for (size_t i = 0; i < audit.problems.size() && i < kAuditLinesShown; ++i)
    print_err("cordon: " + std::string(problem_prefix) + terminal_safe(audit.problems[i]) + "\n");
}

}  // namespace

Json workspace_audit_json(const FootholdAudit& audit) {
  Json items = Json::array();
  size_t bytes = 0, dropped = 0;
  for (const auto& item : audit.items) {
    Json entry = {{"kind", item.kind},
                  {"path", bytes_json(item.path)},
                  {"quarantine", item.quarantine.empty() ? Json(nullptr) : bytes_json(item.quarantine)},
                  {"detail", bytes_json(item.detail)}};
    const size_t size = item.path.size() + item.quarantine.size() + item.detail.size() + 64;
    if (items.size() >= kAuditItemsKept || bytes + size > kAuditItemBytes) {
      ++dropped;
      continue;
    }
    bytes += size;
    items.push_back(std::move(entry));
  }
  std::vector<std::string> problems(
      audit.problems.begin(),
      audit.problems.begin() + static_cast<long>(std::min<size_t>(audit.problems.size(), kAuditItemsKept)));
  return {{"items", items}, {"items_dropped", dropped}, {"problems", bytes_array_json(problems)}};
}

FootholdAudit audit_session_workspace(const std::string& id, const std::string& workspace,
                                      const std::vector<std::string>& protected_paths,
                                      const std::vector<std::string>& protect_absent) {
  FootholdAudit audit = audit_footholds(workspace, id, protected_paths, protect_absent);
  print_audit(
      audit, [&](const AuditItem& item) { return audit_line(workspace, item); },
      "the workspace audit could not finish: ");
  return audit;
}

Json permission_baseline_json(const PermissionBaseline& b) {
  Json roots = Json::array();
  for (const auto& root : b.roots) roots.push_back({{"path", bytes_json(root.path)}, {"recursive", root.recursive}});
  return {{"since_ns", b.since_ns},
          {"private_group", b.private_group ? Json(*b.private_group) : Json(nullptr)},
          {"roots", roots}};
}

std::optional<PermissionBaseline> permission_baseline_from(const Json& manifest) {
  if (!manifest.is_object() || !manifest.contains("permissions")) return std::nullopt;
  const Json& p = manifest["permissions"];
  const std::optional<long long> since = integer_member(p, "since_ns");
  if (!since || !p.contains("roots") || !p["roots"].is_array()) return std::nullopt;
  PermissionBaseline b;
  b.since_ns = *since;
  if (const std::optional<long long> group = integer_member(p, "private_group");
      group && *group >= 0 && *group <= 0xfffffffeLL)
    b.private_group = static_cast<gid_t>(*group);
  try {
    for (const auto& root : p["roots"]) {
      if (!root.is_object() || !root.contains("path") || !root.contains("recursive") || !root["recursive"].is_boolean())
        return std::nullopt;
      b.roots.push_back({bytes_from_json(root["path"]), root["recursive"].get<bool>()});
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  return b;
}

FootholdAudit audit_session_permissions(PermissionBaseline baseline, const std::string& workspace) {
  // The git dirs as they are now: one the session made is walked too.
  if (!workspace.empty() && workspace[0] == '/')
    for (const GitDir& dir : workspace_git_dirs(workspace, WorkspaceTree(workspace)))
      baseline.roots.push_back({workspace + "/" + dir.rel, true});
  FootholdAudit audit = reset_loose_permissions(baseline);
  print_audit(audit, permission_line, "the permission audit: ");
  return audit;
}

FootholdAudit audit_session_home(const std::string& sessions_dir, const std::string& id) {
  FootholdAudit audit = restore_control_keys(sessions_dir, id);
  FootholdAudit memory = report_steering_changes(sessions_dir, id);
  audit.items.insert(audit.items.end(), memory.items.begin(), memory.items.end());
  audit.problems.insert(audit.problems.end(), memory.problems.begin(), memory.problems.end());
  print_audit(
      audit,
      [](const AuditItem& item) {
        return item.kind == "steering-state" ? steering_state_line(item) : control_key_line(item);
      },
      "the home audit: ");
  return audit;
}

namespace {

// The receipt's members sit under "receipt": a reader tells the two lines apart by it.
Json receipt_json(const Receipt& r) {
  const LaunchOutcome& o = r.outcome;
  const bool signalled = o.exit_code > 128 && o.exit_code < 160;
  Json receipt{
      {"ended", utc_now()},
      {"launch_error", r.launch_error.empty() ? Json(nullptr) : bytes_json(r.launch_error)},
      {"command_ran", o.command_ran},
      {"exit_code", o.exit_code},
      {"signal", signalled ? Json(o.exit_code - 128) : Json(nullptr)},
      {"duration_seconds", o.duration_seconds},
      {"limit_hits", bytes_array_json(r.limit_hits)},
      {"ended_by", o.ended_by.empty() ? Json(nullptr) : bytes_json(o.ended_by)},
      {"terminal", terminal_json(o.terminal)},
      {"transcript", o.transcript ? Json{{"path", bytes_json(o.transcript->path)},
                                         {"bytes", o.transcript->recorded},
                                         {"dropped_bytes", o.transcript->dropped}}
                                  : Json(nullptr)},
      {"teardown",
       {{"verified", r.teardown_problems.empty()},
        {"problems", bytes_array_json(r.teardown_problems)},
        {"cgroups_removed", bytes_array_json(r.cgroups_removed)}}},
      {"workspace_audit", workspace_audit_json(r.footholds)},
      {"home_audit", workspace_audit_json(r.home_keys)},
      {"permissions_audit", workspace_audit_json(r.permissions)},
      {"egress", r.egress ? *r.egress : Json(nullptr)},
  };
  return {{"format", kReceiptFormat}, {"version", kRecordVersion}, {"receipt", receipt}};
}

}  // namespace

std::string new_session_id() {
  unsigned char random[4] = {};
  if (::getrandom(random, sizeof random, 0) != sizeof random) throw Error(errno_text("getrandom", errno));
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%02x%02x%02x%02x", random[0], random[1], random[2], random[3]);
  return utc_stamp() + "-" + suffix;
}

SessionRecord::SessionRecord(const std::string& id, const Config& config, const HostFacts& facts,
                             const SandboxPlan& plan)
    : id_(id),
      permissions_(permission_baseline(plan.permission_roots, facts.private_group)),
      export_(config.records.export_to, state_dir_of(sessions_dir(facts))) {
  const std::string dir = sessions_dir(facts);
  make_private_dirs(dir);
  path_ = dir + "/" + id_ + ".json";
  state_ = std::make_unique<StateFile>(dir, id_);
  // Written under a temporary name and renamed to a new one: a reader never sees half of it.
  // (Renaming over an existing file would make ext4 flush it to disk: milliseconds per launch.)
  std::string temporary = path_ + ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    throw Error(errno_text("writing the session record " + temporary, errno),
                "make " + dir + " writable by this user; nothing runs without a record");
  // Each failure names its own call's errno: a short write sets none, and an earlier call's
  // (a mkdir's EEXIST) would be a wrong reason.
  const Json manifest = manifest_json(id_, config, facts, plan, permissions_);
  const std::string line = dump_line(manifest) + "\n";
  std::string problem = write_all(fd, line, "writing the session record " + temporary);
  if (::close(fd) != 0 && problem.empty()) problem = errno_text("writing the session record " + temporary, errno);
  if (problem.empty() && ::rename(temporary.c_str(), path_.c_str()) != 0)
    problem = errno_text("renaming the session record " + temporary + " to " + path_, errno);
  if (!problem.empty()) {
    ::unlink(temporary.c_str());
    state_->remove();
    throw Error(problem, "free space in (or fix the permissions of) " + dir + "; nothing runs without a record");
  }
  manifest_export_ = export_.send(id_, manifest);
}

std::string SessionRecord::finish(const Receipt& r) {
  // The receipt is the record's second line; a write that stores part of it (a full disk) is
  // cut back off, so the record never holds half a line.
  Json receipt = receipt_json(r);
  // Whether the manifest reached the collector (the receipt's own export is counted in the
  // next line's dropped_before, and in STATE/export-dropped).
  if (export_.enabled())
    receipt["receipt"]["export"] = {
        {"target", bytes_json(export_.target().spelled)},
        {"manifest", manifest_export_.empty() ? Json("sent") : bytes_json(manifest_export_)}};
  std::string line = dump_line(receipt) + "\n";
  const std::string context = "appending the receipt to " + path_;
  struct stat before {};
  int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  std::string cause = fd < 0 ? errno_text(context, errno) : "";
  if (fd >= 0 && ::fstat(fd, &before) != 0) cause = errno_text(context, errno);
  if (cause.empty()) {
    cause = write_all(fd, line, context);
    if (!cause.empty()) {
      int ignored = ::ftruncate(fd, before.st_size);
      (void)ignored;
    }
  }
  if (fd >= 0 && ::close(fd) != 0 && cause.empty()) cause = errno_text(context, errno);
  if (cause.empty()) {
    state_->remove();
    export_.send(id_, receipt);
    return "";
  }
  state_->note_receipt_failed(r.outcome.exit_code, cause);
  return cause;
}

std::vector<std::string> verify_no_sandbox_processes(const LaunchOutcome& outcome) {
  // The launcher is the session's child subreaper: every process of the sandbox that outlives
  // its parent is reparented to it, so once it has no children left (run_sandbox waits for
  // that, bounded) nothing of the session runs. Whatever was still alive is named here.
  std::vector<std::string> problems = outcome.teardown_problems;
  for (const auto& s : outcome.survivors) problems.push_back(s + " outlived the sandbox (killed)");
  return problems;
}

}  // namespace cordon
