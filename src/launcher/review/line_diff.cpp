#include "launcher/review/line_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <unordered_map>

namespace cordon::review {
namespace {

using LineId = uint32_t;

// Each distinct line as a number, so the search compares numbers, with how often it occurs
// on each side.
struct InternedLines {
  std::vector<LineId> before;
  std::vector<LineId> after;
  std::vector<size_t> count_before;  // by id
  std::vector<size_t> count_after;
};

InternedLines intern(const std::vector<std::string_view>& before, const std::vector<std::string_view>& after) {
  InternedLines out;
  std::unordered_map<std::string_view, LineId> ids;
  ids.reserve(before.size() + after.size());
  const auto id_of = [&](std::string_view line) {
    const auto [it, inserted] = ids.try_emplace(line, static_cast<LineId>(ids.size()));
    if (inserted) {
      out.count_before.push_back(0);
      out.count_after.push_back(0);
    }
    return it->second;
  };
  out.before.reserve(before.size());
  out.after.reserve(after.size());
  for (auto line : before) {
    out.before.push_back(id_of(line));
    ++out.count_before[out.before.back()];
  }
  for (auto line : after) {
    out.after.push_back(id_of(line));
    ++out.count_after[out.after.back()];
  }
  return out;
}

// Myers' linear-space search ("An O(ND) Difference Algorithm and Its Variations", 1986,
// section 4b): find a point on a shortest path through the edit graph of a box, split the box
// there and go on with the two halves. Marks the lines of `a` and `b` the path leaves out.
class MyersSearch {
 public:
  MyersSearch(const std::vector<LineId>& a, const std::vector<LineId>& b, std::vector<bool>& a_changed,
              std::vector<bool>& b_changed)
      : a_(a), b_(b), a_changed_(a_changed), b_changed_(b_changed) {
    // The bound xdiff uses: a square root of the problem's size, at least 256.
    const double size = static_cast<double>(a.size() + b.size() + 3);
    cost_limit_ = std::max<long>(256, static_cast<long>(std::sqrt(size)));
  }

  void run() {
    std::vector<Box> pending = {{0, static_cast<long>(a_.size()), 0, static_cast<long>(b_.size())}};
    while (!pending.empty()) {
      Box box = pending.back();
      pending.pop_back();
      shrink_to_differences(box);
      if (box.a0 == box.a1 || box.b0 == box.b1 || work_ > kWorkBudget) {
        mark_all(box);
        continue;
      }
      const std::optional<Point> middle = split_point(box);
      if (!middle) {
        mark_all(box);
        continue;
      }
      pending.push_back({box.a0, box.a0 + middle->x, box.b0, box.b0 + middle->y});
      pending.push_back({box.a0 + middle->x, box.a1, box.b0 + middle->y, box.b1});
    }
  }

 private:
  // Steps (diagonals extended, equal lines followed) the whole search may take; past them
  // each box left is replaced whole. A few tenths of a second; 200,000 lines with thousands
  // of scattered changes take a few million.
  static constexpr long kWorkBudget = 40'000'000;

  // Lines [a0, a1) of a against lines [b0, b1) of b.
  struct Box {
    long a0, a1, b0, b1;
  };
  // A point of a box's edit graph, relative to its top-left corner.
  struct Point {
    long x, y;
  };

  // Equal first and last lines are kept: only the middle is searched.
  void shrink_to_differences(Box& box) const {
    while (box.a0 < box.a1 && box.b0 < box.b1 && a_[box.a0] == b_[box.b0]) ++box.a0, ++box.b0;
    while (box.a0 < box.a1 && box.b0 < box.b1 && a_[box.a1 - 1] == b_[box.b1 - 1]) --box.a1, --box.b1;
  }

  void mark_all(const Box& box) {
    for (long i = box.a0; i < box.a1; ++i) a_changed_[i] = true;
    for (long i = box.b0; i < box.b1; ++i) b_changed_[i] = true;
  }

