// Small text helpers shared by the launcher, the battery and the probe.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// POSIX shell single-quoting, only where needed: safe characters pass unquoted.
std::string shell_quote(std::string_view word);
std::string shell_join(const std::vector<std::string>& words);
// The items with `separator` between them.
std::string join(const std::vector<std::string>& items, std::string_view separator);

// A file's content, at most `limit` bytes; nullopt (with *err = errno) when it cannot be
// opened or read. O_NONBLOCK | O_NOCTTY: a FIFO or terminal put in a file's place cannot hang
// the reader.
std::optional<std::string> read_file(const std::string& path, size_t limit = 1 << 20, int* err = nullptr);

// A regular file's whole content, opened without following a final symbolic link (O_NOFOLLOW)
// or blocking on a FIFO: for files a session may have written. nullopt with *err = errno when
// it cannot be opened or read, EINVAL when it is not a regular file, EFBIG when it holds more
// than `limit` bytes. `st` (optional) gets its fstat.
std::optional<std::string> read_regular_file(const std::string& path, size_t limit, struct stat* st = nullptr,
                                             int* err = nullptr);

// The whole content of a file, or "" when it cannot be read.
std::string read_text_file(const std::string& path);

// Writes all of `bytes` to `fd`, going on after a partial write: a nearly full disk stores
// part, and the next call says why it cannot store more. "" when all was written; otherwise
// "CONTEXT: REASON (N of M bytes written)", REASON the errno of the call that failed, or
// "short write" when a call wrote nothing and set no errno. Never an earlier call's errno.
std::string write_all(int fd, std::string_view bytes, const std::string& context);

// Writes `value` to an existing kernel control file (cgroupfs, /proc) in one write(2), as the
// kernel takes one command per write: 0, or the errno of the open or the write (EIO for a
// short write, which such a file does not do unless it refused part).
int write_control_file(const std::string& path, std::string_view value);

// The length of the well-formed UTF-8 sequence at `text[at]` (1-4 bytes), or 0 when none
// starts there (RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF; a sequence
// cut short by the end of `text` is not one).
size_t utf8_sequence_length(std::string_view text, size_t at);

// `text` as a terminal may show it: C0 and C1 control characters (ESC, CR, BEL, CSI, ...),
// DEL and bytes that are not UTF-8 become \xNN, so a recorded path or message cannot move the
// cursor, set a title or write to the clipboard of whoever reads it.
std::string terminal_safe(std::string_view text);

// `text` as a decimal number when it is nothing but digits (a leading '-' for the signed one)
// and fits; nullopt otherwise. For numbers read back from files and records: std::stoull
// throws on them, atoll is undefined on an overflow.
std::optional<unsigned long long> parse_unsigned(std::string_view text);
std::optional<long long> parse_signed(std::string_view text);

// `text` without leading and trailing whitespace (space, tab, CR, LF, VT, FF).
std::string trim(std::string_view text);

}  // namespace cordon
