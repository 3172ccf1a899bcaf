#include "launcher/review/git_patch.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "common/json_codec.h"
#include "common/print.h"
#include "common/sha1.h"
#include "common/sha256.h"
#include "launcher/review/line_diff.h"

namespace cordon::review {
namespace {

// git's buffer_is_binary: a NUL among the first 8000 bytes.
constexpr size_t kBinaryProbeBytes = 8000;
constexpr std::string_view kNullId = "0000000000000000000000000000000000000000";
constexpr size_t kShortIdLength = 7;
constexpr mode_t kPermissionBits = 07777;
constexpr mode_t kSpecialBits = 07000;  // set-user-ID, set-group-ID, sticky

// git's diff colours (color.diff defaults) and the one cordon adds for its notes.
constexpr std::string_view kBold = "\033[1m";
constexpr std::string_view kCyan = "\033[36m";
constexpr std::string_view kRed = "\033[31m";
constexpr std::string_view kGreen = "\033[32m";
constexpr std::string_view kYellow = "\033[33m";
constexpr std::string_view kReset = "\033[m";

enum class EntryType { None, File, Symlink, Fifo, Socket, CharDevice, BlockDevice, Directory, Unknown };

EntryType type_of(const EntryState& state) {
  if (!state.exists) return EntryType::None;
  switch (state.mode & S_IFMT) {
    case S_IFREG: return EntryType::File;
    case S_IFLNK: return EntryType::Symlink;
    case S_IFIFO: return EntryType::Fifo;
    case S_IFSOCK: return EntryType::Socket;
    case S_IFCHR: return EntryType::CharDevice;
    case S_IFBLK: return EntryType::BlockDevice;
    case S_IFDIR: return EntryType::Directory;
  }
  return EntryType::Unknown;
}

const char* type_name(EntryType type) {
  switch (type) {
    case EntryType::None: return "none";
    case EntryType::File: return "file";
    case EntryType::Symlink: return "symlink";
    case EntryType::Fifo: return "fifo";
    case EntryType::Socket: return "socket";
    case EntryType::CharDevice: return "char-device";
    case EntryType::BlockDevice: return "block-device";
    case EntryType::Directory: return "directory";
    case EntryType::Unknown: return "unknown";
  }
  return "unknown";
}

bool git_tracks(EntryType type) { return type == EntryType::File || type == EntryType::Symlink; }

// The mode git records: symbolic link, or a regular file with or without any x bit.
unsigned git_mode(const EntryState& state) {
  if (S_ISLNK(state.mode)) return 0120000;
  return (state.mode & 0111) != 0 ? 0100755 : 0100644;
}

std::string octal(unsigned value, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "%0*o", digits, value);
  return text;
}

std::string permissions(const EntryState& state) { return octal(state.mode & kPermissionBits, 4); }

const char* name_status_letter(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::Added: return "A";
    case ChangeKind::Deleted: return "D";
    case ChangeKind::Modified:
    case ChangeKind::ModeOnly: return "M";
    case ChangeKind::Retyped: return "T";
  }
  return "M";
}

// One side of a section as git sees it: a mode and bytes (a symlink's target for a link).
struct Blob {
  unsigned mode = 0;
  std::string content;
};

using BlobRef = std::shared_ptr<const Blob>;

// One "diff --git" section: both sides for a modification, one for an addition or deletion.
struct Section {
  BlobRef before;
  BlobRef after;

  bool binary() const {
    const auto has_nul = [](const BlobRef& blob) { return blob && blob->content.find('\0') < kBinaryProbeBytes; };
    return has_nul(before) || has_nul(after);
  }
  bool content_differs() const { return !before || !after || before->content != after->content; }
};

// What the patch holds for one change: its sections, and a note on what it cannot hold.
struct ChangePlan {
  BlobRef before;  // each side that is a file or a symlink, in the patch or not
  BlobRef after;
  std::vector<Section> sections;
  std::string note;  // "" when the sections are the whole change
};

BlobRef blob_of(const Change& change, Side side, const ReadContent& read) {
  const EntryState& state = side == Side::Before ? change.before : change.after;
  if (!git_tracks(type_of(state))) return nullptr;
  auto blob = std::make_shared<Blob>();
  blob->mode = git_mode(state);
  blob->content = S_ISLNK(state.mode) ? state.link_target : read(change, side);
  return blob;
}

