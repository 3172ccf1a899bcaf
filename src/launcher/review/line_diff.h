// Line-based diff of two texts, as `git diff` shows one: Myers' O((N+M)D) algorithm in
// linear space finds which lines to remove and add, and the changes are grouped into unified
// hunks with 3 lines of context. git_patch.h renders the hunks.
//
// Lines are compared as bytes, each with its '\n': "x" at the end of a file without a final
// newline differs from "x\n", as in git. Lines found on one side only are marked before the
// search starts (they cannot be part of any common subsequence), which makes a rewrite of a
// whole file cost nothing. Where the edit distance of a part of the texts exceeds a bound
// (about the square root of its length, at least 256), the search splits that part at the
// furthest point it reached instead of going on, as xdiff (git's diff engine) does; and past
// a total number of steps (a few tenths of a second) the parts not yet searched are replaced
// whole. The script stays correct but may then not be the shortest: that bounds the time for
// pathological inputs (200,000 random lines of 4 kinds). Texts with a few thousand changes in
// 200,000 lines stay far below both bounds.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cordon::review {

// The lines of `text`, each with its '\n'; the last one lacks it when `text` does not end in
// a newline. No lines for "".
std::vector<std::string_view> split_lines(std::string_view text);

// An edit script: which lines of the before side it removes and which of the after side it
// adds. The lines not marked pair up in order, and each pair is equal.
struct LineEdit {
  std::vector<bool> removed;  // one per line of the before side
  std::vector<bool> added;    // one per line of the after side
  size_t removed_count = 0;
  size_t added_count = 0;
};

// A short edit script from `before` to `after`. After the search, where equal lines leave
// the choice, each run of changed lines moves as git moves it (without git's indent
// heuristic): next to a change of the other side if it can, so a replaced line shows as
// "-old" right before "+new"; otherwise as far down as it can, so removing one of several
// equal lines removes the last.
LineEdit diff_lines(const std::vector<std::string_view>& before, const std::vector<std::string_view>& after);

struct HunkLine {
  char sign = ' ';        // ' ' context, '-' removed, '+' added
  std::string_view text;  // the line with its '\n', if it has one
};

// One "@@ -a,b +c,d @@" section of a unified diff.
struct Hunk {
  size_t before_start = 0;  // 0-based index of the hunk's first before line
  size_t before_count = 0;
  size_t after_start = 0;
  size_t after_count = 0;
  // git's default "function name" for the hunk header: the nearest line above the hunk in the
  // before side that starts with a letter, '_' or '$', cut to 80 bytes, trailing whitespace
  // removed; once found it carries over to the next hunks until a nearer one shows up.
  std::string_view function_name;
  std::vector<HunkLine> lines;  // removed lines of a change come before its added lines
};

// The edit grouped into hunks with `context` unchanged lines around each change; changes at
// most 2 * context lines apart share a hunk, as in git.
std::vector<Hunk> unified_hunks(const std::vector<std::string_view>& before, const std::vector<std::string_view>& after,
                                const LineEdit& edit, size_t context = 3);

// "@@ -1,3 +1,4 @@" (a count of 1 left out, a start of 0 for an empty range, as git writes
// them), then " " and the function name when there is one. No newline.
std::string hunk_header(const Hunk& hunk);

}  // namespace cordon::review
