// /proc/PID/stat as cordon reads it: the fields after the command name's last ')'.
#include "common/process_start.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace cordon {
namespace {

TEST(ProcStat, FieldsAreCountedAfterTheLastParenthesisOfTheName) {
  // A command name with spaces and parentheses, as a process may choose ("x) T 1 1").
  const std::string line =
      "4242 (x) T 1 1 (y)) T 77 4242 4242 0 -1 4194560 1 0 0 0 3 4 0 0 20 0 1 0 987654 "
      "1000 100 18446744073709551615";
  std::optional<ProcStat> stat = parse_proc_stat(line);
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->state, 'T');
  EXPECT_EQ(stat->ppid, 77);
  EXPECT_EQ(stat->pgrp, 4242);
  EXPECT_EQ(stat->start_ticks, 987654);
}

TEST(ProcStat, ShortOrMissingIsNothing) {
  EXPECT_FALSE(parse_proc_stat(""));
  EXPECT_FALSE(parse_proc_stat("1 (init) S 0 1 1"));
  EXPECT_FALSE(read_proc_stat("999999999"));
}

TEST(ProcStat, ThisProcess) {
  std::optional<ProcStat> self = read_proc_stat("self");
  ASSERT_TRUE(self);
  EXPECT_EQ(self->ppid, ::getppid());
  EXPECT_EQ(self->pgrp, ::getpgrp());
  EXPECT_EQ(self->state, 'R');
  EXPECT_EQ(process_start_ticks("self"), self->start_ticks);
}

}  // namespace
}  // namespace cordon
