#include "launch_fixture.h"

#include <unistd.h>

#include <filesystem>

namespace cordon::testing {

void LaunchFixture::stage(const std::string& base_template, const std::string& prefix_template) {
  if (::geteuid() != 0) GTEST_SKIP() << "integration tests need root to create the test user";
  auto who = identity_for(GetParam());
  ASSERT_TRUE(who) << "could not create the unprivileged test user";
  who_ = *who;
  base_ = std::make_unique<TempDir>(base_template);
  if (prefix_template.empty()) {
    cordon_ = stage_install(base_->path() + "/prefix");
  } else {
    prefix_ = std::make_unique<TempDir>(prefix_template);
    cordon_ = stage_install(prefix_->path());
  }
  config_ = base_->path() + "/cordon.toml";
}

void LaunchFixture::make_workspace() {
  workspace_ = base_->path() + "/ws";
  std::filesystem::create_directories(workspace_);
  chown_tree(workspace_, who_.uid, who_.gid);
}

}  // namespace cordon::testing
