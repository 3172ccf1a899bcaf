#include "common/landlock_rules.h"

#include <charconv>
#include <string_view>

#include "common/landlock_abi.h"

namespace cordon::landlock {

namespace {

std::string hex(uint64_t value) {
  char buffer[16];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value, 16);
  return {buffer, end};
}

// A number in its one canonical spelling: digits of `base` only (lowercase), no sign, no
// leading zero, at most `max_digits` digits. So a file parses to one struct and renders back
// to the same bytes.
std::optional<uint64_t> canonical_number(std::string_view text, int base, size_t max_digits) {
  if (text.empty() || text.size() > max_digits || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (base == 16 && c >= 'a' && c <= 'f'))) return std::nullopt;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<uint64_t> hex_mask(std::string_view text) { return canonical_number(text, 16, 16); }

// "KEY VALUE" -> VALUE, or nullopt when the record is another key.
std::optional<std::string_view> value_of(std::string_view record, std::string_view key) {
  if (record.size() <= key.size() || record.substr(0, key.size()) != key || record[key.size()] != ' ')
    return std::nullopt;
  return record.substr(key.size() + 1);
}

// Absolute and normalized: "/" or "/a/b", with no empty, "." or ".." component.
const char* path_problem(std::string_view path) {
  if (path.empty()) return "empty path";
  if (path.size() > kMaxPathBytes) return "path longer than PATH_MAX";
  if (path[0] != '/') return "path not absolute";
  if (path == "/") return nullptr;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    if (part.empty()) return "path with an empty component (// or a trailing /)";
    if (part == "." || part == "..") return "path with a . or .. component";
    start = end + 1;
  }
  return nullptr;
}

// The records between NULs; nullopt unless the text ends with one.
std::optional<std::vector<std::string_view>> split_records(std::string_view text) {
  if (text.empty() || text.back() != '\0') return std::nullopt;
  std::vector<std::string_view> records;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\0', start);
    records.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return records;
}

// The three header records into `out`; a problem or "".
std::string parse_header(const std::vector<std::string_view>& records, LandlockRules& out) {
  if (records.size() < 3) return "header incomplete: abi, handled_fs and scoped are needed";
  auto abi = value_of(records[0], "abi");
  auto abi_number = abi ? canonical_number(*abi, 10, 3) : std::nullopt;
  if (!abi_number || *abi_number < 1) return "record 1: expected \"abi N\" with N from 1 to 999";
  out.abi = static_cast<int>(*abi_number);
  auto handled = value_of(records[1], "handled_fs");
  auto handled_mask = handled ? hex_mask(*handled) : std::nullopt;
  if (!handled_mask || *handled_mask == 0) return "record 2: expected \"handled_fs HEX\", non-zero";
  if ((*handled_mask & ~handled_fs_for_abi(kNewestKnownAbi)) != 0) return "record 2: an unknown filesystem right";
  out.handled_fs = *handled_mask;
  auto scoped = value_of(records[2], "scoped");
  auto scoped_mask = scoped ? hex_mask(*scoped) : std::nullopt;
  if (!scoped_mask) return "record 3: expected \"scoped HEX\"";
  if ((*scoped_mask & ~scopes_for_abi(kNewestKnownAbi)) != 0) return "record 3: an unknown scope";
  out.scoped = *scoped_mask;
  return {};
}

// One "rule HEX PATH" record; a problem or "".
std::string parse_rule(std::string_view record, uint64_t handled_fs, LandlockRule& rule) {
  auto value = value_of(record, "rule");
  const size_t space = value ? value->find(' ') : std::string_view::npos;
  if (space == std::string_view::npos) return "expected \"rule HEX PATH\"";
  auto mask = hex_mask(value->substr(0, space));
  if (!mask || *mask == 0) return "expected a non-zero hexadecimal mask";
  if ((*mask & ~handled_fs) != 0) return "a right outside handled_fs";
  const std::string_view path = value->substr(space + 1);
  if (const char* problem = path_problem(path)) return problem;
  rule = {std::string(path), *mask};
  return {};
}

}  // namespace

std::string render_rules(const LandlockRules& rules) {
  std::string text = "abi " + std::to_string(rules.abi) + '\0';
  text += "handled_fs " + hex(rules.handled_fs) + '\0';
  text += "scoped " + hex(rules.scoped) + '\0';
  for (const LandlockRule& rule : rules.rules) {
    text += "rule " + hex(rule.access) + ' ';
    text += rule.path;
    text += '\0';
  }
  return text;
}

std::optional<LandlockRules> parse_rules(const std::string& text, std::string* problem) {
  auto fail = [&](const std::string& why) -> std::optional<LandlockRules> {
    if (problem) *problem = "Landlock rules: " + why;
    return std::nullopt;
  };
  if (text.size() > kMaxRulesFileBytes) return fail("larger than " + std::to_string(kMaxRulesFileBytes) + " bytes");
  auto records = split_records(text);
  if (!records) return fail("empty, or the last record has no terminating NUL");
  LandlockRules out;
  if (std::string why = parse_header(*records, out); !why.empty()) return fail(why);
  if (records->size() - 3 > kMaxRules) return fail("more than " + std::to_string(kMaxRules) + " rules");
  out.rules.resize(records->size() - 3);
  for (size_t i = 3; i < records->size(); ++i)
    if (std::string why = parse_rule((*records)[i], out.handled_fs, out.rules[i - 3]); !why.empty())
      return fail("record " + std::to_string(i + 1) + ": " + why);
  return out;
}

}  // namespace cordon::landlock
