// review_scan: each rule found, its near miss not; ids stable and tied to the matched bytes;
// masked values found without ever showing; paths carried raw; the scan stays fast on many
// files, hostile repetitions and (disabled by default) a 50 MiB file.
#include "launcher/review/review_scan.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/sha256.h"

namespace cordon::review {
namespace {

constexpr mode_t kFile = S_IFREG | 0644;
constexpr mode_t kExecutable = S_IFREG | 0755;

const std::string kGithubToken = "ghp_" + std::string("aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A");  // 36 after ghp_
const std::string kOtherGithubToken = "ghp_" + std::string("Zz9yX8wV7uT6sR5qP4oN3mL2kJ1iH0gF9eD8");
const std::string kAwsKeyId = "AKIAIOSFODNN7EXAMPLE";
const std::string kJwt =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

std::string pem_block(const std::string& label) {
  return "-----BEGIN " + label +
         "-----\nMIIEowIBAAKCAQEA7bq9uZ0x1y2z3Q4w5e6r7t8y9u0i1o2p3a4s5d6f7g8h9j0k\n"
         "l1z2x3c4v5b6n7m8q9w0e1r2t3y4u5i6o7p8a9s0d1f2g3h4j5k6l7z8x9c0v1b2\n-----END " +
         label + "-----\n";
}

// A change set built in memory, with the content the reader hands out.
class Tree {
 public:
  void add_file(const std::string& path, const std::string& content, mode_t mode = kFile) {
    Change change = change_of(path, ChangeKind::Added);
    change.after = file_state(content, mode);
    after_[path] = content;
    changes_.push_back(change);
  }
  void modify_file(const std::string& path, const std::string& before, const std::string& after,
                   mode_t before_mode = kFile, mode_t after_mode = kFile) {
    Change change = change_of(path, ChangeKind::Modified);
    change.before = file_state(before, before_mode);
    change.after = file_state(after, after_mode);
    before_[path] = before;
    after_[path] = after;
    changes_.push_back(change);
  }
  void chmod_file(const std::string& path, const std::string& content, mode_t before_mode, mode_t after_mode) {
    Change change = change_of(path, ChangeKind::ModeOnly);
    change.before = file_state(content, before_mode);
    change.after = file_state(content, after_mode);
    before_[path] = after_[path] = content;
    changes_.push_back(change);
  }
  void delete_file(const std::string& path, const std::string& before) {
    Change change = change_of(path, ChangeKind::Deleted);
    change.before = file_state(before, kFile);
    before_[path] = before;
    changes_.push_back(change);
  }
  void add_symlink(const std::string& path, const std::string& target) {
    Change change = change_of(path, ChangeKind::Added);
    change.after = state(S_IFLNK | 0777, target.size());
    change.after.link_target = target;
    changes_.push_back(change);
  }
  void add_special(const std::string& path, mode_t mode) {
    Change change = change_of(path, ChangeKind::Added);
    change.after = state(mode, 0);
    changes_.push_back(change);
  }
  // An added file that is one of `nlink` names of inode `ino`.
  void add_hard_link(const std::string& path, ino_t ino, nlink_t nlink) {
    add_file(path, "shared\n");
    changes_.back().after.ino = ino;
    changes_.back().after.nlink = nlink;
  }

  std::vector<Finding> scan(const ScanPolicy& policy = {}) {
    std::sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) { return a.path < b.path; });
    ReadContent read = [this](const Change& change, Side side) {
      const auto& contents = side == Side::Before ? before_ : after_;
      auto it = contents.find(change.path);
      if (it == contents.end()) throw Error("no content for " + change.path);
      ++reads_;
      return it->second;
    };
    return scan_changes(changes_, read, policy);
  }
  size_t reads() const { return reads_; }

 private:
  static Change change_of(const std::string& path, ChangeKind kind) {
    Change change;
    change.path = path;
    change.kind = kind;
    return change;
  }
  EntryState state(mode_t mode, uint64_t size) {
    EntryState entry;
    entry.exists = true;
    entry.mode = mode;
    entry.size = size;
    entry.dev = 42;
    entry.ino = next_ino_++;
    entry.nlink = 1;
    return entry;
  }
  EntryState file_state(const std::string& content, mode_t mode) { return state(mode, content.size()); }

  ChangeSet changes_;
  std::map<std::string, std::string> before_, after_;
  ino_t next_ino_ = 1000;
  size_t reads_ = 0;
};

std::vector<Finding> scan_added(const std::string& path, const std::string& content, const ScanPolicy& policy = {}) {
  Tree tree;
  tree.add_file(path, content);
  return tree.scan(policy);
}

std::multiset<std::string> rules_of(const std::vector<Finding>& findings) {
  std::multiset<std::string> rules;
  for (const Finding& finding : findings) rules.insert(finding.rule);
  return rules;
}

const Finding* find_rule(const std::vector<Finding>& findings, const std::string& rule) {
  for (const Finding& finding : findings)
    if (finding.rule == rule) return &finding;
  return nullptr;
}

// The bytes a TokenRule's charset spec admits, in order ("A-C_" -> "ABC_").
std::string charset_members(const std::string& spec) {
  std::string members;
  for (size_t i = 0; i < spec.size(); ++i) {
    if (i + 2 < spec.size() && spec[i + 1] == '-') {
      for (int c = static_cast<unsigned char>(spec[i]); c <= static_cast<unsigned char>(spec[i + 2]); ++c)
        members += static_cast<char>(c);
      i += 2;
    } else {
      members += spec[i];
    }
  }
  return members;
}

