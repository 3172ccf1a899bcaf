// Review mode's scanner: before a session's changes reach the host tree, each pending change
// is checked for what a reviewer must see. Three classes of finding, by rule:
//
//  secret     (blocks apply)  what the session wrote into a regular file's content (the first
//             ScanPolicy::secret_scan_bound bytes) or a symlink's target:
//               private-key          PEM (RSA, EC, DSA, ENCRYPTED, PKCS#8), OpenSSH, PGP, PuTTY
//               gcp-service-account  "private_key" of a file saying "type": "service_account"
//               aws-secret-key       aws_secret_access_key = <40 bytes> (any case of the two)
//               jwt                  eyJ<header>.eyJ<payload>.<signature>
//               <TokenRule name>     aws-access-key, github-token, gitlab-token, slack-token, ...
//               masked-env-value     a masked environment variable's value (MaskedValue)
//               env-file             a dotenv file (scan_rules.h) with an assignment the host's
//                                    version lacks; the matched bytes are the whole content
//               many-secrets         more than 1000 distinct secrets (or 65536 matches) in one
//                                    file: it stands for the whole content and the unlisted rest
//             Bytes the host's version of the same path already holds are not reported (a key
//             that was there before is not the session's doing); everything in an added file is.
//  dangerous  (blocks apply)  absolute-symlink, escaping-symlink ("..", counted from the link's
//             own directory), setuid, setgid, fifo, socket, char-device, block-device, hard-link
//             (more links than names in the change set: the others are outside the diff).
//  scope      (informs)       the path globs of scan_rules.h (git-metadata, git-hooks,
//             git-config, ci-definition, build-script, package-manifest, tool-config,
//             container-build, scope-glob for configured ones), new-executable, too-large.
//             Deletions count for git metadata, hooks, CI and configured globs only.
//
// No std::regex: anchors are found in one pass with a table of their first two bytes and
// checked by hand, every detector's look-ahead is bounded, and a match is skipped as a whole,
// so the scan stays linear in the content whatever its bytes (binary files included).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/review/read_content.h"
#include "launcher/review/review_change.h"
#include "launcher/review/scan_rules.h"

namespace cordon::review {

enum class FindingClass { Secret, Scope, Dangerous };

const char* class_name(FindingClass finding_class);  // "secret", "scope", "dangerous"

struct Finding {
  // 12 hex digits of sha256 over (class, rule, path, line, sha256 of the matched bytes): the
  // same pending diff gives the same ids, so `cordon apply --accept ID` can name one; changed
  // matched bytes give a new id. One finding per id: repeats of the same bytes on one line
  // (or anywhere in a binary file) are counted in `detail`.
  std::string id;
  FindingClass finding_class = FindingClass::Scope;
  std::string rule;    // "private-key", "github-token", "ci-definition", "absolute-symlink", ...
  std::string path;    // raw bytes, relative to the workspace: escape it before showing it
  int line = 0;        // 1-based for a text file's content; 0 for a path, a link target or binary content
  std::string detail;  // what was found, in words; never the matched bytes

  bool blocks() const;  // Secret and Dangerous block apply; Scope does not
};

// A secret environment value known only by its digest: the session masks the variable and the
// scanner finds the value in what the session wrote. Every hash is keyed by the session's key
// (ScanPolicy::masked_key), so content cannot be written to collide with one: `head` is a
// 16-bit fingerprint of the first 8 bytes, which picks the positions worth a closer look;
// `rolling` a Rabin-Karp hash of the whole value (mod 2^61-1, base derived from the key), which
// picks the windows worth a sha256; `sha256_hex` confirms.
//
// Keep the key apart from stored digests: with the key, a rolling hash of a short value
// narrows it down to a few candidates, which the sha256 then confirms.
struct MaskedValue {
  size_t length = 0;
  uint64_t rolling = 0;
  std::string sha256_hex;  // lower-case hex
  uint16_t head = 0;
  std::string label;  // what a finding calls it, the variable's name ("GITHUB_TOKEN"); optional
};

// Values shorter than this are not looked for: "true", "1234" or a short user name would match
// all over a tree (and the fingerprint reads 8 bytes).
inline constexpr size_t kMinMaskedValueLength = 8;

MaskedValue digest_masked_value(std::string_view value, uint64_t key);

struct ScanPolicy {
  std::vector<TokenRule> token_rules = default_token_rules();
  std::vector<std::string> scope_globs = default_scope_globs();
  // A file larger than this is a scope finding ("too-large").
  uint64_t size_cap = uint64_t{10} << 20;
  // Secrets are looked for in the first this-many bytes of a file, whatever its size, so a big
  // file still gets scanned; one larger than this gets a "too-large" finding saying so.
  uint64_t secret_scan_bound = uint64_t{64} << 20;
  std::vector<MaskedValue> masked_values;  // each digested with masked_key
  uint64_t masked_key = 0;                 // random per session (getrandom), never stored with the digests
};

// Every finding of `changes`, sorted by (path, line, rule), ids unique. Reads regular files'
// content through `read` (the After side of added, modified and retyped files; the Before side
// only where a match needs checking against it). Throws cordon::ConfigError for an invalid
// TokenRule or glob in `policy`, and whatever `read` throws.
std::vector<Finding> scan_changes(const ChangeSet& changes, const ReadContent& read, const ScanPolicy& policy);

}  // namespace cordon::review
