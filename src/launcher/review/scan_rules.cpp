#include "launcher/review/scan_rules.h"

#include <cstddef>

namespace cordon::review {
namespace {

constexpr const char* kAlnum = "A-Za-z0-9";
constexpr const char* kUrlSafe = "A-Za-z0-9_-";  // base64url, and most providers' token alphabet

// Lengths are of the run after the prefix. Providers that say their tokens may grow (GitHub
// documents up to 255 bytes) get room above today's length; the minimum is today's.
TokenRule token(std::string name, std::string prefix, std::string charset, size_t min_length, size_t max_length,
                std::string description, bool needs_digit = false) {
  return {std::move(name), std::move(prefix),      std::move(charset), min_length,
          max_length,      std::move(description), needs_digit};
}

struct RuleDescription {
  std::string_view rule;
  std::string_view description;
};

const RuleDescription kScopeDescriptions[] = {
    {"git-hooks", "a git hook: git runs it on commit, checkout or push"},
    {"git-metadata", "git metadata: configuration, refs and objects of a repository"},
    {"git-config", "repository-wide git settings (submodule URLs, attribute drivers)"},
    {"ci-definition", "a CI definition: the forge runs it when the branch is pushed"},
    {"build-script", "a build script: it runs on the next build"},
    {"package-manifest", "a package manifest: it can name commands the package manager runs"},
    {"tool-config", "tool or editor configuration that can run commands or redirect downloads"},
    {"container-build", "a container build or compose file"},
    {kConfiguredScopeRule, "a path the configuration marks for review"},
};

// [...] at the start of `pattern` against `c`; the class's length, or 0 when it is unterminated
// (then '[' is itself).
size_t match_class(std::string_view pattern, unsigned char c, bool& matched) {
  size_t i = 1;
  bool negated = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negated) ++i;
  bool hit = false;
  for (size_t first = i; i < pattern.size(); ++i) {
    if (pattern[i] == ']' && i > first) {
      matched = hit != negated;
      return i + 1;
    }
    unsigned char low = static_cast<unsigned char>(pattern[i]);
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      hit = hit || (c >= low && c <= static_cast<unsigned char>(pattern[i + 2]));
      i += 2;
    } else {
      hit = hit || c == low;
    }
  }
  return 0;
}

}  // namespace

std::vector<TokenRule> default_token_rules() {
  return {
      token("aws-access-key", "AKIA", "A-Z0-9", 16, 16, "an AWS access key id"),
      token("aws-access-key", "ASIA", "A-Z0-9", 16, 16, "an AWS temporary access key id"),
      token("github-token", "ghp_", kAlnum, 36, 255, "a GitHub personal access token"),
      token("github-token", "gho_", kAlnum, 36, 255, "a GitHub OAuth access token"),
      token("github-token", "ghu_", kAlnum, 36, 255, "a GitHub App user access token"),
      token("github-token", "ghs_", kAlnum, 36, 255, "a GitHub App installation token"),
      token("github-token", "ghr_", kAlnum, 36, 255, "a GitHub refresh token"),
      token("github-token", "github_pat_", "A-Za-z0-9_", 82, 255, "a GitHub fine-grained personal access token"),
      token("gitlab-token", "glpat-", kUrlSafe, 20, 64, "a GitLab personal access token"),
      token("gitlab-token", "gldt-", kUrlSafe, 20, 64, "a GitLab deploy token"),
      token("slack-token", "xoxb-", "A-Za-z0-9-", 20, 255, "a Slack bot token", true),
      token("slack-token", "xoxp-", "A-Za-z0-9-", 20, 255, "a Slack user token", true),
      token("slack-token", "xoxa-", "A-Za-z0-9-", 20, 255, "a Slack workspace access token", true),
      token("slack-token", "xoxr-", "A-Za-z0-9-", 20, 255, "a Slack refresh token", true),
      token("slack-token", "xoxs-", "A-Za-z0-9-", 20, 255, "a Slack session token", true),
      token("slack-token", "xoxe-", "A-Za-z0-9-", 20, 255, "a Slack rotating refresh token", true),
      token("slack-token", "xapp-", "A-Za-z0-9-", 20, 255, "a Slack app-level token", true),
      token("slack-webhook", "https://hooks.slack.com/services/", "A-Za-z0-9/", 20, 200, "a Slack incoming webhook URL",
            true),
      token("npm-token", "npm_", kAlnum, 36, 36, "an npm access token"),
      // "pypi-" and the base64 of a macaroon whose location is "pypi.org".
      token("pypi-token", "pypi-AgEIcHlwaS5vcmc", kUrlSafe, 50, kMaxTokenLength, "a PyPI API token"),
      token("anthropic-api-key", "sk-ant-", kUrlSafe, 32, 255, "an Anthropic API key"),
      token("openai-api-key", "sk-proj-", kUrlSafe, 32, 255, "an OpenAI project API key"),
      token("openai-api-key", "sk-svcacct-", kUrlSafe, 32, 255, "an OpenAI service account API key"),
      token("openai-api-key", "sk-admin-", kUrlSafe, 32, 255, "an OpenAI admin API key"),
      token("google-api-key", "AIza", kUrlSafe, 35, 35, "a Google API key"),
      token("stripe-key", "sk_live_", kAlnum, 24, 255, "a Stripe live secret key"),
      token("stripe-key", "rk_live_", kAlnum, 24, 255, "a Stripe live restricted key"),
  };
}

