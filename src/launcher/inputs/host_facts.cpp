#include "launcher/inputs/host_facts.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/credential_files.h"
#include "common/error.h"
#include "common/paths.h"
#include "common/text.h"
#include "common/tty_device.h"
#include "launcher/inputs/paths.h"
#include "launcher/inputs/state_dirs.h"

extern char** environ;

namespace cordon {

std::string agent_binary(const AgentProfile& profile, const HostFacts& facts) {
  if (!profile.binary.empty()) return profile.binary;
  if (profile.builtin && profile.name != "generic") return facts.libexec_dir + "/agents/" + profile.name;
  return {};
}

const std::string* HostFacts::env_value(const std::string& name) const {
  for (const auto& [k, v] : env)
    if (k == name) return &v;
  return nullptr;
}

std::vector<std::string> candidate_paths(const Config& config, const LaunchRequest& request, const std::string& home,
                                         const std::string& cwd) {
  std::vector<std::string> paths = {"/run/user", "/run/secrets", "/proc/sysrq-trigger", home};
  for (const auto& m : system_credential_files()) paths.push_back(m);
  for (const auto& m : config.filesystem.masks) paths.push_back(m);
  for (const auto& w : config.filesystem.writable) paths.push_back(w);
  for (const auto& r : config.filesystem.read) paths.push_back(r);
  for (const auto& e : config.home.keep_read_only) paths.push_back(home + "/" + e);
  for (const auto& [name, profile] : config.agents) {
    for (const auto& e : profile.home) paths.push_back(home + "/" + e);
    for (const auto& e : profile.control) paths.push_back(home + "/" + e);
    if (!profile.binary.empty()) paths.push_back(profile.binary);
  }
  (void)request;
  (void)cwd;
  return paths;
}

std::pair<std::string, std::string> parse_git_identity(const std::string& text) {
  std::istringstream in(text);
  std::string line, section, name, email;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      section = trim(line.substr(1, line.find(']') - 1));
      for (auto& c : section) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      continue;
    }
    if (section != "user") continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = trim(line.substr(0, eq));
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    if (key == "name") name = value;
    if (key == "email") email = value;
  }
  return {name, email};
}

namespace {

// The host path of a control entry below the real directory of its state entry, walked with
// lstat: a symbolic link in the way is reported, not followed.
ControlEntryFact control_below(const std::string& state_real, const std::string& state_path, const std::string& rest) {
  ControlEntryFact fact;
  std::string real = state_real, shown = state_path;
  std::stringstream parts(rest);
  std::string part;
  while (std::getline(parts, part, '/')) {
    if (part.empty() || part == ".") continue;
    real += "/" + part;
    shown += "/" + part;
    struct stat st {};
    if (::lstat(real.c_str(), &st) != 0) return fact;  // not there (yet)
    if (S_ISLNK(st.st_mode)) {
      fact.link = shown;
      return fact;
    }
  }
  fact.source = real;
  return fact;
}

}  // namespace

std::string state_entry_holding(const AgentProfile& profile, const std::string& control_entry) {
  for (const auto& state : profile.home)
    if (control_entry != state && path_within("/" + control_entry, "/" + state)) return state;
  return "";
}

void note_home_entries(const AgentProfile& profile, HostFacts& f) {
  for (const auto& entry : profile.home)
    if (std::string real = real_path(f.home + "/" + entry); !real.empty())
      f.real_home_entries[f.home + "/" + entry] = real;
  for (const auto& entry : profile.control) {
    const std::string path = f.home + "/" + entry;
    const std::string state = state_entry_holding(profile, entry);
    if (state.empty()) {  // in the home itself, which the sandbox cannot write: as home.keep
      f.control_entries[path] = {f.exists(path) ? real_path(path) : "", ""};
      continue;
    }
    auto real_state = f.real_home_entries.find(f.home + "/" + state);
    if (real_state == f.real_home_entries.end() || real_state->second.empty()) {
      f.control_entries[path] = {};
      continue;
    }
    f.control_entries[path] = control_below(real_state->second, f.home + "/" + state, entry.substr(state.size() + 1));
  }
}