  // A point strictly between the box's corners on a shortest path (where the searches from
  // both corners meet), or, once the edit cost passes the bound, the point furthest from its
  // own corner either search reached. nullopt when neither gives one (never for a box whose
  // first and last lines differ, but a fallback that marks the box changed costs nothing).
  std::optional<Point> split_point(const Box& box) {
    const long n = box.a1 - box.a0, m = box.b1 - box.b0;
    const long limit = std::min((n + m + 1) / 2, cost_limit_);
    const long offset = limit + 1;
    // forward_[offset + k]: the furthest x reached on diagonal k = x - y from (0, 0);
    // backward_[offset + k]: the same from (n, m), with x and y counted from that corner.
    // Round d reads diagonals up to d + 1 away: those are set as the rounds reach them, not
    // all at once, as most boxes take a few rounds and the arrays are sized for the largest.
    const size_t size = static_cast<size_t>(2 * offset + 2);
    if (forward_.size() < size) forward_.resize(size), backward_.resize(size);
    forward_[offset - 1] = backward_[offset - 1] = -1;
    forward_[offset] = backward_[offset] = -1;
    forward_[offset + 1] = backward_[offset + 1] = 0;
    const long delta = n - m;
    const bool odd = (delta & 1) != 0;
    const auto in_graph = [&](long x, long y) { return x >= 0 && y >= 0 && x <= n && y <= m; };
    const auto inner = [&](long x, long y) { return !(x == 0 && y == 0) && !(x == n && y == m); };
    // A value the other search set, on a diagonal it has reached (`reach` from the middle).
    const auto stored = [&](const std::vector<long>& v, long k, long reach) {
      return k >= -reach && k <= reach ? v[offset + k] : -1;
    };
    // Diagonals whose path left the graph are not extended again (their values stay stale).
    long forward_low = 0, forward_high = 0, backward_low = 0, backward_high = 0;
    for (long d = 0; d <= limit; ++d) {
      if (d > 0) forward_[offset - d - 1] = forward_[offset + d + 1] = -1;
      for (long k = -d + forward_low; k <= d - forward_high; k += 2) {
        const long x = extend(forward_, offset, k, d,
                              [&](long x, long y) { return x < n && y < m && a_[box.a0 + x] == b_[box.b0 + y]; });
        const long y = x - k;
        if (x > n) forward_high += 2;
        else if (y > m) forward_low += 2;
        else if (odd) {
          const long back_x = stored(backward_, delta - k, d);
          if (back_x >= 0 && in_graph(back_x, back_x - (delta - k)) && x >= n - back_x && inner(x, y))
            return Point{x, y};
        }
      }
      if (d > 0) backward_[offset - d - 1] = backward_[offset + d + 1] = -1;
      for (long k = -d + backward_low; k <= d - backward_high; k += 2) {
        const long x = extend(backward_, offset, k, d, [&](long x, long y) {
          return x < n && y < m && a_[box.a1 - 1 - x] == b_[box.b1 - 1 - y];
        });
        const long y = x - k;
        if (x > n) backward_high += 2;
        else if (y > m) backward_low += 2;
        else if (!odd) {
          const long front_x = stored(forward_, delta - k, d + 1);
          const long front_y = front_x - (delta - k);
          if (front_x >= 0 && in_graph(front_x, front_y) && front_x >= n - x && inner(front_x, front_y))
            return Point{front_x, front_y};
        }
      }
    }
    return furthest_point(n, m, limit, offset);
  }

  // One step of a search along diagonal k at cost d: from the neighbour diagonal that got
  // further, then along equal lines as far as they go.
  template <typename Equal>
  long extend(std::vector<long>& v, long offset, long k, long d, const Equal& equal) {
    const long at = offset + k;
    const long start = (k == -d || (k != d && v[at - 1] < v[at + 1])) ? v[at + 1] : v[at - 1] + 1;
    long x = start;
    while (equal(x, x - k)) ++x;
    v[at] = x;
    work_ += 1 + (x - start);
    return x;
  }

  // After `limit` rounds: the point the forward or backward search got furthest with.
  std::optional<Point> furthest_point(long n, long m, long limit, long offset) const {
    std::optional<Point> best;
    long best_reach = -1;
    for (long k = -limit; k <= limit; ++k) {
      const long fx = forward_[offset + k], fy = fx - k;
      if (fx >= 0 && fx <= n && fy >= 0 && fy <= m && fx + fy > best_reach) {
        best_reach = fx + fy;
        best = Point{fx, fy};
      }
      const long bx = backward_[offset + k], by = bx - k;
      if (bx >= 0 && bx <= n && by >= 0 && by <= m && bx + by > best_reach) {
        best_reach = bx + by;
        best = Point{n - bx, m - by};
      }
    }
    if (!best || (best->x == 0 && best->y == 0) || (best->x == n && best->y == m)) return std::nullopt;
    return best;
  }