// `length` bytes of the rule's charset, a digit first when it has digits.
std::string token_body(const TokenRule& rule, size_t length) {
  std::string members = charset_members(rule.charset);
  std::string body;
  uint32_t state = 12345;
  for (size_t i = 0; i < length; ++i) {
    state = state * 1103515245 + 12345;
    body += members[(state >> 16) % members.size()];
  }
  if (length > 0 && members.find('7') != std::string::npos) body[0] = '7';
  return body;
}

TEST(ReviewScanTokens, EachDefaultRuleMatchesAtItsMinimumAndNotOneShort) {
  for (const TokenRule& rule : default_token_rules()) {
    std::string token = rule.prefix + token_body(rule, rule.min_length);
    auto found = scan_added("config.txt", "value: \"" + token + "\"\n");
    ASSERT_EQ(found.size(), 1u) << rule.prefix;
    EXPECT_EQ(found[0].rule, rule.name) << rule.prefix;
    EXPECT_EQ(found[0].line, 1);
    EXPECT_EQ(found[0].detail, rule.description);
    EXPECT_TRUE(found[0].blocks());

    std::string short_token = rule.prefix + token_body(rule, rule.min_length - 1);
    EXPECT_TRUE(scan_added("config.txt", "value: \"" + short_token + "\"\n").empty()) << rule.prefix;
  }
}

TEST(ReviewScanTokens, AwsAccessKeyIdNeedsExactlySixteenAfterAWholeWordPrefix) {
  EXPECT_EQ(rules_of(scan_added("a.ini", "key=" + kAwsKeyId + "\n")), std::multiset<std::string>{"aws-access-key"});
  EXPECT_TRUE(scan_added("a.ini", "key=AKIAIOSFODNN7EXAMPL\n").empty());    // 15
  EXPECT_TRUE(scan_added("a.ini", "key=AKIAIOSFODNN7EXAMPLEX\n").empty());  // 17: a longer word
  EXPECT_TRUE(scan_added("a.ini", "key=XAKIAIOSFODNN7EXAMPLE\n").empty());  // inside a word
  EXPECT_TRUE(scan_added("a.ini", "key=AKIAiosfodnn7example\n").empty());   // lower case
  EXPECT_EQ(scan_added("a.ini", "ASIAIOSFODNN7EXAMPLE\n").size(), 1u);
}

TEST(ReviewScanTokens, GithubTokenLengthAndPlaceholders) {
  EXPECT_EQ(scan_added("x.sh", "export GH_TOKEN=" + kGithubToken + "\n").size(), 1u);
  EXPECT_TRUE(scan_added("x.sh", "export GH_TOKEN=ghp_xxxxxxxx\n").empty());
  EXPECT_TRUE(scan_added("x.sh", "export GH_TOKEN=" + kGithubToken.substr(0, 39) + "\n").empty());
  EXPECT_EQ(scan_added("x.sh", "github_pat_" + std::string(82, 'A') + "\n").size(), 1u);
  EXPECT_TRUE(scan_added("x.sh", "github_pat_" + std::string(81, 'A') + "\n").empty());
}

TEST(ReviewScanTokens, SlackNeedsADigitSoPlaceholdersPass) {
  EXPECT_TRUE(scan_added("bot.py", "TOKEN = 'xoxb-your-slack-bot-token-goes-here'\n").empty());
  auto found = scan_added("bot.py", "TOKEN = 'xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'\n");
  EXPECT_EQ(rules_of(found), std::multiset<std::string>{"slack-token"});
}

TEST(ReviewScanSecrets, PrivateKeyBlocksOfEveryKind) {
  for (const char* label : {"RSA PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY",
                            "PRIVATE KEY", "OPENSSH PRIVATE KEY", "PGP PRIVATE KEY BLOCK"}) {
    auto found = scan_added("keys/id", "intro\n" + pem_block(label));
    ASSERT_EQ(found.size(), 1u) << label;
    EXPECT_EQ(found[0].rule, "private-key");
    EXPECT_EQ(found[0].line, 2);
  }
  for (const char* label : {"PUBLIC KEY", "CERTIFICATE", "RSA PUBLIC KEY", "PGP PUBLIC KEY BLOCK"})
    EXPECT_TRUE(scan_added("keys/id.pub", pem_block(label)).empty()) << label;
}

TEST(ReviewScanSecrets, PuttyKeyFileVersionsTwoAndThree) {
  std::string body =
      " ssh-ed25519\nEncryption: none\nComment: me\nPublic-Lines: 2\nAAAA\nBBBB\nPrivate-Lines: 1\nCCCC\n"
      "Private-MAC: 0123456789abcdef\n";
  EXPECT_EQ(rules_of(scan_added("k.ppk", "PuTTY-User-Key-File-3:" + body)), std::multiset<std::string>{"private-key"});
  EXPECT_EQ(scan_added("k.ppk", "PuTTY-User-Key-File-2:" + body).size(), 1u);
  EXPECT_TRUE(scan_added("README", "PuTTY-User-Key-File-<version> is the header\n").empty());
}

