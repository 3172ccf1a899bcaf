// The pure plan builder: exact bwrap vector for a known host, ordering rules, refusals.
// Nothing here launches a process.
#include "launcher/plan/plan.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <algorithm>

#include "common/error.h"
#include "common/intent.h"
#include "common/ipv4.h"
#include "common/json_codec.h"
#include "launcher/env/env.h"
#include "launcher/fs/gitconfig.h"

namespace cordon {
namespace {

HostFacts sample_facts() {
  HostFacts f;
  f.uid = 1000;
  f.gid = 1000;
  f.user = "dev";
  f.home = "/home/dev";
  f.cwd = "/src/app/lib";
  f.workspace = "/src/app";
  f.workspace_asked = "/src/app";
  f.bwrap_path = "/usr/bin/bwrap";
  f.libexec_dir = "/usr/local/libexec/cordon";
  f.env = {{"PATH", "/usr/bin:/bin"},
           {"HOME", "/home/dev"},
           {"TERM", "xterm"},
           {"LC_ALL", "C.UTF-8"},
           {"GH_TOKEN", "ghp_secret"},
           {"OPENAI_API_KEY", "sk-x"},
           {"AWS_SECRET_ACCESS_KEY", "aws"},
           {"DISPLAY", ":0"},
           {"SSH_AUTH_SOCK", "/tmp/agent"},
           {"IS_SANDBOX", "0"},
           {"EDITOR", "vi"}};
  for (const char* p :
       {"/run/user", "/etc/shadow", "/etc/sudoers", "/home/dev", "/src/app", "/usr/local/libexec/cordon",
        "/usr/local/libexec/cordon/empty", "/home/dev/.claude", "/home/dev/.vimrc"})
    f.existing_paths.insert(p);
  for (const char* d : {"/run/user", "/home/dev", "/src/app", "/usr/local/libexec/cordon", "/home/dev/.claude"})
    f.directories.insert(d);
  f.namespaces = {{"pid", "pid:[1]"}, {"ipc", "ipc:[2]"}};
  f.view_roots = {{"/usr", ""}, {"/bin", "usr/bin"}, {"/etc", ""}};
  // The claude profile's control entries, as the launch makes them in ~/.claude.
  for (const auto& entry : builtin_agent_profiles().at("claude").control) {
    const std::string path = "/home/dev/" + entry;
    f.existing_paths.insert(path);
    f.control_entries[path] = {path, ""};
  }
  return f;
}

// The index of "--bind-fd N DEST" (a read-write bind by descriptor), or npos.
size_t find_bind_fd(const std::vector<std::string>& argv, const std::string& dest) {
  for (size_t i = 0; i + 2 < argv.size(); ++i)
    if (argv[i] == "--bind-fd" && argv[i + 2] == dest) return i;
  return std::string::npos;
}

LaunchRequest request(std::vector<std::string> command = {"sh", "-c", "true"}) {
  LaunchRequest r;
  r.command = std::move(command);
  return r;
}

Config no_jail() {
  Config c = default_config();
  c.source.file = "/etc/cordon/cordon.toml";
  c.network.mode = NetworkMode::Host;
  return c;
}

// Index of the first occurrence of the subsequence `needle` in `argv`, or npos.
size_t find_seq(const std::vector<std::string>& argv, std::vector<std::string> needle) {
  auto it = std::search(argv.begin(), argv.end(), needle.begin(), needle.end());
  return it == argv.end() ? std::string::npos : static_cast<size_t>(it - argv.begin());
}

TEST(Plan, ExactVectorForAKnownHost) {
  SandboxPlan plan = build_plan(no_jail(), sample_facts(), request());
  std::vector<std::string> expected = {"/usr/bin/bwrap",
                                       "--unshare-user",
                                       "--unshare-pid",
                                       "--unshare-ipc",
                                       "--unshare-uts",
                                       "--hostname",
                                       "cordon",
                                       "--unshare-cgroup-try",
                                       "--disable-userns",
                                       "--cap-drop",
                                       "ALL",
                                       "--die-with-parent",
                                       "--json-status-fd",
                                       "9",
                                       "--clearenv",
                                       "--setenv",
                                       "LC_ALL",
                                       "C.UTF-8",
                                       "--setenv",
                                       "PATH",
                                       "/usr/bin:/bin",
                                       "--setenv",
                                       "TERM",
                                       "xterm",
                                       "--setenv",
                                       "USER",
                                       "dev",
                                       "--setenv",
                                       "HOME",
                                       "/home/dev",
                                       "--setenv",
                                       "IS_SANDBOX",
                                       "1",
                                       "--setenv",
                                       "GIT_CONFIG_GLOBAL",
                                       "/run/cordon/gitconfig",
                                       "--setenv",
                                       "GIT_CONFIG_SYSTEM",
                                       "/dev/null",
                                       "--ro-bind",
                                       "/usr",
                                       "/usr",
                                       "--symlink",
                                       "usr/bin",
                                       "/bin",
                                       "--ro-bind",
                                       "/etc",
                                       "/etc",
                                       "--dev",
                                       "/dev",
                                       "--proc",
                                       "/proc",
                                       "--ro-bind",
                                       "/proc/sys",
                                       "/proc/sys",
                                       "--size",
                                       "1073741824",
                                       "--tmpfs",
                                       "/tmp",
                                       "--size",
                                       "1073741824",
                                       "--tmpfs",
                                       "/run",
                                       "--size",
                                       "1073741824",
                                       "--tmpfs",
                                       "/var/tmp",
                                       "--size",
                                       "1073741824",
                                       "--tmpfs",
                                       "/run/user",
                                       "--size",
                                       "1073741824",
                                       "--tmpfs",
                                       "/home/dev",
                                       "--bind-fd",
                                       "13",
                                       "/src/app",
                                       "--ro-bind",
                                       "/usr/local/libexec/cordon/empty",
                                       "/home/dev/.netrc",
                                       "--ro-bind",
                                       "/usr/local/libexec/cordon/empty",
                                       "/home/dev/.Xauthority",
                                       "--ro-bind",
                                       "/usr/local/libexec/cordon/empty",
                                       "/home/dev/.ICEauthority",
                                       "--ro-bind",
                                       "/usr/local/libexec/cordon/empty",
                                       "/etc/shadow",
                                       "--ro-bind",
                                       "/usr/local/libexec/cordon/empty",
                                       "/etc/sudoers",
                                       "--tmpfs",
                                       "/run/cordon",
                                       "--perms",
                                       "0444",
                                       "--ro-bind-data",
                                       "11",
                                       "/run/cordon/gitconfig",
                                       "--perms",
                                       "0444",
                                       "--ro-bind-data",
                                       "12",
                                       "/run/cordon/session",
                                       "--remount-ro",
                                       "/run/cordon",
                                       "--ro-bind",
                                       "/usr/local/libexec/cordon",
                                       "/usr/local/libexec/cordon",
                                       "--remount-ro",
                                       "/",
                                       "--seccomp",
                                       "10",
                                       "--chdir",
                                       "/src/app/lib",
                                       "--",
                                       "sh",
                                       "-c",
                                       "true"};
  EXPECT_EQ(plan.argv, expected);
  EXPECT_EQ(plan.writable, std::vector<std::string>{"/src/app"});
  ASSERT_EQ(plan.data_files.size(), 2u);
  EXPECT_EQ(plan.data_files[0].fd, 11);
  EXPECT_EQ(plan.data_files[1].fd, 12);
  // The workspace is opened by the launcher and bound by that descriptor (fs/bound_paths.h).
  ASSERT_EQ(plan.bound_paths.size(), 1u);
  EXPECT_EQ(plan.bound_paths[0].source, "/src/app");
  EXPECT_EQ(plan.bound_paths[0].fd, 13);
  EXPECT_EQ(plan.intent.filesystem.view, "system");
}

TEST(Plan, WritableTmpfsMountsAreCapped) {
  // Best-effort budgets this host cannot hold are named in the session file.
  Config best = no_jail();
  best.limits.values["pids_max"] = 100;
  std::erase(best.limits.defaulted, "pids_max");
  best.limits.best_effort = {"pids_max"};
  SandboxPlan plan = build_plan(best, sample_facts(), request());
  ASSERT_EQ(plan.intent.limits.not_enforced.size(), 2u);  // and the default memory budget
  EXPECT_EQ(plan.intent.limits.not_enforced[0].rfind("memory_max_bytes (default; ", 0), 0u);
  EXPECT_EQ(plan.intent.limits.not_enforced[1].rfind("pids_max (", 0), 0u);
  EXPECT_NE(find_seq(plan.argv, {"--size", "1073741824", "--tmpfs", "/tmp"}), std::string::npos);
  Config capped = no_jail();
  capped.filesystem.tmpfs_size_bytes = 0;  // no cap: no --size at all
  EXPECT_EQ(find_seq(build_plan(capped, sample_facts(), request()).argv, {"--size"}), std::string::npos);
}

TEST(Plan, HostViewIsTheWholeRootReadOnlyWithTheSiblingsHidden) {
  Config c = no_jail();
  c.filesystem.view = RootView::Host;
  SandboxPlan plan = build_plan(c, sample_facts(), request());
  EXPECT_NE(find_seq(plan.argv, {"--ro-bind", "/", "/", "--dev"}), std::string::npos);
  EXPECT_EQ(find_seq(plan.argv, {"--symlink"}), std::string::npos);
  EXPECT_EQ(find_seq(plan.argv, {"--remount-ro", "/", "--seccomp"}), std::string::npos);
  EXPECT_LT(find_seq(plan.argv, {"--tmpfs", "/src"}), find_bind_fd(plan.argv, "/src/app"));
  EXPECT_EQ(find_seq(plan.argv, {"--tmpfs", "/var/tmp"}), std::string::npos);
  EXPECT_EQ(plan.intent.filesystem.view, "host");
}

TEST(Plan, SystemViewAddsTheReadPathsBeforeTheWorkspace) {
  Config c = no_jail();
  c.filesystem.read = {"/opt/toolchain"};
  HostFacts f = sample_facts();
  f.existing_paths.insert("/opt/toolchain");
  SandboxPlan plan = build_plan(c, f, request());
  size_t read = find_seq(plan.argv, {"--ro-bind", "/opt/toolchain", "/opt/toolchain"});
  ASSERT_NE(read, std::string::npos);
  EXPECT_LT(read, find_bind_fd(plan.argv, "/src/app"));
  EXPECT_EQ(plan.intent.filesystem.read, c.filesystem.read);
  c.filesystem.read = {"/opt/missing"};
  EXPECT_THROW(build_plan(c, f, request()), Error);
}

TEST(Plan, ARootLaunchMasksWhatOnlyRootMayReadInEtc) {
  HostFacts f = sample_facts();
  f.private_etc = {{"/etc/ssl/private", true}, {"/etc/app/secret.conf", false}};
  SandboxPlan plan = build_plan(no_jail(), f, request());
  EXPECT_NE(find_seq(plan.argv, {"--tmpfs", "/etc/ssl/private", "--remount-ro", "/etc/ssl/private"}),
            std::string::npos);
  EXPECT_NE(find_seq(plan.argv, {"--ro-bind", "/usr/local/libexec/cordon/empty", "/etc/app/secret.conf"}),
            std::string::npos);
  EXPECT_EQ(plan.intent.filesystem.private_masked,
            (std::vector<std::string>{"/etc/ssl/private", "/etc/app/secret.conf"}));
}

TEST(Plan, AMaskInsideTheWorkspaceIsRefused) {
  Config c = no_jail();
  c.filesystem.masks = {"/src/app/config/.env"};
  try {
    build_plan(c, sample_facts(), request());
    FAIL() << "a mask inside the workspace was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("renaming its parent"), std::string::npos) << e.what();
  }
}

TEST(Plan, AHomeEntryLinkedOutOfTheHomeIntoASystemTreeIsRefused) {
  Config c = no_jail();
  c.agents["claude"] = AgentProfile{"claude", "", {".claude"}, {}, false, false};
  LaunchRequest r = request();
  r.agent = "claude";
  HostFacts f = sample_facts();
  f.real_home_entries["/home/dev/.claude"] = "/etc";
  EXPECT_THROW(build_plan(c, f, r), Error);
  f.real_home_entries["/home/dev/.claude"] = "/home/dev/dotfiles/claude";
  SandboxPlan plan = build_plan(c, f, r);
  ASSERT_EQ(plan.bound_paths.size(), 2u);
  EXPECT_EQ(plan.bound_paths[0].source, "/home/dev/dotfiles/claude");
  EXPECT_EQ(plan.bound_paths[0].dest, "/home/dev/.claude");
}

TEST(Plan, IsDeterministic) {
  EXPECT_EQ(build_plan(no_jail(), sample_facts(), request()).argv,
            build_plan(no_jail(), sample_facts(), request()).argv);
}

TEST(Plan, CredentialVariablesNeverPass) {
  SandboxPlan plan = build_plan(no_jail(), sample_facts(), request());
  for (const char* name : {"GH_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "DISPLAY", "SSH_AUTH_SOCK", "EDITOR"})
    EXPECT_EQ(find_seq(plan.argv, {"--setenv", name}), std::string::npos) << name;
  // The host's IS_SANDBOX=0 cannot override the sentinel.
  EXPECT_NE(find_seq(plan.argv, {"--setenv", "IS_SANDBOX", "1"}), std::string::npos);
  EXPECT_EQ(find_seq(plan.argv, {"--setenv", "IS_SANDBOX", "0"}), std::string::npos);
}

TEST(Plan, AllowAndDenyLists) {
  Config c = no_jail();
  c.environment.allow = {"EDITOR", "AWS_*"};
  c.environment.deny = {"AWS_SECRET_ACCESS_KEY"};
  SandboxPlan plan = build_plan(c, sample_facts(), request());
  EXPECT_NE(find_seq(plan.argv, {"--setenv", "EDITOR", "vi"}), std::string::npos);
  EXPECT_EQ(find_seq(plan.argv, {"--setenv", "AWS_SECRET_ACCESS_KEY"}), std::string::npos);  // deny wins
}

TEST(Plan, ClearenvComesBeforeEverySetenv) {
  SandboxPlan plan = build_plan(no_jail(), sample_facts(), request());
  size_t clear = find_seq(plan.argv, {"--clearenv"});
  size_t first_set = find_seq(plan.argv, {"--setenv"});
  ASSERT_NE(clear, std::string::npos);
  EXPECT_LT(clear, first_set);
}

TEST(Plan, HomeInversionOrdering) {
  Config c = no_jail();
  c.home.keep_read_only = {".vimrc", ".absent"};
  AgentProfile claude{"claude", "", {".claude", ".claude.json"}, {}, false, false};
  c.agents["claude"] = claude;
  LaunchRequest r = request();
  r.agent = "claude";
  SandboxPlan plan = build_plan(c, sample_facts(), r);
  size_t home_tmpfs = find_seq(plan.argv, {"--tmpfs", "/home/dev"});
  size_t keep = find_seq(plan.argv, {"--ro-bind", "/home/dev/.vimrc", "/home/dev/.vimrc"});
  size_t agent_dir = find_bind_fd(plan.argv, "/home/dev/.claude");
  size_t netrc = find_seq(plan.argv, {"/home/dev/.netrc"});
  ASSERT_NE(home_tmpfs, std::string::npos);
  EXPECT_LT(home_tmpfs, keep);
  EXPECT_LT(home_tmpfs, agent_dir);
  EXPECT_LT(agent_dir, netrc);  // masks after the binds they could sit under
  EXPECT_EQ(find_seq(plan.argv, {"--ro-bind", "/home/dev/.absent", "/home/dev/.absent"}), std::string::npos);
  EXPECT_EQ(find_bind_fd(plan.argv, "/home/dev/.claude.json"), std::string::npos);
  EXPECT_EQ(plan.writable, (std::vector<std::string>{"/home/dev/.claude", "/src/app"}));
  EXPECT_EQ(plan.intent.agent.name, "claude");
}

TEST(Plan, ExtraWritablePathsComeAfterMasks) {
  Config c = no_jail();
  c.filesystem.writable = {"/srv/cache"};
  HostFacts f = sample_facts();
  f.existing_paths.insert("/srv/cache");
  SandboxPlan plan = build_plan(c, f, request());
  size_t punch = find_bind_fd(plan.argv, "/srv/cache");
  size_t run_user_mask = find_seq(plan.argv, {"--tmpfs", "/run/user"});
  size_t last_mask = find_seq(plan.argv, {"/etc/sudoers"});
  ASSERT_NE(punch, std::string::npos);
  EXPECT_GT(punch, run_user_mask);
  EXPECT_GT(punch, last_mask);
}

TEST(Plan, OnlyPlannedPathsAreWritable) {
  // Every read-write bind in the vector is the workspace, an agent dir or a configured path.
  Config c = no_jail();
  c.filesystem.writable = {"/var/cache/tool"};
  HostFacts f = sample_facts();
  f.existing_paths.insert("/var/cache/tool");
  SandboxPlan plan = build_plan(c, f, request());
  std::vector<std::string> rw;
  for (size_t i = 0; i + 1 < plan.argv.size(); ++i)
    if (plan.argv[i] == "--bind" || plan.argv[i] == "--bind-fd") rw.push_back(plan.argv[i + 2]);
  EXPECT_EQ(rw, (std::vector<std::string>{"/src/app", "/var/cache/tool"}));
  EXPECT_EQ(plan.writable, rw);
}

TEST(Plan, SystemMasksOnlyWherePresent) {
  SandboxPlan plan = build_plan(no_jail(), sample_facts(), request());
  EXPECT_EQ(find_seq(plan.argv, {"/etc/gshadow"}), std::string::npos);
  EXPECT_EQ(find_seq(plan.argv, {"--tmpfs", "/run/secrets"}), std::string::npos);
}

TEST(Plan, ProcWritableCornersAreReadOnly) {
  HostFacts f = sample_facts();
  f.existing_paths.insert("/proc/sysrq-trigger");
  SandboxPlan plan = build_plan(no_jail(), f, request());
  size_t proc = find_seq(plan.argv, {"--proc", "/proc"});
  EXPECT_EQ(find_seq(plan.argv, {"--ro-bind", "/proc/sys", "/proc/sys"}), proc + 2);
  EXPECT_EQ(find_seq(plan.argv, {"--ro-bind", "/proc/sysrq-trigger", "/proc/sysrq-trigger"}), proc + 5);
}

TEST(Plan, WorkspaceSiblingsAreHidden) {
  HostFacts f = sample_facts();
  auto parent_mask = [&](const std::string& ws) {
    f.workspace = ws;
    f.directories.insert(ws);
    Config host = no_jail();
    host.filesystem.view = RootView::Host;
    return siblings_mask(host.workspace, host.filesystem, f);
  };
  EXPECT_EQ(parent_mask("/src/app"), "/src");
  EXPECT_EQ(parent_mask("/srv/projects/app"), "/srv/projects");
  EXPECT_EQ(parent_mask("/app"), "");               // parent is /
  EXPECT_EQ(parent_mask("/tmp/ws"), "");            // /tmp is a tmpfs already
  EXPECT_EQ(parent_mask("/home/dev/src/app"), "");  // inside the inverted home
  EXPECT_EQ(parent_mask("/opt/app"), "");           // /opt itself holds tools
  EXPECT_EQ(parent_mask("/opt/projects/app"), "/opt/projects");
  EXPECT_EQ(parent_mask("/var/tmp/x/ws"), "/var/tmp/x");
  EXPECT_EQ(parent_mask("/usr/src/linux"), "");  // the OS tree
  Config keep = no_jail();
  keep.filesystem.view = RootView::Host;
  keep.workspace.hide_siblings = false;
  f.workspace = "/src/app";
  EXPECT_EQ(siblings_mask(keep.workspace, keep.filesystem, f), "");
  // The system view shows no sibling at all, so it needs no mask.
  EXPECT_EQ(parent_mask("/src/app"), "/src");
  Config system = no_jail();
  system.filesystem.view = RootView::System;
  EXPECT_EQ(siblings_mask(system.workspace, system.filesystem, f), "");
}

TEST(Plan, HostProcFallbackIsExplicit) {
  Config c = no_jail();
  c.filesystem.proc = ProcMode::HostReadOnly;
  SandboxPlan plan = build_plan(c, sample_facts(), request());
  EXPECT_NE(find_seq(plan.argv, {"--ro-bind", "/proc", "/proc"}), std::string::npos);
  EXPECT_EQ(find_seq(plan.argv, {"--proc", "/proc"}), std::string::npos);
}

TEST(Plan, ChdirFallsBackToWorkspace) {
  HostFacts f = sample_facts();
  f.cwd = "/elsewhere";
  SandboxPlan plan = build_plan(no_jail(), f, request());
  EXPECT_NE(find_seq(plan.argv, {"--chdir", "/src/app", "--"}), std::string::npos);
}

TEST(Plan, PtraceSwitchFollowsProfile) {
  Config c = no_jail();
  c.agents["dbg"] = AgentProfile{"dbg", "", {}, {}, true};
  LaunchRequest r = request();
  r.agent = "dbg";
  EXPECT_TRUE(build_plan(c, sample_facts(), r).isolation.allow_ptrace);
  EXPECT_FALSE(build_plan(c, sample_facts(), request()).isolation.allow_ptrace);
}

TEST(Plan, SessionFileDescribesIntent) {
  SandboxPlan plan = build_plan(no_jail(), sample_facts(), request());
  std::string problem;
  auto parsed = parse_session(plan.data_files[1].content, &problem);
  ASSERT_TRUE(parsed) << problem;
  EXPECT_EQ(parsed->workspace, "/src/app");
  EXPECT_EQ(parsed->writable, std::vector<std::string>{"/src/app"});
  EXPECT_EQ(parsed->host_namespaces.at("pid"), "pid:[1]");
  EXPECT_EQ(parsed->config.path, "/etc/cordon/cordon.toml");
  EXPECT_NE(std::find(parsed->env_names.begin(), parsed->env_names.end(), "IS_SANDBOX"), parsed->env_names.end());
  EXPECT_FALSE(parsed->network.jailed());
}

// The line format read "home_keep .x" then "writable /": the battery believed / was meant
// to be writable. In JSON the entry is one string, and the writable set is what was bound.
TEST(Plan, AHomeKeepEntryCannotInjectAWritablePath) {
  Config c = parse_config("[network]\negress_jail = false\n[home]\nkeep = [\".x\\nwritable /\"]\n",
                          "/etc/cordon/cordon.toml");
  ASSERT_EQ(c.home.keep_read_only, std::vector<std::string>{".x\nwritable /"});
  SandboxPlan plan = build_plan(c, sample_facts(), request());
  std::string problem;
  auto parsed = parse_session(plan.data_files[1].content, &problem);
  ASSERT_TRUE(parsed) << problem;
  EXPECT_EQ(parsed->home.keep_read_only, std::vector<std::string>{".x\nwritable /"});
  EXPECT_EQ(parsed->writable, plan.writable);
  EXPECT_EQ(std::count(parsed->writable.begin(), parsed->writable.end(), "/"), 0);
}

TEST(Plan, SessionFileStatesBudgetsAndWhereTheirCgroupsLive) {
  Config c = no_jail();
  c.limits.values = {{"nofile", 256}, {"pids_max", 512}, {"memory_max_bytes", 1LL << 32}};
  HostFacts f = sample_facts();
  f.cgroups = {{cgroup::Version::V2, "/sys/fs/cgroup/user.slice/run-1.scope", {"memory", "pids"}, true, false, {}, 0, {}, {}}};
  SandboxPlan plan = build_plan(c, f, request());
  ASSERT_EQ(plan.limits.cgroup_budgets.size(), 2u);
  std::string problem;
  auto parsed = parse_session(plan.data_files[1].content, &problem);
  ASSERT_TRUE(parsed) << problem;
  EXPECT_EQ(parsed->limits.values,
            (std::vector<std::string>{"core=0", "nofile=256", "memory_max_bytes=4294967296", "pids_max=512"}));
  EXPECT_EQ(parsed->limits.cgroup_parents,
            (std::map<std::string, std::string>{{"memory", "/sys/fs/cgroup/user.slice/run-1.scope"},
                                                {"pids", "/sys/fs/cgroup/user.slice/run-1.scope"}}));
  Json file = Json::parse(plan.data_files[1].content);
  EXPECT_EQ(file["limits"]["cgroup_parents"]["pids"], "/sys/fs/cgroup/user.slice/run-1.scope");
}

TEST(Plan, DefaultBudgetsHoldWhereACgroupIsAndAreRecordedNotEnforcedWhereNot) {
  // The shipped defaults (no [limits] at all): a session cgroup where one can be placed...
  HostFacts f = sample_facts();
  f.cgroups = {{cgroup::Version::V2, "/sys/fs/cgroup/user.slice/run-1.scope", {"memory", "pids"}, true, false, {}, 0, {}, {}}};
  SandboxPlan held = build_plan(no_jail(), f, request());
  ASSERT_EQ(held.limits.cgroup_budgets.size(), 2u);
  EXPECT_TRUE(held.intent.limits.not_enforced.empty());
  std::string problem;
  auto parsed = parse_session(held.data_files[1].content, &problem);
  ASSERT_TRUE(parsed) << problem;
  EXPECT_EQ(parsed->limits.values,
            (std::vector<std::string>{"core=0", "memory_max_bytes=8589934592", "pids_max=4096"}));
  // ...and where none can, the launch goes on with each default named as not enforced.
  SandboxPlan bare = build_plan(no_jail(), sample_facts(), request());
  EXPECT_TRUE(bare.limits.cgroup_budgets.empty());
  ASSERT_EQ(bare.intent.limits.not_enforced.size(), 2u);
  EXPECT_EQ(bare.intent.limits.not_enforced[1].rfind("pids_max (default; ", 0), 0u);
  // A run that asks for a budget itself is held to it: no cgroup, no launch.
  LaunchRequest asked = request();
  asked.limit_overrides = {"pids_max=100"};
  EXPECT_THROW(build_plan(no_jail(), sample_facts(), asked), Error);
  // 0 in the file turns a default off.
  Config off = parse_config("[limits]\npids_max = 0\nmemory_max_bytes = 0\n", "/etc/cordon/cordon.toml");
  EXPECT_TRUE(off.limits.values.empty());
  EXPECT_TRUE(off.limits.defaulted.empty());
}

TEST(Plan, LoopbackOnlyModesNameNoResolverAndAllowlistPointsEveryClientAtTheProxy) {
  Config off = no_jail();
  off.network.mode = NetworkMode::Offline;
  SandboxPlan offline = build_plan(off, sample_facts(), request());
  EXPECT_NE(find_seq(offline.argv, {"--unshare-net"}), std::string::npos);
  EXPECT_EQ(offline.intent.network.mode, NetworkMode::Offline);
  EXPECT_FALSE(offline.command_gate);  // nothing outside to wait for
  bool resolv = false;
  for (const auto& f : offline.data_files) resolv |= f.content.find("nameserver 127.0.0.1\n") != std::string::npos;
  EXPECT_TRUE(resolv);

  Config al = no_jail();
  al.network.mode = NetworkMode::Allowlist;
  al.network.allow = {"registry.test"};
  al.network.deny = {"bad.registry.test"};
  SandboxPlan allow = build_plan(al, sample_facts(), request());
  EXPECT_EQ(find_seq(allow.argv, {"--unshare-net"}), std::string::npos);  // the holder's namespace
  EXPECT_TRUE(allow.command_gate);                                        // waits for the proxy
  EXPECT_EQ(allow.intent.network.proxy, "127.0.0.1:3128");
  EXPECT_EQ(allow.intent.network.proxy_allow, std::vector<std::string>{"registry.test"});
  EXPECT_EQ(allow.intent.network.proxy_deny, std::vector<std::string>{"bad.registry.test"});
  for (const char* name : {"http_proxy", "https_proxy", "HTTPS_PROXY", "ALL_PROXY"})
    EXPECT_NE(find_seq(allow.argv, {"--setenv", name, "http://127.0.0.1:3128"}), std::string::npos) << name;
}

struct Refusal {
  const char* name;
  void (*mutate)(Config&, HostFacts&, LaunchRequest&);
  const char* expect;
};

class PlanRefuses : public ::testing::TestWithParam<Refusal> {};

TEST_P(PlanRefuses, WithWhatAndFix) {
  Config c = no_jail();
  HostFacts f = sample_facts();
  LaunchRequest r = request();
  GetParam().mutate(c, f, r);
  try {
    build_plan(c, f, r);
    FAIL() << "planned despite: " << GetParam().name;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().expect), std::string::npos) << e.what();
    EXPECT_FALSE(e.fix().empty());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, PlanRefuses,
    ::testing::Values(
        Refusal{"no mask file", [](Config&, HostFacts& f, LaunchRequest&) { f.existing_paths.erase("/usr/local/libexec/cordon/empty"); }, "mask file"},
        Refusal{"no bwrap", [](Config&, HostFacts& f, LaunchRequest&) { f.bwrap_path.clear(); }, "bwrap"},
        Refusal{"missing workspace", [](Config&, HostFacts& f, LaunchRequest&) { f.workspace.clear(); f.workspace_asked = "/nope"; }, "/nope does not exist"},
        Refusal{"workspace is home", [](Config&, HostFacts& f, LaunchRequest&) { f.workspace = "/home/dev"; f.directories.insert(f.workspace); }, "is your home directory (/home/dev)"},
        Refusal{"workspace is /", [](Config&, HostFacts& f, LaunchRequest&) { f.workspace = "/"; f.directories.insert("/"); }, "is the root directory"},
        Refusal{"workspace contains home", [](Config&, HostFacts& f, LaunchRequest&) { f.workspace = "/home"; f.directories.insert(f.workspace); }, "contains your home directory"},
        Refusal{"workspace is /etc", [](Config&, HostFacts& f, LaunchRequest&) { f.workspace = "/etc"; f.directories.insert(f.workspace); }, "is a system tree (/etc)"},
        Refusal{"workspace in /usr/local", [](Config&, HostFacts& f, LaunchRequest&) { f.workspace = "/usr/local/src/x"; f.directories.insert(f.workspace); }, "lies in a system tree (/usr)"},
        Refusal{"workspace is /tmp", [](Config&, HostFacts& f, LaunchRequest&) { f.workspace = "/tmp"; f.directories.insert(f.workspace); }, "is a shared temporary directory"},
        Refusal{"workspace is /var", [](Config&, HostFacts& f, LaunchRequest&) { f.workspace = "/var"; f.directories.insert(f.workspace); }, "contains a system tree (/var/lib)"},
        Refusal{"workspace holds cordon", [](Config&, HostFacts& f, LaunchRequest&) { f.workspace = "/opt"; f.directories.insert(f.workspace); f.launcher_dir = "/opt/cordon/bin"; }, "contains the directory of the cordon binary"},
        Refusal{"workspace in cordon state", [](Config&, HostFacts& f, LaunchRequest&) { f.workspace = "/home/dev/.local/state/cordon/x"; f.directories.insert(f.workspace); }, "lies in cordon's state directory"},
        Refusal{"writable is /run socket", [](Config& c, HostFacts& f, LaunchRequest&) { c.filesystem.writable = {"/run/user/1000/bus"}; f.existing_paths.insert("/run/user/1000/bus"); }, "filesystem.writable: writable path /run/user/1000/bus lies in a system tree (/run)"},
        Refusal{"writable links to /etc", [](Config& c, HostFacts& f, LaunchRequest&) { c.filesystem.writable = {"/srv/link"}; f.existing_paths.insert("/srv/link"); f.real_writable["/srv/link"] = "/etc"; }, "filesystem.writable: writable path /srv/link is a system tree (/etc)"},
        Refusal{"root in a user's workspace", [](Config&, HostFacts& f, LaunchRequest&) {
                  f.uid = 0; f.workspace_access = {EACCES, 1000, 0755, "dev"}; }, "belongs to dev (uid 1000), mode 0755: the session runs as uid 0 without capabilities"},
        Refusal{"user in root's workspace", [](Config&, HostFacts& f, LaunchRequest&) {
                  f.workspace_access = {EACCES, 0, 0755, "root"}; }, "could not write it (Permission denied)"},
        Refusal{"read-only workspace", [](Config&, HostFacts& f, LaunchRequest&) {
                  f.workspace_access = {EROFS, 1000, 0755, "dev"}; }, "is on a read-only mount"},
        Refusal{"workspace a file", [](Config&, HostFacts& f, LaunchRequest&) { f.directories.erase("/src/app"); }, "not a directory"},
        Refusal{"home is /", [](Config&, HostFacts& f, LaunchRequest&) { f.home = "/"; }, "home directory"},
        Refusal{"missing writable", [](Config& c, HostFacts&, LaunchRequest&) { c.filesystem.writable = {"/nope"}; }, "writable path /nope"},
        Refusal{"agent binary missing", [](Config& c, HostFacts&, LaunchRequest& r) {
                  c.agents["codex"] = AgentProfile{"codex", "/usr/local/bin/codex", {}, {}, false};
                  r.agent = "codex"; }, "binary /usr/local/bin/codex does not exist"},
        Refusal{"unknown agent", [](Config&, HostFacts&, LaunchRequest& r) { r.agent = "ghost"; }, "unknown agent profile"},
        Refusal{"no command", [](Config&, HostFacts&, LaunchRequest& r) { r.command.clear(); }, "no command"},
        Refusal{"memory budget without a cgroup", [](Config& c, HostFacts&, LaunchRequest&) { c.limits.values["memory_max_bytes"] = 1 << 30; c.limits.defaulted.clear(); }, "cannot be enforced here"},
        Refusal{"nproc as root", [](Config& c, HostFacts& f, LaunchRequest&) { c.limits.values["nproc"] = 64; f.uid = 0; }, "RLIMIT_NPROC"},
        Refusal{"raising a limit", [](Config& c, HostFacts&, LaunchRequest& r) { c.limits.values["nofile"] = 64; r.limit_overrides = {"nofile=65"}; }, "only lower"},
        Refusal{"unknown limit override", [](Config&, HostFacts&, LaunchRequest& r) { r.limit_overrides = {"cpu=1"}; }, "NAME=NUMBER"},
        Refusal{"newline in workspace", [](Config&, HostFacts& f, LaunchRequest&) {
                  f.workspace = "/src/a\nb"; f.directories.insert(f.workspace); }, "newline"}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (auto& ch : n) if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// A refusal caused by a value of the file names where the file set it, like the parser's own
// messages: "FILE:LINE:COL: KEY: PROBLEM" on one line, exit status 2 (125 only under `run`),
// the fix kept. A value the file did not set (a built-in default) names the file alone.
struct ValueRefusal {
  const char* name;
  const char* toml;
  void (*mutate)(HostFacts&, LaunchRequest&);
  const char* expect;  // the message's beginning
};

class PlanRefusesAConfiguredValue : public ::testing::TestWithParam<ValueRefusal> {};

TEST_P(PlanRefusesAConfiguredValue, AtItsLineAndColumnWithExit2) {
  // The default network mode (the jail) on a host it can be planned on.
  Config c = parse_config(GetParam().toml, "/etc/cordon/cordon.toml");
  HostFacts f = sample_facts();
  f.network.connected = {*parse_ipv4_cidr("192.0.2.0/24", nullptr)};
  f.network.default_gateway = "192.0.2.1";
  LaunchRequest r = request();
  GetParam().mutate(f, r);
  try {
    build_plan(c, f, r);
    FAIL() << "planned despite: " << GetParam().name;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(GetParam().expect, 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    for (unsigned char ch : message) EXPECT_TRUE(ch >= 0x20 && ch != 0x7f) << "control byte in: " << message;
    EXPECT_EQ(e.exit_code(), kExitConfigError) << message;
    EXPECT_FALSE(e.fix().empty());
  }
}

void no_change(HostFacts&, LaunchRequest&) {}

INSTANTIATE_TEST_SUITE_P(
    Table, PlanRefusesAConfiguredValue,
    ::testing::Values(
        ValueRefusal{"allow_ip everything", "[network]\nmode = \"jail\"\nallow_ip = [\"10.1.0.0/16\", \"0.0.0.0/0\"]\n",
                     no_change, "/etc/cordon/cordon.toml:3:28: network.allow_ip: "},
        ValueRefusal{"loopback dns_forward", "[network]\nmode = \"jail\"\ndns_forward = \"127.0.0.53\"\n", no_change,
                     "/etc/cordon/cordon.toml:3:15: network.dns_forward: "},
        ValueRefusal{"connected dns_forward", "[network]\nmode = \"jail\"\ndns_forward = \"192.0.2.53\"\n", no_change,
                     "/etc/cordon/cordon.toml:3:15: network.dns_forward: "},
        ValueRefusal{"no automatic forwarder", "[network]\nmode = \"jail\"\n",
                     [](HostFacts& f, LaunchRequest&) {
                       for (const char* s : {"198.51.100.0/24", "203.0.113.0/24"})
                         f.network.connected.push_back(*parse_ipv4_cidr(s, nullptr));
                     },
                     "/etc/cordon/cordon.toml: network.dns_forward: "},  // the default "auto": the file alone
        ValueRefusal{"missing writable", "[filesystem]\nwritable = [\"/srv/a\", \"/nope\"]\n",
                     [](HostFacts& f, LaunchRequest&) { f.existing_paths.insert("/srv/a"); },
                     "/etc/cordon/cordon.toml:2:23: filesystem.writable: "},
        ValueRefusal{"writable system tree", "[filesystem]\nwritable = [\"/etc\"]\n",
                     [](HostFacts& f, LaunchRequest&) { f.existing_paths.insert("/etc"); },
                     "/etc/cordon/cordon.toml:2:13: filesystem.writable: "},
        ValueRefusal{"writable with a newline", "[filesystem]\nwritable = [\"/srv/a\\nb\"]\n",
                     [](HostFacts& f, LaunchRequest&) { f.existing_paths.insert("/srv/a\nb"); },
                     "/etc/cordon/cordon.toml:2:13: filesystem.writable: "},
        ValueRefusal{"missing read path", "[filesystem]\nread = [\"/opt/none\"]\n", no_change,
                     "/etc/cordon/cordon.toml:2:9: filesystem.read: "},
        ValueRefusal{"mask in the workspace", "[filesystem]\nmasks = [\"/src/app/.env\"]\n", no_change,
                     "/etc/cordon/cordon.toml:2:10: filesystem.masks: "},
        ValueRefusal{"cache over a kept entry", "[home]\ncaches = [\".claude\"]\n",
                     [](HostFacts& f, LaunchRequest& r) {
                       f.cache_sources[".claude"] = "/var/lib/cordon/caches/claude/.claude";
                       r.agent = "claude";
                     },
                     "/etc/cordon/cordon.toml:2:11: home.caches: "},
        ValueRefusal{"cache holding the workspace", "[home]\ncaches = [\"src\"]\n",
                     [](HostFacts& f, LaunchRequest&) {
                       f.workspace = f.workspace_asked = "/home/dev/src/app";
                       f.existing_paths.insert(f.workspace);
                       f.directories.insert(f.workspace);
                       f.cwd = f.workspace;
                     },
                     "/etc/cordon/cordon.toml:2:11: home.caches: "},
        ValueRefusal{"missing agent binary", "[agents.ghost]\nbinary = \"/opt/ghost/bin/ghost\"\n",
                     [](HostFacts&, LaunchRequest& r) { r.agent = "ghost"; },
                     "/etc/cordon/cordon.toml:2:10: agents.ghost.binary: "},
        ValueRefusal{"root is a system tree", "[workspace]\nroot = \"/etc\"\n",
                     [](HostFacts& f, LaunchRequest&) {
                       f.workspace = f.workspace_asked = "/etc";
                       f.directories.insert("/etc");
                     },
                     "/etc/cordon/cordon.toml:2:8: workspace.root: "},
        ValueRefusal{"root is missing", "[workspace]\nroot = \"/nope\"\n",
                     [](HostFacts& f, LaunchRequest&) {
                       f.workspace.clear();
                       f.workspace_asked = "/nope";
                     },
                     "/etc/cordon/cordon.toml:2:8: workspace.root: "},
        ValueRefusal{"root is a file", "[workspace]\nroot = \"/src/app\"\n",
                     [](HostFacts& f, LaunchRequest&) { f.directories.erase("/src/app"); },
                     "/etc/cordon/cordon.toml:2:8: workspace.root: "},
        ValueRefusal{"root with a newline", "[workspace]\nroot = \"/src/a\\nb\"\n",
                     [](HostFacts& f, LaunchRequest&) {
                       f.workspace = f.workspace_asked = "/src/a\nb";
                       f.directories.insert(f.workspace);
                     },
                     "/etc/cordon/cordon.toml:2:8: workspace.root: "}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (auto& ch : n)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// The same workspace given with --workspace (or as the current directory) is not the file's:
// its refusal names no line, and stays a launch refusal (125).
TEST(Plan, AWorkspaceFromTheCommandLineIsNotAConfigurationError) {
  Config c = parse_config("[network]\nmode = \"host\"\n[workspace]\nroot = \"/src/app\"\n", "/etc/cordon/cordon.toml");
  HostFacts f = sample_facts();
  f.workspace = f.workspace_asked = "/etc";
  f.directories.insert("/etc");
  LaunchRequest r = request();
  r.workspace = "/etc";
  try {
    build_plan(c, f, r);
    FAIL() << "planned a workspace in /etc";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("workspace /etc is a system tree", 0), 0u) << e.what();
    EXPECT_EQ(e.exit_code(), kExitLaunchRefused);
  }
}

// The agent's own sandbox is turned off only when the command is the agent: a shell in the
// claude profile gets no Claude Code flags.
TEST(Plan, AgentArgsFollowTheAgentsProgramOnly) {
  HostFacts f = sample_facts();
  LaunchRequest r;
  r.command = {"/usr/bin/claude", "-p", "hi"};
  SandboxPlan plan = build_plan(no_jail(), f, r);
  EXPECT_EQ(plan.command, (std::vector<std::string>{"/usr/bin/claude", "--settings", R"({"sandbox":{"enabled":false}})",
                                                    "-p", "hi"}));
  EXPECT_EQ(plan.agent, "claude");
  r.agent = "claude";
  r.command = {"bash"};
  plan = build_plan(no_jail(), f, r);
  EXPECT_EQ(plan.command, std::vector<std::string>{"bash"});
  EXPECT_TRUE(plan.intent.agent.args.empty());
  // No shim installed: no binary for check 21 to expect.
  EXPECT_EQ(plan.intent.agent.binary, "");
}

// `sudo -E` or a CI override: $HOME is not the account's home. Both are hidden, the account's
// first (a $HOME inside it goes on top), the session file names both, and neither may be the
// workspace.
TEST(Plan, AnAccountHomeOtherThanHomeIsHiddenToo) {
  HostFacts f = sample_facts();
  f.home = "/tmp/ci-home";
  f.account_home = "/home/dev";
  f.existing_paths.insert("/tmp/ci-home");
  f.directories.insert("/tmp/ci-home");
  LaunchRequest r;
  r.command = {"bash"};
  SandboxPlan plan = build_plan(no_jail(), f, r);
  const size_t account = find_seq(plan.argv, {"--tmpfs", "/home/dev"});
  const size_t home = find_seq(plan.argv, {"--tmpfs", "/tmp/ci-home"});
  ASSERT_NE(account, std::string::npos);
  ASSERT_NE(home, std::string::npos);
  EXPECT_LT(account, home);
  EXPECT_EQ(plan.intent.home.account_path, "/home/dev");
  EXPECT_EQ(plan.intent.home.path, "/tmp/ci-home");
  // A workspace under the account's home needs no siblings mask: its tmpfs hides them.
  f.workspace = f.workspace_asked = f.cwd = "/home/dev/src/app";
  f.existing_paths.insert(f.workspace);
  f.directories.insert(f.workspace);
  plan = build_plan(no_jail(), f, r);
  EXPECT_EQ(find_seq(plan.argv, {"--tmpfs", "/home/dev/src"}), std::string::npos);
  f.workspace = f.workspace_asked = f.cwd = "/home/dev";
  try {
    build_plan(no_jail(), f, r);
    FAIL() << "planned the account's home as the workspace";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("your account's home directory"), std::string::npos) << e.what();
  }
}

TEST(Plan, ShippedProfileRunsTheShimmedBinary) {
  HostFacts f = sample_facts();
  LaunchRequest r;
  r.agent = "codex";
  try {
    build_plan(no_jail(), f, r);
    FAIL() << "planned a missing agent binary";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.fix()).find("cordon shim install --agent codex"), std::string::npos);
  }
  f.existing_paths.insert("/usr/local/libexec/cordon/agents/codex");
  SandboxPlan plan = build_plan(no_jail(), f, r);
  // Codex runs its commands directly: cordon is its sandbox.
  const std::vector<std::string> tail(plan.argv.end() - 3, plan.argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"/usr/local/libexec/cordon/agents/codex", "-c",
                                            "sandbox_mode=\"danger-full-access\""}));
  EXPECT_EQ(plan.intent.agent.binary, "/usr/local/libexec/cordon/agents/codex");
  EXPECT_EQ(plan.intent.agent.args, (std::vector<std::string>{"-c", "sandbox_mode=\"danger-full-access\""}));
  // With an explicit command the shim-less agent still runs (e.g. a shell in its profile).
  r.command = {"bash"};
  f.existing_paths.erase("/usr/local/libexec/cordon/agents/codex");
  EXPECT_EQ(build_plan(no_jail(), f, r).argv.back(), "bash");
}

TEST(Plan, AgentBinaryRunsWhenNoCommand) {
  Config c = no_jail();
  c.agents["claude"] = AgentProfile{"claude", "/opt/claude/bin/claude", {".claude"}, {}, false};
  HostFacts f = sample_facts();
  f.existing_paths.insert("/opt/claude/bin/claude");
  LaunchRequest r;
  r.agent = "claude";
  SandboxPlan plan = build_plan(c, f, r);
  EXPECT_EQ(plan.argv.back(), "/opt/claude/bin/claude");
  EXPECT_EQ(plan.argv[plan.argv.size() - 2], "--");
}

TEST(Limits, PlannedFromConfigAndOverrides) {
  Config c = no_jail();
  c.limits.values = {{"nofile", 256}, {"fsize_bytes", 1 << 20}, {"wall_clock_seconds", 60}, {"pids_max", 100}};
  c.limits.best_effort = {"pids_max"};
  LaunchRequest r = request();
  r.limit_overrides = {"nofile=128", "as_bytes=1000000000"};
  SandboxPlan plan = build_plan(c, sample_facts(), r);
  EXPECT_EQ(plan.limits.wall_clock_seconds, 60);
  std::map<std::string, rlim_t> set;
  for (const auto& l : plan.limits.rlimits) set[l.name] = l.value;
  EXPECT_EQ(set.at("core"), 0u);
  EXPECT_EQ(set.at("nofile"), 128u);  // lowered for this run
  EXPECT_EQ(set.at("fsize_bytes"), 1u << 20);
  EXPECT_EQ(set.at("as_bytes"), 1000000000u);
  ASSERT_EQ(plan.limits.not_enforced.size(), 1u);
  EXPECT_EQ(plan.limits.not_enforced[0].rfind("pids_max", 0), 0u);
}

TEST(GitConfig, IdentityPrecedenceAndEscaping) {
  Config c = no_jail();
  HostFacts f = sample_facts();
  EXPECT_NE(render_gitconfig(c.git, f).find("email = \"dev@cordon.invalid\""), std::string::npos);
  f.git_user_email = "host@example.org";
  EXPECT_NE(render_gitconfig(c.git, f).find("email = \"host@example.org\""), std::string::npos);
  c.git.email = "ops@example.org";
  c.git.name = "Evil\"\n[core]\n\tsshCommand = x";
  std::string text = render_gitconfig(c.git, f);
  EXPECT_NE(text.find("email = \"ops@example.org\""), std::string::npos);
  EXPECT_EQ(text.find("\n[core]"), std::string::npos) << text;  // no section injection
  EXPECT_NE(text.find("[safe]\n\tdirectory = \"/src/app\""), std::string::npos);
}

TEST(GitConfig, ParsesHostIdentity) {
  auto [name, email] = parse_git_identity("[core]\n\temail = no\n[User]\n\tname = Ada L\n\temail = \"ada@x.org\"\n");
  EXPECT_EQ(name, "Ada L");
  EXPECT_EQ(email, "ada@x.org");
}

TEST(Env, PrefixPatterns) {
  EXPECT_TRUE(env_name_matches("LC_*", "LC_ALL"));
  EXPECT_FALSE(env_name_matches("LC_*", "LANG"));
  EXPECT_TRUE(env_name_matches("TERM", "TERM"));
  EXPECT_FALSE(env_name_matches("TERM", "TERMINFO"));
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

size_t position_of(const std::vector<std::string>& argv, const std::vector<std::string>& seq) {
  for (size_t i = 0; i + seq.size() <= argv.size(); ++i)
    if (std::equal(seq.begin(), seq.end(), argv.begin() + static_cast<std::ptrdiff_t>(i))) return i;
  return argv.size();
}

// The state directory is bound read-write, then each control entry read-only over it, by
// descriptor; the control entries are not in the writable set and the session file names them.
TEST(Plan, ControlEntriesAreBoundReadOnlyOverTheirStateEntry) {
  HostFacts f = sample_facts();
  LaunchRequest r;
  r.agent = "claude";
  r.command = {"claude"};
  SandboxPlan plan = build_plan(no_jail(), f, r);
  const auto& control = builtin_agent_profiles().at("claude").control;
  EXPECT_EQ(plan.intent.agent.control, control);
  size_t state_at = plan.argv.size();
  for (const auto& b : plan.bound_paths)
    if (b.dest == "/home/dev/.claude") {
      EXPECT_FALSE(b.read_only);
      state_at = position_of(plan.argv, {"--bind-fd", std::to_string(b.fd), b.dest});
    }
  ASSERT_LT(state_at, plan.argv.size());
  size_t read_only = 0;
  for (const auto& b : plan.bound_paths) {
    if (!b.read_only) continue;
    ++read_only;
    EXPECT_EQ(b.source, b.dest);
    size_t at = position_of(plan.argv, {"--ro-bind-fd", std::to_string(b.fd), b.dest});
    ASSERT_LT(at, plan.argv.size()) << b.dest;
    EXPECT_GT(at, state_at) << b.dest << " must be mounted over ~/.claude, not under it";
    EXPECT_EQ(std::count(plan.writable.begin(), plan.writable.end(), b.dest), 0) << b.dest;
  }
  EXPECT_EQ(read_only, control.size());
}

TEST(Plan, RefusesAControlEntryBehindALinkInAStateDirectory) {
  HostFacts f = sample_facts();
  f.control_entries["/home/dev/.claude/settings.json"] = {"", "/home/dev/.claude/settings.json"};
  LaunchRequest r;
  r.agent = "claude";
  r.command = {"claude"};
  try {
    build_plan(no_jail(), f, r);
    FAIL() << "a control entry behind a link was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("symbolic link /home/dev/.claude/settings.json"), std::string::npos)
        << e.what();
    EXPECT_NE(e.fix().find("cp -a --remove-destination"), std::string::npos) << e.fix();
  }
}

// Missing in a state directory the sandbox writes (the launch could not make it): refused.
// Missing along with its state directory (nothing bound there): nothing to protect.
TEST(Plan, RefusesAMissingControlEntryOnlyWhereTheSandboxCouldCreateIt) {
  HostFacts f = sample_facts();
  f.control_entries["/home/dev/.claude/hooks"] = {};
  f.existing_paths.erase("/home/dev/.claude/hooks");
  LaunchRequest r;
  r.agent = "claude";
  r.command = {"claude"};
  try {
    build_plan(no_jail(), f, r);
    FAIL() << "a missing control entry in a writable state directory was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/home/dev/.claude/hooks does not exist"), std::string::npos) << e.what();
  }
  f.existing_paths.erase("/home/dev/.claude");
  f.directories.erase("/home/dev/.claude");
  EXPECT_NO_THROW(build_plan(no_jail(), f, r));
}

// A cache comes from cordon's store and is bound read-write after the state entries; over a
// kept, controlled or masked entry, or over the way to the workspace, it is refused.
TEST(Plan, RefusesACacheOverAKeptEntryOrTheWorkspace) {
  HostFacts f = sample_facts();
  f.home = "/home/dev";
  Config c = no_jail();
  c.home.caches = {".npm"};
  f.cache_sources[".npm"] = "/var/lib/cordon/caches/claude/.npm";
  LaunchRequest r;
  r.agent = "claude";
  r.command = {"claude"};
  SandboxPlan plan = build_plan(c, f, r);
  EXPECT_EQ(plan.intent.home.caches, std::vector<std::string>{".npm"});
  bool bound = false;
  for (const auto& b : plan.bound_paths)
    bound = bound || (b.source == "/var/lib/cordon/caches/claude/.npm" && b.dest == "/home/dev/.npm" && !b.read_only);
  EXPECT_TRUE(bound);
  for (const char* bad : {".claude", ".claude/plugins/x", ".netrc"}) {
    c.home.caches = {bad};
    f.cache_sources[bad] = "/var/lib/cordon/caches/claude/x";
    EXPECT_THROW(build_plan(c, f, r), Error) << bad;
  }
  f.workspace = "/home/dev/src/app";
  f.existing_paths.insert(f.workspace);
  f.directories.insert(f.workspace);
  c.home.caches = {"src"};
  f.cache_sources["src"] = "/var/lib/cordon/caches/claude/src";
  EXPECT_THROW(build_plan(c, f, r), Error);
}

}  // namespace
}  // namespace cordon
