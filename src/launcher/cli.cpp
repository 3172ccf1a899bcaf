#include "launcher/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/build_config.h"
#include "common/error.h"
#include "common/text.h"
#include "launcher/cgroup_session.h"
#include "launcher/config.h"
#include "launcher/doctor.h"
#include "launcher/host_facts.h"
#include "launcher/jail.h"
#include "launcher/jail_plan.h"
#include "launcher/launch.h"
#include "launcher/manifest.h"
#include "launcher/shim.h"
#include "launcher/status.h"
#include "launcher/paths.h"
#include "launcher/plan.h"
#include "launcher/probe_bait.h"
#include "launcher/subprocess.h"
#include "launcher/weaken.h"

namespace cordon {
namespace {

struct SessionOptions {
  std::string workspace;
  std::string agent;
  std::vector<std::string> command;
  std::vector<std::string> weaken;  // test hooks only
  std::vector<std::string> limits;  // --limit NAME=VALUE
  bool json = false;
};

void add_session_options(CLI::App* cmd, SessionOptions& o) {
  cmd->add_option("--workspace", o.workspace, "Directory bound read-write (default: config, then $PWD)");
  cmd->add_option("--agent", o.agent, "Agent profile to apply (default: generic)");
  // The command is a positional list; options after `--` belong to it, never to cordon.
  cmd->add_option("--limit", o.limits, "Lower a configured resource limit for this run: NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("command", o.command, "Command to run inside the sandbox (after --)");
#ifdef CORDON_TEST_HOOKS
  cmd->add_option("--test-weaken", o.weaken, "TEST BUILD ONLY: remove one defence (repeatable)")
      ->allow_extra_args(false);
#endif
}

SandboxPlan plan_for(const Config& config, const HostFacts& facts, const SessionOptions& o,
                     const jail::JailPlan* jail = nullptr) {
  LaunchRequest request{o.workspace, o.agent, o.command, config.source_path, o.limits};
  SandboxPlan plan = build_plan(config, facts, request, jail);
  for (const auto& name : o.weaken) apply_weakening(plan, name);
  return plan;
}

// The egress jail's plan when the configuration turns the jail on (nullopt when off).
// Gathering the network facts reads netlink dumps and /etc/resolv.conf: nothing is sent.
std::optional<jail::JailPlan> jail_plan_for(const Config& config) {
  if (!config.egress_jail) return std::nullopt;
  return jail::plan_jail(config, jail::gather_network_facts());
}

HostFacts facts_for(const Config& config, const SessionOptions& o) {
  return gather_host_facts(config, LaunchRequest{o.workspace, o.agent, o.command, config.source_path, o.limits});
}

// A launch with its record: the manifest is written before anything runs (no record, no
// run), the receipt when it ends, including a refused or failed launch.
// The caller holds termination signals blocked (TerminationSignalsBlocked) for the whole call.
int launch(const Config& config, const SessionOptions& o, bool is_verify = false) {
  HostFacts facts = facts_for(config, o);
  // The egress jail (on unless the configuration file turns it off): prerequisites first, so a
  // missing one is reported with its fix before anything else; never a fallback to the host.
  std::unique_ptr<jail::EgressJail> jail;
  if (config.egress_jail) {
    std::string pasta = jail::check_jail_prerequisites(config);
    jail = std::make_unique<jail::EgressJail>(jail::plan_jail(config, jail::gather_network_facts()), pasta);
  }
  SandboxPlan plan = plan_for(config, facts, o, jail ? &jail->plan() : nullptr);
  SessionRecord record(config, facts, plan);
  Receipt receipt;
  std::unique_ptr<cgroup::SessionCgroup> budgets;
  // The session cgroup's teardown goes into the receipt, after a failed launch too.
  auto finish_budgets = [&] {
    if (!budgets) return;
    cgroup::CgroupFinish finished = budgets->finish();
    budgets.reset();
    for (auto& hit : finished.limit_hits) receipt.limit_hits.push_back(hit);
    for (auto& problem : finished.problems) receipt.teardown_problems.push_back(problem);
    receipt.cgroups_removed = finished.removed;
  };
  try {
    // The session's cgroup is made (limits written and read back) before anything forks; the
    // forked child joins it first, before the jail's namespaces.
    std::vector<LaunchStage*> stages;
    if (!plan.limits.cgroup_budgets.empty()) {
      budgets = std::make_unique<cgroup::SessionCgroup>(plan.limits.cgroup_budgets, record.id());
      stages.push_back(budgets.get());
    }
    if (jail) stages.push_back(jail.get());
    receipt.outcome = run_sandbox(plan, stages);
  } catch (const Error& e) {
    receipt.launch_error = e.what();
    finish_budgets();
    record.finish(receipt);
    throw;
  }
  receipt.teardown_problems = verify_no_sandbox_processes(receipt.outcome);
  receipt.limit_hits = receipt.outcome.limit_hits;
  finish_budgets();
  record.finish(receipt);
  if (is_verify && receipt.outcome.command_ran) record_last_verify(sessions_dir(facts), receipt.outcome.exit_code);
  for (const auto& hit : receipt.limit_hits)
    std::fprintf(stderr, "cordon: the session hit its %s limit\n", hit.c_str());
  if (!receipt.teardown_problems.empty()) {
    for (const auto& problem : receipt.teardown_problems)
      std::fprintf(stderr, "cordon: TEARDOWN FAILED: %s\n", problem.c_str());
    std::fprintf(stderr, "cordon: see %s\n", record.path().c_str());
    return kExitLaunchRefused;
  }
  return receipt.outcome.exit_code;
}

// The battery, read-only inside every sandbox, as the sandbox's command.
std::vector<std::string> battery_command(bool json) {
  std::string battery = libexec_dir() + "/cordon-battery";
  if (::access(battery.c_str(), X_OK) != 0)
    throw Error("cordon-battery not found at " + battery, "reinstall cordon (cmake --install)");
  std::vector<std::string> command = {battery};
  if (json) command.push_back("--json");
  return command;
}

// `verify --deep`, second launch: the probes attack bait the launcher sets up outside.
int verify_probes(const Config& config, SessionOptions o) {
  const std::string libexec = libexec_dir();
  std::string probe = libexec + "/cordon-probe";
  if (::access(probe.c_str(), X_OK) != 0)
    throw Error("cordon-probe not found at " + probe, "reinstall cordon (cmake --install)");
  // The battery's own list says how many checks just passed.
  std::string listing = run_capture({libexec + "/cordon-battery", "--list"}).output;
  int checks = 0;
  for (size_t at = 0; (at = listing.find("\n  ", at)) != std::string::npos; ++at) ++checks;
  if (listing.rfind("  ", 0) == 0) ++checks;
  HostFacts facts = facts_for(config, o);
  ProbeBait bait(facts.home, facts.workspace);
  o.command = {probe, "--checks-passed", std::to_string(checks)};
  for (auto& arg : bait.probe_args()) o.command.push_back(arg);
  if (o.json) o.command.push_back("--json");
  return launch(config, o);
}

void print_argv(const SandboxPlan& plan, bool json) {
  if (!json) {
    std::printf("%s\n", shell_join(plan.argv).c_str());
    return;
  }
  std::string files;
  for (const auto& f : plan.data_files)
    files += std::string(files.empty() ? "" : ",") + "{\"fd\":" + std::to_string(f.fd) +
             ",\"dest\":" + json_string(f.dest) + ",\"content\":" + json_string(f.content) + "}";
  std::vector<std::string> env_names;
  for (const auto& [name, value] : plan.env) env_names.push_back(name);
  std::printf("{\"argv\":%s,\"seccomp_fd\":%d,\"status_fd\":%d,\"data_files\":[%s],\"env_names\":%s,"
              "\"writable\":%s,\"workspace\":%s,\"agent\":%s}\n",
              json_string_array(plan.argv).c_str(), kSeccompFd, kStatusFd, files.c_str(),
              json_string_array(env_names).c_str(), json_string_array(plan.writable).c_str(),
              json_string(plan.workspace).c_str(), json_string(plan.agent).c_str());
}

}  // namespace

int cli_main(int argc, char** argv) {
  CLI::App app{"cordon: run coding agents in an enforced, tested sandbox"};
  app.set_version_flag("--version", std::string("cordon ") + build::kVersion);
  app.require_subcommand(1);
  std::string config_path = build::kConfigPath;
  app.add_option("--config", config_path,
                 std::string("Configuration file (default and only production path: ") + build::kConfigPath +
                     "; another path is recorded in the session and battery check 18 reports it)");

  SessionOptions run_opts, argv_opts;
  CLI::App* run = app.add_subcommand("run", "Run a command inside the sandbox");
  add_session_options(run, run_opts);
  CLI::App* show = app.add_subcommand("argv", "Print the exact bwrap invocation; launch nothing");
  add_session_options(show, argv_opts);
  show->add_flag("--json", argv_opts.json, "Machine-readable output");
  SessionOptions verify_opts;
  CLI::App* verify = app.add_subcommand("verify", "Launch a sandbox like `run` and check it from inside (cordon-battery)");
  verify->add_option("--workspace", verify_opts.workspace, "Directory bound read-write (default: config, then $PWD)");
  verify->add_option("--agent", verify_opts.agent, "Agent profile to apply (default: generic)");
  verify->add_option("--limit", verify_opts.limits, "Lower a configured resource limit, as for `run` (repeatable)")
      ->allow_extra_args(false);
  verify->add_flag("--json", verify_opts.json, "Pass --json to the battery (and the probes)");
  bool verify_deep = false;
  verify->add_flag("--deep", verify_deep,
                   "When every check passes, launch again and run the adversarial probes (cordon-probe)");
#ifdef CORDON_TEST_HOOKS
  verify->add_option("--test-weaken", verify_opts.weaken, "TEST BUILD ONLY: remove one defence (repeatable)")
      ->allow_extra_args(false);
#endif
  SessionOptions status_opts;
  CLI::App* status = app.add_subcommand("status", "What is enforced: inside a sandbox, or what `run` would enforce here");
  status->add_option("--workspace", status_opts.workspace, "Workspace to describe (outside a sandbox)");
  status->add_option("--agent", status_opts.agent, "Agent profile to describe (outside a sandbox)");
  status->add_flag("--json", status_opts.json, "Machine-readable output");
  std::string shim_agent, shim_binary;
  CLI::App* shim = app.add_subcommand("shim", "Make typing an agent's name run it under cordon");
  CLI::App* shim_install_cmd = shim->add_subcommand("install", "Install a shim for an agent (root)");
  shim_install_cmd->add_option("--agent", shim_agent, "Agent name, e.g. claude")->required();
  shim_install_cmd->add_option("--binary", shim_binary, "The real binary (default: found in fixed locations)");
  CLI::App* shim_remove_cmd = shim->add_subcommand("remove", "Undo `shim install` exactly (root)");
  shim_remove_cmd->add_option("--agent", shim_agent, "Agent name")->required();
  shim->add_subcommand("status", "Show what is shimmed");
  shim->require_subcommand(1);
  std::string session_id;
  CLI::App* sessions = app.add_subcommand("sessions", "List recorded sessions, or show one (manifest + receipt)");
  sessions->add_subcommand("list", "List recorded sessions");
  CLI::App* sessions_show = sessions->add_subcommand("show", "Print one session record (JSON)");
  sessions_show->add_option("id", session_id, "Session id from `cordon sessions list`")->required();
  sessions->require_subcommand(1);
  bool doctor_json = false;
  CLI::App* doctor = app.add_subcommand("doctor", "Check that this host can enforce the sandbox");
  doctor->add_flag("--json", doctor_json, "Machine-readable output");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitConfigError;
  }

