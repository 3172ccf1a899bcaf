#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <limits>

#include "common/text.h"

namespace cordon {
namespace {

TEST(ShellQuote, SafeWordsPassUnquoted) {
  EXPECT_EQ(shell_quote("ls"), "ls");
  EXPECT_EQ(shell_quote("/usr/bin/env"), "/usr/bin/env");
  EXPECT_EQ(shell_quote("a=b,c:d@e%f+g.h-i_j"), "a=b,c:d@e%f+g.h-i_j");
}

TEST(ShellQuote, HostileStringsAreOneInertWord) {
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("two words"), "'two words'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("'"), "''\\'''");
  EXPECT_EQ(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
  EXPECT_EQ(shell_quote("`id`"), "'`id`'");
  EXPECT_EQ(shell_quote("a;b&c|d"), "'a;b&c|d'");
  EXPECT_EQ(shell_quote("line\nbreak"), "'line\nbreak'");
  EXPECT_EQ(shell_quote("*?[x]~"), "'*?[x]~'");
  EXPECT_EQ(shell_quote("\\"), "'\\'");
  EXPECT_EQ(shell_quote(std::string("nul\0byte", 8)), std::string("'nul\0byte'", 10));
}

TEST(ShellJoin, QuotesEachWord) {
  EXPECT_EQ(shell_join({}), "");
  EXPECT_EQ(shell_join({"echo", "a b", "", "it's"}), "echo 'a b' '' 'it'\\''s'");
}

TEST(Trim, StripsWhitespaceAtBothEnds) {
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \t\r\n"), "");
  EXPECT_EQ(trim("max\n"), "max");
  EXPECT_EQ(trim("  key = value \r"), "key = value");
  EXPECT_EQ(trim("a b"), "a b");
  EXPECT_EQ(trim("\v\fx\f\v"), "x");
}

TEST(ReadFile, MissingFileReportsErrno) {
  int err = 0;
  EXPECT_FALSE(read_file("/nonexistent/cordon-test", 16, &err));
  EXPECT_EQ(err, ENOENT);
  EXPECT_EQ(read_text_file("/nonexistent/cordon-test"), "");
}

TEST(ReadFile, BoundedByLimit) {
  auto head = read_file("/proc/self/status", 4);
  ASSERT_TRUE(head);
  EXPECT_EQ(*head, "Name");
  EXPECT_NE(read_text_file("/proc/self/status").find("Pid:"), std::string::npos);
}

// In a child whose file size limit is 100 bytes (SIGXFSZ ignored): the first write stores
// 100 of 1000 bytes without an errno, the next fails with EFBIG. The message names that call's
// errno and how much was written, never the errno an earlier call left (EEXIST here).
TEST(WriteAll, APartialWriteGoesOnAndTheFailingCallSaysWhy) {
  char name[] = "/tmp/cordon-write-all-XXXXXX";
  const int fd = ::mkstemp(name);
  ASSERT_GE(fd, 0);
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{100, 100};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    errno = EEXIST;
    const std::string problem = write_all(fd, std::string(1000, 'x'), "writing f");
    ssize_t ignored = ::write(ends[1], problem.data(), problem.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(ends[1]);
  char buffer[256] = {};
  const ssize_t n = ::read(ends[0], buffer, sizeof buffer - 1);
  ::close(ends[0]);
  ::waitpid(child, nullptr, 0);
  ::close(fd);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0),
            "writing f: File too large (100 of 1000 bytes written)");
  struct stat st {};
  EXPECT_EQ(::stat(name, &st), 0);
  EXPECT_EQ(st.st_size, 100);
  ::unlink(name);
}

TEST(WriteAll, WritesEverythingOrNamesTheErrno) {
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(null, 0);
  EXPECT_EQ(write_all(null, std::string(100000, 'x'), "writing n"), "");
  ::close(null);
  const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(full, 0);
  EXPECT_EQ(write_all(full, "abc", "writing f"), "writing f: No space left on device (0 of 3 bytes written)");
  ::close(full);
}

// One write(2) to a file that exists, as a cgroup control file takes it; the errno otherwise.
TEST(WriteControlFile, OneWriteOrTheErrno) {
  EXPECT_EQ(write_control_file("/dev/null", "+pids"), 0);
  EXPECT_EQ(write_control_file("/dev/full", "1"), ENOSPC);
  EXPECT_EQ(write_control_file("/nonexistent/cordon-test/cgroup.procs", "1"), ENOENT);
}

TEST(ParseDecimal, DigitsThatFitOnly) {
  EXPECT_EQ(parse_unsigned("0"), 0u);
  EXPECT_EQ(parse_unsigned("18446744073709551615"), 18446744073709551615ull);
  EXPECT_EQ(parse_unsigned("18446744073709551616"), std::nullopt);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1x", "0x10", "1e3"})
    EXPECT_EQ(parse_unsigned(bad), std::nullopt) << bad;
  EXPECT_EQ(parse_signed("-9223372036854775808"), std::numeric_limits<long long>::min());
  EXPECT_EQ(parse_signed("9223372036854775808"), std::nullopt);
  EXPECT_EQ(parse_signed("137"), 137);
  EXPECT_EQ(parse_signed("+1"), std::nullopt);
}

TEST(Utf8SequenceLength, WellFormedSequencesOnly) {
  EXPECT_EQ(utf8_sequence_length("a", 0), 1u);
  EXPECT_EQ(utf8_sequence_length("\xC3\xA9", 0), 2u);
  EXPECT_EQ(utf8_sequence_length("\xEF\xBB\xBF", 0), 3u);
  EXPECT_EQ(utf8_sequence_length("\xF0\x9F\x99\x82", 0), 4u);
  EXPECT_EQ(utf8_sequence_length("x\xC3\xA9", 1), 2u);
  EXPECT_EQ(utf8_sequence_length("\xEF\xBB", 0), 0u);          // cut short
  EXPECT_EQ(utf8_sequence_length("\xEF\xBBx", 0), 0u);         // not a continuation byte
  EXPECT_EQ(utf8_sequence_length("\xC0\x80", 0), 0u);          // overlong
  EXPECT_EQ(utf8_sequence_length("\xED\xA0\x80", 0), 0u);      // a surrogate
  EXPECT_EQ(utf8_sequence_length("\xF4\x90\x80\x80", 0), 0u);  // above U+10FFFF
  EXPECT_EQ(utf8_sequence_length("\x80", 0), 0u);
  EXPECT_EQ(utf8_sequence_length("\xFF", 0), 0u);
  EXPECT_EQ(utf8_sequence_length("a", 1), 0u);  // past the end
}

TEST(TerminalSafe, ControlBytesAndInvalidUtf8BecomeHex) {
  EXPECT_EQ(terminal_safe("plain \xC3\xA9"), "plain \xC3\xA9");
  EXPECT_EQ(terminal_safe("a\nb\x1b[2J\x7f"), "a\\x0ab\\x1b[2J\\x7f");
  EXPECT_EQ(terminal_safe("\xC2\x9b" "1m"), "\\xc2\\x9b1m");  // C1 CSI
  EXPECT_EQ(terminal_safe("\xEF\xBB"), "\\xef\\xbb");
}

}  // namespace
}  // namespace cordon