TEST(ReviewScanSecrets, AwsSecretKeyAssignmentsButNotReferences) {
  const std::string secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  for (const std::string& text :
       {"[default]\naws_secret_access_key = " + secret + "\n", "{\"AWS_SECRET_ACCESS_KEY\": \"" + secret + "\"}\n",
        "export AWS_SECRET_ACCESS_KEY='" + secret + "'\n", "aws_secret_access_key: " + secret + "\n"}) {
    auto found = scan_added("creds", text);
    ASSERT_EQ(found.size(), 1u) << text;
    EXPECT_EQ(found[0].rule, "aws-secret-key");
  }
  EXPECT_TRUE(scan_added("ci.sh", "aws_secret_access_key = ${AWS_SECRET}\n").empty());
  EXPECT_TRUE(scan_added("ci.sh", "aws_secret_access_key = " + secret.substr(1) + "\n").empty());
  EXPECT_TRUE(scan_added("doc.md", "Set aws_secret_access_key in your profile.\n").empty());
}

TEST(ReviewScanSecrets, GcpServiceAccountIsOneFindingNotTwo) {
  std::string pem = "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n";
  std::string key =
      "{\n  \"type\": \"service_account\",\n  \"project_id\": \"p\",\n  \"private_key_id\": \"abc\",\n"
      "  \"private_key\": \"" +
      pem + "\",\n  \"client_email\": \"x@p.iam.gserviceaccount.com\"\n}\n";
  auto found = scan_added("sa.json", key);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, "gcp-service-account");
  EXPECT_EQ(found[0].line, 5);
  EXPECT_TRUE(
      scan_added("sa.json", "{\"type\": \"service_account\", \"client_email\": \"x@p.iam.gserviceaccount.com\"}")
          .empty());
  EXPECT_TRUE(scan_added("user.json", "{\"type\": \"authorized_user\", \"private_key\": \"none\"}").empty());
  // Without the type, the key block inside is still a private key.
  EXPECT_EQ(rules_of(scan_added("other.json", "{\"private_key\": \"" + pem + "\"}")),
            std::multiset<std::string>{"private-key"});
}

TEST(ReviewScanSecrets, JwtNeedsThreeSegments) {
  EXPECT_EQ(rules_of(scan_added("t.http", "Authorization: Bearer " + kJwt + "\n")), std::multiset<std::string>{"jwt"});
  std::string unsigned_token = kJwt.substr(0, kJwt.rfind('.') + 1);
  EXPECT_TRUE(scan_added("t.http", "Authorization: Bearer " + unsigned_token + "\n").empty());
  EXPECT_TRUE(scan_added("t.txt", "eyJhbGciOiJIUzI1NiJ9 alone\n").empty());
}

TEST(ReviewScanSecrets, DotenvFilesByNameButNotTemplates) {
  EXPECT_EQ(rules_of(scan_added(".env", "# local\nAPI_KEY=abc123\n")), std::multiset<std::string>{"env-file"});
  EXPECT_EQ(scan_added(".env", "# local\nAPI_KEY=abc123\n")[0].line, 2);
  EXPECT_EQ(rules_of(scan_added("deploy/prod.env", "export DB_PASSWORD=\"hunter22\"\n")),
            std::multiset<std::string>{"env-file"});
  EXPECT_EQ(scan_added(".env.local", "X=1\n").size(), 1u);
  EXPECT_TRUE(scan_added(".env.example", "API_KEY=changeme\n").empty());
  EXPECT_TRUE(scan_added("app/.env.sample", "API_KEY=changeme\n").empty());
  EXPECT_TRUE(scan_added(".env", "# nothing set\nAPI_KEY=\nOTHER=\"\"\n").empty());
  EXPECT_TRUE(scan_added("environment.txt", "API_KEY=abc123\n").empty());
  // A template still gets its tokens found.
  EXPECT_EQ(rules_of(scan_added(".env.example", "GH_TOKEN=" + kGithubToken + "\n")),
            std::multiset<std::string>{"github-token"});
}

TEST(ReviewScanSecrets, DotenvEditsReportOnlyNewAssignments) {
  Tree removed;
  removed.modify_file(".env", "A=1\nB=2\n", "A=1\n");
  EXPECT_TRUE(removed.scan().empty());
  Tree added;
  added.modify_file(".env", "A=1\nB=2\n", "A=1\nB=2\nC=3\n");
  auto found = added.scan();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].line, 3);
}

TEST(ReviewScanSecrets, PreexistingBytesAreNotTheSessionsDoing) {
  std::string before = "# config\ntoken = " + kGithubToken + "\n";
  Tree kept;
  kept.modify_file("config.toml", before, before + "verbose = true\n");
  EXPECT_TRUE(kept.scan().empty());

  Tree moved;  // the same token on another line is still the host's
  moved.modify_file("config.toml", before, "verbose = true\n" + before);
  EXPECT_TRUE(moved.scan().empty());

  Tree replaced;
  replaced.modify_file("config.toml", before, "# config\ntoken = " + kOtherGithubToken + "\n");
  auto found = replaced.scan();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].line, 2);

  Tree added;  // an added file reports everything
  added.add_file("config.toml", before);
  EXPECT_EQ(added.scan().size(), 1u);
}

std::string aws_key_id(size_t n) {  // AKIA + 16 distinct upper-case characters per n
  std::string id = "AKIA";
  for (int i = 0; i < 16; ++i, n /= 26) id += static_cast<char>('A' + n % 26);
  return id;
}

