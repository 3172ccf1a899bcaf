#include <gtest/gtest.h>

#include "common/env_names.h"

namespace cordon {
namespace {

TEST(CredentialEnvName, FlagsWhatEitherWitnessFlagged) {
  for (const char* name :
       {"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITLAB_TOKEN", "GL_TOKEN", "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "GOOGLE_APPLICATION_CREDENTIALS", "NPM_TOKEN",
        "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "VAULT_TOKEN", "KUBECONFIG", "DOCKER_AUTH_CONFIG", "CODEX_API_KEY",
        "GEMINI_API_KEY", "GOOGLE_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AZURE_CLIENT_ID", "MY_PASSWORD",
        "DB_PASSWD", "SERVICE_SECRET_KEY", "X_CREDENTIALS", "STRIPE_APIKEY", "DISPLAY", "WAYLAND_DISPLAY",
        "DBUS_SESSION_BUS_ADDRESS", "XAUTHORITY", "SSH_AGENT_PID", "GIT_ASKPASS", "SSH_ASKPASS",
        "VSCODE_IPC_HOOK_CLI", "SOME_PRIVATE_KEY", "AWS_SESSION_TOKEN", "MY_SESSION_KEY"})
    EXPECT_TRUE(credential_env_name(name)) << name;
}

TEST(CredentialEnvName, LeavesOrdinaryNames) {
  for (const char* name : {"PATH", "HOME", "LANG", "TERM", "COLORTERM", "IS_SANDBOX", "LC_ALL", "USER", "LOGNAME",
                           "TZ", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "PWD", "SHLVL", "EDITOR", ""})
    EXPECT_FALSE(credential_env_name(name)) << name;
}

TEST(CredentialEnvName, CaseSensitiveLikeTheEnvironment) {
  EXPECT_FALSE(credential_env_name("display"));
  EXPECT_TRUE(credential_env_name("token_TOKEN"));
}

TEST(BaseEnvAllowList, NoBaseNameIsACredential) {
  for (const auto& name : base_env_allow_list()) EXPECT_FALSE(credential_env_name(name)) << name;
  EXPECT_TRUE(env_name_in(base_env_allow_list(), "LC_CTYPE"));
  EXPECT_TRUE(env_name_in(base_env_allow_list(), "PATH"));
  EXPECT_FALSE(env_name_in(base_env_allow_list(), "PATHEXT"));
  EXPECT_FALSE(env_name_in(base_env_allow_list(), "GH_TOKEN"));
}

TEST(EnvNameMatches, ExactAndPrefixPatterns) {
  EXPECT_TRUE(env_name_matches("LC_*", "LC_"));
  EXPECT_TRUE(env_name_matches("*", "ANYTHING"));
  EXPECT_FALSE(env_name_matches("LC_*", "LC"));
  EXPECT_FALSE(env_name_matches("", "X"));
  EXPECT_TRUE(env_name_matches("", ""));
}

TEST(ConfigurationEnvName, ProxiesCaBundlesAndAgentSettings) {
  for (const char* name : {"HTTPS_PROXY", "https_proxy", "NO_PROXY", "ALL_PROXY", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE",
                           "ANTHROPIC_BASE_URL", "CLAUDE_CODE_USE_BEDROCK", "OPENAI_BASE_URL", "GEMINI_CLI_TRUST_WORKSPACE"})
    EXPECT_TRUE(configuration_env_name(name)) << name;
  for (const char* name : {"PATH", "HOME", "LANG", "PROXY", "_PROXY", "TERM", "GH_TOKEN"})
    EXPECT_FALSE(configuration_env_name(name)) << name;
}

}  // namespace
}  // namespace cordon
