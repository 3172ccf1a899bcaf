// The start every integration fixture parameterised over who launches shares.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "support.h"

namespace cordon::testing {

// Root (to make the test user), the identity for the test's parameter, a scratch directory
// base_, a staged install cordon_ and the config path base_/cordon.toml (the fixture writes it).
// A fixture's SetUp calls stage() first and returns when the test skipped or failed:
//   stage("/tmp/cordon-tt-", "/var/tmp/cordon-prefix-");
//   if (IsSkipped() || HasFatalFailure()) return;
class LaunchFixture : public ::testing::TestWithParam<Who> {
 protected:
  // The install goes to a TempDir of its own from `prefix_template` (under /var/tmp: /tmp is a
  // tmpfs inside the sandbox, so a staged cordon there can run inside) or, when it is empty,
  // to base_/prefix.
  void stage(const std::string& base_template, const std::string& prefix_template = "");
  // base_/ws, owned by the identity.
  void make_workspace();

  Identity who_;
  std::unique_ptr<TempDir> base_, prefix_;
  std::string cordon_, config_, workspace_;
};

}  // namespace cordon::testing
