#include "launcher/landlock/ruleset_plan.h"

#include <map>

#include "common/error.h"
#include "common/paths.h"

namespace cordon::landlock {

namespace {

// What one step grants at its dest. A link and a remount grant nothing of their own: a link's
// target is ruled where it is bound, a remount only narrows its tmpfs. No rule for what lies
// over a writable tree to make it read-only (control entries, footholds, masks, the remounts):
// Landlock only adds rights down a hierarchy, so such a rule could never narrow its parent's.
uint64_t step_rights(const MountStep& m) {
  if (m.op == MountOp::Symlink || m.op == MountOp::RemountRo) return 0;
  switch (m.role) {
    case MountRole::SystemRoot:
    case MountRole::ReadPath:
    case MountRole::HomeKeep:
    case MountRole::Libexec: return kReadExecRights;
    case MountRole::Proc: return m.op == MountOp::Proc ? kProcRights : kReadRights;  // proc = "host-ro": read
    case MountRole::RuntimeTmpfs:
    case MountRole::HomeTmpfs:
    case MountRole::HomeEntry:
    case MountRole::Cache:
    case MountRole::Workspace:
    case MountRole::Writable: return kReadWriteRights;
    case MountRole::AgentBinary: return kBinaryRights;
    // Empty tmpfs made read-only: names listable, nothing in them.
    case MountRole::Siblings:
    case MountRole::AccountHome: return kAccessFsReadDir;
    case MountRole::ResolvTarget:
    case MountRole::SessionDir: return kReadRights;
    case MountRole::Devices:  // its own rules: devices_rules()
    case MountRole::ProcGuard:
    case MountRole::Control:
    case MountRole::Foothold:
    case MountRole::FootholdPin:
    case MountRole::Mask:
    case MountRole::PrivateMask:
    case MountRole::ReadOnlyAfter:
    case MountRole::TestAddition:  // a weakening's: weakenings come after this plan, never into it
      return 0;
  }
  return 0;
}

using RuleMap = std::map<std::string, uint64_t>;  // path -> rights, sorted by path

void grant(RuleMap& rules, const std::string& path, uint64_t rights) {
  if (rights != 0) rules[path] |= rights;
}

// /dev (bwrap's --dev; its host bind under a weakening is ruled alike, so nothing more of the
// host's devices opens): the directory listable, each node bwrap makes usable, the pty
// instance usable, /dev/shm writable.
void devices_rules(RuleMap& rules, const std::string& dev, bool terminal_console) {
  grant(rules, dev, kAccessFsReadDir);
  for (const char* node : kDevNodes) grant(rules, dev + "/" + node, kDeviceRights);
  if (terminal_console) grant(rules, dev + "/console", kDeviceRights);
  grant(rules, dev + "/pts", kAccessFsReadDir | kDeviceRights);
  grant(rules, dev + "/shm", kReadWriteRights);
}

// Whether the rules on `path`'s ancestors already grant all of `rights`.
bool covered_by_ancestors(const RuleMap& rules, const std::string& path, uint64_t rights) {
  uint64_t inherited = 0;
  for (const auto& [other, other_rights] : rules)
    if (other != path && path_within(path, other)) inherited |= other_rights;
  return (rights & ~inherited) == 0;
}

std::vector<LandlockRule> rules_for(const std::vector<MountStep>& mounts, uint64_t handled_fs, bool terminal_console) {
  RuleMap rules;
  // bwrap's own root (an empty tmpfs in the system view): its names listable, no content.
  grant(rules, "/", kAccessFsReadDir);
  for (const MountStep& m : mounts) {
    if (m.role == MountRole::Devices && (m.op == MountOp::Dev || m.op == MountOp::DevBind))
      devices_rules(rules, m.dest, terminal_console);
    else grant(rules, m.dest, step_rights(m));
  }
  for (auto it = rules.begin(); it != rules.end();) {
    it->second &= handled_fs;
    it = it->second == 0 ? rules.erase(it) : std::next(it);
  }
  std::vector<LandlockRule> kept;
  for (const auto& [path, rights] : rules)
    if (!covered_by_ancestors(rules, path, rights)) kept.push_back({path, rights});
  return kept;
}

// Why a kernel of `abi` (< kMinimumAbi) gets no ruleset.
std::string kernel_reason(int abi, const std::string& problem) {
  if (abi >= 1)
    return "this kernel's Landlock is ABI " + std::to_string(abi) +
           ", without the refer right: every rename across directories would fail (EXDEV)";
  return "this kernel has no Landlock" + (problem.empty() ? std::string() : ": " + problem);
}

}  // namespace

LandlockSection plan_landlock(LandlockMode mode, int abi, const std::vector<MountStep>& mounts,
                              const std::string& problem, bool terminal_console) {
  LandlockSection s;
  s.mode = mode;
  s.abi = abi;
  if (mode == LandlockMode::Off) {
    s.why_not = "sandbox.landlock = \"off\"";
    return s;
  }
  s.unavailable = unavailable_at(abi);
  if (abi < kMinimumAbi) {
    if (mode == LandlockMode::Required)
      throw Error("sandbox.landlock = \"required\", but " + kernel_reason(abi, problem) + "; cordon needs ABI " +
                      std::to_string(kMinimumAbi) + " or later",
                  "run on a kernel with Landlock ABI 2 or later (Linux 5.19+ built with CONFIG_SECURITY_LANDLOCK, "
                  "landlock in the lsm= boot parameter; in a container, a seccomp profile that allows the "
                  "landlock_* system calls), or set [sandbox] landlock = \"auto\" (weaker: the mounts are the only "
                  "filesystem layer)");
    s.why_not = kernel_reason(abi, problem);
    return s;
  }
  s.apply = true;
  s.handled_fs = handled_fs_for_abi(abi);
  s.scoped = scopes_for_abi(abi);
  s.rules = rules_for(mounts, s.handled_fs, terminal_console);
  return s;
}

LandlockIntent describe_landlock(const LandlockSection& section) {
  return {landlock_mode_name(section.mode), section.abi,         section.apply,  access_names(section.handled_fs),
          scope_names(section.scoped),      section.unavailable, section.why_not};
}

LandlockRules rules_of(const LandlockSection& section) {
  return {section.abi, section.handled_fs, section.scoped, section.rules};
}

}  // namespace cordon::landlock