// First match wins: a specific pattern sits above the general one that also matches
// (".git/hooks/" above ".git/").
// constexpr, so constant-initialized: ScanPolicy's initializers may run during the static
// initialization of another file.
constexpr ScopeRule kScopeRules[] = {
    {"**/.git/hooks/", "git-hooks", true},
    {".husky/", "git-hooks", true},
    {".pre-commit-config.yaml", "git-hooks", true},
    {".pre-commit-hooks.yaml", "git-hooks", true},
    {"lefthook.yml", "git-hooks", true},
    {"lefthook.yaml", "git-hooks", true},
    {".lefthook.yml", "git-hooks", true},
    {".lefthook.yaml", "git-hooks", true},
    {"lefthook-local.yml", "git-hooks", true},
    {".git/", "git-metadata", true},  // nested repositories too: the pattern has no inner '/'
    {".git", "git-metadata", true},   // a "gitdir:" file of a worktree or submodule
    {".gitmodules", "git-config", true},
    {".gitattributes", "git-config", false},
    {"**/.github/workflows/", "ci-definition", true},
    {"**/.github/actions/", "ci-definition", true},
    {"**/.forgejo/workflows/", "ci-definition", true},
    {"**/.gitea/workflows/", "ci-definition", true},
    {".gitlab-ci.yml", "ci-definition", true},
    {".circleci/", "ci-definition", true},
    {".travis.yml", "ci-definition", true},
    {"azure-pipelines.yml", "ci-definition", true},
    {"azure-pipelines.yaml", "ci-definition", true},
    {".azure-pipelines/", "ci-definition", true},
    {".buildkite/", "ci-definition", true},
    {"bitbucket-pipelines.yml", "ci-definition", true},
    {"Jenkinsfile", "ci-definition", true},
    {".drone.yml", "ci-definition", true},
    {".woodpecker.yml", "ci-definition", true},
    {".woodpecker/", "ci-definition", true},
    {"Makefile", "build-script", false},
    {"GNUmakefile", "build-script", false},
    {"makefile", "build-script", false},
    {"*.mk", "build-script", false},
    {"CMakeLists.txt", "build-script", false},
    {"*.cmake", "build-script", false},
    {"configure", "build-script", false},
    {"meson.build", "build-script", false},
    {"meson_options.txt", "build-script", false},
    {"meson.options", "build-script", false},
    {"build.rs", "build-script", false},
    {"setup.py", "build-script", false},
    {"justfile", "build-script", false},
    {"Justfile", "build-script", false},
    {"Rakefile", "build-script", false},
    {"build.gradle", "build-script", false},
    {"build.gradle.kts", "build-script", false},
    {"settings.gradle", "build-script", false},
    {"settings.gradle.kts", "build-script", false},
    {"gradlew", "build-script", false},
    {"package.json", "package-manifest", false},
    {"setup.cfg", "package-manifest", false},
    {"pyproject.toml", "package-manifest", false},
    {"Cargo.toml", "package-manifest", false},
    {"pom.xml", "package-manifest", false},
    {".envrc", "tool-config", false},
    {".npmrc", "tool-config", false},
    {".yarnrc*", "tool-config", false},
    {"**/.cargo/config", "tool-config", false},
    {"**/.cargo/config.toml", "tool-config", false},
    {".vscode/", "tool-config", false},
    {".devcontainer/", "tool-config", false},
    {".devcontainer.json", "tool-config", false},
    {".idea/", "tool-config", false},
    {"Dockerfile", "container-build", false},
    {"Dockerfile.*", "container-build", false},
    {"*.Dockerfile", "container-build", false},
    {"*.dockerfile", "container-build", false},
    {"Containerfile", "container-build", false},
    {"docker-compose*.yml", "container-build", false},
    {"docker-compose*.yaml", "container-build", false},
    {"compose.yml", "container-build", false},
    {"compose.yaml", "container-build", false},
};