namespace {

// Who runs cordon, with which environment, home, working directory and workspace.
void gather_identity(const Config& config, const LaunchRequest& request, HostFacts& f) {
  f.uid = ::getuid();
  f.gid = ::getgid();
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string::npos) f.env.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  const passwd* pw = ::getpwuid(f.uid);
  f.user = pw ? pw->pw_name : std::to_string(f.uid);
  if (pw) {
    const gid_t primary = pw->pw_gid;
    const group* gr = ::getgrgid(primary);
    bool private_group = gr && f.user == gr->gr_name;
    for (char** member = gr ? gr->gr_mem : nullptr; private_group && member && *member; ++member)
      private_group = f.user == *member;
    if (private_group) f.private_group = primary;
  }
  // $HOME decides which directory is inverted; fall back to the password database.
  const std::string* home_env = f.env_value("HOME");
  f.home = home_env && !home_env->empty() ? *home_env : (pw ? pw->pw_dir : "");
  std::string resolved_home = real_path(f.home);
  if (!resolved_home.empty()) f.home = resolved_home;
  const std::string account = pw ? real_path(pw->pw_dir) : "";
  if (!account.empty() && account != "/" && account != f.home) f.account_home = account;

  char cwd[PATH_MAX];
  f.cwd = ::getcwd(cwd, sizeof cwd) ? cwd : "";
  f.workspace_asked = !request.workspace.empty()       ? request.workspace
                      : !config.workspace.root.empty() ? config.workspace.root
                                                       : f.cwd;
  f.workspace = real_path(f.workspace_asked);
}

// Which of the paths the plan asks about exist, and which are directories.
void gather_paths(const Config& config, const LaunchRequest& request, HostFacts& f) {
  for (const auto& path : candidate_paths(config, request, f.home, f.cwd)) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) continue;
    f.existing_paths.insert(path);
    if (S_ISDIR(st.st_mode)) f.directories.insert(path);
  }
  if (!f.workspace.empty()) {
    f.existing_paths.insert(f.workspace);
    struct stat st {};
    if (::stat(f.workspace.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) f.directories.insert(f.workspace);
    f.workspace_access = sandbox_access(f.workspace, W_OK | X_OK);
  }
  f.bwrap_path = find_system_binary("bwrap");
  for (const auto& path : config.filesystem.writable) f.real_writable[path] = real_path(path);
  for (const auto& [name, profile] : config.agents) note_home_entries(profile, f);
  f.launcher_dir = launcher_dir();
  f.libexec_dir = libexec_dir(f.launcher_dir);  // /proc/self/exe resolved once
  if (::access(f.libexec_dir.c_str(), F_OK) == 0) {
    f.existing_paths.insert(f.libexec_dir);
    f.directories.insert(f.libexec_dir);
  }
  if (::access(mask_source(f).c_str(), R_OK) == 0) f.existing_paths.insert(mask_source(f));
  for (const auto& [name, profile] : config.agents) {
    std::string binary = agent_binary(profile, f);
    if (!binary.empty() && ::access(binary.c_str(), X_OK) == 0) f.existing_paths.insert(binary);
  }
}

void gather_git_identity(HostFacts& f) {
  std::string xdg = f.env_value("XDG_CONFIG_HOME") ? *f.env_value("XDG_CONFIG_HOME") : f.home + "/.config";
  for (const auto& file : {f.home + "/.gitconfig", xdg + "/git/config"}) {
    auto [name, email] = parse_git_identity(read_text_file(file));
    if (f.git_user_name.empty()) f.git_user_name = name;
    if (f.git_user_email.empty()) f.git_user_email = email;
  }
}

void gather_namespaces(HostFacts& f) {
  for (const char* kind : {"pid", "ipc", "uts", "user", "net", "mnt", "cgroup"}) {
    char target[128];
    std::string link = std::string("/proc/self/ns/") + kind;
    ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
    if (n > 0) f.namespaces[kind] = std::string(target, static_cast<size_t>(n));
  }
}

// Only a configured memory/pids budget needs the cgroup hierarchies; the launch path stays
// lean otherwise.
bool budgets_requested(const Config& config, const LaunchRequest& request) {
  bool budgets = false;
  for (const auto& [key, value] : config.limits.values) budgets = budgets || !cgroup::controller_for(key).empty();
  for (const auto& item : request.limit_overrides)
    budgets = budgets || !cgroup::controller_for(item.substr(0, item.find('='))).empty();
  return budgets;
}

