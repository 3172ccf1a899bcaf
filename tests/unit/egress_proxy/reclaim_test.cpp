#include "egress_proxy/reclaim.h"

#include <gtest/gtest.h>

namespace cordon::egress {
namespace {

using std::chrono::seconds;

TEST(Reclaim, OnlyHeadsAnswersAndRelaysIdlePastTheGrace) {
  EXPECT_TRUE(reclaimable({Phase::Head, seconds(0)}, seconds(30)));
  EXPECT_TRUE(reclaimable({Phase::Answering, seconds(0)}, seconds(30)));
  EXPECT_FALSE(reclaimable({Phase::Relaying, seconds(29)}, seconds(30)));  // busy, or idle briefly
  EXPECT_TRUE(reclaimable({Phase::Relaying, seconds(30)}, seconds(30)));
  EXPECT_FALSE(reclaimable({Phase::Deciding, seconds(600)}, seconds(30)));  // bounded by its own timeouts
  EXPECT_FALSE(reclaimable({Phase::Done, seconds(600)}, seconds(30)));
}

TEST(Reclaim, PicksTheLongestIdle) {
  std::vector<SlotView> slots = {{Phase::Head, seconds(2)},
                                 {Phase::Relaying, seconds(40)},
                                 {Phase::Relaying, seconds(90)},
                                 {Phase::Deciding, seconds(120)}};
  EXPECT_EQ(pick_reclaim(slots, seconds(30)), 2u);
  EXPECT_EQ(pick_reclaim(slots, seconds(100)), 0u);  // no relay idle long enough: the head reader
  slots[0].phase = Phase::Deciding;
  EXPECT_EQ(pick_reclaim(slots, seconds(100)), std::nullopt);  // nothing: the 503
  EXPECT_EQ(pick_reclaim({}, seconds(30)), std::nullopt);
}

TEST(Reclaim, EqualIdleTakesTheOldestConnection) {
  std::vector<SlotView> slots = {{Phase::Head, seconds(5)}, {Phase::Head, seconds(5)}, {Phase::Head, seconds(1)}};
  EXPECT_EQ(pick_reclaim(slots, seconds(30)), 0u);
}

}  // namespace
}  // namespace cordon::egress
