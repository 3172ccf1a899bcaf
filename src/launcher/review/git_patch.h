// A review session's changes (review_change.h) as `git diff` would show them: a patch that
// `git apply` takes (render_patch), a --stat summary, --name-status lines and a JSON document.
//
// The patch, with PatchStyle::terminal false, is what `git diff --binary --no-renames` writes
// for the same trees, byte for byte in its headers: `diff --git a/P b/P`, `new file mode`,
// `deleted file mode`, `old mode`/`new mode`, `index`, `---`/`+++` and hunks with 3 lines of
// context (line_diff.h). Paths are quoted as git quotes them (git_quoted_path). Applied with
// `git apply` in a copy of the before-tree it makes the after-tree: file contents, symbolic
// links and the executable bit. Two things may differ from git's own output: where equal lines
// leave a choice, a change may sit a few lines from where git's indent heuristic puts it; and
// the compressed data of a binary patch (below) is stored, not deflated.
//
// What each kind of change becomes, by the types of its two sides (git knows regular files,
// mode 100644 or 100755 for any x bit, and symbolic links, mode 120000 with the target as
// content and no newline):
//   added / deleted            one "new file" / "deleted file" section
//   same type on both sides    one section: content hunks, and old/new mode when the x bit
//                              changed; a change of the mode alone has only the mode lines
//   file <-> symlink           a deletion, then an addition, as git writes a type change
//   a fifo, socket or device   no section: one line "# cordon: P: WHAT (not expressible in a
//   on either side             patch)" where its section would be. git apply skips lines
//                              starting with '#' between sections (tested).
// Permission bits git cannot carry get such a line too, before the change's section: a change
// of a file's bits git does not see (0644 -> 0600), any change of its set-user-ID,
// set-group-ID or sticky bits, and such bits on a new file ("# cordon: P: mode 0755 -> 4755
// (not expressible in a patch)"). A patch of nothing but such lines is one git apply refuses
// ("No valid patches in input"), as it refuses an empty one.
//
// Binary content (a NUL in the first 8000 bytes of either side, git's test) is written as a
// "GIT binary patch": a forward and a reverse "literal" hunk holding each side's bytes as a
// zlib stream of stored (uncompressed) deflate blocks, in git's base85, with the full 40-hex
// blob ids git checks before and after applying. Text is compared line by line as bytes: CRLF
// line ends are content, a last line without a newline gets "\ No newline at end of file".
//
// PatchStyle::terminal is for a person at a terminal: every byte of names and content that is
// a control character (but newline and tab) or not UTF-8 is written as \xNN (cordon::printable,
// common/print.h), and a binary change shows as "Binary files a/P and b/P differ" rather than
// base85. colour adds git's SGR colours (bold headers, cyan @@, red -, green +, yellow notes)
// after the escaping, so no byte of a file can reach the terminal as part of an escape
// sequence; colour implies terminal.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "launcher/review/read_content.h"
#include "launcher/review/review_change.h"

namespace cordon::review {

// The JSON document render_json writes (docs/schemas.md when it gets there).
inline constexpr const char* kReviewDiffFormat = "cordon-review-diff";
inline constexpr int kReviewDiffVersion = 1;

// The renderers call ReadContent (read_content.h) only for sides that exist and are regular
// files, and need the whole content: a prefix would make a patch that does not apply. What it
// throws (cordon::Error) they pass on.

struct PatchStyle {
  bool terminal = false;  // escape for a terminal (see above); false: raw bytes for git apply
  bool colour = false;    // git's colours; implies terminal
};

// The changes as one patch, in their order (ChangeSet is sorted by path).
std::string render_patch(const ChangeSet& changes, const ReadContent& read, const PatchStyle& style = {});

// Like `git diff --stat` on an 80-column terminal: " NAME | COUNT +++--" lines (" NAME | Bin
// 7 -> 8 bytes" for binary content) and the summary " N files changed, X insertions(+), Y
// deletions(-)". A change with nothing in the patch shows " NAME | WHAT (not in patch)" in
// place of the count. Counts are of the lines the patch removes and adds: for a file <->
// symlink change that is all of both sides, where git counts a line diff of the two contents.
// "" for no changes.
std::string render_stat(const ChangeSet& changes, const ReadContent& read, const PatchStyle& style = {});

// Like `git diff --name-status`: "X\tNAME\n" per change, X "A" added, "D" deleted, "M" modified
// or only the mode changed, "T" another type replaced it. Names quoted as git quotes them;
// changes not in the patch are listed too.
std::string render_name_status(const ChangeSet& changes, const PatchStyle& style = {});

// The changes as a "cordon-review-diff" version 1 document; members in this order:
//   "format": "cordon-review-diff", "version": 1,
//   "files": [ one object per change:
//     "path":           the path, a byte string as common/json_codec.h writes them: a string
//                       when it is UTF-8, otherwise {"base64": "..."} with the exact bytes
//     "status":         "added", "deleted", "modified", "mode" or "retyped" (kind_name)
//     "name_status":    the --name-status letter: "A", "D", "M" or "T"
//     "type_before", "type_after": "file", "symlink", "fifo", "socket", "char-device",
//                       "block-device" or "directory"; absent for a side that does not exist
//     "mode_before", "mode_after": the permission bits (st_mode & 07777) as 4 octal digits,
//                       "0644"; absent for a side that does not exist
//     "git_mode_before", "git_mode_after": "100644", "100755" or "120000" for a file or a
//                       symlink side, as the patch writes it; absent otherwise
//     "size_before", "size_after", "sha256_before", "sha256_after": a regular file side's
//                       content length in bytes and lower-case hex SHA-256
//     "target_before", "target_after": a symlink side's target, a byte string as "path"
//     "binary":         true when the patch carries the content as a binary patch
//     "lines_added", "lines_removed": the lines the patch adds and removes (0 for binary)
//     "in_patch":       false when the patch has no section for the change
//     "note":           present when part of the change is not in the patch: the WHAT of the
//                       patch's "# cordon:" line ("new fifo", "mode 0644 -> 0600")
//   ],
//   "totals": {"files", "lines_added", "lines_removed", "binary_files", "not_in_patch"}
// Reads each regular file side once (for its size, digest and line counts).
nlohmann::ordered_json render_json(const ChangeSet& changes, const ReadContent& read);

// `path` as git writes a name with core.quotePath=true (quote_c_style): unchanged unless it
// holds a byte below 0x20, DEL, a byte >= 0x80, '"' or '\\'; then `prefix` + path in double
// quotes, with \a \b \t \n \v \f \r \" \\ and any other such byte as 3 octal digits ("\303").
// The prefix ("a/", "b/") goes inside the quotes, as in git's headers.
std::string git_quoted_path(std::string_view path, std::string_view prefix = {});

// The git blob id of `content`: hex SHA-1 of "blob <size>\0" + content (`git hash-object`).
std::string git_blob_id(std::string_view content);

// The parts of a binary patch, exposed for their tests: `data` as a zlib stream (RFC 1950) of
// stored deflate blocks (RFC 1951) of at most 65535 bytes, and that stream as git's base85
// lines (a length character, 'A'-'Z' for 1-26 bytes and 'a'-'z' for 27-52, then 5 characters
// per 4 bytes; each line ends in '\n').
std::string zlib_stored(std::string_view data);
std::string git_base85_lines(std::string_view data);

}  // namespace cordon::review
