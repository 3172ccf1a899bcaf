// Fuzz.SelfTest: the terminal filter's target with a planted defect (the clipboard class let
// through while the oracle expects the default set). Its run must fail: a fuzz test that
// cannot fail proves nothing.
#define CORDON_FUZZ_PLANTED_DEFECT 1
#include "fuzz_terminal_filter.cpp"  // NOLINT(bugprone-suspicious-include)