// What a change involving a fifo, socket, device or directory is, for its note.
std::string describe_untracked(const Change& change, EntryType before, EntryType after) {
  if (before == EntryType::None) return std::string("new ") + type_name(after);
  if (after == EntryType::None) return std::string("deleted ") + type_name(before);
  if (before != after) return std::string(type_name(before)) + " -> " + type_name(after);
  if (permissions(change.before) != permissions(change.after))
    return std::string(type_name(before)) + ", mode " + permissions(change.before) + " -> " + permissions(change.after);
  return std::string(type_name(before)) + " changed";
}

// Permission bits of regular files the sections do not show: a change git's two file modes
// cannot see (0644 -> 0600), any change where either side has set-user-ID, set-group-ID or
// sticky bits, and such bits on a file that takes the path.
std::string permission_note(const Change& change, EntryType before, EntryType after) {
  const mode_t old_bits = change.before.mode & kPermissionBits;
  const mode_t new_bits = change.after.mode & kPermissionBits;
  if (before == EntryType::File && after == EntryType::File) {
    if (old_bits == new_bits) return "";
    const bool git_sees_all = git_mode(change.before) != git_mode(change.after) &&
                              ((old_bits | new_bits) & kSpecialBits) == 0;
    return git_sees_all ? "" : "mode " + permissions(change.before) + " -> " + permissions(change.after);
  }
  if (after == EntryType::File && (new_bits & kSpecialBits) != 0) return "mode " + permissions(change.after);
  return "";
}

ChangePlan plan_change(const Change& change, const ReadContent& read) {
  const EntryType before = type_of(change.before);
  const EntryType after = type_of(change.after);
  ChangePlan plan;
  plan.before = blob_of(change, Side::Before, read);
  plan.after = blob_of(change, Side::After, read);
  if ((before != EntryType::None && !git_tracks(before)) || (after != EntryType::None && !git_tracks(after))) {
    plan.note = describe_untracked(change, before, after);
    return plan;
  }
  plan.note = permission_note(change, before, after);
  if (plan.before && plan.after && before != after) {
    // A type change: git deletes one and adds the other.
    plan.sections.push_back({plan.before, nullptr});
    plan.sections.push_back({nullptr, plan.after});
    return plan;
  }
  Section section{plan.before, plan.after};
  const bool mode_differs = section.before && section.after && section.before->mode != section.after->mode;
  if (section.content_differs() || mode_differs) plan.sections.push_back(std::move(section));
  return plan;
}

// How much a change's sections add and remove: lines of text, or bytes for binary content.
struct Counts {
  bool binary = false;
  size_t lines_added = 0;
  size_t lines_removed = 0;
  size_t bytes_before = 0;
  size_t bytes_after = 0;
};

Counts count_changes(const ChangePlan& plan) {
  Counts counts;
  for (const Section& section : plan.sections) {
    if (section.before) counts.bytes_before += section.before->content.size();
    if (section.after) counts.bytes_after += section.after->content.size();
    if (section.binary()) {
      counts.binary = true;
      continue;
    }
    if (!section.content_differs()) continue;
    const auto old_lines = split_lines(section.before ? std::string_view(section.before->content) : "");
    const auto new_lines = split_lines(section.after ? std::string_view(section.after->content) : "");
    const LineEdit edit = diff_lines(old_lines, new_lines);
    counts.lines_added += edit.added_count;
    counts.lines_removed += edit.removed_count;
  }
  if (counts.binary) {
    counts.lines_added = counts.lines_removed = 0;
    // git shows a binary file whose content did not change as "Bin" with no sizes.
    bool any_content = false;
    for (const Section& section : plan.sections) any_content = any_content || section.content_differs();
    if (!any_content) counts.bytes_before = counts.bytes_after = 0;
  }
  return counts;
}

// Lines of patch text: raw, or escaped for a terminal and coloured.
class PatchWriter {
 public:
  explicit PatchWriter(const PatchStyle& style) : terminal_(style.terminal || style.colour), colour_(style.colour) {}

  void meta(std::string_view line) { write(kBold, line); }
  void plain(std::string_view line) { write({}, line); }
  void note(std::string_view line) { write(kYellow, line); }

  void hunk_start(const Hunk& hunk) {
    std::string header = hunk_header(hunk);
    if (!colour_) return plain(header);
    const size_t end = header.find(" @@") + 3;
    out_.append(kCyan).append(header, 0, end).append(kReset);
    out_.append(printable(std::string_view(header).substr(end))).append("\n");
  }

