#include "common/landlock_helper.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"
#include "common/landlock_abi.h"

namespace cordon::landlock {

HelperDomain enter_helper_domain(const HelperRuleset& ruleset, int abi) {
  HelperDomain d;
  if (abi < 0) {
    const Support kernel = landlock_abi();
    d.abi = kernel.abi;
    d.problem = kernel.problem;
  } else {
    d.abi = abi;
    if (abi == 0) d.problem = "this kernel has no Landlock (test hook)";
  }
  if (d.abi < 1) return d;
  d.handled_fs = ruleset.handle_fs ? handled_fs_for_abi(d.abi) & ~ruleset.unhandled : 0;
  d.scoped = ruleset.scopes & scopes_for_abi(d.abi);
  if (d.scoped != ruleset.scopes) d.missing.emplace_back("abstract unix socket and signal scopes (ABI 6)");
  if (d.handled_fs == 0 && d.scoped == 0) return d;  // nothing this kernel can enforce of what was asked
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    d.problem = errno_text("prctl(PR_SET_NO_NEW_PRIVS)", errno);
    return d;
  }
  RulesetAttr attr{};
  attr.handled_access_fs = d.handled_fs;
  attr.scoped = d.scoped;
  FdResult made = create_ruleset(attr);
  if (!made.fd.valid()) {
    d.problem = errno_text("landlock_create_ruleset", made.error);
    return d;
  }
  for (const PathGrant& grant : ruleset.grants) {
    bool opened = false;
    const int err = add_rule_at_path(made.fd.get(), grant.path, grant.access & d.handled_fs, &opened);
    if (err != 0 && opened) {  // a grant absent here: nothing to read there either
      d.problem = errno_text("landlock_add_rule " + grant.path, err);
      return d;
    }
  }
  if (int err = restrict_self(made.fd.get()); err != 0) {
    d.problem = errno_text("landlock_restrict_self", err);
    return d;
  }
  d.applied = true;
  d.problem.clear();
  return d;
}

}  // namespace cordon::landlock
