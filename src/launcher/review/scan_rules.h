// The review scanner's default rule tables (review_scan.h), as data: the secret tokens it
// knows by prefix and alphabet, and the paths whose changes it points out for review. The
// configuration may add to both; the detectors that need more than a prefix (key blocks,
// JWTs, assignments) live in review_scan.cpp.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cordon::review {

// A token that is `prefix` followed by [charset]{min_length,max_length}, as a whole word: the
// byte before the prefix is neither alphanumeric nor in the charset, and the run of charset
// bytes after the prefix stops within the bounds (a longer run is some other string).
struct TokenRule {
  std::string name;          // the finding's rule: "github-token"
  std::string prefix;        // 3 bytes or more: "ghp_"
  std::string charset;       // a bracket expression's body: "A-Za-z0-9_-" ('-' first or last is itself)
  size_t min_length = 0;     // of the run after the prefix, 1 or more
  size_t max_length = 0;     // at most kMaxTokenLength
  std::string description;   // the finding's detail, "a GitHub personal access token": never the token
  bool needs_digit = false;  // the run holds a digit: real tokens do, "xoxb-your-token-here" does not
};

inline constexpr size_t kMaxTokenLength = 4096;

// GitHub, GitLab, Slack, npm, PyPI, AWS access key ids and the AI providers' API keys.
std::vector<TokenRule> default_token_rules();

// A path pattern whose changes are a scope finding. Patterns are gitignore-like, matched on the
// raw relative path: '*' and '?' stay within one component, '**' crosses them, [...] is a
// class; a pattern without '/' matches the last component at any depth, one with '/' is
// anchored at the workspace root (start it with "**/" for any depth); a trailing '/' means
// everything below that directory.
struct ScopeRule {
  std::string_view pattern;
  std::string_view rule;  // the finding's rule: "ci-definition"
  bool on_deletion;       // a deletion matters too (hooks, CI, git metadata), not only a write
};

std::span<const ScopeRule> default_scope_rules();  // in match order: the first that matches names a finding
std::vector<std::string> default_scope_globs();    // the patterns of default_scope_rules()

// The rule of a configured glob that is not one of the defaults.
inline constexpr std::string_view kConfiguredScopeRule = "scope-glob";

// Whether `path` (raw, relative) matches scope glob `pattern`.
bool scope_glob_matches(std::string_view pattern, std::string_view path);
// The same in two steps, for a pattern matched against many paths: the pattern as a whole-path
// one ("Makefile" -> "**/Makefile", ".husky/" -> "**/.husky/**"), and the match of that.
std::string expand_scope_glob(std::string_view pattern);
bool expanded_glob_matches(std::string_view expanded, std::string_view path);

// The rule `pattern`'s findings carry: the default table's, or kConfiguredScopeRule (which
// also counts deletions).
ScopeRule scope_rule_for(std::string_view pattern);

// What a scope rule's finding says: "a CI definition: the forge runs it when pushed".
std::string_view scope_rule_description(std::string_view rule);

// A dotenv file by its last component: ".env", ".env.local", "prod.env". Templates meant to
// be committed (".env.example", ".env.sample", ".env.template", ".env.dist", "x.env.example")
// are not: they hold placeholders, and a real token in one is still found by its own rule.
bool is_env_file_name(std::string_view name);

}  // namespace cordon::review
