// The Landlock rules file: what the launcher hands the exec step that applies the ruleset
// inside the sandbox (a generated file, read by path), so the ruleset is data the plan makes
// and the step only executes. Pure code.
//
// Format: NUL-terminated records, so a path may hold any byte but NUL (a newline, a space,
// invalid UTF-8: none is special), which no path can hold:
//   abi N\0              the kernel's ABI the plan was made for (decimal, 1-999)
//   handled_fs HEX\0     the handled filesystem rights (lowercase hex, no 0x, no leading zero)
//   scoped HEX\0         the scopes
//   rule HEX PATH\0      one per rule: its rights (non-zero, within handled_fs) and an absolute,
//                        normalized path (no empty, "." or ".." component, no trailing slash)
// The three header records come first, in this order; nothing else is accepted.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cordon::landlock {

// Bounds the parser holds a file to: far above any plan (about 25 rules), far below what
// could exhaust the step's memory.
inline constexpr size_t kMaxRules = 4096;
inline constexpr size_t kMaxPathBytes = PATH_MAX - 1;  // PATH_MAX counts the terminating NUL
inline constexpr size_t kMaxRulesFileBytes = 64 + kMaxRules * (kMaxPathBytes + 24);

struct LandlockRule {
  std::string path;     // inside the sandbox
  uint64_t access = 0;  // LANDLOCK_ACCESS_FS_* (common/landlock_abi.h)
  bool operator==(const LandlockRule&) const = default;
};

struct LandlockRules {
  int abi = 0;
  uint64_t handled_fs = 0;
  uint64_t scoped = 0;
  std::vector<LandlockRule> rules;
  bool operator==(const LandlockRules&) const = default;
};

// The file's content; parse_rules() gives `rules` back for any rules it accepts.
std::string render_rules(const LandlockRules& rules);

// The rules, or nullopt with `*problem` (when given) saying what is wrong and where: anything
// not exactly in the format above, a right or scope unknown to common/landlock_abi.h, a rule
// outside handled_fs, more than kMaxRules rules or a path longer than kMaxPathBytes.
std::optional<LandlockRules> parse_rules(const std::string& text, std::string* problem);

}  // namespace cordon::landlock
