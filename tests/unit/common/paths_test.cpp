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

namespace cordon {
namespace {

TEST(PathComponents, SplitsWithoutEmptyOrDotComponents) {
  EXPECT_EQ(path_components("/a//./b/"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(path_components("a/../b"), (std::vector<std::string>{"a", "..", "b"}));
  EXPECT_TRUE(path_components("").empty());
  EXPECT_TRUE(path_components("/./").empty());
}

TEST(NormalizePath, ResolvesDotsByComponents) {
  EXPECT_EQ(normalize_path("/a/./b/../c"), "/a/c");
  EXPECT_EQ(normalize_path("/../../a"), "/a");
  EXPECT_EQ(normalize_path("./.vscode/"), "/.vscode");
  EXPECT_EQ(normalize_path(""), "/");
}

}  // namespace
}  // namespace cordon