TEST(ReviewScanSecrets, ManyPreexistingTokensAndOneNew) {
  std::string before;
  for (size_t i = 0; i < 300; ++i) before += "key" + std::to_string(i) + " = " + aws_key_id(i) + "\n";
  Tree tree;
  tree.modify_file("fixtures/keys.txt", before, before + "new = " + aws_key_id(99999) + "\n");
  auto found = tree.scan();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].line, 301);
}

TEST(ReviewScanSecrets, PastAThousandSecretsOneFindingStandsForTheFile) {
  std::string content;
  for (size_t i = 0; i < 1200; ++i) content += aws_key_id(i) + "\n";
  auto found = scan_added("dump.txt", content);
  EXPECT_EQ(found.size(), 1001u);
  const Finding* many = find_rule(found, "many-secrets");
  ASSERT_NE(many, nullptr);
  EXPECT_TRUE(many->blocks());
  EXPECT_EQ(many->line, 0);
  // Past the match bound the search stops, and the same finding says so.
  std::string flood;
  while (flood.size() < 70 * 1024 * 21) flood += kAwsKeyId + "\n";
  found = scan_added("flood.txt", flood);
  EXPECT_NE(find_rule(found, "many-secrets"), nullptr);
}

TEST(ReviewScanSecrets, BeforeSideIsReadOnlyWhenAMatchNeedsIt) {
  Tree tree;
  tree.modify_file("a.txt", "old\n", "new\n");
  tree.modify_file("b.txt", "old " + kAwsKeyId + "\n", "new " + kAwsKeyId + "\n");
  EXPECT_TRUE(tree.scan().empty());
  EXPECT_EQ(tree.reads(), 3u);  // both after sides, one before side
}

TEST(ReviewScanSecrets, BinaryContentHasNoLineButSaysWhere) {
  std::string binary(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0",
      10);
  binary += std::string(100, '\0') + "\n\n" + kGithubToken + std::string(20, '\0');
  auto found = scan_added("bin/tool", binary);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].line, 0);
  EXPECT_NE(found[0].detail.find("binary content at byte 112"), std::string::npos) << found[0].detail;
}

TEST(ReviewScanSecrets, RepeatsOnOneLineAreOneFinding) {
  auto found = scan_added("x", kGithubToken + " " + kGithubToken + "\n" + kGithubToken + "\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].line, 1);
  EXPECT_NE(found[0].detail.find("(2 times on this line)"), std::string::npos);
  EXPECT_EQ(found[1].line, 2);
  EXPECT_NE(found[0].id, found[1].id);
}

TEST(ReviewScanSecrets, SymlinkTargetsAreScanned) {
  Tree tree;
  tree.add_symlink("token", kGithubToken);
  auto found = tree.scan();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, "github-token");
  EXPECT_EQ(found[0].line, 0);
  EXPECT_NE(found[0].detail.find("symbolic link"), std::string::npos);
}

TEST(ReviewScanIds, StableAcrossScansAndTiedToTheMatchedBytes) {
  auto scan_with = [](const std::string& token) {
    Tree tree;
    tree.add_file("a/config", "x\ntoken=" + token + "\n");
    tree.add_file(".github/workflows/ci.yml", "on: push\n");
    tree.add_symlink("a/out", "/etc");
    return tree.scan();
  };
  auto first = scan_with(kGithubToken), second = scan_with(kGithubToken), changed = scan_with(kOtherGithubToken);
  ASSERT_EQ(first.size(), 3u);
  ASSERT_EQ(second.size(), 3u);
  std::set<std::string> ids;
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].id, second[i].id);
    EXPECT_EQ(first[i].id.size(), 12u);
    EXPECT_EQ(first[i].id.find_first_not_of("0123456789abcdef"), std::string::npos);
    ids.insert(first[i].id);
  }
  EXPECT_EQ(ids.size(), 3u);
  const Finding* before = find_rule(first, "github-token");
  const Finding* after = find_rule(changed, "github-token");
  ASSERT_TRUE(before && after);
  EXPECT_NE(before->id, after->id);
  EXPECT_EQ(find_rule(first, "ci-definition")->id, find_rule(changed, "ci-definition")->id);
}

TEST(ReviewScanIds, OutputSortedByPathLineRuleWithUniqueIds) {
  Tree tree;
  tree.add_file("b", kAwsKeyId + "\n" + kGithubToken + "\n");
  tree.add_file("a", "\n\n" + kJwt + "\n" + kAwsKeyId + " " + kGithubToken + "\n");
  tree.add_file("Makefile", "all:\n", kExecutable);
  auto found = tree.scan();
  for (size_t i = 1; i < found.size(); ++i) {
    auto key = [](const Finding& f) { return std::tie(f.path, f.line, f.rule); };
    EXPECT_LE(key(found[i - 1]), key(found[i]));
  }
  std::set<std::string> ids;
  for (const Finding& f : found) ids.insert(f.id);
  EXPECT_EQ(ids.size(), found.size());
  EXPECT_EQ(found.size(), 7u);  // Makefile: build-script, new-executable; a: jwt, aws, github; b: aws, github
}

class ReviewScanMasked : public ::testing::Test {
 protected:
  static constexpr uint64_t kKey = 0x5eedf00dcafe1234ULL;
  const std::string value_ = "s3cr3t-Value-For-Test-0123456789";

