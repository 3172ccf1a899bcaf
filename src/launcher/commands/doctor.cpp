#include "launcher/commands/doctor.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/build_config.h"
#include "common/error.h"
#include "common/json_codec.h"
#include "common/limit_keys.h"
#include "common/network_opt_out.h"
#include "common/print.h"
#include "common/seccomp_compile.h"
#include "common/seccomp_policy.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "launcher/budgets/cgroup_plan.h"
#include "launcher/budgets/cgroup_session.h"
#include "launcher/budgets/limits.h"
#include "launcher/commands/shim.h"
#include "launcher/inputs/container_facts.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/inputs/paths.h"
#include "launcher/inputs/state_dirs.h"
#include "launcher/isolation/isolation.h"
#include "launcher/landlock/ruleset_plan.h"
#include "launcher/network/network_plan.h"
#include "launcher/network/tun_device.h"
#include "launcher/plan/session_options.h"
#include "launcher/process/subprocess.h"
#include "launcher/record/host_tools.h"
#include "launcher/record/review_store.h"
#include "launcher/record/sweep.h"
#include "launcher/review/review_overlay.h"

namespace cordon {
namespace {

// Whether "bubblewrap 0.8.0" (or a bare "0.8.0") is at least `minimum` ("0.8.0"), by its
// major.minor.patch numbers.
bool version_at_least(const std::string& text, const char* minimum) {
  int have[3] = {0, 0, 0}, need[3] = {0, 0, 0};
  auto space = text.rfind(' ');
  if (std::sscanf(text.c_str() + (space == std::string::npos ? 0 : space + 1), "%d.%d.%d", &have[0], &have[1],
                  &have[2]) < 2 ||
      std::sscanf(minimum, "%d.%d.%d", &need[0], &need[1], &need[2]) < 2)
    return false;
  return !std::lexicographical_compare(have, have + 3, need, need + 3);
}

void check_bwrap(const HostTool& found, const Config& config, const ContainerFacts& where,
                 std::vector<DoctorRow>& rows) {
  const std::string& bwrap = found.path;
  if (bwrap.empty()) {
    rows.push_back({DoctorStatus::Fail, "bubblewrap", "bwrap not found in " + system_binary_dirs_text(),
                    "apt-get install bubblewrap"});
    return;
  }
  const std::string& version = found.version;
  bool new_enough = version_at_least(version, build::kMinBubblewrapVersion);
  rows.push_back({new_enough ? DoctorStatus::Pass : DoctorStatus::Fail, "bubblewrap",
                  bwrap + " (" + version + ")" + (new_enough ? ", has --disable-userns" : ""),
                  std::string("cordon needs bubblewrap >= ") + build::kMinBubblewrapVersion + " for --disable-userns"});

  // The namespaces every launch asks for (isolation_args), hostname included: a pod's default
  // seccomp profile lets bwrap unshare but refuses sethostname without CAP_SYS_ADMIN.
  std::vector<std::string> userns_argv = {bwrap};
  for (const auto& arg : isolation_args(IsolationSection{})) userns_argv.push_back(arg);
  for (const char* arg : {"--ro-bind", "/", "/", "--", "/bin/true"}) userns_argv.emplace_back(arg);
  auto userns = run_capture(userns_argv);
  rows.push_back({userns.exit_code == 0 ? DoctorStatus::Pass : DoctorStatus::Fail, "user namespaces",
                  userns.exit_code == 0 ? "bwrap can create the sandbox's namespaces and disable nested ones"
                                        : first_line(userns.output),
                  user_namespace_fix(where, userns.output)});

  auto proc = run_capture({bwrap, "--unshare-user", "--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc", "--dev",
                           "/dev", "--", "/bin/true"});
  bool proc_ok = proc.exit_code == 0;
  DoctorStatus proc_status = proc_ok                                            ? DoctorStatus::Pass
                             : config.filesystem.proc == ProcMode::HostReadOnly ? DoctorStatus::Warn
                                                                                : DoctorStatus::Fail;
  rows.push_back({proc_status, "fresh /proc",
                  proc_ok ? "a new pid namespace can mount its own /proc" : first_line(proc.output),
                  fresh_proc_fix(where)});
}

void check_seccomp(std::vector<DoctorRow>& rows) {
  std::string actions = read_text_file("/proc/sys/kernel/seccomp/actions_avail");
  bool kernel_ok = ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 && actions.find("errno") != std::string::npos &&
                   actions.find("kill_process") != std::string::npos;
  std::string detail;
  bool compiled = false;
  try {
    UniqueFd fd = compile_to_memfd(seccomp::build_rules({}));
    compiled = fd.valid();
    detail = "filter compiles (" + std::to_string(seccomp::build_rules({}).size()) +
             " rules); kernel actions: " + first_line(actions);
  } catch (const Error& e) {
    detail = e.what();
  }
  rows.push_back({kernel_ok && compiled ? DoctorStatus::Pass : DoctorStatus::Fail, "seccomp", detail,
                  "a kernel with CONFIG_SECCOMP_FILTER and libseccomp >= 2.5 are required"});
}

void check_network(const Config& config, const ContainerFacts& where, std::vector<DoctorRow>& rows) {
  // Without the jail these are only advisory; with it they are required.
  const bool required = network::jail_required(config.network);
  DoctorStatus missing = required ? DoctorStatus::Fail : DoctorStatus::Warn;
  // The same check the jail's prerequisites refuse a launch on.
  jail::TunDeviceCheck tun = jail::check_tun_device();
  // In a container or a pod, the host's fix (modprobe, mknod) is not this place's.
  const std::string here = tun_device_fix(where);
  std::string fix = here.empty() ? tun.fix : here;
  if (required) fix += "; or, to run without network confinement, " + egress_jail_opt_out(config.source.file);
  rows.push_back({tun.problem.empty() ? DoctorStatus::Pass : missing, jail::kTunDevicePath,
                  tun.problem.empty() ? "the tun device (10:200), openable" : tun.problem, fix});
  const HostTool pasta = find_host_tool("pasta", "passt");
  rows.push_back(
      {pasta.path.empty() ? missing : DoctorStatus::Pass, "pasta",
       pasta.path.empty() ? "pasta not found in " + system_binary_dirs_text() : pasta.path + " (" + pasta.version + ")",
       "apt-get install passt"});
}

// The second filesystem layer: what the kernel has, and what [sandbox] landlock makes of it.
void check_landlock(const Config& config, std::vector<DoctorRow>& rows) {
  const landlock::Support kernel = landlock::landlock_abi();
  const LandlockMode mode = config.sandbox.landlock;
  const bool usable = kernel.abi >= landlock::kMinimumAbi;
  std::string detail = usable ? "ABI " + std::to_string(kernel.abi) : "unavailable: " + kernel.problem;
  if (usable) {
    std::vector<std::string> lacks = landlock::unavailable_at(kernel.abi);
    std::string missing;
    for (const auto& what : lacks) missing += (missing.empty() ? "" : ", ") + what;
    detail += lacks.empty() ? " (every right cordon uses)" : " (lacks " + missing + ")";
  }
  detail += std::string("; [sandbox] landlock = \"") + landlock_mode_name(mode) + "\"";
  if (mode == LandlockMode::Off) detail += ": not applied, the filesystem promise rests on the mounts alone";
  DoctorStatus status = usable && mode != LandlockMode::Off         ? DoctorStatus::Pass
                        : !usable && mode == LandlockMode::Required ? DoctorStatus::Fail
                                                                    : DoctorStatus::Warn;
  rows.push_back({status, "landlock", detail,
                  usable ? "set [sandbox] landlock = \"auto\" in " + config.source.file + " (docs/landlock.md)"
                         : "a kernel with Landlock (5.19 or newer for ABI 2; boot with lsm=...,landlock), or "
                           "[sandbox] landlock = \"auto\" to launch without it"});
}

// Where memory/pids budgets would live for this user. FAIL only when the configuration asks
// for a budget the host cannot hold (the launch would be refused); otherwise a WARN at most.
void check_cgroup_budgets(const Config& config, const ContainerFacts& where, std::vector<DoctorRow>& rows) {
  const passwd* entry = ::getpwuid(::getuid());
  const std::string account = entry ? entry->pw_name : "";
  auto hierarchies = cgroup::gather_hierarchies(account);
  for (const auto& limit : kLimitKeys) {
    if (limit.kind != LimitKind::Cgroup) continue;
    const std::string key = limit.name;
    // A default budget is held where it can be and recorded as not enforced elsewhere: a WARN.
    bool defaulted = std::find(config.limits.defaulted.begin(), config.limits.defaulted.end(), key) !=
                     config.limits.defaulted.end();
    bool configured = config.limits.values.count(key) != 0 && !defaulted;
    bool lenient = std::find(config.limits.best_effort.begin(), config.limits.best_effort.end(), key) !=
                   config.limits.best_effort.end();
    cgroup::Placement placed = cgroup::place_budget(hierarchies, key, 1, ::getuid(), account);
    if (placed.why_not.empty()) {
      placed.why_not = cgroup::v2_sharing_problem(placed.budget);
      if (!placed.why_not.empty())
        placed.fix = "start cordon in a cgroup of its own: systemd-run --scope -p Delegate=yes cordon run ...";
    }
    // In a container the fix is the container's own limits, not a root launch.
    if (const std::string here = cgroup_budget_fix(where); !placed.why_not.empty() && !here.empty()) placed.fix = here;
    DoctorStatus status = placed.why_not.empty()   ? DoctorStatus::Pass
                          : configured && !lenient ? DoctorStatus::Fail
                                                   : DoctorStatus::Warn;
    std::string detail = placed.why_not.empty()
                             ? std::string("session cgroups (") + cgroup::version_name(placed.budget.version) +
                                   ") under " + placed.budget.parent_dir
                             : placed.why_not;
    detail += defaulted
                  ? " (limits." + std::string(key) +
                        " is the default: " + (placed.why_not.empty() ? "held)" : "recorded as NOT ENFORCED here)")
              : configured ? " (limits." + std::string(key) + " is configured" + (lenient ? ", best effort)" : ")")
                           : " (limits." + std::string(key) + " is not configured)";
    // A budget above the container's (or pod's) own limit: refused at launch when configured,
    // lowered to it when defaulted.
    const auto value = config.limits.values.find(key);
    if (value != config.limits.values.end()) {
      if (auto outer = budget_exceeds(hierarchies, key, value->second)) {
        if (defaulted) {
          detail += "; the default " + std::to_string(value->second) + " is lowered to " +
                    std::to_string(outer->value) + ", the limit set in " + terminal_safe(outer->file);
        } else {
          const Error refusal = budget_exceeds_error(key, value->second, *outer, config.source.file);
          status = DoctorStatus::Fail;
          detail = refusal.what();
          placed.fix = refusal.fix();
        }
      }
    }
    rows.push_back({status, "cgroup " + cgroup::controller_for(key), detail, placed.fix});
  }
}

// Every mask binds one empty read-only file; the launch refuses without it (plan.cpp).
void check_mask_source(std::vector<DoctorRow>& rows) {
  HostFacts facts;
  facts.libexec_dir = libexec_dir();
  const std::string empty = mask_source(facts);
  bool ok = ::access(empty.c_str(), R_OK) == 0;
  std::string detail = ok ? empty + " (bound over each masked credential file)"
                          : "cordon's mask file " + empty + " is missing";
  rows.push_back({ok ? DoctorStatus::Pass : DoctorStatus::Fail, "mask file", detail,
                  "reinstall cordon (cmake --install); masks bind this empty read-only file"});
}

// Sessions whose launcher died without a receipt leave cgroups and records behind until a
// sweep: the next launch sweeps them, `cordon sessions gc` does it now.
void check_crashed_sessions(const Config& config, std::vector<DoctorRow>& rows) {
  std::string dir;
  try {
    dir = sessions_dir(facts_for(config, {}));
  } catch (const Error& e) {
    rows.push_back({DoctorStatus::Warn, "crashed sessions", std::string("not checked: ") + e.what(), e.fix()});
    return;
  }
  std::vector<std::string> crashed = crashed_session_ids(dir);
  std::string detail = crashed.empty() ? "none left to sweep in " + dir + " (a swept one stays listed as crashed)"
                                       : std::to_string(crashed.size()) + " crashed session(s) not swept in " + dir +
                                             ": " + crashed.front() + (crashed.size() > 1 ? " ..." : "");
  rows.push_back({crashed.empty() ? DoctorStatus::Pass : DoctorStatus::Warn, "crashed sessions", detail,
                  "run `cordon sessions gc` (the next launch sweeps them too)"});
}

// Review mode's overlay, tried as this user's sessions would have it: overlayfs in a user
// namespace, its upper layer on the state directory's filesystem. FAIL when [workspace] mode
// is "review" (every launch would be refused), else WARN (only `--review` is).
void check_review_overlay(const Config& config, std::vector<DoctorRow>& rows) {
  const bool required = config.workspace.mode == WorkspaceMode::Review;
  std::string problem, made;
  std::string reviews;
  try {
    // Where reviews live, or (before the first) the nearest directory above it that exists: the
    // same filesystem, and doctor leaves nothing behind.
    reviews = state_dir_of(sessions_dir(facts_for(config, {}))) + "/reviews";
    struct stat st {};
    while (::stat(reviews.c_str(), &st) != 0 && reviews.rfind('/') > 0) reviews.resize(reviews.rfind('/'));
    problem = review::overlay_problem(reviews, &made);
  } catch (const Error& e) {
    problem = e.what();
  }
  if (!made.empty()) {
    try {
      review::remove_review(made);
    } catch (const Error& e) {
      problem += (problem.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  const DoctorStatus status = problem.empty() ? DoctorStatus::Pass : required ? DoctorStatus::Fail : DoctorStatus::Warn;
  rows.push_back({status, "review overlay",
                  problem.empty() ? "overlayfs mounts in a user namespace, its upper layer in " + reviews +
                                        (required ? " ([workspace] mode = \"review\")" : " (for cordon run --review)")
                                  : "review mode cannot mount its overlay: " + problem,
                  "review mode needs overlayfs in a user namespace (Linux 5.11+, the overlay module, a state "
                  "directory on a filesystem with xattrs); until then use [workspace] mode = \"direct\""});
}

// FAIL when the file could not be loaded: the rows after it then assume the built-in defaults.
DoctorRow configuration_row(const Config& config, const std::string& problem) {
  if (!problem.empty())
    return {DoctorStatus::Fail, "configuration", problem + " (the rows below assume the built-in defaults)",
            "correct " + config.source.file + " (docs/configuration.md is the reference)"};
  return {DoctorStatus::Pass, "configuration",
          config.file_found ? config.source.file + " is valid" : config.source.file + " absent: built-in defaults", ""};
}

// One row per installed shim: does typing the agent's name (with this PATH) run it?
void check_shims(std::vector<DoctorRow>& rows) {
  const char* path = std::getenv("PATH");
  for (const ShimHealth& h : shim_health(default_shim_paths(), path ? path : "")) {
    const std::string problem = shim_problem(h);
    if (problem.empty())
      rows.push_back({DoctorStatus::Pass, "shim " + h.agent, h.shim + " is the first " + h.agent + " on PATH", ""});
    else
      rows.push_back({DoctorStatus::Warn, "shim " + h.agent, problem.substr(0, problem.find(':')),
                      problem.substr(problem.find(':') + 2)});
  }
}

// [records] export to a path: can this user write it? A launch never stops for it (a line that
// cannot go is dropped and counted), so a target this user cannot open would drop every line
// silently; a WARN says so before. Nothing is created here.
void check_records_export(const Config& config, std::vector<DoctorRow>& rows) {
  const RecordExportTarget& target = config.records.export_to;
  if (target.kind == RecordExportTarget::Kind::None) return;
  const std::string name = "records export";
  if (target.kind != RecordExportTarget::Kind::File) {
    rows.push_back({DoctorStatus::Pass, name, terminal_safe(target.spelled) + " (not opened by doctor)", ""});
    return;
  }
  UniqueFd fd(::open(target.path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  const int err = errno;
  if (fd.valid() || err == ENOENT) {
    rows.push_back({DoctorStatus::Pass, name,
                    terminal_safe(target.path) + (fd.valid() ? " is writable" : " is created (0600) at the first line"),
                    ""});
  } else if (err == ENXIO) {
    rows.push_back({DoctorStatus::Warn, name, terminal_safe(target.path) + " is a FIFO no collector reads now",
                    "start the collector before the sessions; until then each line is dropped and counted"});
  } else {
    rows.push_back(
        {DoctorStatus::Warn, name,
         errno_text(terminal_safe(target.path) + " cannot be opened for writing by uid " + std::to_string(::getuid()),
                    err) +
             ": every line would be dropped (counted in the receipt's export)",
         "make it writable by this user, or set [records] export = \"stderr\" in " + config.source.file +
             " (in a pod, a non-root user cannot reopen the runtime's pipe behind /proc/1/fd/1)"});
  }
}

// Where doctor runs: a host, a container, a pod, and what of it the rows below meet.
DoctorRow container_row(const ContainerFacts& f) {
  if (!f.in_container()) return {DoctorStatus::Pass, "container", "none seen (no container or pod markers)", ""};
  std::string detail = f.in_pod() ? "a Kubernetes pod" : "a " + f.engine + " container";
  detail += f.seccomp_filtered ? "; this process runs under a seccomp filter" : "; no seccomp filter on this process";
  detail += "; " + std::to_string(f.proc_masks.size()) + " mount(s) over /proc";
  if (f.apparmor_restricts_userns) detail += "; AppArmor restricts user namespaces";
  if (f.cgroup_read_only) detail += "; the cgroup filesystem is read-only";
  return {DoctorStatus::Pass, "container", detail, ""};
}

const char* label(DoctorStatus s) {
  return s == DoctorStatus::Pass ? "PASS" : s == DoctorStatus::Warn ? "WARN" : "FAIL";
}

}  // namespace

std::vector<DoctorRow> run_doctor(const Config& config, const std::string& config_problem) {
  std::vector<DoctorRow> rows;
  const ContainerFacts where = read_container_facts();
  rows.push_back(configuration_row(config, config_problem));
  rows.push_back(container_row(where));
  check_bwrap(find_host_tool("bwrap", "bubblewrap"), config, where, rows);
  check_mask_source(rows);
  check_seccomp(rows);
  check_network(config, where, rows);
  check_landlock(config, rows);
  check_cgroup_budgets(config, where, rows);
  check_crashed_sessions(config, rows);
  check_review_overlay(config, rows);
  check_records_export(config, rows);
  check_shims(rows);
  return rows;
}

int print_doctor(const std::vector<DoctorRow>& rows, bool json) {
  int fails = 0;
  for (const auto& r : rows) fails += r.status == DoctorStatus::Fail;
  if (json) {
    Json checks = Json::array();
    for (const auto& r : rows)
      checks.push_back({{"name", bytes_json(r.name)},
                        {"status", label(r.status)},
                        {"detail", bytes_json(r.detail)},
                        {"fix", bytes_json(r.status == DoctorStatus::Pass ? "" : r.fix)}});
    Json document{{"format", "cordon-doctor"}, {"version", 1}, {"checks", checks}, {"fail", fails}};
    print_out(dump_line(document) + "\n");
    return fails;
  }
  printf_out("cordon doctor: %zu checks\n", rows.size());
  // A row's detail and fix echo paths and config values: each stays on its line.
  for (const auto& r : rows) {
    printf_out("  [%s] %-22s %s\n", label(r.status), terminal_safe(r.name).c_str(), terminal_safe(r.detail).c_str());
    if (r.status != DoctorStatus::Pass && !r.fix.empty()) print_out("         fix: " + terminal_safe(r.fix) + "\n");
  }
  printf_out("  Summary: %d FAIL\n", fails);
  return fails;
}

int doctor_command(const std::string& config_path, bool json) {
  std::string problem;
  Config config;
  try {
    config = load_config(config_path);
  } catch (const ConfigError& e) {
    problem = e.what();
    config = default_config();
    config.source.file = config_path;
  }
  int fails = print_doctor(run_doctor(config, problem), json);
  if (!problem.empty()) return kExitConfigError;
  return fails == 0 ? kExitSuccess : kExitChecksFailed;
}

}  // namespace cordon
