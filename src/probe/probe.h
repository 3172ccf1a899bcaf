// cordon-probe: adversarial breakout probes. Where the battery checks that each defence is
// configured, a probe *attempts the violation* and requires it to fail, so it holds for any
// mechanism that produces the outcome. Every probe is reversible (what it creates it removes),
// bounded in time (the runner kills a hung probe and calls it INCONCLUSIVE) and never sends
// traffic anywhere but loopback or the addresses the caller names (--net-targets).
#pragma once

#include <string>
#include <vector>

namespace cordon::probe {

struct Context;

enum class Verdict { Blocked, Escaped, Inconclusive };

const char* verdict_word(Verdict v);  // "BLOCKED", "ESCAPED", "INCONCLUSIVE"

// The outcome of one probe as reported.
struct ProbeResult {
  std::string id;      // "01".."99", stable
  std::string name;    // kebab-case, stable
  std::string family;  // egress, filesystem, privilege, process, terminal, kernel, credentials
  Verdict verdict = Verdict::Inconclusive;
  std::string evidence;  // what was attempted and what happened (never a secret's value)
  double duration_ms = 0;
};

// Collects the attempts one probe makes. The verdict is decided by the worst attempt:
// any ESCAPED wins, then any INCONCLUSIVE, then BLOCKED; a probe that attempted nothing is
// INCONCLUSIVE ("nothing attempted" is never a pass).
class Tally {
 public:
  void blocked(std::string text) { add(Verdict::Blocked, std::move(text)); }
  void escaped(std::string text) { add(Verdict::Escaped, std::move(text)); }
  void inconclusive(std::string text) { add(Verdict::Inconclusive, std::move(text)); }
  void add(Verdict v, std::string text);
  // Context printed after the attempts (e.g. "no canary given"), whatever the verdict.
  void note(std::string text) { notes_.push_back(std::move(text)); }

  Verdict verdict() const;
  std::string evidence() const;  // the deciding attempts first, then the rest, bounded
  bool empty() const { return attempts_.empty(); }

 private:
  struct Attempt {
    Verdict verdict;
    std::string text;
  };
  std::vector<Attempt> attempts_;
  std::vector<std::string> notes_;
};

using ProbeFn = void (*)(const Context&, Tally&);

struct ProbeDef {
  const char* id;
  const char* name;
  const char* family;
  const char* attempts;  // one line: what the probe tries
  const char* blocked;   // one line: what BLOCKED evidence looks like
  ProbeFn run;
};

// Every probe, in id order. Each family file contributes its own table.
const std::vector<ProbeDef>& all_probes();

std::vector<ProbeDef> egress_probes();
std::vector<ProbeDef> policy_probes();
std::vector<ProbeDef> filesystem_probes();
std::vector<ProbeDef> foothold_probes();
std::vector<ProbeDef> privilege_probes();
std::vector<ProbeDef> process_probes();
std::vector<ProbeDef> terminal_probes();
std::vector<ProbeDef> kernel_probes();
std::vector<ProbeDef> credential_probes();
std::vector<ProbeDef> review_probes();

}  // namespace cordon::probe
