// Docs are product: every key the parser accepts is documented in docs/configuration.md and
// in the shipped etc/cordon.toml, and the shipped file parses to the built-in defaults.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

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

// docs/configuration.md's default column (the first `code` of the cell), per dotted key.
std::map<std::string, std::string> reference_defaults(const std::string& doc) {
  std::map<std::string, std::string> defaults;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    for (size_t at = 1, end; (end = line.find(" |", at)) != std::string::npos; at = end + 2)
      cells.push_back(trim(line.substr(at, end - at)));
    if (cells.size() < 3) continue;
    const size_t open = cells[2].find('`'), close = cells[2].find('`', open + 1);
    if (open != std::string::npos && close != std::string::npos)
      defaults[cells[0].substr(1, cells[0].size() - 2)] = cells[2].substr(open + 1, close - open - 1);
  }
  return defaults;
}

// The shipped file's values as written, per dotted key (its comments aside).
std::map<std::string, std::string> shipped_values(const std::string& toml) {
  std::map<std::string, std::string> values;
  std::istringstream lines(toml);
  std::string section;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind('[', 0) == 0) section = line.substr(1, line.find(']') - 1);
    if (line.empty() || line[0] == '#' || line[0] == '[' || line.find(" = ") == std::string::npos) continue;
    const size_t eq = line.find(" = ");
    values[section + "." + trim(line.substr(0, eq))] = trim(line.substr(eq + 3, line.find('#') - eq - 3));
  }
  return values;
}

// "KEY: SHIPPED != REFERENCE" for each key the shipped file sets that the reference gives
// another default (or none).
std::vector<std::string> default_mismatches(const std::string& doc, const std::string& toml) {
  std::vector<std::string> mismatches;
  const auto defaults = reference_defaults(doc);
  for (const auto& [key, value] : shipped_values(toml)) {
    auto it = defaults.find(key);
    if (it == defaults.end() || it->second != value)
      mismatches.push_back(key + ": " + value + " != " + (it == defaults.end() ? "(none)" : it->second));
  }
  return mismatches;
}

// The reference's defaults are what cordon.toml(5) prints: each is the shipped file's value,
// which the test below holds to the built-in defaults. The control: a reference with one
// default changed is reported.
TEST(ConfigDocs, EachDefaultInTheReferenceIsTheShippedValue) {
  const std::string doc = read_text_file(std::string(CORDON_SOURCE_DIR) + "/docs/configuration.md");
  const std::string shipped = read_text_file(std::string(CORDON_SOURCE_DIR) + "/etc/cordon.toml");
  ASSERT_GT(shipped_values(shipped).size(), 20u);
  EXPECT_EQ(default_mismatches(doc, shipped), std::vector<std::string>{});
  std::string changed = doc;
  const size_t row = changed.find("| `records.keep_days` | integer");
  ASSERT_NE(row, std::string::npos);
  changed.replace(changed.find("`90`", row), 4, "`30`");
  EXPECT_EQ(default_mismatches(changed, shipped), std::vector<std::string>{"records.keep_days: 90 != 30"});
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