  const std::vector<LineId>& a_;
  const std::vector<LineId>& b_;
  std::vector<bool>& a_changed_;
  std::vector<bool>& b_changed_;
  long cost_limit_ = 256;
  long work_ = 0;
  std::vector<long> forward_;
  std::vector<long> backward_;
};

// The lines whose content occurs on both sides: only those can be kept, so only those are
// searched. `index` maps them back to their positions.
struct Candidates {
  std::vector<LineId> lines;
  std::vector<size_t> index;
};

Candidates candidates(const std::vector<LineId>& lines, const std::vector<size_t>& count_other,
                      std::vector<bool>& changed) {
  Candidates out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (count_other[lines[i]] == 0) {
      changed[i] = true;
      continue;
    }
    out.lines.push_back(lines[i]);
    out.index.push_back(i);
  }
  return out;
}

// One side of the edit during compaction: its lines and which of them are changed.
struct SideEdit {
  const std::vector<LineId>& lines;
  std::vector<bool>& changed;

  bool changed_at(size_t i) const { return i < changed.size() && changed[i]; }
};

// A run of changed lines [start, end) of one side, maybe empty: a place between two unchanged
// lines. The k-th run of one side sits across from the k-th run of the other, as both sides
// have the same number of unchanged lines.
struct Run {
  size_t start = 0;
  size_t end = 0;
  bool empty() const { return start == end; }
};

Run first_run(const SideEdit& side) {
  Run run;
  while (side.changed_at(run.end)) ++run.end;
  return run;
}

bool next_run(const SideEdit& side, Run& run) {
  if (run.end >= side.lines.size()) return false;
  run.start = run.end = run.end + 1;
  while (side.changed_at(run.end)) ++run.end;
  return true;
}

void previous_run(const SideEdit& side, Run& run) {
  if (run.start == 0) return;
  run.start = run.end = run.start - 1;
  while (run.start > 0 && side.changed[run.start - 1]) --run.start;
}

// A run moves by one line when the line it gives up equals the line it takes: the unchanged
// copy still pairs with the same line of the other side. Moving joins the runs it reaches.
bool slide_up(SideEdit& side, Run& run) {
  if (run.start == 0 || side.lines[run.start - 1] != side.lines[run.end - 1]) return false;
  side.changed[--run.start] = true;
  side.changed[--run.end] = false;
  while (run.start > 0 && side.changed[run.start - 1]) --run.start;
  return true;
}

bool slide_down(SideEdit& side, Run& run) {
  if (run.end >= side.lines.size() || side.lines[run.start] != side.lines[run.end]) return false;
  side.changed[run.start++] = false;
  side.changed[run.end++] = true;
  while (side.changed_at(run.end)) ++run.end;
  return true;
}

// Where equal lines leave the choice, each run of changed lines of `side` goes where git's
// xdl_change_compact puts it (without its indent heuristic): across from a change of the
// other side if it can, so a replaced line shows as "-old" next to "+new"; otherwise as far
// down as it can. Runs that meet while moving join.
void compact(SideEdit& side, SideEdit& other) {
  Run run = first_run(side), across = first_run(other);
  for (;;) {
    if (!run.empty()) {
      size_t size = 0, earliest_end = 0;
      std::optional<size_t> aligned_end;
      do {
        size = run.end - run.start;
        aligned_end.reset();
        while (slide_up(side, run)) previous_run(other, across);
        earliest_end = run.end;
        if (!across.empty()) aligned_end = run.end;
        while (slide_down(side, run)) {
          next_run(other, across);
          if (!across.empty()) aligned_end = run.end;
        }
      } while (size != run.end - run.start);
      if (run.end != earliest_end && aligned_end) {
        while (across.empty() && slide_up(side, run)) previous_run(other, across);
      }
    }
    if (!next_run(side, run)) break;
    next_run(other, across);
  }
}

size_t count_marked(const std::vector<bool>& marks) {
  return static_cast<size_t>(std::count(marks.begin(), marks.end(), true));
}

// One change of the script: `before_count` lines removed at `before_start`, `after_count`
// added at `after_start`.
struct Change {
  size_t before_start, before_count, after_start, after_count;
};

std::vector<Change> changes_of(const LineEdit& edit) {
  std::vector<Change> out;
  const size_t n = edit.removed.size(), m = edit.added.size();
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if ((i < n && edit.removed[i]) || (j < m && edit.added[j])) {
      Change change{i, 0, j, 0};
      while (i < n && edit.removed[i]) ++i;
      while (j < m && edit.added[j]) ++j;
      change.before_count = i - change.before_start;
      change.after_count = j - change.after_start;
      out.push_back(change);
      continue;
    }
    ++i;
    ++j;
  }
  return out;
}

