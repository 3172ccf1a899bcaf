#include "common/landlock_rules.h"

#include <gtest/gtest.h>

#include "common/landlock_abi.h"

namespace cordon::landlock {
namespace {

using namespace std::string_literals;

LandlockRules sample() {
  return {7,
          handled_fs_for_abi(7),
          scopes_for_abi(7),
          {{"/", kAccessFsReadDir},
           {"/usr", kAccessFsReadFile | kAccessFsReadDir | kAccessFsExecute},
           {"/work/a space", 0x77bf},
           {"/work/new\nline", kAccessFsReadFile},
           {"/work/\xff\xfe not utf-8", kAccessFsReadFile},
           {"/work/tab\tand\\backslash and \"quote\"", kAccessFsWriteFile},
           {"/work/rule 3 /fake", kAccessFsReadFile},
           {"/dev/null", 0xc006}}};
}

// The problem parse_rules() reports for `text`, or "accepted".
std::string rejection(const std::string& text) {
  std::string problem;
  if (parse_rules(text, &problem)) return "accepted";
  EXPECT_EQ(problem.rfind("Landlock rules: ", 0), 0u) << problem;
  return problem;
}

const std::string kHeader = "abi 7\0handled_fs ffff\0scoped 3\0"s;

TEST(LandlockRules, RendersNulTerminatedRecords) {
  const LandlockRules rules{2, 0x3fff, 0, {{"/usr", 0xd}, {"/a b\nc", 0x37bf}}};
  EXPECT_EQ(render_rules(rules), "abi 2\0handled_fs 3fff\0scoped 0\0rule d /usr\0rule 37bf /a b\nc\0"s);
  EXPECT_EQ(render_rules({2, 0x3fff, 0, {}}), "abi 2\0handled_fs 3fff\0scoped 0\0"s);
}

TEST(LandlockRules, RoundTripsAnyPathByteButNul) {
  const LandlockRules rules = sample();
  std::string problem = "untouched";
  auto parsed = parse_rules(render_rules(rules), &problem);
  ASSERT_TRUE(parsed) << problem;
  EXPECT_EQ(*parsed, rules);
  EXPECT_EQ(problem, "untouched");
  EXPECT_EQ(parsed->rules[3].path, "/work/new\nline");
  EXPECT_EQ(parsed->rules[6].path, "/work/rule 3 /fake");
  EXPECT_EQ(render_rules(*parsed), render_rules(rules));
  // Every byte from 1 to 255 but '/' in one component.
  std::string every = "/";
  for (int c = 1; c < 256; ++c)
    if (c != '/') every += static_cast<char>(c);
  const LandlockRules hostile{2, 0x3fff, 0, {{every, kAccessFsReadFile}}};
  auto back = parse_rules(render_rules(hostile), nullptr);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, hostile);
}

TEST(LandlockRules, RejectsAMalformedHeader) {
  EXPECT_NE(rejection("").find("no terminating NUL"), std::string::npos);
  EXPECT_NE(rejection("abi 7\0handled_fs ffff\0scoped 3"s).find("no terminating NUL"), std::string::npos);
  EXPECT_NE(rejection("abi 7\0handled_fs ffff\0"s).find("header incomplete"), std::string::npos);
  EXPECT_NE(rejection("handled_fs ffff\0abi 7\0scoped 3\0"s).find("record 1"), std::string::npos);
  for (const char* abi : {"abi 0", "abi 07", "abi 1000", "abi -1", "abi", "abi  7", "abi 7 ", "ABI 7", "abi 0x7"})
    EXPECT_NE(rejection(std::string(abi) + "\0handled_fs ffff\0scoped 3\0"s).find("record 1"), std::string::npos)
        << abi;
  for (const char* handled : {"handled_fs 0", "handled_fs 0x3fff", "handled_fs 3FFF", "handled_fs 03fff",
                              "handled_fs 10000", "handled_fs", "handled_fs 1ffffffffffffffff"})
    EXPECT_NE(rejection("abi 7\0"s + handled + "\0scoped 3\0"s).find("record 2"), std::string::npos) << handled;
  for (const char* scoped : {"scoped 4", "scoped", "scoped 03", "scope 3"})
    EXPECT_NE(rejection("abi 7\0handled_fs ffff\0"s + scoped + "\0"s).find("record 3"), std::string::npos) << scoped;
}

TEST(LandlockRules, RejectsAMalformedRule) {
  auto rule_problem = [](const std::string& record) { return rejection(kHeader + record + '\0'); };
  EXPECT_EQ(rule_problem("rule d /usr"), "accepted");
  EXPECT_EQ(rule_problem("rule ffff /"), "accepted");
  const char* bad[] = {
      "rule 0 /usr",  "rule D /usr",      "rule 0d /usr", "rule 10000 /usr",
      "rule d",       "rule d ",          "rule d usr",   "rule d //usr",
      "rule d /usr/", "rule d /usr//lib", "rule d /a/..", "rule d /a/./b",
      "rule  d /usr", "allow d /usr",     "rule",         "",
      "rule /usr",    "rule x /usr",
  };
  for (const char* record : bad) {
    const std::string problem = rule_problem(record);
    EXPECT_NE(problem.find("record 4: "), std::string::npos) << '"' << record << "\": " << problem;
  }
  // Within handled_fs only.
  EXPECT_NE(rejection("abi 2\0handled_fs 3fff\0scoped 0\0rule 4000 /usr\0"s).find("outside handled_fs"),
            std::string::npos);
  // The second rule is record 5.
  EXPECT_NE(rule_problem("rule d /usr\0rule d rel"s).find("record 5: path not absolute"), std::string::npos);
  // An empty record between two rules.
  EXPECT_NE(rejection(kHeader + "rule d /usr\0\0rule d /etc\0"s).find("record 5"), std::string::npos);
}

TEST(LandlockRules, BoundsPathLengthAndRuleCount) {
  const std::string longest = "/" + std::string(kMaxPathBytes - 1, 'a');
  EXPECT_EQ(longest.size(), 4095u);
  EXPECT_EQ(rejection(kHeader + "rule 4 " + longest + '\0'), "accepted");
  EXPECT_NE(rejection(kHeader + "rule 4 " + longest + "a" + '\0').find("longer than PATH_MAX"), std::string::npos);

  LandlockRules many{7, 0xffff, 3, std::vector<LandlockRule>(kMaxRules, {"/x", 4})};
  EXPECT_EQ(many.rules.size(), 4096u);
  auto parsed = parse_rules(render_rules(many), nullptr);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->rules.size(), 4096u);
  many.rules.push_back({"/x", 4});
  EXPECT_NE(rejection(render_rules(many)).find("more than 4096 rules"), std::string::npos);
  EXPECT_NE(rejection(kHeader + std::string(kMaxRulesFileBytes, 'r') + '\0').find("larger than"), std::string::npos);
}

}  // namespace
}  // namespace cordon::landlock