  // One hunk line: its sign and its text with or without the final '\n'.
  void content(char sign, std::string_view text) {
    const bool complete = !text.empty() && text.back() == '\n';
    if (complete) text.remove_suffix(1);
    const std::string_view colour = sign == '-' ? kRed : sign == '+' ? kGreen : std::string_view();
    if (!terminal_) {
      out_ += sign;
      out_.append(text).append("\n");
    } else {
      std::string line(1, sign);
      line.append(text);
      write(colour, line);
    }
    if (!complete) plain("\\ No newline at end of file");
  }

  bool terminal() const { return terminal_; }
  std::string take() { return std::move(out_); }

 private:
  void write(std::string_view colour, std::string_view line) {
    if (!terminal_) {
      out_.append(line).append("\n");
      return;
    }
    const bool paint = colour_ && !colour.empty();
    if (paint) out_.append(colour);
    out_.append(printable(line));
    if (paint) out_.append(kReset);
    out_.append("\n");
  }

  bool terminal_;
  bool colour_;
  std::string out_;
};

void write_binary_literal(PatchWriter& out, std::string_view content) {
  out.plain("literal " + std::to_string(content.size()));
  const std::string encoded = git_base85_lines(zlib_stored(content));
  for (size_t begin = 0; begin < encoded.size();) {
    const size_t end = encoded.find('\n', begin);
    out.plain(std::string_view(encoded).substr(begin, end - begin));
    begin = end + 1;
  }
  out.plain("");
}

void write_text_hunks(PatchWriter& out, const Section& section, const std::string& old_label,
                      const std::string& new_label) {
  const auto old_lines = split_lines(section.before ? std::string_view(section.before->content) : "");
  const auto new_lines = split_lines(section.after ? std::string_view(section.after->content) : "");
  const std::vector<Hunk> hunks = unified_hunks(old_lines, new_lines, diff_lines(old_lines, new_lines));
  if (hunks.empty()) return;  // an empty file added or deleted: git writes no ---/+++ lines
  // git ends a name holding a space with a tab, so that no reader takes the rest for a date.
  const auto tabbed = [](const std::string& label) {
    return label.find(' ') == std::string::npos ? label : label + "\t";
  };
  out.meta("--- " + tabbed(old_label));
  out.meta("+++ " + tabbed(new_label));
  for (const Hunk& hunk : hunks) {
    out.hunk_start(hunk);
    for (const HunkLine& line : hunk.lines) out.content(line.sign, line.text);
  }
}

void write_section(PatchWriter& out, const std::string& path, const Section& section) {
  const std::string a_name = git_quoted_path(path, "a/"), b_name = git_quoted_path(path, "b/");
  out.meta("diff --git " + a_name + " " + b_name);
  if (!section.before) {
    out.meta("new file mode " + octal(section.after->mode, 6));
  } else if (!section.after) {
    out.meta("deleted file mode " + octal(section.before->mode, 6));
  } else if (section.before->mode != section.after->mode) {
    out.meta("old mode " + octal(section.before->mode, 6));
    out.meta("new mode " + octal(section.after->mode, 6));
  }
  if (!section.content_differs()) return;

  const bool binary = section.binary();
  // git refuses a binary patch without the full ids; text gets git's short form.
  const bool full_ids = binary && !out.terminal();
  const auto id_of = [&](const BlobRef& blob) {
    const std::string id = blob ? git_blob_id(blob->content) : std::string(kNullId);
    return full_ids ? id : id.substr(0, kShortIdLength);
  };
  std::string index = "index " + id_of(section.before) + ".." + id_of(section.after);
  if (section.before && section.after && section.before->mode == section.after->mode)
    index += " " + octal(section.before->mode, 6);
  out.meta(index);

  const std::string old_label = section.before ? a_name : "/dev/null";
  const std::string new_label = section.after ? b_name : "/dev/null";
  if (!binary) return write_text_hunks(out, section, old_label, new_label);
  if (out.terminal()) return out.plain("Binary files " + old_label + " and " + new_label + " differ");
  out.plain("GIT binary patch");
  write_binary_literal(out, section.after ? std::string_view(section.after->content) : "");
  write_binary_literal(out, section.before ? std::string_view(section.before->content) : "");
}