  ScanPolicy policy() const {
    ScanPolicy policy;
    policy.masked_key = kKey;
    MaskedValue digest = digest_masked_value(value_, kKey);
    digest.label = "MY_SERVICE_TOKEN";
    policy.masked_values.push_back(digest);
    policy.masked_values.push_back(digest_masked_value("short12", kKey));  // under 8 bytes: ignored
    policy.masked_values.push_back(digest_masked_value("another-value-of-same-length-xyz", kKey));
    return policy;
  }

  static std::string filler(size_t lines) {
    std::string text;
    for (size_t i = 0; i < lines; ++i) text += "line " + std::to_string(i) + " of ordinary text, nothing here\n";
    return text;
  }
};

TEST_F(ReviewScanMasked, FoundInTheMiddleOfALineOfALargerFile) {
  std::string content = filler(200) + "url = https://api.example.com/?key=" + value_ + "&x=1\n" + filler(200);
  auto found = scan_added("src/client.py", content, policy());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, "masked-env-value");
  EXPECT_EQ(found[0].line, 201);
  EXPECT_EQ(found[0].detail, "the value of the masked environment variable MY_SERVICE_TOKEN");
  EXPECT_TRUE(found[0].blocks());
  for (const std::string& field : {found[0].id, found[0].rule, found[0].path, found[0].detail}) {
    EXPECT_EQ(field.find(value_), std::string::npos);
    EXPECT_EQ(field.find(value_.substr(0, 12)), std::string::npos);
    EXPECT_EQ(field.find(sha256_hex(value_).substr(0, 12)), std::string::npos);
  }
}

TEST_F(ReviewScanMasked, AtTheVeryStartAndEnd) {
  EXPECT_EQ(scan_added("a", value_, policy()).size(), 1u);
  EXPECT_EQ(scan_added("a", "x" + value_, policy()).size(), 1u);
  EXPECT_EQ(scan_added("a", value_ + "x", policy()).size(), 1u);
}

TEST_F(ReviewScanMasked, AbsentOrAlmostIsNotReported) {
  std::string almost = value_;
  almost.back() = '8';
  EXPECT_TRUE(scan_added("src/client.py", filler(100) + almost + "\n", policy()).empty());
  EXPECT_TRUE(scan_added("src/client.py", filler(100) + value_.substr(1) + "\n", policy()).empty());
  EXPECT_TRUE(scan_added("x", "short12 and short12\n", policy()).empty());
}

TEST_F(ReviewScanMasked, AnotherKeyFindsNothing) {
  ScanPolicy other = policy();
  other.masked_key = kKey + 1;
  EXPECT_TRUE(scan_added("x", value_ + "\n", other).empty());
}

TEST_F(ReviewScanMasked, AlreadyInTheHostsVersionIsNotReported) {
  Tree tree;
  tree.modify_file("settings.ini", "key=" + value_ + "\n", "key=" + value_ + "\nmore=1\n");
  EXPECT_TRUE(tree.scan(policy()).empty());
}

TEST_F(ReviewScanMasked, AValueThatIsAlsoATokenIsOneFinding) {
  ScanPolicy with_token = policy();
  with_token.masked_values.push_back(digest_masked_value(kGithubToken, kKey));
  auto found = scan_added("x", "t=" + kGithubToken + "\n", with_token);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, "masked-env-value");
}

TEST(ReviewScanPaths, NamesWithNewlinesAndEscapesCarriedRaw) {
  std::string path = std::string("dir\nwith\x1b[31mred/id\rrsa\x01") + "\xff";
  Tree tree;
  tree.add_file(path, pem_block("OPENSSH PRIVATE KEY"));
  auto found = tree.scan();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].path, path);
  EXPECT_EQ(found[0].detail.find('\x1b'), std::string::npos);
}

TEST(ReviewScanDangerous, SymlinksThatLeaveTheWorkspace) {
  Tree tree;
  tree.add_symlink("a/link", "../../x");    // climbs above the root
  tree.add_symlink("a/b/link", "../x");     // a/x
  tree.add_symlink("a/c/link", "../../y");  // y at the root
  tree.add_symlink("top", "..");
  tree.add_symlink("d/deep", "e/../../..");
  tree.add_symlink("abs", "/etc/passwd");
  tree.add_symlink("ok", "./a/./b//c");
  auto found = tree.scan();
  std::map<std::string, std::string> by_path;
  for (const Finding& f : found) by_path[f.path] = f.rule;
  EXPECT_EQ(by_path, (std::map<std::string, std::string>{{"a/link", "escaping-symlink"},
                                                         {"abs", "absolute-symlink"},
                                                         {"d/deep", "escaping-symlink"},
                                                         {"top", "escaping-symlink"}}));
  for (const Finding& f : found) {
    EXPECT_EQ(f.finding_class, FindingClass::Dangerous);
    EXPECT_TRUE(f.blocks());
    EXPECT_EQ(f.detail.find("/etc/passwd"), std::string::npos);
  }
}

