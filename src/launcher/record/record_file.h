// Reading the session records safely: whoever can write the records directory (a bug, a
// full disk, another tool) must not be able to hang, flood or mislead a reader. Only regular
// files are opened (no symlink, no FIFO, no device), never blocking, at most 1 MiB each; a
// record is its manifest line and, once the session ended, its receipt line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json_codec.h"

namespace cordon {

inline constexpr size_t kMaxRecordBytes = 1 << 20;

// Each line's "format", and the major version both carry (docs/schemas.md).
inline constexpr const char* kManifestFormat = "cordon-manifest";
inline constexpr const char* kReceiptFormat = "cordon-receipt";
inline constexpr int kRecordVersion = 2;

// A session's transcript beside its record: "DIR/<id>.transcript" ([records] transcript).
std::string transcript_path(const std::string& sessions_dir, const std::string& id);
// A review-mode session's layers: STATE/reviews/ID (upper/ and work/ in it), beside the records.
std::string review_dir(const std::string& sessions_dir, const std::string& id);

// "20261201T131821Z-fa114025": a UTC stamp, '-', 8 hex digits (new_session_id()).
bool is_session_id(const std::string& id);
// Throws cordon::Error (exit 2, the fix: an id from `cordon sessions list`) unless is_session_id.
void require_session_id(const std::string& id);

// The ids of "<id><suffix>" entries in `dir` (".json" records, ".state" files), sorted, oldest
// first (ids begin with their UTC start time).
std::vector<std::string> session_ids(const std::string& dir, const std::string& suffix);

// A record file's text; nullopt with `problem` set when it is not a regular file, cannot be
// read, or is larger than kMaxRecordBytes.
std::optional<std::string> read_record(const std::string& path, std::string* problem);

struct ParsedRecord {
  std::optional<Json> manifest;  // the first line, when it is a manifest of this major version
  std::optional<Json> receipt;   // the receipt line's "receipt" object, once there
};
ParsedRecord parse_record(const std::string& text);

}  // namespace cordon