std::string note_line(const Change& change, const std::string& note) {
  return "# cordon: " + git_quoted_path(change.path) + ": " + note + " (not expressible in a patch)";
}

// --- stat -------------------------------------------------------------------------------

struct StatEntry {
  std::string name;  // quoted as git quotes it
  Counts counts;
  std::string note;  // set when the patch has nothing of the change: shown instead of counts
};

size_t decimal_width(size_t value) { return std::to_string(value).size(); }

// git's scale_linear: at least one column for any change.
size_t scale_linear(size_t it, size_t width, size_t max_change) {
  if (it == 0) return 0;
  return 1 + it * (width - 1) / max_change;
}

// The column widths git's show_stats picks for an 80-column terminal.
struct StatLayout {
  size_t name_width = 0;
  size_t number_width = 0;
  size_t graph_width = 0;
  size_t max_change = 0;
};

StatLayout stat_layout(const std::vector<StatEntry>& entries) {
  constexpr long kWidth = 80;
  StatLayout layout;
  size_t max_name = 0, bin_width = 0;
  for (const StatEntry& entry : entries) {
    max_name = std::max(max_name, entry.name.size());
    if (!entry.note.empty()) {
      bin_width = std::max(bin_width, entry.note.size());
    } else if (entry.counts.binary) {
      // "Bin XXX -> YYY bytes"
      bin_width = std::max(bin_width,
                           14 + decimal_width(entry.counts.bytes_after) + decimal_width(entry.counts.bytes_before));
      layout.number_width = 3;
    } else {
      layout.max_change = std::max(layout.max_change, entry.counts.lines_added + entry.counts.lines_removed);
    }
  }
  layout.number_width = std::max(layout.number_width, decimal_width(layout.max_change));
  const long number_width = static_cast<long>(layout.number_width);
  const long width = std::max(kWidth, 16 + 6 + number_width);
  long graph_width = static_cast<long>(layout.max_change + 4 > bin_width ? layout.max_change : bin_width - 4);
  long name_width = static_cast<long>(max_name);
  if (name_width + number_width + 6 + graph_width > width) {
    if (graph_width > width * 3 / 8 - number_width - 6) graph_width = std::max(6L, width * 3 / 8 - number_width - 6);
    if (name_width > width - number_width - 6 - graph_width) name_width = width - number_width - 6 - graph_width;
    else graph_width = width - number_width - 6 - name_width;
  }
  layout.name_width = static_cast<size_t>(name_width);
  layout.graph_width = static_cast<size_t>(graph_width);
  return layout;
}

