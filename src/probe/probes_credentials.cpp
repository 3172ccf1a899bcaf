// Credentials and IPC (90-96): recovering the host's secrets through process environments,
// the desktop / IDE / agent / container sockets, and git configuration outside the curated
// one. Values are never printed: evidence names variables, paths and byte counts only.
#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <sstream>

#include "common/env_names.h"
#include "common/paths.h"
#include "probe/context.h"
#include "probe/fs_util.h"
#include "probe/internal.h"
#include "probe/net.h"
#include "probe/probe.h"
#include "probe/util.h"

namespace cordon::probe {

namespace {

std::vector<std::pair<std::string, std::string>> parse_environ(const std::string& data) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t at = 0;
  while (at < data.size()) {
    size_t end = data.find('\0', at);
    if (end == std::string::npos) end = data.size();
    std::string kv = data.substr(at, end - at);
    size_t eq = kv.find('=');
    if (eq != std::string::npos) out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    at = end + 1;
  }
  return out;
}

// 90 -----------------------------------------------------------------------------------
// Environments of pid 1 and our parent. A
// variable is "recovered" when it is credential-like and the launcher did not pass it on
// purpose (the session's env names), or, without a session file, when this process lacks it.
void probe_env_recovery(const Context& ctx, Tally& tally) {
  std::set<std::string> allowed;
  if (ctx.session) {
    allowed.insert(ctx.session->env_names.begin(), ctx.session->env_names.end());
    for (const char* fixed : {"IS_SANDBOX", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "HOME", "PWD"})
      allowed.insert(fixed);
  } else {
    for (const auto& [name, value] : ctx.env) allowed.insert(name);
  }
  // pid 1 (the sandbox's init, started by the launcher) and the process that started
  // cordon-probe; nothing further up is read.
  std::set<pid_t> chain = {1};
  if (auto ppid = proc_ppid(::getppid()); ppid && *ppid > 0) chain.insert(*ppid);
  std::vector<std::string> summary;
  for (pid_t p : chain) {
    const std::string path = "/proc/" + std::to_string(p) + "/environ";
    ReadResult r = read_some(path, 1 << 20);
    if (!r.ok) {
      summary.push_back("pid " + std::to_string(p) + ": " + errno_name(r.err));
      continue;
    }
    auto vars = parse_environ(r.data);
    std::vector<std::string> recovered;
    for (const auto& [name, value] : vars)
      if (!value.empty() && credential_env_name(name) && !allowed.count(name)) recovered.push_back(printable(name, 40));
    if (!recovered.empty())
      tally.escaped("pid " + std::to_string(p) + "'s environment holds " + join_limited(recovered, 5) +
                    " (not passed to this sandbox)");
    summary.push_back("pid " + std::to_string(p) + ": " + std::to_string(vars.size()) + " vars");
  }
  if (tally.empty())
    tally.blocked("no credential variable in pid 1's or our parent's environment (" + join_limited(summary, 4) + ")");
}

// Sockets under a glob (bounded), plus fixed candidates.
std::vector<std::string> expand(const std::vector<std::string>& patterns, size_t limit = 8) {
  std::vector<std::string> out;
  for (const auto& pattern : patterns) {
    if (pattern.find_first_of("*?[") == std::string::npos) {
      out.push_back(pattern);
      continue;
    }
    glob_t g{};
    if (::glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc && out.size() < 64; ++i) out.emplace_back(g.gl_pathv[i]);
    ::globfree(&g);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.size() > limit * 4) out.resize(limit * 4);
  return out;
}

std::string runtime_dir(const Context& ctx) { return "/run/user/" + std::to_string(ctx.uid); }

// "unix:path=/run/user/1000/bus,guid=..." -> path or abstract name.
void add_dbus_address(const std::string& address, std::vector<std::string>& paths, std::vector<std::string>& abstract) {
  std::istringstream in(address);
  std::string part;
  while (std::getline(in, part, ';')) {
    std::istringstream kv(part.substr(part.find(':') + 1));
    std::string field;
    while (std::getline(kv, field, ',')) {
      if (field.rfind("path=", 0) == 0) paths.push_back(field.substr(5));
      else if (field.rfind("abstract=", 0) == 0) abstract.push_back(field.substr(9));
    }
  }
}

// Connects to each existing socket; absent paths are summarised rather than listed.
void socket_probe(const std::vector<std::string>& paths, const std::vector<std::string>& abstract, Tally& tally) {
  std::vector<std::string> absent;
  for (const auto& path : paths) {
    if (!exists(path)) {
      absent.push_back(path);
      continue;
    }
    net::path_socket_attempt(path, tally);
  }
  for (const auto& name : abstract) net::abstract_attempt(name, tally);
  if (!absent.empty()) tally.blocked("ENOENT: " + join_limited(absent, 3));
}

// 91 -----------------------------------------------------------------------------------
void probe_x11(const Context& ctx, Tally& tally) {
  std::vector<std::string> paths = expand({"/tmp/.X11-unix/X*", "/tmp/.X11-unix/X0", "/tmp/.X11-unix/X1"});
  std::vector<std::string> abstract(paths.begin(), paths.end());  // X servers also listen on @/tmp/.X11-unix/XN
  if (auto d = ctx.env.find("DISPLAY"); d != ctx.env.end() && d->second.size() > 1 && d->second[0] == ':') {
    std::string n = d->second.substr(1, d->second.find('.') - 1);
    abstract.push_back("/tmp/.X11-unix/X" + n);
  }
  std::sort(abstract.begin(), abstract.end());
  abstract.erase(std::unique(abstract.begin(), abstract.end()), abstract.end());
  socket_probe(paths, abstract, tally);
}

// 92 -----------------------------------------------------------------------------------
void probe_dbus(const Context& ctx, Tally& tally) {
  std::vector<std::string> paths = {runtime_dir(ctx) + "/bus", "/run/dbus/system_bus_socket",
                                    "/var/run/dbus/system_bus_socket"};
  std::vector<std::string> abstract;
  if (auto a = ctx.env.find("DBUS_SESSION_BUS_ADDRESS"); a != ctx.env.end())
    add_dbus_address(a->second, paths, abstract);
  socket_probe(expand(paths), abstract, tally);
}

// 93 -----------------------------------------------------------------------------------
void probe_vscode(const Context& ctx, Tally& tally) {
  std::vector<std::string> patterns = {"/tmp/vscode-ipc-*.sock", "/tmp/vscode-git-*.sock",
                                       runtime_dir(ctx) + "/vscode-ipc-*.sock", runtime_dir(ctx) + "/vscode-git-*.sock",
                                       "/tmp/vscode-ipc-0.sock"};
  for (const char* var : {"VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE", "VSCODE_IPC_HOOK"})
    if (auto v = ctx.env.find(var); v != ctx.env.end() && !v->second.empty()) patterns.push_back(v->second);
  socket_probe(expand(patterns), {}, tally);
}

// 94 -----------------------------------------------------------------------------------
void probe_ssh_agent(const Context& ctx, Tally& tally) {
  std::vector<std::string> patterns = {"/tmp/ssh-*/agent.*", runtime_dir(ctx) + "/openssh_agent",
                                       runtime_dir(ctx) + "/ssh-agent.socket", runtime_dir(ctx) + "/keyring/ssh",
                                       runtime_dir(ctx) + "/gnupg/S.gpg-agent.ssh"};
  if (!ctx.home.empty()) {
    patterns.push_back(ctx.home + "/.ssh/agent*");
    patterns.push_back(ctx.home + "/.gnupg/S.gpg-agent.ssh");
  }
  if (auto v = ctx.env.find("SSH_AUTH_SOCK"); v != ctx.env.end() && !v->second.empty()) patterns.push_back(v->second);
  socket_probe(expand(patterns), {}, tally);
}

// 95 -----------------------------------------------------------------------------------
void probe_container_engine(const Context& ctx, Tally& tally) {
  std::vector<std::string> patterns = {"/var/run/docker.sock",
                                       "/run/docker.sock",
                                       runtime_dir(ctx) + "/docker.sock",
                                       "/run/podman/podman.sock",
                                       runtime_dir(ctx) + "/podman/podman.sock",
                                       "/run/containerd/containerd.sock",
                                       "/var/run/crio/crio.sock",
                                       "/run/buildkit/buildkitd.sock",
                                       "/run/incus/unix.socket",
                                       "/var/lib/lxd/unix.socket"};
  if (auto v = ctx.env.find("DOCKER_HOST"); v != ctx.env.end() && v->second.rfind("unix://", 0) == 0)
    patterns.push_back(v->second.substr(7));
  socket_probe(expand(patterns), {}, tally);
}

// 96 -----------------------------------------------------------------------------------
// The host user's git configuration and credentials: what a `[include] path = ~/.gitconfig`
// in the workspace's .git/config (or GIT_CONFIG_GLOBAL pointed elsewhere) would pull in.
void probe_git_redirect(const Context& ctx, Tally& tally) {
  std::vector<std::string> paths;
  if (!ctx.home.empty() && ctx.home != "/")
    for (const char* rel : {".gitconfig", ".config/git/config", ".git-credentials", ".config/git/credentials"})
      paths.push_back(ctx.home + "/" + rel);
  if (auto x = ctx.env.find("XDG_CONFIG_HOME"); x != ctx.env.end() && !x->second.empty())
    paths.push_back(x->second + "/git/config");
  // Include targets named by the workspace's own repository configuration.
  if (auto text = read_text(ctx.workspace + "/.git/config", 65536)) {
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line)) {
      size_t k = line.find_first_not_of(" \t");
      if (k == std::string::npos || line.compare(k, 4, "path") != 0) continue;
      size_t eq = line.find('=', k);
      if (eq == std::string::npos) continue;
      std::string value = line.substr(line.find_first_not_of(" \t", eq + 1));
      if (value.rfind("~/", 0) == 0) value = ctx.home + value.substr(1);
      if (!value.empty() && value[0] == '/' && !path_within(value, ctx.workspace)) paths.push_back(value);
    }
  }
  std::set<std::string> seen;
  std::vector<std::string> absent;
  for (const auto& p : paths) {
    if (!seen.insert(p).second || is_exposed(ctx, p)) continue;
    ReadResult r = read_some(p, 256);
    if (!r.ok && r.err == ENOENT) absent.push_back(p);
    else read_attempt(p, tally, "host git config");
  }
  if (!absent.empty()) tally.blocked("ENOENT: " + join_limited(absent, 3));
  if (auto g = ctx.env.find("GIT_CONFIG_GLOBAL"); g != ctx.env.end())
    tally.note("GIT_CONFIG_GLOBAL=" + printable(g->second, 40));
}

}  // namespace

