#include "launcher/commands/shim.h"

#include <dirent.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "common/error.h"
#include "common/paths.h"
#include "common/text.h"
#include "launcher/inputs/paths.h"

namespace cordon {
namespace {

constexpr const char* kShimMarker = "# cordon shim for ";

bool is_shim(const std::string& path, const std::string& agent) {
  return read_text_file(path).find(std::string(kShimMarker) + agent + "\n") != std::string::npos;
}

void check_name(const std::string& agent) {
  bool ok = !agent.empty();
  for (char c : agent) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_');
  if (!ok) throw Error("invalid agent name \"" + agent + "\"", "use letters, digits, '-' and '_'", kExitConfigError);
}

void require_root(const char* what) {
  if (::geteuid() != 0)
    throw Error(std::string("cordon shim ") + what + " changes system directories and needs root", "run it as root");
}

// Atomic file write with `mode`.
void write_atomically(const std::string& path, const std::string& content, mode_t mode) {
  std::string temporary = path + ".cordon-tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << content;
    if (!out) throw Error(errno_text("writing " + temporary, errno));
  }
  if (::chmod(temporary.c_str(), mode) != 0 || ::rename(temporary.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temporary.c_str());
    throw Error(errno_text("installing " + path, err));
  }
}

std::string read_link(const std::string& path) {
  char buffer[PATH_MAX];
  ssize_t n = ::readlink(path.c_str(), buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
}

// The record of one shim: "key value" lines.
std::map<std::string, std::string> read_record(const std::string& path) {
  std::map<std::string, std::string> out;
  std::istringstream in(read_text_file(path));
  std::string line;
  while (std::getline(in, line)) {
    auto space = line.find(' ');
    if (space != std::string::npos) out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

// Every installed shim's record, in the order of their file names.
std::vector<std::map<std::string, std::string>> shim_records(const ShimPaths& paths) {
  std::vector<std::string> names;
  if (DIR* dir = ::opendir(paths.agents_dir.c_str())) {
    while (dirent* e = ::readdir(dir)) {
      const std::string name = e->d_name;
      if (name.size() >= 6 && name.compare(name.size() - 5, 5, ".shim") == 0) names.push_back(name);
    }
    ::closedir(dir);
  }
  std::sort(names.begin(), names.end());
  std::vector<std::map<std::string, std::string>> out;
  out.reserve(names.size());
  for (const auto& name : names) out.push_back(read_record(paths.agents_dir + "/" + name));
  return out;
}

}  // namespace

std::string shim_dir_for(const std::string& cordon_dir) {
  return cordon_dir == "/usr/bin" ? "/usr/local/bin" : cordon_dir;
}

ShimPaths default_shim_paths() {
  ShimPaths p;
  p.cordon = real_path("/proc/self/exe");
  p.shim_dir = shim_dir_for(p.cordon.substr(0, p.cordon.rfind('/')));
  p.agents_dir = libexec_dir() + "/agents";
  return p;
}

namespace {

std::vector<std::string> path_entries(const std::string& path_env) {
  std::vector<std::string> out;
  std::stringstream parts(path_env);
  std::string dir;
  while (std::getline(parts, dir, ':'))
    if (!dir.empty() && dir[0] == '/') out.push_back(dir);
  return out;
}

}  // namespace

std::vector<std::string> agent_search_dirs(const ShimPaths& paths, const std::string& path_env) {
  std::vector<std::string> dirs = {paths.shim_dir};
  for (const auto& dir : path_entries(path_env)) dirs.push_back(dir);
  for (const char* fixed : {"/usr/local/bin", "/usr/bin", "/opt/bin"}) dirs.emplace_back(fixed);
  return dirs;
}

std::string home_containing(const std::string& path) {
  const std::string real = real_path(path).empty() ? path : real_path(path);
  std::vector<std::string> homes = {"/root", "/home"};
  ::setpwent();
  while (const passwd* pw = ::getpwent())
    if (pw->pw_dir && std::string(pw->pw_dir) != "/" && pw->pw_dir[0] == '/') homes.emplace_back(pw->pw_dir);
  ::endpwent();
  for (const auto& home : homes)
    if (path_within(real, home)) return home;
  return "";
}

std::vector<ShimHealth> shim_health(const ShimPaths& paths, const std::string& path_env) {
  std::vector<ShimHealth> out;
  for (auto& record : shim_records(paths)) {
    ShimHealth h;
    h.agent = record["agent"];
    h.shim = record["shim"];
    h.replaced = !is_shim(h.shim, h.agent);
    for (const auto& d : path_entries(path_env)) {
      const std::string candidate = d + "/" + h.agent;
      if (::access(candidate.c_str(), X_OK) != 0) continue;
      if (real_path(candidate) != real_path(h.shim)) h.shadowed_by = candidate;
      break;
    }
    out.push_back(h);
  }
  std::sort(out.begin(), out.end(), [](const ShimHealth& a, const ShimHealth& b) { return a.agent < b.agent; });
  return out;
}

std::string shim_problem(const ShimHealth& h) {
  const std::string redo = "run as root: cordon shim remove --agent " + h.agent + " && cordon shim install --agent " +
                           h.agent;
  if (h.replaced)
    return h.shim + " is no longer cordon's shim (an update reinstalled " + h.agent + " there?): typing " + h.agent +
           " runs it unsandboxed; " + redo;
  if (!h.shadowed_by.empty())
    return h.shadowed_by + " comes before the shim " + h.shim + " on PATH: typing " + h.agent +
           " runs it unsandboxed; remove it, put " + h.shim.substr(0, h.shim.rfind('/')) + " first on PATH, or " + redo;
  return "";
}

std::string render_shim(const std::string& agent, const ShimPaths& paths) {
  const std::string real = paths.agents_dir + "/" + agent;
  return "#!/bin/sh\n" + std::string(kShimMarker) + agent +
         "\n"
         "# Runs the real binary inside a cordon sandbox. Remove with: cordon shim remove --agent " +
         agent +
         "\n"
         "real=" +
         shell_quote(real) +
         "\n"
         "# Already inside a sandbox (sentinel and the launcher's session file): never nest.\n"
         "if [ \"${IS_SANDBOX:-}\" = 1 ] && [ -r /run/cordon/session ]; then\n"
         "  exec \"$real\" \"$@\"\n"
         "fi\n"
         "exec " +
         shell_quote(paths.cordon) + " run --agent " + agent + " -- \"$real\" \"$@\"\n";
}

void shim_install(const std::string& agent, const std::string& binary, const ShimPaths& paths) {
  check_name(agent);
  require_root("install");
  const std::string shim = paths.shim_dir + "/" + agent;
  const std::string real = paths.agents_dir + "/" + agent;
  const std::string record = real + ".shim";
  if (::access(record.c_str(), F_OK) == 0)
    throw Error(agent + " is already shimmed",
                "see `cordon shim status`; `cordon shim remove --agent " + agent + "` undoes it");

  std::string original = binary;
  const char* path_env = std::getenv("PATH");
  if (original.empty())
    for (const auto& dir : agent_search_dirs(paths, path_env ? path_env : ""))
      if (::access((dir + "/" + agent).c_str(), X_OK) == 0) {
        original = dir + "/" + agent;
        break;
      }
  if (original.empty() || original[0] != '/' || ::access(original.c_str(), X_OK) != 0)
    throw Error("no executable " + agent + " found" + (binary.empty() ? " in the usual places" : " at " + binary),
                "install the agent first, or pass --binary /absolute/path/to/" + agent);
  if (is_shim(original, agent)) throw Error(original + " is already a cordon shim", "see `cordon shim status`");
  if (std::string home = home_containing(original); !home.empty())
    throw Error(original + " lies in the home directory " + home +
                    ", which every sandbox hides: the shimmed agent could not run there",
                "install " + agent +
                    " system-wide (e.g. npm install -g with the prefix /usr/local) and shim that, "
                    "or pass --binary with a copy outside any home");

  if (::mkdir(paths.agents_dir.c_str(), 0755) != 0 && errno != EEXIST)
    throw Error(errno_text("creating " + paths.agents_dir, errno));

  std::string entry = "agent " + agent + "\nshim " + shim + "\noriginal " + original + "\n";
  std::string link = read_link(original);
  if (original == shim) {
    // The real binary sits where the shim goes: move it. A symlink is recreated with an
    // absolute target, since a relative one would break in its new directory.
    if (!link.empty()) {
      std::string target = real_path(original);
      if (::symlink(target.c_str(), real.c_str()) != 0 || ::unlink(original.c_str()) != 0)
        throw Error(errno_text("moving the symlink " + original, errno));
      entry += "mode moved-symlink\nlink " + link + "\n";
    } else {
      if (::rename(original.c_str(), real.c_str()) != 0)
        throw Error(errno_text("moving " + original + " to " + real, errno),
                    "both must be on the same filesystem; or pass --binary for a link instead");
      entry += "mode moved\n";
    }
  } else {
    if (::symlink(original.c_str(), real.c_str()) != 0) throw Error(errno_text("linking " + real, errno));
    entry += "mode linked\n";
  }
  write_atomically(record, entry, 0644);
  write_atomically(shim, render_shim(agent, paths), 0755);
}

std::string audit_command_hint(const std::string& agent, const ShimPaths& paths) {
  const std::string libexec = paths.agents_dir.substr(0, paths.agents_dir.rfind('/'));
  std::string source, target, name;
  if (agent == "claude") {
    source = libexec + "/claude/commands/verify-sandbox.md";
    target = "~/.claude/commands/verify-sandbox.md";
    name = "/verify-sandbox";
  } else if (agent == "codex") {
    source = libexec + "/codex/prompts/verify-sandbox.md";
    target = "~/.codex/prompts/verify-sandbox.md";
    name = "the verify-sandbox prompt";
  } else {
    return "";
  }
  if (::access(source.c_str(), R_OK) != 0) return "";
  return "for the agent-driven audit (" + name + "), each user runs once, outside cordon (that directory is " +
         "read-only inside): install -Dm644 " + source + " " + target;
}

void shim_remove(const std::string& agent, const ShimPaths& paths) {
  check_name(agent);
  require_root("remove");
  const std::string real = paths.agents_dir + "/" + agent;
  const std::string record_path = real + ".shim";
  auto record = read_record(record_path);
  if (record.empty()) throw Error(agent + " is not shimmed", "see `cordon shim status`");
  const std::string shim = record["shim"], original = record["original"], mode = record["mode"];
  if (is_shim(shim, agent) && ::unlink(shim.c_str()) != 0) throw Error(errno_text("removing " + shim, errno));
  if (mode == "moved") {
    if (::rename(real.c_str(), original.c_str()) != 0) throw Error(errno_text("restoring " + original, errno));
  } else if (mode == "moved-symlink") {
    if (::symlink(record["link"].c_str(), original.c_str()) != 0 || ::unlink(real.c_str()) != 0)
      throw Error(errno_text("restoring the symlink " + original, errno));
  } else {
    ::unlink(real.c_str());
  }
  ::unlink(record_path.c_str());
}

std::string shim_status(const ShimPaths& paths) {
  std::string out;
  for (auto& record : shim_records(paths)) {
    std::string agent = record["agent"];
    bool intact = is_shim(record["shim"], agent);
    bool real_ok = ::access((paths.agents_dir + "/" + agent).c_str(), X_OK) == 0;
    // The record is read back from disk: each name is one line, whatever it holds.
    out += "  " + terminal_safe(agent) + ": shim " + terminal_safe(record["shim"]) +
           (intact ? "" : " (MISSING or replaced)") + " -> real " + terminal_safe(paths.agents_dir + "/" + agent) +
           (real_ok ? "" : " (MISSING)") + " [" + terminal_safe(record["mode"]) + " from " +
           terminal_safe(record["original"]) + "]\n";
  }
  return out.empty() ? "no agents are shimmed\n" : "shimmed agents:\n" + out;
}

}  // namespace cordon
