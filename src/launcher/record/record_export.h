// [records] export: each line of a session's record (the manifest, the receipt, a crashed
// session's receipt) also written to a log collector's stream as one self-describing JSON
// line (docs/schemas.md "cordon-export"): stderr, a file or FIFO (appended; /proc/1/fd/1 in a
// pod), or a unix socket. Never blocking the session: a line that cannot go whole at once
// (no reader, a full pipe, a socket nobody accepts) is dropped, never cut, and counted; the
// count so far travels in every line, so a collector sees what it missed. The record file
// stays the source of truth; the export is a copy.
#pragma once

#include <string>

#include "common/json_codec.h"
#include "launcher/inputs/config.h"

namespace cordon {

inline constexpr const char* kExportFormat = "cordon-export";
inline constexpr int kExportVersion = 1;

// What a sent or dropped line says about where it ran: the host's name, and the pod's
// namespace, name and node when the launcher's environment has them (the Kubernetes downward
// API: CORDON_POD_NAMESPACE, CORDON_POD_NAME, CORDON_NODE_NAME). Labels only: no decision
// reads them.
Json export_origin();

// The line for `record_line` (a manifest or receipt document as the record holds it).
// `dropped_before`: lines this user's launches dropped before it.
Json export_line(const std::string& session_id, const Json& record_line, long long dropped_before, const Json& origin);

class RecordExport {
 public:
  // `state_dir`: where the count of dropped lines is kept (STATE/export-dropped).
  RecordExport(RecordExportTarget target, std::string state_dir);

  bool enabled() const { return target_.kind != RecordExportTarget::Kind::None; }
  const RecordExportTarget& target() const { return target_; }

  // Sends one record line; "" when it went whole, else why it was dropped (and counted).
  std::string send(const std::string& session_id, const Json& record_line) const;

  // The lines dropped so far (0 when none, or the count cannot be read).
  long long dropped() const;

 private:
  void count_drop() const;

  RecordExportTarget target_;
  std::string counter_path_;
};

}  // namespace cordon