std::span<const ScopeRule> default_scope_rules() { return kScopeRules; }

std::vector<std::string> default_scope_globs() {
  std::vector<std::string> globs;
  for (const ScopeRule& rule : kScopeRules) globs.emplace_back(rule.pattern);
  return globs;
}

ScopeRule scope_rule_for(std::string_view pattern) {
  for (const ScopeRule& rule : kScopeRules)
    if (rule.pattern == pattern) return rule;
  return {pattern, kConfiguredScopeRule, true};
}

std::string_view scope_rule_description(std::string_view rule) {
  for (const RuleDescription& entry : kScopeDescriptions)
    if (entry.rule == rule) return entry.description;
  return "a path marked for review";
}

bool is_env_file_name(std::string_view name) {
  for (std::string_view tail : {".example", ".sample", ".template", ".dist"})
    if (name.size() > tail.size() && name.ends_with(tail)) {
      std::string_view stem = name.substr(0, name.size() - tail.size());
      if (stem == ".env" || stem.ends_with(".env") || stem.starts_with(".env.")) return false;
    }
  return name == ".env" || (name.starts_with(".env.") && name.size() > 5) ||
         (name.ends_with(".env") && name.size() > 4);
}

// The glob as a whole-path pattern: "Makefile" -> "**/Makefile", ".husky/" -> "**/.husky/**".
std::string expand_scope_glob(std::string_view pattern) {
  bool directory = pattern.ends_with('/');
  while (pattern.ends_with('/')) pattern.remove_suffix(1);
  bool anchored = pattern.find('/') != std::string_view::npos;
  if (pattern.starts_with('/')) pattern.remove_prefix(1);
  std::string expanded = anchored ? "" : "**/";
  expanded += pattern;
  if (directory) expanded += "/**";
  return expanded;
}

bool expanded_glob_matches(std::string_view pattern, std::string_view path) {
  while (!pattern.empty()) {
    if (pattern.starts_with("**")) {
      pattern.remove_prefix(2);
      if (pattern.empty()) return true;
      if (pattern[0] == '/') {  // "**/": zero or more whole components
        pattern.remove_prefix(1);
        for (size_t at = 0;;) {
          if (expanded_glob_matches(pattern, path.substr(at))) return true;
          size_t slash = path.find('/', at);
          if (slash == std::string_view::npos) return false;
          at = slash + 1;
        }
      }
      for (size_t at = 0; at <= path.size(); ++at)
        if (expanded_glob_matches(pattern, path.substr(at))) return true;
      return false;
    }
    if (pattern[0] == '*') {
      pattern.remove_prefix(1);
      for (size_t at = 0;; ++at) {
        if (expanded_glob_matches(pattern, path.substr(at))) return true;
        if (at == path.size() || path[at] == '/') return false;
      }
    }
    if (path.empty()) return false;
    unsigned char c = static_cast<unsigned char>(path[0]);
    if (pattern[0] == '?') {
      if (c == '/') return false;
      pattern.remove_prefix(1);
    } else if (bool matched = false; pattern[0] == '[' && c != '/') {
      size_t length = match_class(pattern, c, matched);
      if (length == 0) {
        if (c != '[') return false;
        pattern.remove_prefix(1);
      } else {
        if (!matched) return false;
        pattern.remove_prefix(length);
      }
    } else {
      if (pattern[0] == '\\' && pattern.size() > 1) pattern.remove_prefix(1);
      if (static_cast<unsigned char>(pattern[0]) != c) return false;
      pattern.remove_prefix(1);
    }
    path.remove_prefix(1);
  }
  return path.empty();
}

bool scope_glob_matches(std::string_view pattern, std::string_view path) {
  return expanded_glob_matches(expand_scope_glob(pattern), path);
}

}  // namespace cordon::review
