#include <gtest/gtest.h>

#include "common/paths.h"

namespace cordon {
namespace {

TEST(PathWithin, ChildrenAndTheDirectoryItself) {
  EXPECT_TRUE(path_within("/a/b", "/a/b"));
  EXPECT_TRUE(path_within("/a/b/c", "/a/b"));
  EXPECT_TRUE(path_within("/a/b/c/d", "/a"));
  EXPECT_FALSE(path_within("/a", "/a/b"));
}

TEST(PathWithin, PrefixButNotChild) {
  EXPECT_FALSE(path_within("/a/bc", "/a/b"));
  EXPECT_FALSE(path_within("/a/b-c", "/a/b"));
  EXPECT_FALSE(path_within("/ab", "/a"));
}

TEST(PathWithin, RootContainsEveryAbsolutePath) {
  EXPECT_TRUE(path_within("/", "/"));
  EXPECT_TRUE(path_within("/etc/shadow", "/"));
  EXPECT_FALSE(path_within("relative", "/"));
  EXPECT_FALSE(path_within("", "/"));
}

TEST(PathWithin, EmptyAndTrailingSlash) {
  EXPECT_FALSE(path_within("/a", ""));
  EXPECT_FALSE(path_within("", ""));
  EXPECT_FALSE(path_within("", "/a"));
  EXPECT_FALSE(path_within("/a/b", "/a/"));  // plain strings: callers pass normalized paths
}

}  // namespace
}  // namespace cordon
