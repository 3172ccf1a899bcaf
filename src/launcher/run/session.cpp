#include "launcher/run/session.h"

#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "common/agent_login.h"
#include "common/build_config.h"
#include "common/error.h"
#include "common/print.h"
#include "common/text.h"
#include "launcher/budgets/cgroup_session.h"
#include "launcher/fs/agent_home.h"
#include "launcher/fs/home_audit.h"
#include "launcher/fs/home_caches.h"
#include "launcher/fs/steering_state.h"
#include "launcher/inputs/state_dirs.h"
#include "launcher/network/egress_decisions.h"
#include "launcher/network/network_plan.h"
#include "launcher/plan/visibility.h"
#include "launcher/record/manifest.h"
#include "launcher/record/session_keeper.h"
#include "launcher/record/sweep.h"
#include "launcher/record/sweep_reach.h"
#include "launcher/review/review_base.h"
#include "launcher/review/review_policy.h"
#include "launcher/run/command_lookup.h"
#include "launcher/run/review_session.h"
#include "launcher/run/sandbox.h"
#include "launcher/run/settings_notice.h"
#include "launcher/workspace/repositories.h"
#include "launcher/workspace/workspace_plan.h"

namespace cordon {
namespace {

// A crashed launcher's leftovers are swept, and old records pruned (at most hourly), before a
// new session starts: nothing accumulates even when no one runs `cordon sessions gc`.
void tidy_records(const Config& config, const HostFacts& facts) {
  const std::string dir = sessions_dir(facts);
  const RecordExport exporter(config.records.export_to, state_dir_of(dir));
  SweepReport swept = sweep_crashed_sessions(dir, &exporter);
  for (const auto& line : swept.lines) print_err("cordon: " + terminal_safe(line) + "\n");
  if (prune_due(dir)) prune_records(dir, config.records.keep, config.records.keep_days);
}

// The PATH the sandbox's execvp searches ("" when the sandbox has none).
std::string sandbox_path(const EnvList& env) {
  for (const auto& [name, value] : env)
    if (name == "PATH") return value;
  return "";
}

// An agent without a login yet, whose browser login cannot complete inside (common/agent_login.h):
// the login that does, said before it starts.
void hint_login(const HostFacts& facts, const SandboxPlan& plan) {
  const AgentLogin* login = shipped_agent_login(plan.agent);
  if (login == nullptr || facts.home.empty()) return;
  for (const auto& file : login->credential_files)
    if (::access((facts.home + "/" + file).c_str(), F_OK) == 0) return;
  for (const auto& [name, value] : plan.env)
    for (const auto& key : login->key_variables)
      if (name == key && !value.empty()) return;
  print_err("cordon: " + terminal_safe(plan.agent) + " has no login yet: " + login->hint + "\n");
}

// A workspace that is a projects directory (`~/src`), not a project: every repository in it is
// writable to the session. Said, not refused: it may be what the operator wants.
void warn_projects_directory(const HostFacts& facts) {
  if (facts.workspace.empty()) return;
  const std::vector<std::string> repositories = repositories_below(WorkspaceTree(facts.workspace), 4);
  if (repositories.size() < 2) return;
  std::string names;
  for (size_t i = 0; i < repositories.size() && i < 3; ++i)
    names += (names.empty() ? "" : ", ") + terminal_safe(repositories[i]);
  if (repositories.size() > 3) names += ", ...";
  print_err("cordon: the workspace " + terminal_safe(facts.workspace) + " holds several git repositories (" + names +
            "): the session can write every one of them; to give it one, run cordon in that project or pass "
            "--workspace DIR\n");
}

// The command must be runnable (127 / 126 otherwise, as a shell says); crashed sessions are
// swept before a new one starts.
void before_anything_is_made(const Config& config, const HostFacts& facts, const SandboxPlan& plan) {
  check_command_runnable(
      plan.command.at(0), sandbox_path(plan.env),
      [&](const std::string& real) { return visible_inside(plan.intent, real); }, facts.home);
  tidy_records(config, facts);
  // On a terminal, where a person reads it: the configuration variables left out (names
  // only, never values).
  if (!::isatty(2)) return;
  hint_login(facts, plan);
  warn_projects_directory(facts);
  std::vector<std::string> dropped = dropped_configuration_names(facts, plan.env);
  if (!dropped.empty()) {
    std::string names;
    for (const auto& name : dropped) names += (names.empty() ? "" : ", ") + terminal_safe(name);
    print_err("cordon: not passed into the sandbox: " + names + " (to pass one, add it to [environment] allow in " +
              build::kConfigPath + ")\n");
  }
}

// The host facts, after the active profile's missing home entries are made: a fresh machine's
// first session keeps the agent's login and trust for the next one.
HostFacts facts_for_launch(const Config& config, const SessionOptions& o) {
  HostFacts facts = facts_for(config, o);
  const std::string profile = config.active_agent(o.agent, o.command);
  create_missing_profile_entries(config.agent(profile), facts);
  make_home_caches(config.home, profile, facts);
  return facts;
}

// What the output filter kept from the operator's terminal (the relay's, or --filter-output's
// on pipes), once, when stderr is a terminal: a dropped clipboard write or hyperlink is
// otherwise a feature that silently does nothing. "unknown" is never passable, so it is not named.
void report_terminal_drops(const TerminalOutcome& terminal) {
  if (!::isatty(2)) return;
  std::string classes;
  for (const auto& [name, count] : terminal.dropped)
    if (name != "unknown" && count > 0) classes += (classes.empty() ? "" : ", ") + name + " " + std::to_string(count);
  if (classes.empty()) return;
  print_err("cordon: the terminal filter dropped what the sandbox wrote of: " + classes +
            " (to let a class through, add it to [terminal] pass in " + build::kConfigPath + ")\n");
}

// What the session's end tells the user; the exit status (125 when its teardown failed).
int report_end(const Receipt& receipt, const SessionRecord& record) {
  report_terminal_drops(receipt.outcome.terminal);
  for (const auto& hit : receipt.limit_hits)
    print_err("cordon: the session hit its " + terminal_safe(hit) + " limit\n");
  if (receipt.teardown_problems.empty()) return receipt.outcome.exit_code;
  for (const auto& problem : receipt.teardown_problems)
    print_err("cordon: TEARDOWN FAILED: " + terminal_safe(problem) + "\n");
  print_err("cordon: see " + terminal_safe(record.path()) + "\n");
  return kExitLaunchRefused;
}

// The allowlist proxy's decisions into the receipt, their counts for `cordon status` ("last
// egress"), and one line on stderr when there were any.
void record_egress(const network::NetworkLaunch& network, const std::vector<std::string>& user_allow,
                   const std::string& sessions, const std::string& id, Receipt& receipt) {
  std::optional<proxy::EgressDecisions> decisions = network.decisions();
  if (!decisions) return;  // the mode has no proxy
  receipt.egress = proxy::egress_json(*decisions);
  record_last_egress(sessions, id, proxy::egress_counts_text(*decisions));
  if (!decisions->entries.empty() || decisions->unreadable)
    print_err("cordon: " + terminal_safe(proxy::egress_summary_line(*decisions, user_allow)) + "\n");
}

// What the home audit compares after the session: the control keys' values (fs/home_audit.h)
// and the listing of the agent's memory (fs/steering_state.h).
void keep_control_keys(const HostFacts& facts, const std::string& id, const SandboxPlan& plan) {
  if (std::string problem = snapshot_control_keys(sessions_dir(facts), id, facts.home, plan.agent); !problem.empty())
    print_err("cordon: " + terminal_safe(problem) + "\n");
  if (std::string problem = snapshot_steering_state(sessions_dir(facts), id, facts.home, plan.agent); !problem.empty())
    print_err("cordon: " + terminal_safe(problem) + "\n");
}

// After the sandbox is gone: what it could write that a host tool would run (workspace/foothold_audit.h),
// and the agent's control keys it changed (fs/home_audit.h).
// Then what it left writable for other users (fs/loose_permissions.h).
void audit_after_session(const HostFacts& facts, const SessionRecord& record, const SandboxPlan& plan,
                         Receipt& receipt) {
  receipt.footholds = audit_session_workspace(record.id(), plan.intent.workspace, plan.intent.workspace_protected,
                                              plan.intent.workspace_protect_absent);
  receipt.home_keys = audit_session_home(sessions_dir(facts), record.id());
  receipt.permissions = audit_session_permissions(record.permissions(), plan.intent.workspace);
}

// The session cgroup's teardown goes into the receipt, after a failed launch too.
void finish_budgets(std::unique_ptr<cgroup::SessionCgroup>& budgets, Receipt& receipt) {
  if (!budgets) return;
  cgroup::CgroupFinish finished = budgets->finish();
  budgets.reset();
  for (auto& hit : finished.limit_hits) receipt.limit_hits.push_back(hit);
  for (auto& problem : finished.problems) receipt.teardown_problems.push_back(problem);
  receipt.cgroups_removed = finished.removed;
}

// The receipt, then the keeper's dismissal: a launcher that dies in between leaves the keeper
// a complete record. "" or why the receipt could not be written.
std::string close_record(SessionRecord& record, std::optional<SessionKeeper>& keeper, const Receipt& receipt) {
  std::string unrecorded = record.finish(receipt);
  if (keeper) keeper->dismiss();
  return unrecorded;
}

// TEST-ONLY (compiled only with -DCORDON_TEST_HOOKS=ON): the tests of the second line (the
// next launch's sweep, `cordon sessions gc`) and the controls of the keeper's own tests launch
// without it. A release build always starts it.
bool without_keeper([[maybe_unused]] const HostFacts& facts) {
#ifdef CORDON_TEST_HOOKS
  const std::string* off = facts.env_value("CORDON_TEST_NO_SESSION_KEEPER");
  return off && *off == "1";
#else
  return false;
#endif
}

// [records] transcript: beside the session's record, named by its id.
void name_transcript(SandboxPlan& plan, const std::string& sessions, const std::string& id) {
  if (plan.terminal.transcript_cap == 0) return;
  plan.terminal.transcript_path = transcript_path(sessions, id);
  plan.terminal.transcript_session = id;
}

// Review mode: where the session's layers go (STATE/reviews/ID), and what it starts from
// (review/review_base.h), taken before the manifest records it: the watermark, git's HEAD and
// index, and the scanner's digests of the host's credential values this sandbox does not get.
void name_review(SandboxPlan& plan, const HostFacts& facts, const std::string& id) {
  plan.workspace_plan.review_dir = review_dir(sessions_dir(facts), id);
  UniqueFd workspace(::open(plan.workspace_plan.path.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!workspace.valid())
    throw Error(errno_text("opening the workspace " + terminal_safe(plan.workspace_plan.path), errno), "nothing ran");
  review::ReviewBase base = review::take_review_base(id, plan.workspace_plan.path, workspace.get());
  std::vector<std::string> passed;
  for (const auto& entry : plan.env) passed.push_back(entry.first);
  std::tie(base.masked_json, base.masked_key) = review::masked_values_json(facts.env, passed);
  plan.workspace_plan.review_base = review::review_base_text(base);
}

// The session keeper, its sweep confined to what this plan lets it write (record/sweep_reach.h)
// and its crashed receipt exported as the launcher's would be.
void start_keeper(std::optional<SessionKeeper>& keeper, const Config& config, const HostFacts& facts,
                  const SandboxPlan& plan, const std::string& id) {
  const std::string sessions = sessions_dir(facts);
  keeper.emplace(sessions, id, sweep_reach(sessions, id, facts.home, plan, config.records.export_to),
                 RecordExport(config.records.export_to, state_dir_of(sessions)));
}

}  // namespace

int launch_session(const Config& config, const SessionOptions& o, bool is_verify) {
  HostFacts facts = facts_for_launch(config, o);
  const std::string id = new_session_id();
  // The network mode's prerequisites first (the jail's pasta and tun device, the allowlist's
  // proxy), so a missing one is reported with its fix before anything else; never a fallback.
  network::NetworkLaunch network(config.network, config.source.file, facts.libexec_dir);
  SandboxPlan plan = plan_for(config, facts, o);
  name_transcript(plan, sessions_dir(facts), id);
  if (plan.workspace_plan.review) name_review(plan, facts, id);
  LaunchStage* network_stage = network.stage_for(plan.network, id);
  before_anything_is_made(config, facts, plan);
  prepare_workspace(plan.workspace_plan);  // its missing hooks/, bound read-only by the plan
  // Closes the session at once if this launcher dies before its receipt (record/session_keeper.h):
  // started before the session's state file exists, so no moment of it is left uncovered.
  std::optional<SessionKeeper> keeper;
  if (!without_keeper(facts)) start_keeper(keeper, config, facts, plan, id);
  SessionRecord record(id, config, facts, plan);
  Receipt receipt;
  std::unique_ptr<cgroup::SessionCgroup> budgets;
  // The agent's control keys in its state files, as they are before the session can touch them.
  keep_control_keys(facts, record.id(), plan);
  auto audit_workspace = [&] { audit_after_session(facts, record, plan, receipt); };
  try {
    // The session's cgroup is made (limits written and read back) before anything forks; the
    // forked child joins it first, before the jail's namespaces.
    std::vector<LaunchStage*> stages;
    if (!plan.limits.cgroup_budgets.empty()) {
      budgets = std::make_unique<cgroup::SessionCgroup>(plan.limits.cgroup_budgets, record.id(),
                                                        keeper ? keeper->pid() : -1);
      stages.push_back(budgets.get());
    }
    if (network_stage) stages.push_back(network_stage);
    receipt.outcome = run_sandbox(plan, stages);
  } catch (const Error& e) {
    receipt.launch_error = e.what();
    finish_budgets(budgets, receipt);
    audit_workspace();
    if (std::string unrecorded = close_record(record, keeper, receipt); !unrecorded.empty())
      print_err("cordon: the session record is incomplete: " + terminal_safe(unrecorded) + "\n");
    finish_review(plan.workspace_plan.review_dir, record.id(), o.discard_review);
    throw;
  }
  record_egress(network, config.network.user_allow, sessions_dir(facts), record.id(), receipt);
  receipt.teardown_problems = verify_no_sandbox_processes(receipt.outcome);
  receipt.limit_hits = receipt.outcome.limit_hits;
  finish_budgets(budgets, receipt);
  audit_workspace();
  // A receipt that cannot be written (a full disk) is reported, never a reason to hide the
  // command's own status: the command ran.
  if (std::string unrecorded = close_record(record, keeper, receipt); !unrecorded.empty())
    print_err("cordon: the session record is incomplete: " + terminal_safe(unrecorded) +
              " (the command's exit status is returned)\n");
  finish_review(plan.workspace_plan.review_dir, record.id(), o.discard_review);
  if (is_verify && receipt.outcome.command_ran) record_last_verify(sessions_dir(facts), receipt.outcome.exit_code);
  if (auto profile = config.agents.find(plan.agent); profile != config.agents.end() && receipt.outcome.command_ran)
    notice_read_only_settings(sessions_dir(facts), profile->second, facts.home, agent_binary(profile->second, facts),
                              receipt.outcome.terminal.relayed && ::isatty(2) == 1);
  return report_end(receipt, record);
}

}  // namespace cordon