TEST(ReviewScanDangerous, SpecialFilesAndSetIdBits) {
  Tree tree;
  tree.add_special("fifo", S_IFIFO | 0644);
  tree.add_special("sock", S_IFSOCK | 0755);
  tree.add_special("tty", S_IFCHR | 0600);
  tree.add_special("disk", S_IFBLK | 0600);
  tree.add_file("su", "#!/bin/sh\n", S_IFREG | 04755);
  tree.add_file("sg", "#!/bin/sh\n", S_IFREG | 02711);
  tree.add_file("plain", "#!/bin/sh\n", S_IFREG | 0755);
  std::multiset<std::string> dangerous;
  for (const Finding& f : tree.scan())
    if (f.finding_class == FindingClass::Dangerous) dangerous.insert(f.path + ":" + f.rule);
  EXPECT_EQ(dangerous, (std::multiset<std::string>{"disk:block-device", "fifo:fifo", "sg:setgid", "sock:socket",
                                                   "su:setuid", "tty:char-device"}));
}

TEST(ReviewScanDangerous, SetuidByChmodAlone) {
  Tree tree;
  tree.chmod_file("bin/tool", "x", S_IFREG | 0755, S_IFREG | 04755);
  EXPECT_EQ(rules_of(tree.scan()), std::multiset<std::string>{"setuid"});
}

TEST(ReviewScanDangerous, HardLinksToNamesOutsideTheChangeSet) {
  Tree inside;
  inside.add_hard_link("a", 7, 2);
  inside.add_hard_link("b", 7, 2);
  EXPECT_TRUE(inside.scan().empty());

  Tree outside;
  outside.add_hard_link("a", 7, 3);
  outside.add_hard_link("b", 7, 3);
  outside.add_hard_link("c", 8, 2);
  auto found = outside.scan();
  EXPECT_EQ(rules_of(found), (std::multiset<std::string>{"hard-link", "hard-link", "hard-link"}));
  EXPECT_NE(found[0].detail.find("3 names, 2 of them"), std::string::npos) << found[0].detail;
}

TEST(ReviewScanScope, PathsByRule) {
  const std::map<std::string, std::string> expected = {
      {".git/config", "git-metadata"},
      {"vendor/lib/.git/HEAD", "git-metadata"},
      {"sub/.git", "git-metadata"},
      {".git/hooks/pre-commit", "git-hooks"},
      {"sub/.git/hooks/post-checkout", "git-hooks"},
      {".husky/pre-push", "git-hooks"},
      {".pre-commit-config.yaml", "git-hooks"},
      {"lefthook.yml", "git-hooks"},
      {".gitmodules", "git-config"},
      {".github/workflows/ci.yml", "ci-definition"},
      {".github/actions/setup/action.yml", "ci-definition"},
      {".gitlab-ci.yml", "ci-definition"},
      {".circleci/config.yml", "ci-definition"},
      {".travis.yml", "ci-definition"},
      {"azure-pipelines.yml", "ci-definition"},
      {".buildkite/pipeline.yml", "ci-definition"},
      {"bitbucket-pipelines.yml", "ci-definition"},
      {"Jenkinsfile", "ci-definition"},
      {".drone.yml", "ci-definition"},
      {"Makefile", "build-script"},
      {"src/GNUmakefile", "build-script"},
      {"lib/makefile", "build-script"},
      {"rules/common.mk", "build-script"},
      {"CMakeLists.txt", "build-script"},
      {"cmake/Find.cmake", "build-script"},
      {"configure", "build-script"},
      {"meson.build", "build-script"},
      {"setup.py", "build-script"},
      {"build.rs", "build-script"},
      {"package.json", "package-manifest"},
      {"setup.cfg", "package-manifest"},
      {"pyproject.toml", "package-manifest"},
      {"crates/x/Cargo.toml", "package-manifest"},
      {".envrc", "tool-config"},
      {".npmrc", "tool-config"},
      {".yarnrc.yml", "tool-config"},
      {".vscode/settings.json", "tool-config"},
      {".devcontainer/devcontainer.json", "tool-config"},
      {".idea/workspace.xml", "tool-config"},
      {"Dockerfile", "container-build"},
      {"docker/Dockerfile.dev", "container-build"},
      {"docker-compose.override.yml", "container-build"},
  };
  for (const auto& [path, rule] : expected) {
    auto found = scan_added(path, "content\n");
    ASSERT_EQ(found.size(), 1u) << path;
    EXPECT_EQ(found[0].rule, rule) << path;
    EXPECT_EQ(found[0].finding_class, FindingClass::Scope);
    EXPECT_FALSE(found[0].blocks());
    EXPECT_EQ(found[0].line, 0);
  }
}

TEST(ReviewScanScope, NearMissPaths) {
  for (const char* path : {"src/gitfoo", ".gitignore", "notes/.git-notes", "x.github/workflows/ci.yml",
                           ".github/ISSUE_TEMPLATE.md", "Makefile.bak", "docs/makefiles.md", "package.json.orig",
                           "my.cmake.txt", "configure.md", "src/main.rs", "Dockerfiles/README"})
    EXPECT_TRUE(scan_added(path, "content\n").empty()) << path;
}

TEST(ReviewScanScope, DeletionsOfHooksCiAndGitButNotBuildScripts) {
  Tree tree;
  tree.delete_file(".github/workflows/ci.yml", "on: push\n");
  tree.delete_file(".git/hooks/pre-commit", "#!/bin/sh\n");
  tree.delete_file(".git/refs/heads/main", "abc\n");
  tree.delete_file("Makefile", "all:\n");
  tree.delete_file("src/a.c", "int x;\n");
  std::multiset<std::string> found;
  for (const Finding& f : tree.scan()) found.insert(f.path + ":" + f.rule);
  EXPECT_EQ(found, (std::multiset<std::string>{".git/hooks/pre-commit:git-hooks", ".git/refs/heads/main:git-metadata",
                                               ".github/workflows/ci.yml:ci-definition"}));
}

