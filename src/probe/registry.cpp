// The probe table and the verdict rule every probe shares.
#include <algorithm>
#include <cstring>

#include "probe/probe.h"

namespace cordon::probe {

const char* verdict_word(Verdict v) {
  switch (v) {
    case Verdict::Blocked: return "BLOCKED";
    case Verdict::Escaped: return "ESCAPED";
    case Verdict::Inconclusive: return "INCONCLUSIVE";
  }
  return "INCONCLUSIVE";
}

void Tally::add(Verdict v, std::string text) {
  if (attempts_.size() < 64) attempts_.push_back({v, std::move(text)});
}

Verdict Tally::verdict() const {
  if (attempts_.empty()) return Verdict::Inconclusive;
  bool inconclusive = false;
  for (const auto& a : attempts_) {
    if (a.verdict == Verdict::Escaped) return Verdict::Escaped;
    inconclusive |= a.verdict == Verdict::Inconclusive;
  }
  return inconclusive ? Verdict::Inconclusive : Verdict::Blocked;
}

std::string Tally::evidence() const {
  constexpr size_t kShown = 4;
  const Verdict deciding = verdict();
  std::vector<const Attempt*> ordered;
  for (const auto& a : attempts_)
    if (a.verdict == deciding) ordered.push_back(&a);
  for (const auto& a : attempts_)
    if (a.verdict != deciding) ordered.push_back(&a);
  std::string out;
  if (attempts_.empty()) out = "nothing attempted";
  for (size_t i = 0; i < ordered.size() && i < kShown; ++i) {
    if (i) out += "; ";
    // Attempts of another verdict than the deciding one are labelled so the row stays honest.
    if (ordered[i]->verdict != deciding) out += std::string("[") + verdict_word(ordered[i]->verdict) + "] ";
    out += ordered[i]->text;
  }
  if (ordered.size() > kShown) out += "; +" + std::to_string(ordered.size() - kShown) + " more";
  for (const auto& n : notes_) out += " (" + n + ")";
  return out;
}

const std::vector<ProbeDef>& all_probes() {
  static const std::vector<ProbeDef> probes = [] {
    std::vector<ProbeDef> all;
    for (auto part : {egress_probes(), policy_probes(), filesystem_probes(), foothold_probes(), privilege_probes(),
                      process_probes(), terminal_probes(), kernel_probes(), credential_probes(), review_probes()})
      all.insert(all.end(), part.begin(), part.end());
    std::sort(all.begin(), all.end(), [](const ProbeDef& a, const ProbeDef& b) { return std::strcmp(a.id, b.id) < 0; });
    return all;
  }();
  return probes;
}

}  // namespace cordon::probe