std::string padded_left(const std::string& text, size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

// " NAME<padding> | ", the name cut to "...TAIL" when too long, at a '/' where there is one.
std::string stat_name_column(const std::string& name, size_t name_width) {
  std::string_view shown = name;
  std::string prefix;
  size_t room = name_width;
  if (name_width < name.size()) {
    prefix = "...";
    room = name_width >= 3 ? name_width - 3 : 0;
    shown.remove_prefix(name.size() - room);
    const size_t slash = shown.find('/');
    if (slash != std::string_view::npos) shown.remove_prefix(slash);
  }
  const size_t padding = room > shown.size() ? room - shown.size() : 0;
  return " " + prefix + std::string(shown) + std::string(padding, ' ') + " | ";
}

std::string stat_line(const StatEntry& entry, const StatLayout& layout, bool colour) {
  const auto paint = [&](std::string_view sgr, const std::string& text) {
    return colour && !text.empty() ? std::string(sgr) + text + std::string(kReset) : text;
  };
  std::string line = stat_name_column(entry.name, layout.name_width);
  const Counts& counts = entry.counts;
  if (!entry.note.empty()) return line + padded_left(entry.note, layout.number_width) + "\n";
  if (counts.binary) {
    line += padded_left("Bin", layout.number_width);
    if (counts.bytes_before == 0 && counts.bytes_after == 0) return line + "\n";
    return line + " " + paint(kRed, std::to_string(counts.bytes_before)) + " -> " +
           paint(kGreen, std::to_string(counts.bytes_after)) + " bytes\n";
  }
  const size_t total = counts.lines_added + counts.lines_removed;
  size_t add = counts.lines_added, del = counts.lines_removed;
  if (layout.graph_width <= layout.max_change) {
    size_t scaled = scale_linear(total, layout.graph_width, layout.max_change);
    if (scaled < 2 && add != 0 && del != 0) scaled = 2;
    if (add < del) {
      add = scale_linear(add, layout.graph_width, layout.max_change);
      del = scaled - add;
    } else {
      del = scale_linear(del, layout.graph_width, layout.max_change);
      add = scaled - del;
    }
  }
  line += padded_left(std::to_string(total), layout.number_width) + (total != 0 ? " " : "");
  return line + paint(kGreen, std::string(add, '+')) + paint(kRed, std::string(del, '-')) + "\n";
}

std::string stat_summary(size_t files, size_t insertions, size_t deletions) {
  std::string out = " " + std::to_string(files) + (files == 1 ? " file changed" : " files changed");
  if (insertions != 0 || deletions == 0)
    out += ", " + std::to_string(insertions) + (insertions == 1 ? " insertion(+)" : " insertions(+)");
  if (deletions != 0 || insertions == 0)
    out += ", " + std::to_string(deletions) + (deletions == 1 ? " deletion(-)" : " deletions(-)");
  return out + "\n";
}

// --- JSON -------------------------------------------------------------------------------

void add_side(Json& file, const char* side, const EntryState& state, const Blob* blob) {
  const EntryType type = type_of(state);
  if (type == EntryType::None) return;
  const std::string suffix = std::string("_") + side;
  file["type" + suffix] = type_name(type);
  file["mode" + suffix] = permissions(state);
  if (git_tracks(type)) file["git_mode" + suffix] = octal(git_mode(state), 6);
  if (type == EntryType::File && blob) {
    file["size" + suffix] = blob->content.size();
    file["sha256" + suffix] = sha256_hex(blob->content);
  }
  if (type == EntryType::Symlink) file["target" + suffix] = bytes_json(state.link_target);
}

bool is_octal_escaped(unsigned char c) { return c < 0x20 || c == 0x7f || c >= 0x80 || c == '"' || c == '\\'; }

uint32_t adler32(std::string_view data) {
  constexpr uint32_t kModulus = 65521;
  constexpr size_t kBlock = 5552;  // the most bytes before the sums can overflow 32 bits
  uint32_t a = 1, b = 0;
  for (size_t begin = 0; begin < data.size(); begin += kBlock) {
    const size_t end = std::min(data.size(), begin + kBlock);
    for (size_t i = begin; i < end; ++i) {
      a += static_cast<unsigned char>(data[i]);
      b += a;
    }
    a %= kModulus;
    b %= kModulus;
  }
  return (b << 16) | a;
}

}  // namespace

std::string git_quoted_path(std::string_view path, std::string_view prefix) {
  const auto needs = [](std::string_view text) {
    return std::any_of(text.begin(), text.end(),
                       [](char c) { return is_octal_escaped(static_cast<unsigned char>(c)); });
  };
  std::string whole = std::string(prefix) + std::string(path);
  if (!needs(whole)) return whole;
  std::string out = "\"";
  for (char c : whole) {
    const auto byte = static_cast<unsigned char>(c);
    switch (byte) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\v': out += "\\v"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      default:
        if (is_octal_escaped(byte)) out += "\\" + octal(byte, 3);
        else out += c;
    }
  }
  return out + "\"";
}

std::string git_blob_id(std::string_view content) {
  Sha1 hash;
  hash.update("blob " + std::to_string(content.size()));
  hash.update(std::string_view("\0", 1));
  hash.update(content);
  return hash.hex_digest();
}

std::string zlib_stored(std::string_view data) {
  constexpr size_t kMaxStoredBlock = 65535;
  std::string out = "\x78\x01";  // deflate, 32K window, no dictionary; 0x7801 % 31 == 0
  out.reserve(data.size() + data.size() / kMaxStoredBlock * 5 + 16);
  size_t at = 0;
  do {
    const size_t length = std::min(kMaxStoredBlock, data.size() - at);
    const bool last = at + length == data.size();
    const auto nlength = static_cast<uint16_t>(~length);
    out += static_cast<char>(last ? 1 : 0);  // BFINAL, BTYPE 00 (stored), then byte-aligned
    out += static_cast<char>(length & 0xff);
    out += static_cast<char>(length >> 8);
    out += static_cast<char>(nlength & 0xff);
    out += static_cast<char>(nlength >> 8);
    out.append(data.substr(at, length));
    at += length;
  } while (at < data.size());
  const uint32_t checksum = adler32(data);
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((checksum >> shift) & 0xff);
  return out;
}

