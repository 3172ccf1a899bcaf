// Which connection gives its slot up when every slot (--max-connections) is taken and another
// client connects. The bound stays; what changes is who pays: a client still sending its head,
// one lingering after its answer, or a relay with no byte either way for --reclaim-idle-seconds
// costs the proxy a slot and gives nobody anything, so the one idle the longest is closed for
// the newcomer. Connections resolving or connecting (bounded by their own timeouts) and busy
// relays are never reclaimed: with only those, the newcomer still gets the 503. Pure code.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

namespace cordon::egress {

// Where a connection is, as the accept loop sees it.
enum class Phase {
  Head,       // reading the client's request head
  Deciding,   // deciding, resolving, connecting to the origin
  Relaying,   // a tunnel or a forwarded request, bytes both ways
  Answering,  // answered (a refusal), draining what the client still sends
  Done,       // finished, being closed
};

struct SlotView {
  Phase phase = Phase::Deciding;
  // Head: since accepted; Relaying: since the last byte either way; Answering: since answered.
  std::chrono::steady_clock::duration idle{};
};

// Head and Answering always; Relaying once idle for `grace` or longer; nothing else.
bool reclaimable(const SlotView& slot, std::chrono::steady_clock::duration grace);

// The reclaimable slot idle the longest (the first of equals: the oldest connection), or nullopt.
std::optional<size_t> pick_reclaim(const std::vector<SlotView>& slots, std::chrono::steady_clock::duration grace);

}  // namespace cordon::egress
