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
  EXPECT_EQ(shipped.network.mode, defaults.network.mode);
  EXPECT_EQ(shipped.network.dns_forward, defaults.network.dns_forward);
  EXPECT_EQ(shipped.workspace.root, defaults.workspace.root);
  EXPECT_EQ(shipped.environment.allow, defaults.environment.allow);
  EXPECT_EQ(shipped.environment.deny, defaults.environment.deny);
  EXPECT_EQ(shipped.filesystem.writable, defaults.filesystem.writable);
  EXPECT_EQ(shipped.filesystem.proc, defaults.filesystem.proc);
  EXPECT_EQ(shipped.limits.values, defaults.limits.values);
  EXPECT_EQ(shipped.records.keep, defaults.records.keep);
  EXPECT_EQ(shipped.records.keep_days, defaults.records.keep_days);
  EXPECT_EQ(shipped.agents.size(), defaults.agents.size());
}

}  // namespace
}  // namespace cordon
