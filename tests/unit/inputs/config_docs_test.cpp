// Docs are product: every key the parser accepts is documented in docs/configuration.md and
// in the shipped etc/cordon.toml, and the shipped file parses to the built-in defaults.
#include <gtest/gtest.h>


#include "common/error.h"
#include "common/text.h"
#include "launcher/inputs/config.h"

namespace cordon {
namespace {

TEST(ConfigDocs, EverySchemaKeyIsInTheReference) {
  std::string doc = read_text_file(std::string(CORDON_SOURCE_DIR) + "/docs/configuration.md");
  ASSERT_FALSE(doc.empty());
  for (const auto& key : config_schema_keys())
    EXPECT_NE(doc.find("`" + key + "`"), std::string::npos) << key << " is not documented";
}

TEST(ConfigDocs, EverySchemaKeyIsInTheShippedFile) {
  std::string shipped = read_text_file(std::string(CORDON_SOURCE_DIR) + "/etc/cordon.toml");
  ASSERT_FALSE(shipped.empty());
  for (const auto& key : config_schema_keys()) {
    std::string leaf = key.substr(key.rfind('.') + 1);
    EXPECT_NE(shipped.find(leaf), std::string::npos) << key << " is not in etc/cordon.toml";
  }
}

// The schema list is the parser's own: every listed key is accepted (any refusal is about its
// value, never "unknown key"), and a key outside the list is refused as unknown. With the two
// tests above, a key the parser reads cannot be missing from the docs.
TEST(ConfigDocs, EverySchemaKeyIsParsedAndNoOther) {
  auto refusal = [](const std::string& dotted) -> std::string {
    std::string table = dotted.substr(0, dotted.rfind('.'));
    if (table.rfind("agents.*", 0) == 0) table = "agents.sample";
    std::string text = "[" + table + "]\n" + dotted.substr(dotted.rfind('.') + 1) + " = 12345\n";
    try {
      parse_config(text, "t.toml");
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  for (const auto& key : config_schema_keys())
    EXPECT_EQ(refusal(key).find("unknown key"), std::string::npos) << key << ": " << refusal(key);
  for (const char* key : {"workspace.rooot", "network.modes", "agents.*.controls", "home.cache", "limits.cpu"})
    EXPECT_NE(refusal(key).find("unknown key"), std::string::npos) << key << " was accepted";
}

TEST(ConfigDocs, ShippedFileIsTheDefaults) {
  Config shipped = parse_config(read_text_file(std::string(CORDON_SOURCE_DIR) + "/etc/cordon.toml"), "etc/cordon.toml");
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