// /proc/self/mountinfo, read and parsed once: the dangerous-path rules and the cgroup
// hierarchies both need it. Empty, and why in mounts_unreadable, when it cannot be read.
MountTable read_mount_table(HostFacts& f) {
  int err = 0;
  std::optional<std::string> text = read_file("/proc/self/mountinfo", size_t{16} << 20, &err);
  if (text) return MountTable(parse_mountinfo(*text));
  f.mounts_unreadable = errno_text("reading /proc/self/mountinfo", err);
  return {};
}

// What the dangerous-path rules decide on besides names (inputs/path_identity.h).
void gather_path_identities(const MountTable& mounts, HostFacts& f) {
  if (!f.mounts_unreadable.empty()) return;  // the plan refuses the launch (plan.cpp)
  std::vector<std::string> writable = {f.workspace};
  for (const auto& [path, real] : f.real_writable) writable.push_back(real);
  for (const auto& [path, real] : f.real_home_entries) writable.push_back(real);
  for (const auto& path : writable)
    if (!path.empty() && !f.path_names.count(path)) f.path_names.emplace(path, path_names(mounts, path));
  std::vector<std::string> identified = writable;
  for (const auto& [path, names] : f.path_names)
    for (const auto& submount : names.submounts) identified.push_back(submount.names.front());
  for (const std::string& protect :
       {f.home, f.account_home, state_dir_of(sessions_dir(f)), f.libexec_dir, f.launcher_dir})
    identified.push_back(protect);
  note_identities(identified, f.path_ids);
}

}  // namespace

HostFacts gather_host_facts(const Config& config, const LaunchRequest& request) {
  HostFacts f;
  gather_identity(config, request, f);
  gather_paths(config, request, f);
  gather_git_identity(f);
  gather_namespaces(f);
  f.last_verify = read_last_verify(sessions_dir(f));
  const MountTable mounts = read_mount_table(f);
  gather_path_identities(mounts, f);
  for (int fd = 2; fd >= 0; --fd) {
    if (auto device = terminal_device(fd)) {
      f.terminal_fds |= 1U << fd;
      f.terminal_device = device_name(*device);
    }
  }
  if (budgets_requested(config, request)) f.cgroups = cgroup::gather_hierarchies(mounts.all(), f.user);
  if (config.filesystem.view == RootView::System) f.view_roots = gather_view_roots();
  if (config.sandbox.landlock != LandlockMode::Off) f.landlock = landlock::landlock_abi();
#ifdef CORDON_TEST_HOOKS
  // TEST-ONLY (compiled only with -DCORDON_TEST_HOOKS=ON): a kernel with an older Landlock,
  // or none, played by capping the ABI this one has (how "auto" and "required" decide there).
  if (const std::string* cap = f.env_value("CORDON_TEST_LANDLOCK_ABI"); cap && !cap->empty()) {
    const int abi = std::atoi(cap->c_str());
    if (abi < f.landlock.abi) f.landlock.abi = abi;
    if (abi == 0) f.landlock.problem = "ENOSYS (played by CORDON_TEST_LANDLOCK_ABI=0)";
  }
#endif
  // Only uid 0 owns what other users cannot read in /etc; anyone else is refused it anyway.
  if (f.uid == 0) f.private_etc = private_entries("/etc");
  char target[PATH_MAX];
  ssize_t n = ::readlink("/etc/resolv.conf", target, sizeof target - 1);
  if (n > 0) {
    std::string resolved = real_path("/etc/resolv.conf");
    if (resolved.rfind("/run/", 0) == 0) f.resolv_conf_target = resolved;
  }
  return f;
}

std::string sessions_dir(const HostFacts& facts) {
#ifdef CORDON_TEST_HOOKS
  // TEST-ONLY (compiled only with -DCORDON_TEST_HOOKS=ON): the suite keeps its records, its
  // last-verify and its caches in a private directory, never in the host's real state.
  if (const std::string* test_dir = facts.env_value("CORDON_TEST_STATE_DIR"); test_dir && !test_dir->empty())
    return *test_dir + "/" + std::to_string(facts.uid) + "/sessions";
#endif
  return sessions_dir(facts.uid, facts.home, facts.env_value("XDG_STATE_HOME"), facts.workspace);
}

std::string mask_source(const HostFacts& facts) { return facts.libexec_dir + "/empty"; }

}  // namespace cordon
