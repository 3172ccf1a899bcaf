#include "launcher/review/review_scan.h"

#include <string.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/error.h"
#include "common/sha256.h"
#include "common/text.h"

namespace cordon::review {
namespace {

constexpr size_t npos = std::string_view::npos;
using Charset = std::array<bool, 256>;

// How far a detector looks ahead of its anchor. Bounds keep a hostile file from turning each
// anchor into a scan of the rest of it.
constexpr size_t kBlockReach = size_t{64} << 10;       // a key block's END line, PuTTY's MAC line
constexpr size_t kJsonValueReach = size_t{16} << 10;   // a JSON string value (a service account's key)
constexpr size_t kJwtSegmentReach = size_t{16} << 10;  // one JWT segment
constexpr size_t kBinarySniffLength = 8000;            // git's: a NUL in the first 8000 bytes means binary
constexpr int kRankMasked = 0, kRankPattern = 1;       // over the same bytes, a masked value names it better
// Past this many distinct secrets in one file, or this many matches of any kind, one finding
// stands for the rest (and the whole content): a hostile file cannot make the scan slow or the
// listing endless.
constexpr size_t kMaxSecretsListedPerFile = 1000;
constexpr size_t kMaxMatchesPerText = size_t{64} << 10;

// ---- Bytes

unsigned char byte_at(std::string_view text, size_t at) { return static_cast<unsigned char>(text[at]); }

bool is_alnum(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

bool starts_at(std::string_view text, size_t at, std::string_view prefix) {
  return at <= text.size() && text.size() - at >= prefix.size() && text.compare(at, prefix.size(), prefix) == 0;
}

// memmem: linear in the haystack, unlike a naive find on adversarial bytes.
size_t find_bytes(std::string_view text, std::string_view needle, size_t from = 0) {
  if (from > text.size()) return npos;
  const void* hit = ::memmem(text.data() + from, text.size() - from, needle.data(), needle.size());
  return hit == nullptr ? npos : static_cast<size_t>(static_cast<const char*>(hit) - text.data());
}

bool contains(std::string_view haystack, std::string_view needle) { return find_bytes(haystack, needle) != npos; }

Charset charset_of(std::string_view members) {
  Charset set{};
  for (char c : members) set[static_cast<unsigned char>(c)] = true;
  return set;
}

// The bytes of a bracket expression's body: "A-Za-z0-9_-". nullopt when a range runs backwards.
std::optional<Charset> parse_charset(std::string_view spec) {
  Charset set{};
  for (size_t i = 0; i < spec.size(); ++i) {
    unsigned char first = byte_at(spec, i);
    if (i + 2 < spec.size() && spec[i + 1] == '-') {
      unsigned char last = byte_at(spec, i + 2);
      if (last < first) return std::nullopt;
      for (unsigned c = first; c <= last; ++c) set[c] = true;
      i += 2;
    } else {
      set[first] = true;
    }
  }
  return set;
}

// How many bytes of `set` start at `from`, counting no further than `cap`.
size_t run_length(std::string_view text, size_t from, const Charset& set, size_t cap) {
  size_t length = 0;
  while (from + length < text.size() && length < cap && set[byte_at(text, from + length)]) ++length;
  return length;
}

size_t skip_bytes(std::string_view text, size_t from, const Charset& set) {
  return from + run_length(text, from, set, text.size());
}

size_t line_end(std::string_view text, size_t from) {
  size_t newline = find_bytes(text.substr(0, std::min(text.size(), from + 4096)), "\n", from);
  return newline == npos ? std::min(text.size(), from + 4096) : newline;
}

const Charset kUrlSafe = *parse_charset("A-Za-z0-9_-");
const Charset kAwsSecretAlphabet = *parse_charset("A-Za-z0-9/+");
const Charset kSpace = charset_of(" \t\r\n");
const Charset kAssignmentPadding = charset_of(" \t\"'");

std::string octal_mode(mode_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// ---- Content detectors

struct Span {
  size_t offset = 0;
  size_t length = 0;
  size_t end() const { return offset + length; }
};

// Repeated searches for one needle with non-decreasing starts: the last hit is kept while it
// is still ahead, so together they read the text about once.
class ForwardFinder {
 public:
  explicit ForwardFinder(std::string_view needle) : needle_(needle) {}
  size_t next(std::string_view text, size_t from) {
    if (!searched_ || from < from_ || (hit_ != npos && hit_ < from)) {
      hit_ = find_bytes(text, needle_, from);
      from_ = from;
      searched_ = true;
    }
    return hit_;
  }

 private:
  std::string_view needle_;
  bool searched_ = false;
  size_t from_ = 0, hit_ = npos;
};

// One text's state shared by its detectors.
struct TextScan {
  explicit TextScan(std::string_view content) : text(content) {}
  std::string_view text;
  ForwardFinder dashes{"-----"};
  ForwardFinder putty_mac{"Private-MAC:"};
  std::optional<bool> service_account;  // holds "type": "service_account" (computed on first need)
};

constexpr std::string_view kPemBegin = "-----BEGIN ";
constexpr std::string_view kPemLabels[] = {
    "RSA PRIVATE KEY-----", "EC PRIVATE KEY-----",      "DSA PRIVATE KEY-----",      "ENCRYPTED PRIVATE KEY-----",
    "PRIVATE KEY-----",     "OPENSSH PRIVATE KEY-----", "PGP PRIVATE KEY BLOCK-----"};

// A PEM, OpenSSH or PGP private key: the block through its END line when the next "-----" after
// the header opens it (base64 and "Proc-Type:" lines hold none), else the header alone.
std::optional<Span> detect_key_block(TextScan& scan, size_t at) {
  std::string_view text = scan.text;
  size_t header_end = 0;
  for (std::string_view label : kPemLabels)
    if (starts_at(text, at + kPemBegin.size(), label)) header_end = at + kPemBegin.size() + label.size();
  if (header_end == 0) return std::nullopt;
  size_t next = scan.dashes.next(text, header_end);
  if (next != npos && next - header_end <= kBlockReach && starts_at(text, next, "-----END ")) {
    size_t close = find_bytes(text.substr(0, std::min(text.size(), next + 80)), "-----", next + 9);
    if (close != npos) return Span{at, close + 5 - at};
  }
  return Span{at, header_end - at};
}

// PuTTY's key file, through its Private-MAC line.
std::optional<Span> detect_putty_key(TextScan& scan, size_t at) {
  std::string_view text = scan.text;
  size_t version = at + std::string_view("PuTTY-User-Key-File-").size();
  if (!starts_at(text, version, "2:") && !starts_at(text, version, "3:")) return std::nullopt;
  size_t mac = scan.putty_mac.next(text, version);
  if (mac != npos && mac - at <= kBlockReach) return Span{at, line_end(text, mac) - at};
  return Span{at, line_end(text, at) - at};
}

// aws_secret_access_key = VALUE in INI, env, YAML or JSON shape: the 40-byte value.
std::optional<Span> detect_aws_secret(TextScan& scan, size_t at) {
  std::string_view text = scan.text;
  size_t p = skip_bytes(text, at + std::string_view("aws_secret_access_key").size(), kAssignmentPadding);
  if (p >= text.size() || (text[p] != '=' && text[p] != ':')) return std::nullopt;
  p = skip_bytes(text, p + 1, kAssignmentPadding);
  if (run_length(text, p, kAwsSecretAlphabet, 41) != 40) return std::nullopt;
  return Span{p, 40};
}

// `"type": "service_account"` somewhere in the text.
bool holds_service_account_type(std::string_view text) {
  constexpr std::string_view kValue = "\"service_account\"";
  for (size_t at = find_bytes(text, kValue); at != npos; at = find_bytes(text, kValue, at + 1)) {
    size_t p = at;
    while (p > 0 && kSpace[byte_at(text, p - 1)]) --p;
    if (p == 0 || text[p - 1] != ':') continue;
    --p;
    while (p > 0 && kSpace[byte_at(text, p - 1)]) --p;
    if (p >= 6 && text.substr(p - 6, 6) == "\"type\"") return true;
  }
  return false;
}

// A GCP service-account key file: the "private_key" string value, when the same text says
// "type": "service_account" (a key block inside it is part of this finding).
std::optional<Span> detect_service_account_key(TextScan& scan, size_t at) {
  std::string_view text = scan.text;
  size_t p = skip_bytes(text, at + std::string_view("\"private_key\"").size(), kSpace);
  if (p >= text.size() || text[p] != ':') return std::nullopt;
  p = skip_bytes(text, p + 1, kSpace);
  if (p >= text.size() || text[p] != '"') return std::nullopt;
  if (!scan.service_account) scan.service_account = holds_service_account_type(text);
  if (!*scan.service_account) return std::nullopt;
  size_t close = p + 1;
  size_t limit = std::min(text.size(), p + kJsonValueReach);
  while (close < limit && text[close] != '"') close += text[close] == '\\' ? 2 : 1;
  return Span{p, std::min(close + 1, text.size()) - p};
}

// header.payload.signature, base64url, the first two JSON objects ("eyJ" is base64 of `{"`).
std::optional<Span> detect_jwt(TextScan& scan, size_t at) {
  std::string_view text = scan.text;
  if (at > 0 && kUrlSafe[byte_at(text, at - 1)]) return std::nullopt;  // inside a longer word
  constexpr size_t kMinHeader = 15, kMinPayload = 10, kMinSignature = 20;
  size_t header = run_length(text, at, kUrlSafe, kJwtSegmentReach);
  size_t p = at + header;
  if (header < kMinHeader || p >= text.size() || text[p] != '.' || !starts_at(text, p + 1, "eyJ")) return std::nullopt;
  size_t payload = run_length(text, p + 1, kUrlSafe, kJwtSegmentReach);
  p += 1 + payload;
  if (payload < kMinPayload || p >= text.size() || text[p] != '.') return std::nullopt;
  size_t signature = run_length(text, p + 1, kUrlSafe, kJwtSegmentReach);
  if (signature < kMinSignature || signature == kJwtSegmentReach) return std::nullopt;
  return Span{at, p + 1 + signature - at};
}

struct BuiltinDetector {
  std::string_view anchor;
  std::string_view rule;
  std::string_view description;
  std::optional<Span> (*detect)(TextScan&, size_t);
};

const BuiltinDetector kBuiltinDetectors[] = {
    {kPemBegin, "private-key", "a private key block", detect_key_block},
    {"PuTTY-User-Key-File-", "private-key", "a PuTTY private key", detect_putty_key},
    {"aws_secret_access_key", "aws-secret-key", "an AWS secret access key", detect_aws_secret},
    {"AWS_SECRET_ACCESS_KEY", "aws-secret-key", "an AWS secret access key", detect_aws_secret},
    {"\"private_key\"", "gcp-service-account", "a GCP service account key", detect_service_account_key},
    {"eyJ", "jwt", "a JSON Web Token", detect_jwt},
};

struct CompiledTokenRule {
  const TokenRule* rule;
  Charset charset;
};

void check_token_rule(const TokenRule& rule) {
  auto fail = [&](const std::string& problem, const std::string& fix) {
    throw ConfigError("review token rule \"" + terminal_safe(rule.name) + "\": " + problem, fix);
  };
  if (rule.name.empty()) fail("has no name", "name the rule: findings carry the name");
  if (rule.prefix.size() < 3)
    fail("prefix \"" + terminal_safe(rule.prefix) + "\" is shorter than 3 bytes",
         "give a prefix of 3 bytes or more: a shorter one matches all over a tree");
  if (rule.min_length == 0 || rule.min_length > rule.max_length || rule.max_length > kMaxTokenLength)
    fail("lengths " + std::to_string(rule.min_length) + ".." + std::to_string(rule.max_length) + " are not a range",
         "give 1 <= min_length <= max_length <= " + std::to_string(kMaxTokenLength));
  std::optional<Charset> set = parse_charset(rule.charset);
  if (rule.charset.empty() || !set)
    fail("charset \"" + terminal_safe(rule.charset) + "\" is empty or has a backwards range",
         "write the charset as a bracket expression's body, e.g. A-Za-z0-9_-");
}

std::optional<Span> detect_token(const CompiledTokenRule& compiled, std::string_view text, size_t at) {
  const TokenRule& rule = *compiled.rule;
  if (at > 0) {
    unsigned char before = byte_at(text, at - 1);
    if (is_alnum(before) || compiled.charset[before]) return std::nullopt;  // not a whole word
  }
  size_t body = at + rule.prefix.size();
  size_t length = run_length(text, body, compiled.charset, rule.max_length + 1);
  if (length < rule.min_length || length > rule.max_length) return std::nullopt;
  if (rule.needs_digit) {
    std::string_view run = text.substr(body, length);
    if (std::none_of(run.begin(), run.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  }
  return Span{at, rule.prefix.size() + length};
}

struct Match {
  Span span;
  std::string_view rule;
  std::string_view description;
  int rank = kRankPattern;
};

// What a match overlaps whole (a key block in a service account's value, a masked value that is
// also a GitHub token) is part of it: one finding for the same bytes.
std::vector<Match> drop_contained(std::vector<Match> matches) {
  std::sort(matches.begin(), matches.end(), [](const Match& a, const Match& b) {
    if (a.span.offset != b.span.offset) return a.span.offset < b.span.offset;
    if (a.span.length != b.span.length) return a.span.length > b.span.length;
    return a.rank < b.rank;
  });
  std::vector<Match> kept;
  size_t reach = 0;
  for (const Match& match : matches) {
    if (!kept.empty() && match.span.end() <= reach) continue;
    reach = std::max(reach, match.span.end());
    kept.push_back(match);
  }
  return kept;
}

// ---- Masked values
//
// Three stages, each rarer than the last: a keyed 16-bit fingerprint of the 8 bytes at every
// position (one multiply, no chain between positions) against a 65536-bit filter of the values'
// fingerprints; at a hit, the Rabin-Karp hash of the window of each value's length; at a match,
// its sha256. The cost per byte does not grow with the number of values or lengths.

constexpr uint64_t kMersenne61 = (uint64_t{1} << 61) - 1;

uint64_t mul_mod(uint64_t a, uint64_t b) {
  __extension__ using Wide = unsigned __int128;  // GCC and clang: the 122-bit product before the reduction
  const Wide product = static_cast<Wide>(a) * b;
  uint64_t sum = (static_cast<uint64_t>(product) & kMersenne61) + static_cast<uint64_t>(product >> 61);
  return sum >= kMersenne61 ? sum - kMersenne61 : sum;
}

uint64_t splitmix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Hashes keyed by the session: content written without the key cannot be made to collide with
// a value and cost a sha256 at every position.
struct MaskedKeys {
  explicit MaskedKeys(uint64_t key)
      : base(256 + splitmix64(key) % (kMersenne61 - 512)),
        head_mix(splitmix64(key ^ 0x68656164U)),
        head_multiplier(splitmix64(key ^ 0x6d756c74U) | 1) {}
  uint64_t base;             // Rabin-Karp's, in [256, p-256)
  uint64_t head_mix;         // the fingerprint's: (first 8 bytes ^ mix) * multiplier, top 16 bits
  uint64_t head_multiplier;  // odd

  uint16_t head(const char* bytes) const {
    uint64_t word;
    ::memcpy(&word, bytes, sizeof word);
    return static_cast<uint16_t>(((word ^ head_mix) * head_multiplier) >> 48);
  }
  uint64_t rolling(std::string_view bytes) const {
    uint64_t hash = 0;
    for (char c : bytes) {
      hash = mul_mod(hash, base) + static_cast<unsigned char>(c);
      if (hash >= kMersenne61) hash -= kMersenne61;
    }
    return hash;
  }
};

static_assert(kMinMaskedValueLength >= 8, "the fingerprint reads a value's first 8 bytes");

class MaskedFinder {
 public:
  MaskedFinder(const std::vector<MaskedValue>& values, uint64_t key) : keys_(key) {
    for (const MaskedValue& value : values) {
      if (value.length < kMinMaskedValueLength) continue;
      filter_[value.head >> 6] |= uint64_t{1} << (value.head & 63);
      values_.push_back({value.head, value.length, value.rolling, value.sha256_hex, describe(value.label)});
    }
    std::sort(values_.begin(), values_.end(), [](const Value& a, const Value& b) { return a.head < b.head; });
  }

  // Every window whose bytes are one of the values.
  void find(std::string_view text, std::vector<Match>& out) const {
    if (values_.empty() || text.size() < kMinMaskedValueLength) return;
    for (size_t start = 0; start + kMinMaskedValueLength <= text.size(); ++start) {
      uint16_t head = keys_.head(text.data() + start);
      if ((filter_[head >> 6] >> (head & 63)) & 1) confirm(text, start, head, out);
    }
  }

 private:
  struct Value {
    uint16_t head;
    size_t length;
    uint64_t rolling;
    std::string sha256_hex;
    std::string description;
  };

  static std::string describe(const std::string& label) {
    if (label.empty()) return "the value of a masked environment variable";
    return "the value of the masked environment variable " + terminal_safe(label);
  }

  void confirm(std::string_view text, size_t start, uint16_t head, std::vector<Match>& out) const {
    auto first = std::partition_point(values_.begin(), values_.end(), [&](const Value& v) { return v.head < head; });
    for (auto value = first; value != values_.end() && value->head == head; ++value) {
      if (value->length > text.size() - start) continue;
      std::string_view window = text.substr(start, value->length);
      if (keys_.rolling(window) == value->rolling && sha256_hex(window) == value->sha256_hex)
        out.push_back({{start, value->length}, "masked-env-value", value->description, kRankMasked});
    }
  }

  MaskedKeys keys_;
  std::array<uint64_t, 1024> filter_{};  // a bit per 16-bit fingerprint
  std::vector<Value> values_;            // by fingerprint
};

// ---- All content detectors, in one pass

// Anchors are found through a table of their first two bytes: one look-up per byte of content,
// whatever the number of rules.
class SecretFinder {
 public:
  explicit SecretFinder(const ScanPolicy& policy)
      : masked_(policy.masked_values, policy.masked_key), bucket_of_pair_(65536, 0) {
    for (const TokenRule& rule : policy.token_rules) {
      check_token_rule(rule);
      token_rules_.push_back({&rule, *parse_charset(rule.charset)});
    }
    for (size_t i = 0; i < std::size(kBuiltinDetectors); ++i) add_anchor(kBuiltinDetectors[i].anchor, i);
    for (size_t i = 0; i < token_rules_.size(); ++i)
      add_anchor(token_rules_[i].rule->prefix, std::size(kBuiltinDetectors) + i);
  }

  struct Found {
    std::vector<Match> matches;  // by offset; none inside another
    bool truncated = false;      // kMaxMatchesPerText reached: the rest of the text was not searched
  };

  Found find(std::string_view text) const {
    Found found;
    TextScan scan(text);
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    for (size_t i = 0; i + 1 < text.size(); ++i) {
      uint16_t bucket = bucket_of_pair_[(bytes[i] << 8) | bytes[i + 1]];
      if (bucket == 0) continue;
      for (const Anchor& anchor : buckets_[bucket - 1]) {
        if (!starts_at(text, i, anchor.text)) continue;
        std::optional<Match> match = detect(anchor.detector, scan, i);
        if (!match) continue;
        found.matches.push_back(*match);
        // A block or token is taken whole: what lies inside it is part of it.
        if (match->span.offset <= i && match->span.end() > i + 1) i = match->span.end() - 1;
        break;
      }
      if (found.matches.size() >= kMaxMatchesPerText) {
        found.truncated = true;
        break;
      }
    }
    if (!found.truncated) masked_.find(text, found.matches);
    found.matches = drop_contained(std::move(found.matches));
    return found;
  }

 private:
  struct Anchor {
    std::string_view text;
    size_t detector;  // kBuiltinDetectors index, then token_rules_ index after them
  };

  void add_anchor(std::string_view text, size_t detector) {
    size_t pair = (byte_at(text, 0) << 8) | byte_at(text, 1);
    if (bucket_of_pair_[pair] == 0) {
      buckets_.emplace_back();
      bucket_of_pair_[pair] = static_cast<uint16_t>(buckets_.size());
    }
    buckets_[bucket_of_pair_[pair] - 1].push_back({text, detector});
  }

  std::optional<Match> detect(size_t detector, TextScan& scan, size_t at) const {
    if (detector < std::size(kBuiltinDetectors)) {
      const BuiltinDetector& builtin = kBuiltinDetectors[detector];
      std::optional<Span> span = builtin.detect(scan, at);
      if (!span) return std::nullopt;
      return Match{*span, builtin.rule, builtin.description};
    }
    const CompiledTokenRule& token = token_rules_[detector - std::size(kBuiltinDetectors)];
    std::optional<Span> span = detect_token(token, scan.text, at);
    if (!span) return std::nullopt;
    return Match{*span, token.rule->name, token.rule->description};
  }

  MaskedFinder masked_;
  std::vector<CompiledTokenRule> token_rules_;
  std::vector<uint16_t> bucket_of_pair_;  // 0: no anchor starts with these two bytes
  std::vector<std::vector<Anchor>> buckets_;
};

struct CompiledGlob {
  std::string expanded;  // expand_scope_glob's
  ScopeRule rule;
};

// ---- Small parse-free checks

// A dotenv line that gives a name a non-empty value: NAME=value, export NAME="value".
bool assigns_value(std::string_view line) {
  size_t p = skip_bytes(line, 0, kSpace);
  if (starts_at(line, p, "export ")) p = skip_bytes(line, p + 7, kSpace);
  size_t name = p;
  while (p < line.size() && (is_alnum(byte_at(line, p)) || line[p] == '_' || line[p] == '.' || line[p] == '-')) ++p;
  if (p == name || (line[name] >= '0' && line[name] <= '9')) return false;
  p = skip_bytes(line, p, kSpace);
  if (p >= line.size() || line[p] != '=') return false;
  std::string value = trim(line.substr(p + 1));
  if (value.size() >= 2 && (value[0] == '"' || value[0] == '\'') && value.back() == value[0])
    value = value.substr(1, value.size() - 2);
  return !value.empty();
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = find_bytes(text, "\n", start);
    if (end == npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// The text of package.json's "scripts" object, by brace counting outside strings.
std::optional<std::string_view> scripts_object(std::string_view json) {
  constexpr std::string_view kKey = "\"scripts\"";
  for (size_t at = find_bytes(json, kKey); at != npos; at = find_bytes(json, kKey, at + 1)) {
    size_t p = skip_bytes(json, at + kKey.size(), kSpace);
    if (p >= json.size() || json[p] != ':') continue;
    p = skip_bytes(json, p + 1, kSpace);
    if (p >= json.size() || json[p] != '{') continue;
    int depth = 0;
    bool in_string = false;
    for (size_t q = p; q < json.size(); ++q) {
      char c = json[q];
      if (in_string) {
        if (c == '\\') ++q;
        else if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}' && --depth == 0) {
        return json.substr(p, q + 1 - p);
      }
    }
  }
  return std::nullopt;
}

std::string_view last_component(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == npos ? path : path.substr(slash + 1);
}

// Whether a symlink in `link_path` with this relative target resolves outside the workspace,
// counting ".." against the link's own directory depth.
bool target_leaves_workspace(std::string_view link_path, std::string_view target) {
  long depth = static_cast<long>(std::count(link_path.begin(), link_path.end(), '/'));
  for (size_t start = 0; start <= target.size();) {
    size_t slash = target.find('/', start);
    if (slash == npos) slash = target.size();
    std::string_view component = target.substr(start, slash - start);
    if (component == "..") {
      if (--depth < 0) return true;
    } else if (!component.empty() && component != ".") {
      ++depth;
    }
    start = slash + 1;
  }
  return false;
}

bool content_changes(ChangeKind kind) {
  return kind == ChangeKind::Added || kind == ChangeKind::Modified || kind == ChangeKind::Retyped;
}

// ---- Findings

// The host's version of a changed path, read when a match needs checking against it: a file's
// content, a symlink's target, or nothing (added paths report everything).
class BeforeText {
 public:
  BeforeText(const Change& change, const ReadContent& read) : change_(change), read_(read) {}
  std::string_view get() {
    if (!loaded_) {
      loaded_ = true;
      const EntryState& before = change_.before;
      if (change_.kind == ChangeKind::Added || !before.exists) {
      } else if (S_ISREG(before.mode)) {
        text_ = read_(change_, Side::Before);
      } else if (S_ISLNK(before.mode)) {
        text_ = before.link_target;
      }
    }
    return text_;
  }

 private:
  const Change& change_;
  const ReadContent& read_;
  bool loaded_ = false;
  std::string text_;
};

// Whether the host's version of the path already holds some matched bytes. Each distinct match
// is looked up once; past a few, the host's own matches are collected in one scan of it, so a
// file with thousands of pre-existing tokens costs two scans rather than a search per token.
class HostHolds {
 public:
  HostHolds(const Change& change, BeforeText& before, const SecretFinder& finder)
      : added_(change.kind == ChangeKind::Added), before_(before), finder_(finder) {}

  bool operator()(std::string_view bytes) {
    if (added_) return false;
    auto [it, inserted] = known_.try_emplace(bytes, false);
    if (!inserted) return it->second;
    std::string_view host = before_.get();
    if (++searches_ > kDirectSearches && !host_matches_) {
      host_matches_.emplace();
      for (const Match& match : finder_.find(host).matches)
        host_matches_->insert(host.substr(match.span.offset, match.span.length));
    }
    it->second = (host_matches_ && host_matches_->contains(bytes)) || contains(host, bytes);
    return it->second;
  }

 private:
  static constexpr size_t kDirectSearches = 16;
  bool added_;
  BeforeText& before_;
  const SecretFinder& finder_;
  std::unordered_map<std::string_view, bool> known_;
  std::optional<std::unordered_set<std::string_view>> host_matches_;
  size_t searches_ = 0;
};

struct PendingFinding {
  Finding finding;
  size_t occurrences = 1;
  std::string_view repeat_phrase;  // "on this line", "in this file"
};

class ChangeScanner {
 public:
  ChangeScanner(const ChangeSet& changes, const ReadContent& read, const ScanPolicy& policy)
      : changes_(changes), read_(read), policy_(policy), secrets_(policy) {
    for (const std::string& glob : policy.scope_globs) {
      if (glob.empty() || glob == "/")
        throw ConfigError("review scope glob \"" + terminal_safe(glob) + "\" names no path",
                          "give a pattern such as deploy/ or *.sh");
      globs_.push_back({expand_scope_glob(glob), scope_rule_for(glob)});
    }
    for (const Change& change : changes)
      if (change.after.exists && !S_ISDIR(change.after.mode)) ++names_of_inode_[{change.after.dev, change.after.ino}];
  }

  std::vector<Finding> run() {
    for (const Change& change : changes_) scan(change);
    return finish();
  }

 private:
  void scan(const Change& change) {
    const EntryState& after = change.after;
    BeforeText before(change, read_);
    std::optional<std::string> content;
    if (after.exists && S_ISREG(after.mode) && content_changes(change.kind)) content = read_(change, Side::After);
    scope_by_glob(change, content, before);
    if (change.kind == ChangeKind::Deleted || !after.exists) return;
    dangerous_entry(change);
    if (S_ISREG(after.mode)) {
      new_executable(change);
      if (!content) return;
      too_large(change, *content);
      std::string_view scanned = std::string_view(*content).substr(0, policy_.secret_scan_bound);
      secrets(change, scanned, before, false);
      env_file(change, scanned, before);
    } else if (S_ISLNK(after.mode) && content_changes(change.kind)) {
      secrets(change, after.link_target, before, true);
    }
  }

  // The index of the finding in pending_: a new one, or the one with the same id.
  size_t add(const Change& change, FindingClass finding_class, std::string_view rule, int line,
             std::string_view matched, std::string detail, std::string_view repeat_phrase = "") {
    std::string preimage = std::string(class_name(finding_class)) + '\0' + std::string(rule) + '\0' + change.path +
                           '\0' + std::to_string(line) + '\0' + sha256_hex(matched);
    Finding finding{
        sha256_hex(preimage).substr(0, 12), finding_class, std::string(rule), change.path, line, std::move(detail)};
    auto [it, inserted] = index_of_id_.try_emplace(finding.id, pending_.size());
    if (inserted) pending_.push_back({std::move(finding), 1, repeat_phrase});
    else ++pending_[it->second].occurrences;
    return it->second;
  }

  void scope_by_glob(const Change& change, const std::optional<std::string>& content, BeforeText& before) {
    for (const CompiledGlob& glob : globs_) {
      if (!expanded_glob_matches(glob.expanded, change.path)) continue;
      if (change.kind == ChangeKind::Deleted && !glob.rule.on_deletion) return;
      std::string detail(scope_rule_description(glob.rule.rule));
      if (glob.rule.rule == kConfiguredScopeRule) detail += ": pattern \"" + terminal_safe(glob.rule.pattern) + "\"";
      detail += std::string(" (") + kind_name(change.kind);
      if (content && last_component(change.path) == "package.json") detail += scripts_note(change, *content, before);
      detail += ")";
      std::string matched = std::string(kind_name(change.kind)) + '\0' + std::string(glob.rule.pattern);
      add(change, FindingClass::Scope, glob.rule.rule, 0, matched, detail);
      return;  // the first pattern that matches names the finding
    }
  }

  static std::string scripts_note(const Change& change, std::string_view after, BeforeText& before) {
    std::optional<std::string_view> now = scripts_object(after);
    if (change.kind == ChangeKind::Added || !S_ISREG(change.before.mode))
      return now ? "; has \"scripts\"" : "; no \"scripts\"";
    std::optional<std::string_view> then = scripts_object(before.get());
    if (now == then) return now ? "; \"scripts\" unchanged" : "; no \"scripts\"";
    return "; \"scripts\" changed";
  }

  void dangerous_entry(const Change& change) {
    const EntryState& after = change.after;
    auto flag = [&](std::string_view rule, std::string_view matched, std::string detail) {
      add(change, FindingClass::Dangerous, rule, 0, matched, std::move(detail));
    };
    switch (after.mode & S_IFMT) {
      case S_IFIFO: flag("fifo", "fifo", "a named pipe (FIFO): a reader of it blocks or talks to a writer"); break;
      case S_IFSOCK: flag("socket", "socket", "a unix socket"); break;
      case S_IFCHR: flag("char-device", "char-device", "a character device node"); break;
      case S_IFBLK: flag("block-device", "block-device", "a block device node"); break;
      case S_IFLNK: symlink_target(change); break;
      default: break;
    }
    if (after.mode & S_ISUID)
      flag("setuid", octal_mode(after.mode), "a set-user-ID file (mode " + octal_mode(after.mode) + ")");
    if (after.mode & S_ISGID)
      flag("setgid", octal_mode(after.mode), "a set-group-ID file (mode " + octal_mode(after.mode) + ")");
    if (after.nlink > 1) {
      size_t here = names_of_inode_[{after.dev, after.ino}];
      if (here < after.nlink)
        flag("hard-link", std::to_string(after.nlink),
             "a hard link with " + std::to_string(after.nlink) + " names, " + std::to_string(here) +
                 " of them in this change set: the others are outside the diff");
    }
  }

  void symlink_target(const Change& change) {
    const std::string& target = change.after.link_target;
    if (target.starts_with('/'))
      add(change, FindingClass::Dangerous, "absolute-symlink", 0, target,
          "a symbolic link to an absolute path: it points into the host's filesystem, not the workspace");
    else if (target_leaves_workspace(change.path, target))
      add(change, FindingClass::Dangerous, "escaping-symlink", 0, target,
          "a symbolic link whose \"..\" components climb out of the workspace");
  }

  void new_executable(const Change& change) {
    const EntryState& before = change.before;
    bool was_executable = before.exists && S_ISREG(before.mode) && (before.mode & 0111);
    if (!(change.after.mode & 0111) || was_executable) return;
    std::string mode = octal_mode(change.after.mode);
    add(change, FindingClass::Scope, "new-executable", 0, mode, "a new executable file (mode " + mode + ")");
  }

  void too_large(const Change& change, const std::string& content) {
    uint64_t size = std::max<uint64_t>(change.after.size, content.size());
    bool over_cap = size > policy_.size_cap, over_bound = size > policy_.secret_scan_bound;
    if (!over_cap && !over_bound) return;
    std::string detail = "a file of " + std::to_string(size) + " bytes";
    if (over_cap) detail += ", over the review size cap of " + std::to_string(policy_.size_cap) + " bytes";
    if (over_bound)
      detail += "; only its first " + std::to_string(policy_.secret_scan_bound) + " bytes were scanned for secrets";
    add(change, FindingClass::Scope, "too-large", 0, std::to_string(size), detail);
  }

  void secrets(const Change& change, std::string_view text, BeforeText& before, bool link_target) {
    SecretFinder::Found found = secrets_.find(text);
    if (found.matches.empty()) return;
    bool binary = !link_target && ::memchr(text.data(), 0, std::min(text.size(), kBinarySniffLength)) != nullptr;
    bool by_line = !link_target && !binary;
    HostHolds host_holds(change, before, secrets_);
    std::map<std::tuple<std::string_view, int, std::string_view>, size_t> pending_of;  // (rule, line, bytes)
    bool overflow = found.truncated;
    size_t counted_to = 0;
    int line = 1;
    for (const Match& match : found.matches) {
      std::string_view bytes = text.substr(match.span.offset, match.span.length);
      if (by_line) {
        line += static_cast<int>(std::count(text.begin() + counted_to, text.begin() + match.span.offset, '\n'));
        counted_to = match.span.offset;
      }
      if (host_holds(bytes)) continue;  // not the session's doing
      auto key = std::make_tuple(match.rule, by_line ? line : 0, bytes);
      if (auto seen = pending_of.find(key); seen != pending_of.end()) {
        ++pending_[seen->second].occurrences;
        continue;
      }
      if (pending_of.size() == kMaxSecretsListedPerFile) {
        overflow = true;
        break;
      }
      std::string detail(match.description);
      if (link_target) detail += " in the symbolic link's target";
      if (binary) detail += " in binary content at byte " + std::to_string(match.span.offset);
      pending_of[key] = add(change, FindingClass::Secret, match.rule, std::get<1>(key), bytes, std::move(detail),
                            by_line ? "on this line" : "in this file");
    }
    if (overflow)
      add(change, FindingClass::Secret, "many-secrets", 0, text,
          "more secret matches than the scanner lists for one file (the first " +
              std::to_string(std::min(kMaxSecretsListedPerFile, pending_of.size())) +
              " are listed): this finding stands for the whole content");
  }

  // A dotenv file that assigns a value the host's version of it did not: the whole content is
  // the matched bytes (any change to it is a new finding), the line is the first new assignment.
  void env_file(const Change& change, std::string_view text, BeforeText& before) {
    if (!is_env_file_name(last_component(change.path))) return;
    std::unordered_set<std::string_view> old_lines;
    std::string_view old_text = change.kind == ChangeKind::Added ? std::string_view() : before.get();
    for (std::string_view line : split_lines(old_text)) old_lines.insert(line);
    std::vector<std::string_view> lines = split_lines(text);
    for (size_t i = 0; i < lines.size(); ++i)
      if (assigns_value(lines[i]) && !old_lines.contains(lines[i])) {
        add(change, FindingClass::Secret, "env-file", static_cast<int>(i + 1), text,
            "a dotenv file with a new assignment: such files hold credentials by convention");
        return;
      }
  }

  std::vector<Finding> finish() {
    std::vector<Finding> findings;
    findings.reserve(pending_.size());
    for (PendingFinding& pending : pending_) {
      if (pending.occurrences > 1)
        pending.finding.detail += " (" + std::to_string(pending.occurrences) + " times " +
                                  std::string(pending.repeat_phrase) + ")";
      findings.push_back(std::move(pending.finding));
    }
    std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
      return std::tie(a.path, a.line, a.rule, a.id) < std::tie(b.path, b.line, b.rule, b.id);
    });
    return findings;
  }

  const ChangeSet& changes_;
  const ReadContent& read_;
  const ScanPolicy& policy_;
  SecretFinder secrets_;
  std::vector<CompiledGlob> globs_;
  std::map<std::pair<dev_t, ino_t>, size_t> names_of_inode_;
  std::vector<PendingFinding> pending_;
  std::map<std::string, size_t> index_of_id_;
};

}  // namespace

const char* class_name(FindingClass finding_class) {
  switch (finding_class) {
    case FindingClass::Secret: return "secret";
    case FindingClass::Scope: return "scope";
    case FindingClass::Dangerous: return "dangerous";
  }
  return "?";
}

bool Finding::blocks() const { return finding_class != FindingClass::Scope; }

MaskedValue digest_masked_value(std::string_view value, uint64_t key) {
  MaskedKeys keys(key);
  MaskedValue digest;
  digest.length = value.size();
  digest.rolling = keys.rolling(value);
  digest.sha256_hex = sha256_hex(value);
  if (value.size() >= kMinMaskedValueLength) digest.head = keys.head(value.data());
  return digest;
}

std::vector<Finding> scan_changes(const ChangeSet& changes, const ReadContent& read, const ScanPolicy& policy) {
  return ChangeScanner(changes, read, policy).run();
}

}  // namespace cordon::review
