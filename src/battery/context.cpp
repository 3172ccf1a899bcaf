#include "battery/context.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "battery/sys.h"

extern char** environ;

namespace cordon::battery {

const std::string* Context::env_value(const std::string& name) const {
  for (const auto& [k, v] : env)
    if (k == name) return &v;
  return nullptr;
}

std::string Context::status_value(const std::string& key) const {
  auto it = status.find(key);
  return it == status.end() ? std::string() : it->second;
}

std::string Context::own_ns(const std::string& kind) const { return read_link("/proc/self/ns/" + kind); }

std::string Context::host_ns(const std::string& kind) const {
  if (!session) return {};
  auto it = session->host_namespaces.find(kind);
  return it == session->host_namespaces.end() ? std::string() : it->second;
}

std::optional<Context> load_context(const std::string& session_path, bool session_required, std::string* problem) {
  Context c;
  if (auto text = read_file("/proc/self/status")) {
    size_t start = 0;
    while (start < text->size()) {
      size_t end = text->find('\n', start);
      if (end == std::string::npos) end = text->size();
      std::string line = text->substr(start, end - start);
      start = end + 1;
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      size_t v = line.find_first_not_of(" \t", colon + 1);
      c.status[line.substr(0, colon)] = v == std::string::npos ? "" : line.substr(v);
    }
  }
  if (auto text = read_file("/proc/self/mountinfo")) c.mounts = MountTable(parse_mountinfo(*text));
  for (char** e = environ; e && *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (!eq) continue;
    c.env.emplace_back(std::string(*e, static_cast<size_t>(eq - *e)), std::string(eq + 1));
  }
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd)) c.cwd = cwd;

  int err = 0;
  auto text = read_file(session_path, 1 << 20, &err);
  if (!text) {
    if (session_required || err != ENOENT) {
      *problem = "cannot read session file " + session_path + ": " + std::strerror(err);
      return std::nullopt;
    }
  } else {
    std::string why;
    c.session = parse_session(*text, &why);
    if (!c.session) {
      *problem = "session file " + session_path + ": " + why;
      return std::nullopt;
    }
    c.session_path = session_path;
  }
  if (c.session && !c.session->home.path.empty()) c.home = c.session->home.path;
  else if (const std::string* home = c.env_value("HOME")) c.home = *home;
  return c;
}

}  // namespace cordon::battery
