// A git config file reduced to the keys that cannot run code, for the teardown audit
// (workspace/foothold_audit.h): a config the agent wrote during the session (a `git init` inside)
// keeps its remotes, branches and identity and loses core.fsmonitor, aliases, filters,
// hooksPath, include and the rest. Pure: text in, text out, parsed as git parses it (quoting,
// continuation lines, [section "sub"], the old [section.sub] form, comments, a key on the
// header's line), and anything it cannot classify counts as not allowed.
#pragma once

#include <string>
#include <vector>

namespace cordon {

// True for a key of the allow-list: core.repositoryformatversion, core.filemode, core.bare,
// core.logallrefupdates, core.ignorecase, core.precomposeunicode, core.symlinks,
// remote.*.url, remote.*.fetch, branch.*.remote, branch.*.merge, user.name, user.email,
// init.defaultbranch, extensions.objectformat. `section` and `name` lowercased; the
// subsection is not looked at (any name), only whether there is one.
bool git_config_key_allowed(const std::string& section, bool has_subsection, const std::string& name);

struct GitConfigScan {
  std::vector<std::string> refused;  // the keys (section[.sub].name) or "line N: ..." not allowed, in order
  std::string filtered;              // the allowed lines only, under canonical section headers
  size_t allowed = 0;                // how many keys were kept
  bool clean() const { return refused.empty(); }
};

GitConfigScan scan_git_config(const std::string& text);

}  // namespace cordon