  std::optional<TerminationSignalsBlocked> blocked;  // set for launches; outlives the error report
  try {
    if (*shim) {
      ShimPaths paths = default_shim_paths();
      if (*shim_install_cmd) {
        shim_install(shim_agent, shim_binary, paths);
        std::printf("shimmed %s: %s/%s now runs it under cordon\n", shim_agent.c_str(), paths.shim_dir.c_str(),
                    shim_agent.c_str());
      } else if (*shim_remove_cmd) {
        shim_remove(shim_agent, paths);
        std::printf("removed the shim for %s\n", shim_agent.c_str());
      } else {
        std::fputs(shim_status(paths).c_str(), stdout);
      }
      return 0;
    }
    if (*status) {
      // Inside a sandbox the launcher's own record of intent is the answer.
      std::ifstream in(kSessionFilePath);
      if (in) {
        std::stringstream text;
        text << in.rdbuf();
        std::string problem;
        if (auto session = parse_session(text.str(), &problem)) {
          StatusView view{true, *session};
          std::fputs((status_opts.json ? render_status_json(view) : render_status(view)).c_str(), stdout);
          return 0;
        }
      }
    }
    Config config = load_config(config_path);
    if (*status) {
      status_opts.command = {"/bin/true"};
      auto jail_plan = jail_plan_for(config);
      StatusView view{false, plan_for(config, facts_for(config, status_opts), status_opts,
                                      jail_plan ? &*jail_plan : nullptr).session};
      std::fputs((status_opts.json ? render_status_json(view) : render_status(view)).c_str(), stdout);
      return 0;
    }
    if (*doctor) return print_doctor(run_doctor(config), doctor_json) == 0 ? 0 : 1;
    if (*show) {
      auto jail_plan = jail_plan_for(config);
      print_argv(plan_for(config, facts_for(config, argv_opts), argv_opts, jail_plan ? &*jail_plan : nullptr),
                 argv_opts.json);
      return 0;
    }
    if (*sessions) {
      std::string dir = sessions_dir(facts_for(config, {}));
      return session_id.empty() ? print_sessions_list(dir) : print_session(dir, session_id);
    }
    // From before anything is made until the record is complete and the error (if any) is
    // printed, a Ctrl-C, hang-up or SIGTERM waits instead of killing the launcher halfway and
    // leaving cgroups, pasta or bait behind; the sandbox still receives it.
    blocked.emplace();
    if (*verify) {
      verify_opts.command = battery_command(verify_opts.json);
      int failed = launch(config, verify_opts, true);
      if (!verify_deep || failed != 0) {
        if (verify_deep) std::fprintf(stderr, "cordon: the battery reported FAILs: probes not run\n");
        return failed;
      }
      return verify_probes(config, verify_opts);
    }
    return launch(config, run_opts);
  } catch (const Error& e) {
    std::fprintf(stderr, "cordon: error: %s\n", e.what());
    if (!e.fix().empty()) std::fprintf(stderr, "cordon:   fix: %s\n", e.fix().c_str());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cordon: internal error: %s\n", e.what());
    return kExitLaunchRefused;
  }
}

}  // namespace cordon