std::string git_base85_lines(std::string_view data) {
  static constexpr std::string_view kAlphabet =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
  constexpr size_t kLineBytes = 52;
  std::string out;
  out.reserve(data.size() / 4 * 5 + data.size() / kLineBytes * 2 + 8);
  for (size_t begin = 0; begin < data.size(); begin += kLineBytes) {
    const size_t length = std::min(kLineBytes, data.size() - begin);
    out += static_cast<char>(length <= 26 ? 'A' + length - 1 : 'a' + length - 27);
    for (size_t group = 0; group < length; group += 4) {
      uint32_t value = 0;
      for (size_t i = 0; i < 4; ++i) {
        const unsigned char byte = group + i < length ? static_cast<unsigned char>(data[begin + group + i]) : 0;
        value = value << 8 | byte;
      }
      char digits[5];
      for (int i = 4; i >= 0; --i) {
        digits[i] = kAlphabet[value % 85];
        value /= 85;
      }
      out.append(digits, 5);
    }
    out += '\n';
  }
  return out;
}

std::string render_patch(const ChangeSet& changes, const ReadContent& read, const PatchStyle& style) {
  PatchWriter out(style);
  for (const Change& change : changes) {
    const ChangePlan plan = plan_change(change, read);
    if (!plan.note.empty()) out.note(note_line(change, plan.note));
    for (const Section& section : plan.sections) write_section(out, change.path, section);
  }
  return out.take();
}

std::string render_stat(const ChangeSet& changes, const ReadContent& read, const PatchStyle& style) {
  if (changes.empty()) return "";
  std::vector<StatEntry> entries;
  entries.reserve(changes.size());
  size_t insertions = 0, deletions = 0;
  for (const Change& change : changes) {
    const ChangePlan plan = plan_change(change, read);
    StatEntry entry{git_quoted_path(change.path), count_changes(plan), ""};
    if (plan.sections.empty() && !plan.note.empty()) entry.note = plan.note + " (not in patch)";
    if (!entry.counts.binary) {
      insertions += entry.counts.lines_added;
      deletions += entry.counts.lines_removed;
    }
    entries.push_back(std::move(entry));
  }
  const StatLayout layout = stat_layout(entries);
  std::string out;
  for (const StatEntry& entry : entries) out += stat_line(entry, layout, style.colour);
  return out + stat_summary(entries.size(), insertions, deletions);
}

std::string render_name_status(const ChangeSet& changes, const PatchStyle& style) {
  std::string out;
  for (const Change& change : changes)
    out.append(name_status_letter(change.kind)).append("\t").append(git_quoted_path(change.path)).append("\n");
  return style.terminal || style.colour ? printable(out) : out;
}

nlohmann::ordered_json render_json(const ChangeSet& changes, const ReadContent& read) {
  Json files = Json::array();
  size_t lines_added = 0, lines_removed = 0, binary_files = 0, not_in_patch = 0;
  for (const Change& change : changes) {
    const ChangePlan plan = plan_change(change, read);
    const Counts counts = count_changes(plan);
    Json file = Json::object();
    file["path"] = bytes_json(change.path);
    file["status"] = kind_name(change.kind);
    file["name_status"] = name_status_letter(change.kind);
    add_side(file, "before", change.before, plan.before.get());
    add_side(file, "after", change.after, plan.after.get());
    file["binary"] = counts.binary;
    file["lines_added"] = counts.lines_added;
    file["lines_removed"] = counts.lines_removed;
    file["in_patch"] = !plan.sections.empty();
    if (!plan.note.empty()) file["note"] = plan.note;
    lines_added += counts.lines_added;
    lines_removed += counts.lines_removed;
    binary_files += counts.binary ? 1 : 0;
    not_in_patch += plan.sections.empty() ? 1 : 0;
    files.push_back(std::move(file));
  }
  Json document = Json::object();
  document["format"] = kReviewDiffFormat;
  document["version"] = kReviewDiffVersion;
  document["files"] = std::move(files);
  document["totals"] = Json{{"files", changes.size()},
                            {"lines_added", lines_added},
                            {"lines_removed", lines_removed},
                            {"binary_files", binary_files},
                            {"not_in_patch", not_in_patch}};
  return document;
}

}  // namespace cordon::review
