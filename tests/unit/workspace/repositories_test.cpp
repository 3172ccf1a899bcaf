// The repositories a projects directory holds (workspace/repositories.h), on a fake tree and
// on a real one.
#include "launcher/workspace/repositories.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

namespace cordon {
namespace {

namespace fs = std::filesystem;

class Tree : public TreeView {
 public:
  Tree& dir(const std::string& rel) {
    entries_[rel] = EntryKind::Directory;
    return *this;
  }
  Tree& file(const std::string& rel) {
    entries_[rel] = EntryKind::File;
    return *this;
  }
  EntryKind kind(const std::string& rel) const override {
    auto it = entries_.find(rel);
    return it == entries_.end() ? EntryKind::Missing : it->second;
  }
  std::vector<std::string> list(const std::string& rel) const override {
    std::vector<std::string> names;
    const std::string prefix = rel.empty() ? "" : rel + "/";
    for (const auto& [path, kind] : entries_)
      if (path.rfind(prefix, 0) == 0 && path.find('/', prefix.size()) == std::string::npos)
        names.push_back(path.substr(prefix.size()));
    return names;
  }
  std::string read(const std::string&) const override { return ""; }

 private:
  std::map<std::string, EntryKind> entries_;
};

TEST(Repositories, AProjectsDirectoryListsItsRepositoriesAtDepthOneAndTwo) {
  Tree t;
  t.dir("app").dir("app/.git").dir("lib").file("lib/.git").dir("work").dir("work/api").dir("work/api/.git");
  t.dir("notes").file("README").dir(".cache").dir(".cache/x").dir(".cache/x/.git");
  EXPECT_EQ(repositories_below(t), (std::vector<std::string>{"app", "lib", "work/api"}));
  EXPECT_EQ(repositories_below(t, 2).size(), 2u);
}

TEST(Repositories, ARepositoryIsOneProjectWhateverItHolds) {
  Tree t;
  t.dir(".git").dir("vendor").dir("vendor/dep").dir("vendor/dep/.git");
  EXPECT_TRUE(repositories_below(t).empty());
}

TEST(Repositories, TheRealTreeIsListedFromTheWorkspaceItself) {
  char tmpl[] = "/tmp/cordon-repos-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string root = tmpl;
  fs::create_directories(root + "/a/.git");
  fs::create_directories(root + "/b/.git");
  fs::create_directories(root + "/c");
  EXPECT_EQ(repositories_below(WorkspaceTree(root)), (std::vector<std::string>{"a", "b"}));
  fs::remove_all(root);
}

}  // namespace
}  // namespace cordon
