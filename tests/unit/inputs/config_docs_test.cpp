// Docs are product: every key the parser accepts is documented in docs/configuration.md and
// in the shipped etc/cordon.toml, and the shipped file parses to the built-in defaults.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "launcher/inputs/config.h"

namespace cordon {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(ConfigDocs, EverySchemaKeyIsInTheReference) {
  std::string doc = slurp(std::string(CORDON_SOURCE_DIR) + "/docs/configuration.md");
  ASSERT_FALSE(doc.empty());
  for (const auto& key : config_schema_keys())
    EXPECT_NE(doc.find("`" + key + "`"), std::string::npos) << key << " is not documented";
}

TEST(ConfigDocs, EverySchemaKeyIsInTheShippedFile) {
  std::string shipped = slurp(std::string(CORDON_SOURCE_DIR) + "/etc/cordon.toml");
  ASSERT_FALSE(shipped.empty());
  for (const auto& key : config_schema_keys()) {
    std::string leaf = key.substr(key.rfind('.') + 1);
    EXPECT_NE(shipped.find(leaf), std::string::npos) << key << " is not in etc/cordon.toml";
  }
}

TEST(ConfigDocs, ShippedFileIsTheDefaults) {
  Config shipped = parse_config(slurp(std::string(CORDON_SOURCE_DIR) + "/etc/cordon.toml"), "etc/cordon.toml");
  Config defaults = default_config();
  EXPECT_EQ(shipped.network_mode, defaults.network_mode);
  EXPECT_EQ(shipped.dns_forward, defaults.dns_forward);
  EXPECT_EQ(shipped.workspace_root, defaults.workspace_root);
  EXPECT_EQ(shipped.env_allow, defaults.env_allow);
  EXPECT_EQ(shipped.env_deny, defaults.env_deny);
  EXPECT_EQ(shipped.writable, defaults.writable);
  EXPECT_EQ(shipped.proc, defaults.proc);
  EXPECT_EQ(shipped.limits, defaults.limits);
  EXPECT_EQ(shipped.records_keep, defaults.records_keep);
  EXPECT_EQ(shipped.records_keep_days, defaults.records_keep_days);
  EXPECT_EQ(shipped.agents.size(), defaults.agents.size());
}

}  // namespace
}  // namespace cordon