// git's isspace: space, tab, LF and CR (not VT or FF).
bool git_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// xdiff's default function-name rule (def_ff): a line starting like an identifier.
std::optional<std::string_view> function_line(std::string_view line) {
  if (line.empty()) return std::nullopt;
  const char first = line[0];
  const bool identifier = (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first == '_' ||
                          first == '$';
  if (!identifier) return std::nullopt;
  line = line.substr(0, 80);
  while (!line.empty() && git_space(line.back())) line.remove_suffix(1);
  return line;
}

void append_number(std::string& out, size_t start, size_t count) {
  out += std::to_string(count == 0 ? start : start + 1);
  if (count != 1) out += "," + std::to_string(count);
}

}  // namespace

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t newline = text.find('\n', begin);
    const size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    lines.push_back(text.substr(begin, end - begin));
    begin = end;
  }
  return lines;
}

LineEdit diff_lines(const std::vector<std::string_view>& before, const std::vector<std::string_view>& after) {
  LineEdit edit;
  edit.removed.assign(before.size(), false);
  edit.added.assign(after.size(), false);
  const InternedLines ids = intern(before, after);
  const Candidates a = candidates(ids.before, ids.count_after, edit.removed);
  const Candidates b = candidates(ids.after, ids.count_before, edit.added);
  std::vector<bool> a_changed(a.lines.size(), false), b_changed(b.lines.size(), false);
  MyersSearch(a.lines, b.lines, a_changed, b_changed).run();
  for (size_t i = 0; i < a_changed.size(); ++i)
    if (a_changed[i]) edit.removed[a.index[i]] = true;
  for (size_t i = 0; i < b_changed.size(); ++i)
    if (b_changed[i]) edit.added[b.index[i]] = true;
  SideEdit old_side{ids.before, edit.removed}, new_side{ids.after, edit.added};
  compact(old_side, new_side);
  compact(new_side, old_side);
  edit.removed_count = count_marked(edit.removed);
  edit.added_count = count_marked(edit.added);
  return edit;
}

std::vector<Hunk> unified_hunks(const std::vector<std::string_view>& before, const std::vector<std::string_view>& after,
                                const LineEdit& edit, size_t context) {
  const std::vector<Change> changes = changes_of(edit);
  std::vector<Hunk> hunks;
  std::string_view function_name;
  long searched_above = -1;  // lines 0 to this one were searched for the hunk before
  for (size_t first = 0; first < changes.size();) {
    size_t last = first;
    while (last + 1 < changes.size() &&
           changes[last + 1].before_start - (changes[last].before_start + changes[last].before_count) <= 2 * context)
      ++last;
    // Lines between changes are unchanged on both sides, so both sides have the same context.
    const size_t lead = std::min(context, changes[first].before_start);
    Hunk hunk;
    hunk.before_start = changes[first].before_start - lead;
    hunk.after_start = changes[first].after_start - lead;
    const size_t before_end = std::min(before.size(),
                                       changes[last].before_start + changes[last].before_count + context);
    const size_t after_end = std::min(after.size(), changes[last].after_start + changes[last].after_count + context);
    hunk.before_count = before_end - hunk.before_start;
    hunk.after_count = after_end - hunk.after_start;

    for (long line = static_cast<long>(hunk.before_start) - 1; line > searched_above; --line) {
      if (auto name = function_line(before[line])) {
        function_name = *name;
        break;
      }
    }
    searched_above = static_cast<long>(hunk.before_start) - 1;
    hunk.function_name = function_name;

    size_t i = hunk.before_start, j = hunk.after_start;
    while (i < before_end || j < after_end) {
      const bool removed = i < before_end && edit.removed[i];
      const bool added = j < after_end && edit.added[j];
      if (removed) {
        while (i < before_end && edit.removed[i]) hunk.lines.push_back({'-', before[i++]});
      } else if (added) {
        while (j < after_end && edit.added[j]) hunk.lines.push_back({'+', after[j++]});
      } else {
        hunk.lines.push_back({' ', before[i]});
        ++i;
        ++j;
      }
    }
    hunks.push_back(std::move(hunk));
    first = last + 1;
  }
  return hunks;
}

std::string hunk_header(const Hunk& hunk) {
  std::string out = "@@ -";
  append_number(out, hunk.before_start, hunk.before_count);
  out += " +";
  append_number(out, hunk.after_start, hunk.after_count);
  out += " @@";
  if (!hunk.function_name.empty()) out.append(" ").append(hunk.function_name);
  return out;
}

}  // namespace cordon::review
