#include "launcher/env/env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "common/env_names.h"

namespace cordon {
namespace {

// The launcher sets exactly the names common/env_names.h says it sets (the battery relies on
// that list for a sandbox without a session file), and a host value never overrides them.
TEST(Env, LauncherSetNamesMatchCommon) {
  HostFacts facts;
  facts.home = "/home/u";
  facts.user = "u";
  facts.env = {{"PATH", "/bin"}, {"HOME", "/host/home"}, {"IS_SANDBOX", "0"}, {"GH_TOKEN", "x"}};
  EnvList env = plan_environment(EnvironmentConfig{}, AgentProfile{}, facts, {});
  for (const char* name : kLauncherSetEnv) {
    auto count = std::count_if(env.begin(), env.end(), [&](const auto& kv) { return kv.first == name; });
    EXPECT_EQ(count, 1) << name;
  }
  for (const auto& [name, value] : env) {
    bool set_by_launcher = std::find(std::begin(kLauncherSetEnv), std::end(kLauncherSetEnv), name) !=
                           std::end(kLauncherSetEnv);
    EXPECT_TRUE(set_by_launcher || env_name_in(base_env_allow_list(), name)) << name;
    EXPECT_FALSE(credential_env_name(name)) << name;
  }
}

}  // namespace
}  // namespace cordon
