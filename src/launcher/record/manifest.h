// The run manifest and teardown receipt: a record of every launch (two JSON lines: the
// manifest, written before the command runs, then the receipt, appended when it ends), in a
// state directory the sandbox cannot write.
// It never holds secrets: environment variables are recorded by name only.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json_codec.h"
#include "launcher/fs/loose_permissions.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/host_facts.h"
#include "launcher/plan/plan.h"
#include "launcher/record/outcome.h"
#include "launcher/record/record_export.h"
#include "launcher/record/record_file.h"
#include "launcher/record/session_state.h"
#include "launcher/workspace/foothold_audit.h"

namespace cordon {

// A new session id: UTC start time + 8 random hex digits.
std::string new_session_id();

struct Receipt {
  LaunchOutcome outcome;
  std::vector<std::string> limit_hits;
  std::vector<std::string> teardown_problems;  // empty = verified clean
  std::vector<std::string> cgroups_removed;    // the session cgroups, emptied and removed
  std::string launch_error;                    // set when the launch was refused or failed
  FootholdAudit footholds;                     // the teardown audit of the workspace (workspace/foothold_audit.h)
  FootholdAudit home_keys;                     // control keys restored, memory changes named (fs/)
  FootholdAudit permissions;                   // what the session left writable for others, tightened
  std::optional<Json> egress;                  // network.mode = "allowlist": the proxy's decisions
};

// The receipt's "workspace_audit" and "home_audit" members (also in a sweep's receipt).
Json workspace_audit_json(const FootholdAudit& audit);

// Restores the control keys of the agent's state files after a session (fs/home_audit.h),
// names what it changed in the agent's memory (fs/steering_state.h), and prints one line per
// item on stderr.
FootholdAudit audit_session_home(const std::string& sessions_dir, const std::string& id);

// Runs the teardown audit for a session as its manifest or intent recorded it, and prints one
// line per item on stderr.
FootholdAudit audit_session_workspace(const std::string& id, const std::string& workspace,
                                      const std::vector<std::string>& protected_paths,
                                      const std::vector<std::string>& protect_absent);

// The manifest's "permissions" member, and back (nullopt: absent or not of that shape).
Json permission_baseline_json(const PermissionBaseline& baseline);
std::optional<PermissionBaseline> permission_baseline_from(const Json& manifest);

// Tightens what the session left writable for other users (fs/loose_permissions.h) below the
// baseline's roots and the workspace's git dirs as they are now, and prints one line per item.
FootholdAudit audit_session_permissions(PermissionBaseline baseline, const std::string& workspace);

class SessionRecord {
 public:
  // Creates and locks the session's state file (session_state.h), then writes the manifest
  // (atomically); throws cordon::Error when either fails, so nothing runs without a record.
  SessionRecord(const std::string& id, const Config& config, const HostFacts& facts, const SandboxPlan& plan);

  // Appends the receipt as the record's second JSON line and removes the state file. When the
  // receipt cannot be written (a full disk), the state file says so and why, in place, and
  // the error is returned ("" = written): the command's status still stands. The manifest
  // and the receipt also go to [records] export (record/record_export.h).
  std::string finish(const Receipt& receipt);

  const std::string& id() const { return id_; }
  const std::string& path() const { return path_; }
  const PermissionBaseline& permissions() const { return permissions_; }

 private:
  std::string id_;
  PermissionBaseline permissions_;  // taken before the manifest is written, so before the sandbox runs
  std::string path_;
  std::unique_ptr<StateFile> state_;
  RecordExport export_;
  std::string manifest_export_;  // "" sent, or why the manifest's export line was dropped
};

// Teardown check: no process of the sandbox's pid namespace is left.
std::vector<std::string> verify_no_sandbox_processes(const LaunchOutcome& outcome);

}  // namespace cordon