std::vector<ProbeDef> credential_probes() {
  return {
      {"90", "cred-env-recovery", "credentials", "recover host variables from /proc/1/environ and ancestors' environ",
       "no credential variable the launcher did not pass", probe_env_recovery},
      {"91", "cred-x11", "credentials", "connect to X11 sockets (/tmp/.X11-unix, abstract @/tmp/.X11-unix)",
       "ENOENT / ECONNREFUSED", probe_x11},
      {"92", "cred-dbus", "credentials", "connect to the session and system D-Bus", "ENOENT / ECONNREFUSED",
       probe_dbus},
      {"93", "cred-vscode-ipc", "credentials", "connect to VS Code IPC / git sockets", "ENOENT / ECONNREFUSED",
       probe_vscode},
      {"94", "cred-ssh-agent", "credentials", "connect to SSH / GPG agent sockets", "ENOENT / ECONNREFUSED",
       probe_ssh_agent},
      {"95", "cred-container-engine", "credentials", "connect to docker / podman / containerd / ... sockets",
       "ENOENT / ECONNREFUSED", probe_container_engine},
      {"96", "cred-git-redirect", "credentials", "read the host's git config / credentials a redirect would include",
       "ENOENT, or an empty masked file", probe_git_redirect},
  };
}

}  // namespace cordon::probe
