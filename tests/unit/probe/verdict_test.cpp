// The verdict rules every probe relies on: the worst attempt decides, nothing attempted is
// never a pass, and a kernel call is ESCAPED once its permission gate was passed.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "probe/internal.h"
#include "probe/probe.h"

namespace cordon::probe {
namespace {

TEST(ProbeTally, NothingAttemptedIsInconclusive) {
  Tally t;
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.verdict(), Verdict::Inconclusive);
  EXPECT_EQ(t.evidence(), "nothing attempted");
}

TEST(ProbeTally, AllBlockedIsBlocked) {
  Tally t;
  t.blocked("open /a: EACCES");
  t.blocked("open /b: ENOENT");
  EXPECT_EQ(t.verdict(), Verdict::Blocked);
  EXPECT_EQ(t.evidence(), "open /a: EACCES; open /b: ENOENT");
}

TEST(ProbeTally, AnyEscapeWinsAndLeadsTheEvidence) {
  Tally t;
  t.blocked("first: EPERM");
  t.inconclusive("second: timeout");
  t.escaped("third: opened");
  EXPECT_EQ(t.verdict(), Verdict::Escaped);
  // The deciding attempt first; the others labelled with their own verdict.
  EXPECT_EQ(t.evidence(), "third: opened; [BLOCKED] first: EPERM; [INCONCLUSIVE] second: timeout");
}

TEST(ProbeTally, InconclusiveBeatsBlocked) {
  Tally t;
  t.blocked("a");
  t.inconclusive("b");
  EXPECT_EQ(t.verdict(), Verdict::Inconclusive);
}

TEST(ProbeTally, EvidenceIsBoundedAndNotesFollow) {
  Tally t;
  for (int i = 0; i < 6; ++i) t.blocked("try " + std::to_string(i));
  t.note("no canary given");
  EXPECT_EQ(t.evidence(), "try 0; try 1; try 2; try 3; +2 more (no canary given)");
}

TEST(ProbeVerdictWord, EveryVerdictHasItsWord) {
  EXPECT_STREQ(verdict_word(Verdict::Blocked), "BLOCKED");
  EXPECT_STREQ(verdict_word(Verdict::Escaped), "ESCAPED");
  EXPECT_STREQ(verdict_word(Verdict::Inconclusive), "INCONCLUSIVE");
}

TEST(ProbeClassifyGated, TheGatesErrnoMeansThePermissionCheckWasPassed) {
  std::string text;
  EXPECT_EQ(classify_gated(-1, EPERM, EINVAL, &text), Verdict::Blocked);
  EXPECT_EQ(classify_gated(-1, EACCES, EINVAL, &text), Verdict::Blocked);
  EXPECT_EQ(classify_gated(-1, EINVAL, EINVAL, &text), Verdict::Escaped);
  EXPECT_EQ(classify_gated(0, 0, EINVAL, &text), Verdict::Escaped);
  EXPECT_EQ(classify_gated(-1, ENOSYS, EINVAL, &text), Verdict::Blocked);
  EXPECT_EQ(classify_gated(-1, EFAULT, EINVAL, &text), Verdict::Inconclusive);
  EXPECT_FALSE(text.empty());
}

}  // namespace
}  // namespace cordon::probe
