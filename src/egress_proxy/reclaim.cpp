#include "egress_proxy/reclaim.h"

namespace cordon::egress {

bool reclaimable(const SlotView& slot, std::chrono::steady_clock::duration grace) {
  switch (slot.phase) {
    case Phase::Head:
    case Phase::Answering: return true;
    case Phase::Relaying: return slot.idle >= grace;
    case Phase::Deciding:
    case Phase::Done: return false;
  }
  return false;
}

std::optional<size_t> pick_reclaim(const std::vector<SlotView>& slots, std::chrono::steady_clock::duration grace) {
  std::optional<size_t> best;
  for (size_t i = 0; i < slots.size(); ++i)
    if (reclaimable(slots[i], grace) && (!best || slots[i].idle > slots[*best].idle)) best = i;
  return best;
}

}  // namespace cordon::egress
