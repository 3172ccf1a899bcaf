// Checks of what this process is and carries: sentinel, privileges, environment, git config.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/env_names.h"
#include "common/intent.h"
#include "common/text.h"

namespace cordon::battery {
namespace {

// Names a shell maintains by itself; bwrap sets PWD.
bool shell_name(const std::string& name) { return name == "PWD" || name == "OLDPWD" || name == "SHLVL" || name == "_"; }

// cordon's base allow-list and the names the launcher sets itself, for a sandbox without a
// session file.
bool base_allowed(const std::string& name) {
  for (const char* n : kLauncherSetEnv)
    if (name == n) return true;
  return env_name_in(base_env_allow_list(), name);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// user.email from git config text: the [user] section's email key (no includes followed).
std::string git_user_email(const std::string& text) {
  std::string section;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = trim(text.substr(start, end - start));
    start = end + 1;
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      section = lower(trim(line.substr(1, line.find(']') - 1)));
      continue;
    }
    auto eq = line.find('=');
    if (section == "user" && eq != std::string::npos && lower(trim(line.substr(0, eq))) == "email") {
      std::string value = trim(line.substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
      return value;
    }
  }
  return {};
}

}  // namespace

Outcome check_sentinel(const Context& c) {
  const std::string* v = c.env_value("IS_SANDBOX");
  if (!v) return fail("IS_SANDBOX is not set: this process was not started by the sandbox launcher");
  if (*v != "1") return fail("IS_SANDBOX is \"" + *v + "\", not 1");
  return pass();
}

Outcome check_no_new_privs(const Context& c) {
  std::string v = c.status_value("NoNewPrivs");
  if (v == "1") return pass();
  return fail("NoNewPrivs: " + (v.empty() ? std::string("missing from /proc/self/status") : v) +
              " (setuid and file-capability binaries can raise privileges)");
}

Outcome check_env_scrub(const Context& c) {
  std::vector<std::string> leaked, unexpected, deliberate;
  for (const auto& [name, value] : c.env) {
    bool intended = c.session && std::find(c.session->env_names.begin(), c.session->env_names.end(), name) !=
                                     c.session->env_names.end();
    if (credential_env_name(name)) {
      if (intended) deliberate.push_back(name);
      else leaked.push_back(name);
      continue;
    }
    if (intended || shell_name(name)) continue;
    if (!c.session && base_allowed(name)) continue;
    unexpected.push_back(name);
  }
  std::sort(leaked.begin(), leaked.end());
  std::sort(unexpected.begin(), unexpected.end());
  if (!leaked.empty())
    return fail("credential-bearing variables present: " + join_some(leaked, 8) +
                (c.session ? " (not passed by the launcher)" : ""));
  if (c.session && !unexpected.empty())
    return fail("variables the launcher did not pass: " + join_some(unexpected, 8) +
                " (the environment was not cleared)");
  std::string note;
  if (!deliberate.empty()) note = "passed deliberately by the configuration: " + join_some(deliberate, 8);
  if (!c.session) {
    note = std::string(kNoSession) + ": no credential-bearing name present";
    if (!unexpected.empty()) note += "; outside cordon's base allow-list: " + join_some(unexpected, 8);
  }
  return pass(note);
}

Outcome check_no_display(const Context& c) {
  std::vector<std::string> set;
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"}) {
    const std::string* v = c.env_value(name);
    if (v && !v->empty()) set.push_back(std::string(name) + "=" + *v);
  }
  if (!set.empty()) return fail(join_some(set) + " (a display server or session bus is advertised)");
  return pass();
}

Outcome check_cap_eff(const Context& c) {
  std::string eff = c.status_value("CapEff");
  if (eff.empty()) return fail("CapEff missing from /proc/self/status");
  unsigned long long bits = std::strtoull(eff.c_str(), nullptr, 16);
  if (bits != 0)
    return fail("CapEff: " + eff + " (" + std::to_string(__builtin_popcountll(bits)) +
                " capabilities effective; --cap-drop ALL missing?)");
  std::string bnd = c.status_value("CapBnd");
  std::string note;
  if (!bnd.empty() && std::strtoull(bnd.c_str(), nullptr, 16) != 0)
    note = "bounding set " + bnd + " (nested user namespace)";
  return pass(note);
}

Outcome check_gitconfig(const Context& c) {
  const std::string* global = c.env_value("GIT_CONFIG_GLOBAL");
  const std::string* system = c.env_value("GIT_CONFIG_SYSTEM");
  if (!global || global->empty()) return fail("GIT_CONFIG_GLOBAL is not set: git reads the user's own ~/.gitconfig");
  if (!system || *system != "/dev/null")
    return fail("GIT_CONFIG_SYSTEM is " + (system ? "\"" + *system + "\"" : std::string("not set")) +
                ", not /dev/null: git reads the system config");
  for (const char* redirect : {"GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"})
    if (c.env_value(redirect)) return fail(std::string(redirect) + " is set: it overrides the curated config");
  if (c.session && *global != kGitConfigPath)
    return fail("GIT_CONFIG_GLOBAL is " + *global + ", not the generated " + kGitConfigPath);
  int err = 0;
  auto text = read_file(*global, 1 << 20, &err);
  if (!text) return fail("cannot read " + *global + ": " + errno_name(err));
  if (writable(*global)) return fail(*global + " is writable from inside the sandbox");
  std::string email = git_user_email(*text);
  if (email.empty()) return fail(*global + " carries no user.email");
  std::string note = "user.email " + email;
  if (!c.session) note = std::string(kNoSession) + ": " + *global + " read-only; " + note;
  return pass(note);
}

}  // namespace cordon::battery
