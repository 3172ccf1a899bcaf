#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/limit_keys.h"

namespace cordon {
namespace {

TEST(LimitKeys, EveryKeyIsConsistentWithItsKind) {
  std::set<std::string> names;
  for (const auto& k : kLimitKeys) {
    SCOPED_TRACE(k.name);
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate key";
    EXPECT_NE(std::string(k.reads_as).find("{}"), std::string::npos);
    switch (k.kind) {
      case LimitKind::Rlimit:
        EXPECT_GE(k.resource, 0);
        EXPECT_STREQ(k.controller, "");
        break;
      case LimitKind::Cgroup:
        EXPECT_EQ(k.resource, -1);
        EXPECT_STRNE(k.controller, "");
        EXPECT_STRNE(k.v2_file, "");
        EXPECT_STRNE(k.v1_file, "");
        // A cgroup file is named after its controller ("memory.max", "pids.max").
        for (const char* file : {k.v2_file, k.v2_swap_file, k.v1_file, k.v1_swap_file})
          if (*file) {
            EXPECT_EQ(std::string(file).rfind(std::string(k.controller) + ".", 0), 0u) << file;
          }
        EXPECT_GE(k.min, 1);
        EXPECT_LT(k.min, k.max);
        break;
      case LimitKind::WallClock:
        EXPECT_EQ(k.resource, -1);
        EXPECT_EQ(k.unit, LimitUnit::Seconds);
        EXPECT_STREQ(k.controller, "");
        break;
    }
    if (k.kind != LimitKind::Cgroup) {
      EXPECT_STREQ(k.v2_file, "");
      EXPECT_STREQ(k.v1_file, "");
    }
    // The name says its unit where it has one.
    if (std::string(k.name).ends_with("_bytes")) {
      EXPECT_EQ(k.unit, LimitUnit::Bytes);
    }
    if (std::string(k.name).ends_with("_seconds")) {
      EXPECT_EQ(k.unit, LimitUnit::Seconds);
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"wall_clock_seconds", "nofile", "nproc", "fsize_bytes", "as_bytes",
                                          "memory_max_bytes", "pids_max"}));
}

TEST(LimitKeys, Lookup) {
  ASSERT_NE(find_limit_key("nofile"), nullptr);
  EXPECT_EQ(find_limit_key("nofile")->resource, RLIMIT_NOFILE);
  EXPECT_STREQ(find_limit_key("pids_max")->controller, "pids");
  EXPECT_EQ(find_limit_key("core"), nullptr);  // never configurable
  EXPECT_EQ(find_recorded_limit_key("core"), &kCoreLimit);
  EXPECT_EQ(kCoreLimit.resource, RLIMIT_CORE);
  EXPECT_EQ(find_limit_key("NOFILE"), nullptr);
  EXPECT_EQ(find_limit_key(""), nullptr);
  EXPECT_EQ(limit_key_names(), "wall_clock_seconds, nofile, nproc, fsize_bytes, as_bytes, memory_max_bytes, pids_max");
}

TEST(LimitKeys, Bounds) {
  const LimitKey& pids = *find_limit_key("pids_max");
  EXPECT_FALSE(limit_value_in_bounds(pids, 0));
  EXPECT_TRUE(limit_value_in_bounds(pids, 1));
  EXPECT_TRUE(limit_value_in_bounds(pids, 4194304));
  EXPECT_FALSE(limit_value_in_bounds(pids, 4194305));
  const LimitKey& nofile = *find_limit_key("nofile");
  EXPECT_FALSE(limit_value_in_bounds(nofile, 0));  // the launcher's child could not even make a pipe
  EXPECT_TRUE(limit_value_in_bounds(nofile, 64));
  const LimitKey& fsize = *find_limit_key("fsize_bytes");  // no bounds but non-negative
  EXPECT_TRUE(limit_value_in_bounds(fsize, 0));
  EXPECT_FALSE(limit_value_in_bounds(fsize, -1));
  const LimitKey& wall = *find_limit_key("wall_clock_seconds");
  EXPECT_TRUE(limit_value_in_bounds(wall, 0));  // none
  EXPECT_FALSE(limit_value_in_bounds(wall, 31536001));
}

}  // namespace
}  // namespace cordon
