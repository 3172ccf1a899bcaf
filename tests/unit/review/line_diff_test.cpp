#include "launcher/review/line_diff.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace cordon::review {
namespace {

using Lines = std::vector<std::string_view>;

// The hunks as unified-diff text, the way git_patch writes them without escaping.
std::string unified(std::string_view before, std::string_view after) {
  const Lines old_lines = split_lines(before), new_lines = split_lines(after);
  std::string out;
  for (const Hunk& hunk : unified_hunks(old_lines, new_lines, diff_lines(old_lines, new_lines))) {
    out += hunk_header(hunk) + "\n";
    for (const HunkLine& line : hunk.lines) {
      out += line.sign;
      out += line.text;
      if (line.text.empty() || line.text.back() != '\n') out += "\n\\ No newline at end of file\n";
    }
  }
  return out;
}

// The lines the edit keeps must pair up equal, in order, on both sides.
void expect_valid(const Lines& before, const Lines& after, const LineEdit& edit) {
  ASSERT_EQ(edit.removed.size(), before.size());
  ASSERT_EQ(edit.added.size(), after.size());
  Lines kept_before, kept_after;
  for (size_t i = 0; i < before.size(); ++i)
    if (!edit.removed[i]) kept_before.push_back(before[i]);
  for (size_t i = 0; i < after.size(); ++i)
    if (!edit.added[i]) kept_after.push_back(after[i]);
  EXPECT_EQ(kept_before, kept_after);
  EXPECT_EQ(edit.removed_count, before.size() - kept_before.size());
  EXPECT_EQ(edit.added_count, after.size() - kept_after.size());
}

// Length of a longest common subsequence, by dynamic programming: the yardstick for a
// shortest edit script (removed + added == N + M - 2 * LCS).
size_t lcs_length(const Lines& a, const Lines& b) {
  std::vector<std::vector<size_t>> table(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      table[i][j] = a[i - 1] == b[j - 1] ? table[i - 1][j - 1] + 1 : std::max(table[i - 1][j], table[i][j - 1]);
  return table[a.size()][b.size()];
}

TEST(SplitLines, KeepsNewlinesAndAFinalPartialLine) {
  EXPECT_TRUE(split_lines("").empty());
  EXPECT_EQ(split_lines("a"), (Lines{"a"}));
  EXPECT_EQ(split_lines("a\n"), (Lines{"a\n"}));
  EXPECT_EQ(split_lines("a\r\n\nb"), (Lines{"a\r\n", "\n", "b"}));
  EXPECT_EQ(split_lines("\n\n"), (Lines{"\n", "\n"}));
}

TEST(DiffLines, IdenticalTextsChangeNothing) {
  const Lines lines = split_lines("a\nb\nc\n");
  const LineEdit edit = diff_lines(lines, lines);
  EXPECT_EQ(edit.removed_count, 0u);
  EXPECT_EQ(edit.added_count, 0u);
  EXPECT_TRUE(unified("a\nb\nc\n", "a\nb\nc\n").empty());
}

TEST(DiffLines, MarksExactlyTheChangedLines) {
  const Lines before = split_lines("a\nb\nc\nd\n"), after = split_lines("a\nB\nc\nd\ne\n");
  const LineEdit edit = diff_lines(before, after);
  EXPECT_EQ(edit.removed, (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(edit.added, (std::vector<bool>{false, true, false, false, true}));
}

// A missing final newline makes the last line a different line, as in git.
TEST(DiffLines, FinalNewlineIsPartOfTheLine) {
  EXPECT_EQ(unified("a\nb", "a\nb\n"), "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
  EXPECT_EQ(unified("x", "y"), "@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n");
}

TEST(DiffLines, EmptySidesGiveZeroStarts) {
  EXPECT_EQ(unified("", "a\nb\n"), "@@ -0,0 +1,2 @@\n+a\n+b\n");
  EXPECT_EQ(unified("a\n", ""), "@@ -1 +0,0 @@\n-a\n");
  EXPECT_TRUE(unified("", "").empty());
}

// Of several equal lines, the last one is the one removed (git slides changes down).
TEST(DiffLines, RemovesTheLastOfEqualLines) {
  EXPECT_EQ(unified("x\na\na\na\ny\n", "x\na\na\ny\n"), "@@ -1,5 +1,4 @@\n x\n a\n a\n-a\n y\n");
  EXPECT_EQ(unified("a\na\n", "a\na\na\n"), "@@ -1,2 +1,3 @@\n a\n a\n+a\n");
}

// A replaced line stays next to its replacement, though the removal could move down.
TEST(DiffLines, KeepsAReplacementNextToWhatItReplaces) {
  EXPECT_EQ(unified("a\na\n", "b\na\n"), "@@ -1,2 +1,2 @@\n-a\n+b\n a\n");
  EXPECT_EQ(unified("x\n\n\n\ny\n", "x\nz\n\n\ny\n"), "@@ -1,5 +1,5 @@\n x\n-\n+z\n \n \n y\n");
}

// What git diff prints for the same texts: context of 3, the function line of the first hunk
// carried over to the second, which finds none of its own.
TEST(UnifiedHunks, MatchesGitForSeparateHunks) {
  const std::string before = "int main()\n{\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n}\n";
  std::string after = before;
  after.replace(after.find("\n3\n") + 1, 1, "three");
  after.replace(after.find("\n12\n") + 1, 2, "twelve");
  EXPECT_EQ(unified(before, after),
            "@@ -2,7 +2,7 @@ int main()\n {\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n"
            "@@ -11,5 +11,5 @@ int main()\n 9\n 10\n 11\n-12\n+twelve\n }\n");
}

// Changes 6 lines apart share a hunk (2 * context); 7 apart they do not.
TEST(UnifiedHunks, MergesChangesWithinTwiceTheContext) {
  std::string before;
  for (int i = 1; i <= 20; ++i) before += std::to_string(i) + "\n";
  const auto edited = [&](int first, int second) {
    std::string after;
    for (int i = 1; i <= 20; ++i) after += (i == first || i == second ? "x" : std::to_string(i)) + "\n";
    const Lines a = split_lines(before), b = split_lines(after);
    return unified_hunks(a, b, diff_lines(a, b)).size();
  };
  EXPECT_EQ(edited(5, 12), 1u);
  EXPECT_EQ(edited(5, 13), 2u);
}

TEST(UnifiedHunks, FunctionNameIsCutAndTrimmed) {
  std::string before = std::string(100, 'f') + " \r\n";
  for (int i = 0; i < 10; ++i) before += " body\n";
  std::string after = before + "added\n";
  const Lines a = split_lines(before), b = split_lines(after);
  const auto hunks = unified_hunks(a, b, diff_lines(a, b));
  ASSERT_EQ(hunks.size(), 1u);
  EXPECT_EQ(hunks[0].function_name, std::string(80, 'f'));
  EXPECT_EQ(hunk_header(hunks[0]), "@@ -9,3 +9,4 @@ " + std::string(80, 'f'));
}

// Random texts from a small vocabulary (many equal lines): every edit is valid and, below
// the cost bound, as short as a longest common subsequence allows.
TEST(DiffLines, RandomEditsAreValidAndShortest) {
  std::mt19937 random(20261205);
  const std::vector<std::string> vocabulary = {"a\n", "b\n", "c\n", "\n", "}\n"};
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> before_text, after_text;
    const auto fill = [&](std::vector<std::string>& lines) {
      const int count = static_cast<int>(random() % 40);
      for (int i = 0; i < count; ++i) lines.push_back(vocabulary[random() % 5]);
    };
    fill(before_text);
    fill(after_text);
    const Lines before(before_text.begin(), before_text.end()), after(after_text.begin(), after_text.end());
    const LineEdit edit = diff_lines(before, after);
    expect_valid(before, after, edit);
    EXPECT_EQ(edit.removed_count + edit.added_count, before.size() + after.size() - 2 * lcs_length(before, after))
        << "round " << round;
  }
}

std::vector<std::string> numbered_lines(size_t count, const std::string& tag) {
  std::vector<std::string> lines;
  lines.reserve(count);
  for (size_t i = 0; i < count; ++i) lines.push_back(tag + std::to_string(i) + "\n");
  return lines;
}

// 200,000 lines replaced by 200,000 others: no line is on both sides, nothing to search.
TEST(DiffLines, WholeRewriteOfAHugeFileIsOneHunk) {
  const auto before_text = numbered_lines(200000, "old "), after_text = numbered_lines(200000, "new ");
  const Lines before(before_text.begin(), before_text.end()), after(after_text.begin(), after_text.end());
  const LineEdit edit = diff_lines(before, after);
  const auto hunks = unified_hunks(before, after, edit);
  EXPECT_EQ(edit.removed_count, 200000u);
  EXPECT_EQ(edit.added_count, 200000u);
  ASSERT_EQ(hunks.size(), 1u);
  EXPECT_EQ(hunk_header(hunks[0]), "@@ -1,200000 +1,200000 @@");
}

// The worst case for the search: two long random texts of the same few lines, so that every
// line matches everywhere and the edit distance is huge. The cost bound keeps it fast; the
// edit stays valid.
TEST(DiffLines, HugeRandomTextsOfFewLinesAreBounded) {
  std::mt19937 random(7);
  const std::vector<std::string> vocabulary = {"{\n", "}\n", "\n", "x\n"};
  std::vector<std::string> before_text, after_text;
  for (int i = 0; i < 200000; ++i) before_text.push_back(vocabulary[random() % 4]);
  for (int i = 0; i < 200000; ++i) after_text.push_back(vocabulary[random() % 4]);
  const Lines before(before_text.begin(), before_text.end()), after(after_text.begin(), after_text.end());
  const LineEdit edit = diff_lines(before, after);
  expect_valid(before, after, edit);
}

// A few scattered edits in a big file stay a few small hunks.
TEST(DiffLines, FewEditsInAHugeFileStaySmall) {
  auto before_text = numbered_lines(200000, "line ");
  auto after_text = before_text;
  for (size_t at : {10u, 50000u, 120000u, 199990u}) after_text[at] = "changed\n";
  after_text.insert(after_text.begin() + 70000, "inserted\n");
  const Lines before(before_text.begin(), before_text.end()), after(after_text.begin(), after_text.end());
  const LineEdit edit = diff_lines(before, after);
  EXPECT_EQ(edit.removed_count, 4u);
  EXPECT_EQ(edit.added_count, 5u);
  EXPECT_EQ(unified_hunks(before, after, edit).size(), 5u);
}

}  // namespace
}  // namespace cordon::review
