#include "launcher/review/review_policy.h"

#include <sys/random.h>

#include <algorithm>
#include <map>

#include "common/env_names.h"
#include "common/error.h"
#include "common/json_codec.h"
#include "common/sha256.h"

namespace cordon::review {

ScanPolicy scan_policy_for(const ReviewConfig& config, const ReviewBase& base) {
  ScanPolicy policy;
  policy.size_cap = static_cast<uint64_t>(config.size_cap_bytes);
  for (const std::string& glob : config.scope) policy.scope_globs.push_back(glob);
  for (const ReviewTokenRule& r : config.secrets) {
    TokenRule rule;
    rule.name = r.name;
    rule.prefix = r.prefix;
    rule.charset = r.charset;
    rule.min_length = static_cast<size_t>(r.min_length);
    rule.max_length = static_cast<size_t>(r.max_length);
    rule.description = "a token of the configured rule " + r.name;
    policy.token_rules.push_back(rule);
  }
  policy.masked_key = base.masked_key;
  std::string problem;
  std::optional<Json> masked = parse_json(base.masked_json, &problem);
  if (masked && masked->is_array())
    for (const Json& m : *masked) {
      MaskedValue value;
      value.length = static_cast<size_t>(integer_member(m, "length").value_or(0));
      value.rolling = m.value("rolling", Json(0)).get<uint64_t>();
      value.head = static_cast<uint16_t>(m.value("head", Json(0)).get<unsigned>());
      value.sha256_hex = string_member(m, "sha256");
      value.label = string_member(m, "label");
      if (value.length >= kMinMaskedValueLength && value.sha256_hex.size() == 64) policy.masked_values.push_back(value);
    }
  return policy;
}

namespace {

// "a/.git" for "a/.git/refs/heads/main" and for "a/.git" itself; "" outside any .git.
std::string git_dir_of(const std::string& path) {
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = std::min(path.find('/', start), path.size());
    if (path.compare(start, slash - start, ".git") == 0) return path.substr(0, slash);
    start = slash + 1;
  }
  return "";
}

}  // namespace

std::vector<Finding> gate_git_internals(std::vector<Finding> findings, const ChangeSet& changes) {
  std::map<std::string, std::vector<const Change*>> by_repository;
  for (const Change& change : changes)
    if (std::string dir = git_dir_of(change.path); !dir.empty()) by_repository[dir].push_back(&change);
  if (by_repository.empty()) return findings;
  std::erase_if(findings, [&](const Finding& f) {
    return f.finding_class == FindingClass::Scope && by_repository.count(git_dir_of(f.path)) != 0;
  });
  for (const auto& [dir, inside] : by_repository) {
    std::string identity = "git-internals\n" + dir + "\n";
    for (const Change* c : inside)
      identity += c->path + '\0' + kind_name(c->kind) + '\0' + std::to_string(c->after.size) + '\0' +
                  std::to_string(c->after.mode) + '\n';
    Finding f;
    f.id = sha256_hex(identity).substr(0, 12);
    f.finding_class = FindingClass::Dangerous;
    f.rule = "git-internals";
    f.path = dir;
    f.detail = std::to_string(inside.size()) +
               " change(s) inside this repository's own metadata (objects, refs, index, config, hooks), which git "
               "on the host reads and runs";
    findings.push_back(f);
  }
  std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.path, a.line, a.rule) < std::tie(b.path, b.line, b.rule);
  });
  return findings;
}

std::pair<std::string, uint64_t> masked_values_json(const std::vector<std::pair<std::string, std::string>>& host_env,
                                                    const std::vector<std::string>& passed_names) {
  uint64_t key = 0;
  if (::getrandom(&key, sizeof key, 0) != static_cast<ssize_t>(sizeof key))
    throw Error("no random bytes for the review's scan key", "nothing ran");
  Json out = Json::array();
  for (const auto& [name, value] : host_env) {
    if (!credential_env_name(name) || value.size() < kMinMaskedValueLength) continue;
    if (std::find(passed_names.begin(), passed_names.end(), name) != passed_names.end()) continue;
    const MaskedValue digest = digest_masked_value(value, key);
    out.push_back({{"label", bytes_json(name)},
                   {"length", digest.length},
                   {"rolling", digest.rolling},
                   {"head", digest.head},
                   {"sha256", digest.sha256_hex}});
  }
  return {dump_line(out), key};
}

}  // namespace cordon::review
