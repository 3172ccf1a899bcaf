// $HOME checks: only the active profile's entries are there (03), masked files are empty
// (14, 15).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "battery/check.h"
#include "battery/sys.h"
#include "common/credential_files.h"
#include "common/paths.h"
#include "common/unique_fd.h"

namespace cordon::battery {
namespace {

// Config entries of known agents, grouped by agent: a second agent's entries in a session
// are a cross-agent leak.
struct AgentEntries {
  const char* agent;
  std::vector<std::string> entries;
};

const std::vector<AgentEntries>& known_agents() {
  static const std::vector<AgentEntries> agents = {
      {"claude", {".claude", ".claude.json"}},
      {"codex", {".codex"}},
      {"pi", {".pi"}},
      {"gemini", {".gemini"}},
      {"aider", {".aider", ".aider.conf.yml"}},
      {"cursor", {".cursor"}},
      {"continue", {".continue"}},
      {"qwen", {".qwen"}},
      {"opencode", {".config/opencode"}},
      {"copilot", {".config/github-copilot"}},
  };
  return agents;
}

std::string first_component(const std::string& rel) { return rel.substr(0, rel.find('/')); }

// An entry made inside the sandbox's own home tmpfs: no host data is mounted at or below it.
bool session_created(const Context& c, const std::string& path) { return !c.mounts.has_mount_at_or_below(path); }

bool is_fresh_tmpfs(const Context& c, const std::string& dir, std::string* what) {
  const Mount* m = c.mounts.containing(dir);
  if (!m) {
    *what = "no mount table";
    return false;
  }
  *what = m->fstype + " mounted at " + m->mount_point;
  return m->mount_point == dir && m->fstype == "tmpfs" && m->root == "/";
}

bool home_is_fresh_tmpfs(const Context& c, std::string* what) { return is_fresh_tmpfs(c, c.home, what); }

// The agent group an entry belongs to, or nullptr.
const AgentEntries* agent_of(const std::string& rel) {
  for (const auto& a : known_agents())
    for (const auto& e : a.entries)
      if (rel == e) return &a;
  return nullptr;
}

Outcome strict_home_without_session(const Context& c) {
  std::vector<std::string> found;
  for (const auto& e : home_credential_stores())
    if (exists(c.home + "/" + e) && !session_created(c, c.home + "/" + e)) found.push_back(e);
  if (!found.empty()) return fail("host credential stores visible in " + c.home + ": " + join_some(found));
  std::set<std::string> agents;
  std::vector<std::string> agent_entries;
  for (const auto& a : known_agents())
    for (const auto& e : a.entries)
      if (exists(c.home + "/" + e)) {
        agents.insert(a.agent);
        agent_entries.push_back(e);
      }
  if (agents.size() > 1) return fail("config of several agents visible: " + join_some(agent_entries));
  std::string what;
  bool tmpfs = home_is_fresh_tmpfs(c, &what);
  return pass(std::string(kNoSession) + ": no known credential store or second agent's config in " + c.home +
              (tmpfs ? " (a tmpfs)" : " (" + what + ")"));
}

// Empty (or absent) masked file: nothing of the host's credential is readable.
Outcome masked_file_empty(const Context& c, const char* entry) {
  if (c.home.empty()) return fail("HOME is not set and no session file names it");
  std::string path = c.home + "/" + entry;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return pass(std::string(entry) + " absent");
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return pass(path + " unreadable (" + errno_name(errno) + ")");
  char byte;
  ssize_t n = ::read(fd.get(), &byte, 1);
  if (n > 0)
    return fail(path + " holds " + std::to_string(st.st_size) + " bytes: the host's file is visible (mask missing)");
  std::string note = "empty";
  if (writable(path)) note += ", but writable";
  return pass(note);
}

// The workspace's path relative to `home` when it lies strictly inside it ("src/app"), else "".
std::string workspace_way_in_home(const std::string& home, const std::string& workspace) {
  if (workspace.empty() || workspace == home || !path_within(workspace, home)) return "";
  return workspace.substr(home.size() + 1);
}

// The first entry found in a directory on the way from `home` down to the workspace (its
// parents, not the workspace itself) other than the next step down; "" when there is none.
std::string beside_the_way(const std::string& home, const std::string& way_down) {
  std::string dir = home;
  std::string rest = way_down;
  for (auto slash = rest.find('/'); slash != std::string::npos; slash = rest.find('/')) {
    const std::string step = rest.substr(0, slash);
    dir += "/" + step;
    rest = rest.substr(slash + 1);
    const std::string next = rest.substr(0, rest.find('/'));
    if (auto entries = list_dir(dir))
      for (const auto& e : *entries)
        if (e != next) return dir.substr(home.size() + 1) + "/" + e;
  }
  return "";
}

// A workspace under $HOME (~/src/app): bwrap makes its parents in the home's tmpfs. They are
// allowed (the top one into `allowed_top`) only while they hold nothing but the way down to
// the workspace; returns what stands beside the way, or "".
std::string allow_way_to_workspace(const std::string& home, const std::string& workspace,
                                   std::set<std::string>& allowed_top) {
  const std::string way_down = workspace_way_in_home(home, workspace);
  if (way_down.empty()) return "";
  allowed_top.insert(first_component(way_down));
  return beside_the_way(home, way_down);
}

// The account's own home when $HOME is another directory: a fresh tmpfs holding nothing but
// the directories bwrap made on the way down to $HOME and the workspace. "" when it holds.
std::string account_home_problem(const Context& c, const SessionIntent& s) {
  const std::string& account = s.home.account_path;
  if (account.empty()) return "";
  std::string what;
  if (!is_fresh_tmpfs(c, account, &what))
    return "the account's home " + account + " is not a fresh tmpfs (" + what + "): the host's home is visible";
  // Each directory on a way down, with the entries that way allows in it.
  std::map<std::string, std::set<std::string>> allowed;
  allowed[account];
  for (const std::string& target : {s.home.path, s.workspace}) {
    if (target == account || !path_within(target, account)) continue;
    std::string dir = account;
    std::string rest = target.substr(account.size() + 1);
    for (;;) {
      const auto slash = rest.find('/');
      const std::string step = rest.substr(0, slash);
      allowed[dir].insert(step);
      if (slash == std::string::npos) break;
      dir += "/" + step;
      rest = rest.substr(slash + 1);
    }
  }
  for (const auto& [dir, names] : allowed)
    if (auto entries = list_dir(dir))
      for (const auto& e : *entries)
        if (!names.count(e)) return "the account's home " + account + " holds " + dir.substr(account.size()) + "/" + e;
  return "";
}

}  // namespace

Outcome check_strict_home(const Context& c) {
  if (c.home.empty()) return fail("HOME is not set and no session file names it");
  if (!c.session) return strict_home_without_session(c);
  const SessionIntent& s = *c.session;

  std::string what;
  if (!home_is_fresh_tmpfs(c, &what))
    return fail(c.home + " is not a fresh tmpfs (" + what + "): the host's home directory is visible");
  if (std::string problem = account_home_problem(c, s); !problem.empty()) return fail(problem);

  // Allowed: entries listed for this profile or kept for all, and the masks. A listed
  // ".config/X" allows the .config directory and, inside it, only X.
  std::set<std::string> listed, allowed_top, allowed_config;
  auto allow = [&](const std::string& rel) {
    listed.insert(rel);
    allowed_top.insert(first_component(rel));
    if (rel.rfind(".config/", 0) == 0) allowed_config.insert(first_component(rel.substr(8)));
  };
  for (const auto& e : s.agent.home) allow(e);
  for (const auto& e : s.home.keep_read_only) allow(e);
  for (const auto& e : s.home.caches) allow(e);
  for (const auto& e : home_masked_files()) allow(e);
  if (std::string stray = allow_way_to_workspace(c.home, s.workspace, allowed_top); !stray.empty())
    return fail("entries outside profile " + s.agent.name + "'s allow-list: " + stray +
                " (beside the way to the workspace)");
  auto own = [&](const std::string& rel) {
    return std::find(s.agent.home.begin(), s.agent.home.end(), rel) != s.agent.home.end();
  };

  std::vector<std::string> unexpected, other_agent, created;
  // `allowed`: listed for this session. Another agent's config fails even when kept for all.
  auto judge = [&](const std::string& rel, bool allowed) {
    bool made_here = session_created(c, c.home + "/" + rel);
    const AgentEntries* agent = agent_of(rel);
    if (agent && !own(rel)) {
      if (made_here) created.push_back(rel);
      else other_agent.push_back(rel + " (" + agent->agent + ")");
    } else if (!allowed) {
      (made_here ? created : unexpected).push_back(rel);
    }
  };
  auto top = list_dir(c.home);
  if (!top) return fail("cannot list " + c.home);
  std::sort(top->begin(), top->end());
  for (const auto& name : *top) judge(name, allowed_top.count(name) != 0);
  if (!listed.count(".config"))
    if (auto children = list_dir(c.home + "/.config")) {
      std::sort(children->begin(), children->end());
      for (const auto& child : *children) judge(".config/" + child, allowed_config.count(child) != 0);
    }
  if (!other_agent.empty())
    return fail("another agent's config is visible: " + join_some(other_agent) + " (profile " + s.agent.name + ")");
  if (!unexpected.empty())
    return fail("entries outside profile " + s.agent.name + "'s allow-list: " + join_some(unexpected));
  std::string note = "profile " + s.agent.name;
  if (!s.home.account_path.empty()) note += "; the account's home " + s.home.account_path + " hidden too";
  if (!created.empty()) note += "; made in this session's tmpfs: " + join_some(created);
  return pass(note);
}

Outcome check_netrc(const Context& c) { return masked_file_empty(c, ".netrc"); }
Outcome check_xauthority(const Context& c) { return masked_file_empty(c, ".Xauthority"); }

}  // namespace cordon::battery