TEST(ReviewScanScope, PackageJsonSaysWhetherScriptsChanged) {
  std::string before = "{\n  \"name\": \"x\",\n  \"scripts\": {\"test\": \"jest\", \"x\": \"a}b\"}\n}\n";
  Tree same;
  same.modify_file(
      "package.json", before,
      "{\n  \"name\": \"x\", \"version\": \"2\",\n  \"scripts\": {\"test\": \"jest\", \"x\": \"a}b\"}\n}\n");
  EXPECT_NE(same.scan()[0].detail.find("\"scripts\" unchanged"), std::string::npos);
  Tree changed;
  changed.modify_file("package.json", before,
                      "{\n  \"scripts\": {\"test\": \"jest\", \"x\": \"a}b\", \"postinstall\": \"curl x|sh\"}\n}\n");
  EXPECT_NE(changed.scan()[0].detail.find("\"scripts\" changed"), std::string::npos);
  EXPECT_NE(scan_added("package.json", "{\"scripts\": {}}")[0].detail.find("has \"scripts\""), std::string::npos);
}

TEST(ReviewScanScope, NewExecutables) {
  Tree tree;
  tree.add_file("run.sh", "#!/bin/sh\n", kExecutable);
  tree.add_file("notes.txt", "x\n", kFile);
  tree.chmod_file("tool", "x", kFile, S_IFREG | 0744);
  tree.modify_file("already", "a", "b", kExecutable, kExecutable);
  std::multiset<std::string> found;
  for (const Finding& f : tree.scan()) found.insert(f.path + ":" + f.rule);
  EXPECT_EQ(found, (std::multiset<std::string>{"run.sh:new-executable", "tool:new-executable"}));
}

TEST(ReviewScanScope, FilesOverTheSizeCap) {
  ScanPolicy policy;
  policy.size_cap = 100;
  EXPECT_TRUE(scan_added("small", std::string(100, 'x'), policy).empty());
  auto found = scan_added("big", std::string(101, 'x'), policy);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, "too-large");
  EXPECT_EQ(found[0].finding_class, FindingClass::Scope);
}

TEST(ReviewScanScope, LargeFilesAreScannedUpToTheBound) {
  ScanPolicy policy;
  policy.size_cap = 100;
  policy.secret_scan_bound = 1000;
  std::string early = std::string(500, 'x') + "\n" + kGithubToken + "\n";
  EXPECT_EQ(rules_of(scan_added("big", early + std::string(2000, 'y'), policy)),
            (std::multiset<std::string>{"github-token", "too-large"}));
  auto late = scan_added("big", std::string(1500, 'x') + "\n" + kGithubToken + "\n", policy);
  EXPECT_EQ(rules_of(late), std::multiset<std::string>{"too-large"});
  EXPECT_NE(late[0].detail.find("only its first 1000 bytes"), std::string::npos);
}

TEST(ReviewScanConfig, AddedTokenRule) {
  ScanPolicy policy;
  policy.token_rules.push_back({"acme-token", "acme_", "a-f0-9", 32, 32, "an ACME deploy token"});
  auto found = scan_added("deploy.yml", "token: acme_0123456789abcdef0123456789abcdef\n", policy);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, "acme-token");
  EXPECT_EQ(found[0].detail, "an ACME deploy token");
  EXPECT_TRUE(scan_added("deploy.yml", "token: acme_0123456789abcdef0123456789abcdeg\n", policy).empty());
  EXPECT_TRUE(scan_added("deploy.yml", "token: acme_0123456789abcdef0123456789abcde\n", policy).empty());
}

TEST(ReviewScanConfig, InvalidTokenRulesAreConfigErrors) {
  for (const TokenRule& rule : {TokenRule{"r", "ab", "a-z", 4, 8, "d"}, TokenRule{"r", "abc", "z-a", 4, 8, "d"},
                                TokenRule{"r", "abc", "", 4, 8, "d"}, TokenRule{"r", "abc", "a-z", 8, 4, "d"},
                                TokenRule{"r", "abc", "a-z", 0, 4, "d"}, TokenRule{"", "abc", "a-z", 4, 8, "d"}}) {
    ScanPolicy policy;
    policy.token_rules = {rule};
    Tree tree;
    tree.add_file("x", "y");
    EXPECT_THROW(tree.scan(policy), ConfigError) << rule.prefix << " " << rule.charset;
  }
}

TEST(ReviewScanConfig, AddedScopeGlob) {
  ScanPolicy policy;
  policy.scope_globs.push_back("deploy/*.sh");
  policy.scope_globs.push_back("*.tf");
  Tree tree;
  tree.add_file("deploy/run.sh", "x");
  tree.add_file("deploy/sub/run.sh", "x");
  tree.add_file("other/deploy/run.sh", "x");
  tree.add_file("infra/main.tf", "x");
  tree.delete_file("deploy/old.sh", "x");
  std::multiset<std::string> found;
  for (const Finding& f : tree.scan(policy)) found.insert(f.path + ":" + f.rule);
  EXPECT_EQ(found, (std::multiset<std::string>{"deploy/old.sh:scope-glob", "deploy/run.sh:scope-glob",
                                               "infra/main.tf:scope-glob"}));
  auto one = scan_added("deploy/run.sh", "x", policy);
  EXPECT_NE(one[0].detail.find("deploy/*.sh"), std::string::npos);
}

