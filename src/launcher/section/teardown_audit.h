// What a teardown audit found: the workspace's (workspace/foothold_audit.h) and the agent
// home's control keys (fs/home_audit.h) report in this one shape, which the session record
// (record/manifest.h) writes into the receipt.
#pragma once

#include <string>
#include <vector>

namespace cordon {

struct AuditItem {
  std::string kind;        // "hook", "config", "link", "pointer", "protect"
  std::string path;        // absolute, where it was
  std::string quarantine;  // absolute, where the original is now ("" for "protect": left in place)
  std::string detail;      // "config": the keys it lost; otherwise ""
};

struct FootholdAudit {
  std::vector<AuditItem> items;
  std::vector<std::string> problems;  // what could not be moved or rewritten (named, never fatal)
};

}  // namespace cordon