TEST(ReviewScanGlob, Syntax) {
  EXPECT_TRUE(scope_glob_matches("Makefile", "a/b/Makefile"));
  EXPECT_FALSE(scope_glob_matches("Makefile", "a/Makefile/x"));
  EXPECT_TRUE(scope_glob_matches(".git/", "a/.git/objects/ab/cd"));
  EXPECT_FALSE(scope_glob_matches(".git/", "a/.git"));
  EXPECT_TRUE(scope_glob_matches("docs/*.md", "docs/a.md"));
  EXPECT_FALSE(scope_glob_matches("docs/*.md", "docs/x/a.md"));
  EXPECT_TRUE(scope_glob_matches("docs/**/*.md", "docs/x/y/a.md"));
  EXPECT_TRUE(scope_glob_matches("docs/**/*.md", "docs/a.md"));
  EXPECT_TRUE(scope_glob_matches("/top.txt", "top.txt"));
  EXPECT_FALSE(scope_glob_matches("/top.txt", "a/top.txt"));
  EXPECT_TRUE(scope_glob_matches("file[0-9].txt", "x/file7.txt"));
  EXPECT_FALSE(scope_glob_matches("file[!0-9].txt", "file7.txt"));
  EXPECT_TRUE(scope_glob_matches("file?.txt", "filea.txt"));
  EXPECT_FALSE(scope_glob_matches("a?b", "a/b"));
  EXPECT_TRUE(scope_glob_matches("odd[name", "odd[name"));
  EXPECT_TRUE(scope_glob_matches("new\nline", "d/new\nline"));
}

TEST(ReviewScanFinding, ClassNamesAndBlocking) {
  EXPECT_STREQ(class_name(FindingClass::Secret), "secret");
  EXPECT_STREQ(class_name(FindingClass::Scope), "scope");
  EXPECT_STREQ(class_name(FindingClass::Dangerous), "dangerous");
  Finding finding;
  finding.finding_class = FindingClass::Scope;
  EXPECT_FALSE(finding.blocks());
  finding.finding_class = FindingClass::Dangerous;
  EXPECT_TRUE(finding.blocks());
}

// ---- Performance sanity: prints times, never asserts on them.

std::string source_like(size_t index, size_t bytes) {
  std::string text;
  while (text.size() < bytes)
    text += "static int handler_" + std::to_string(index) + "_" + std::to_string(text.size()) +
            "(struct request* req) { return req->id ^ 0x5f3759df; }  // AKIA? eyJ- no, ghp_ short\n";
  return text;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(ReviewScanPerformance, ThousandFilesOfTenKibibytes) {
  Tree tree;
  for (size_t i = 0; i < 1000; ++i)
    tree.add_file("src/dir" + std::to_string(i % 37) + "/file" + std::to_string(i) + ".c", source_like(i, 10 * 1024));
  ScanPolicy policy;
  policy.masked_key = 99;
  for (const char* value : {"masked-value-one-0001", "masked-value-two-000002", "another-masked-secret-value-3"})
    policy.masked_values.push_back(digest_masked_value(value, 99));
  auto start = std::chrono::steady_clock::now();
  auto found = tree.scan(policy);
  std::cout << "[ perf     ] 1000 files x 10 KiB, 3 masked values: " << seconds_since(start) * 1000 << " ms\n";
  EXPECT_TRUE(found.empty());
}

TEST(ReviewScanPerformance, HostileRepetitionsStayLinear) {
  for (const std::string& unit :
       {std::string("-----BEGIN RSA PRIVATE KEY-----"), std::string("xoxb-"), std::string("eyJ"),
        std::string("eyJhbGciOiJIUzI1NiJ9."), std::string("ghp_"), std::string("PuTTY-User-Key-File-2:"),
        std::string("\"private_key\": \""), std::string("aws_secret_access_key="), std::string("glpat-")}) {
    std::string content;
    while (content.size() < 4 * 1024 * 1024) content += unit;
    auto start = std::chrono::steady_clock::now();
    scan_added("hostile", content);
    std::cout << "[ perf     ] 4 MiB of \"" << unit << "\": " << seconds_since(start) * 1000 << " ms\n";
  }
}

// Run with --gtest_also_run_disabled_tests: 50 MiB is too slow for every run.
TEST(ReviewScanPerformance, DISABLED_FiftyMebibyteFile) {
  std::string content = source_like(1, 50 * 1024 * 1024);
  content += kGithubToken + "\n";
  ScanPolicy policy;
  policy.masked_key = 7;
  policy.masked_values.push_back(digest_masked_value("a-masked-value-of-some-length", 7));
  auto start = std::chrono::steady_clock::now();
  auto found = scan_added("big.c", content, policy);
  std::cout << "[ perf     ] 50 MiB file, 1 masked value: " << seconds_since(start) * 1000 << " ms\n";
  EXPECT_EQ(rules_of(found), (std::multiset<std::string>{"github-token", "too-large"}));
}

}  // namespace
}  // namespace cordon::review
