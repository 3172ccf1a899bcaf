// The configuration loader (launcher/inputs/config.h): any text either parses to a Config or
// throws ConfigError, never another exception, never undefined behaviour (toml++ 3.3.0 reaches
// `unreachable` on some non-ASCII characters: issue 25 item 13, inputs/toml_text.h). What it
// accepts holds the invariants the rest of the launcher relies on. And toml++ makes of the text
// the scan gives it (whole-line comments without their bodies) what it makes of the text itself.
#include <toml++/toml.h>

#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "common/egress_rules.h"
#include "common/error.h"
#include "fuzz_common.h"
#include "launcher/inputs/config.h"
#include "launcher/inputs/toml_text.h"

namespace {
constexpr std::string_view kFuzzTarget = "config";

void check_accepted(const cordon::Config& c, bool scan_clean) {
  FUZZ_CHECK(scan_clean, "parse_config accepted a text toml_text_problem refuses (toml++ would have read it)");
  auto absolute = [](const std::vector<std::string>& paths, const char* key) {
    for (const auto& p : paths) FUZZ_CHECK(!p.empty() && p[0] == '/', std::string(key) + " holds a relative path");
  };
  absolute(c.filesystem.writable, "filesystem.writable");
  absolute(c.filesystem.masks, "filesystem.masks");
  absolute(c.filesystem.read, "filesystem.read");
  FUZZ_CHECK(c.workspace.root.empty() || c.workspace.root[0] == '/', "workspace.root is relative");
  FUZZ_CHECK(c.filesystem.tmpfs_size_bytes == 0 || c.filesystem.tmpfs_size_bytes >= (1LL << 20),
             "tmpfs_size_bytes below 1 MiB");
  FUZZ_CHECK(c.records.keep >= 0 && c.records.keep_days >= 0, "negative records retention");
  // Validated rules: the proxy parses them again and must not refuse what the launcher accepted.
  try {
    cordon::EgressRules rules(c.network.allow, c.network.deny);
    for (const auto& [name, profile] : c.agents) {
      cordon::EgressRules agent_rules(profile.network_allow, c.network.deny);
      FUZZ_CHECK(profile.binary.empty() || profile.binary[0] == '/', "agents." + name + ".binary is relative");
    }
  } catch (const cordon::Error& e) {
    cordon::fuzz::violated(kFuzzTarget, std::string("an accepted config holds a rule the proxy refuses: ") + e.what());
  }
}

std::string place(const toml::source_region& r) {
  return "@" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column) + "-" + std::to_string(r.end.line) +
         ":" + std::to_string(r.end.column);
}

// A node as toml++ made it: its value, and the place of it and of everything in it.
void describe(const toml::node& node, std::ostringstream& out) {
  out << place(node.source()) << ' ';
  if (const toml::table* table = node.as_table()) {
    out << '{';
    for (const auto& [key, value] : *table) {
      out << key.str() << place(key.source()) << '=';
      describe(value, out);
    }
    out << '}';
  } else if (const toml::array* array = node.as_array()) {
    out << '[';
    for (const toml::node& item : *array) describe(item, out);
    out << ']';
  } else {
    node.visit([&](const auto& value) { out << value; });
  }
  out << ';';
}

// What toml++ makes of `text` (clean by toml_text_problem, so safe to give it): the tree with
// every place, or the error with its place.
std::string toml_outcome(std::string_view text) {
  std::ostringstream out;
  try {
    describe(toml::parse(text, std::string_view("fuzz.toml")), out);
  } catch (const toml::parse_error& e) {
    out << "error " << e.description() << place(e.source());
  }
  return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(cordon::fuzz::as_text(data, size));
  const cordon::ScannedToml scanned = cordon::scan_toml_text(text);
  const bool scan_clean = !scanned.problem.has_value();
  if (scan_clean && scanned.for_parser != text)
    FUZZ_CHECK(toml_outcome(text) == toml_outcome(scanned.for_parser),
               "toml++ reads the text without its whole-line comment bodies otherwise: " + cordon::fuzz::escaped(text));
  try {
    const cordon::Config config = cordon::parse_config(text, "fuzz.toml");
    check_accepted(config, scan_clean);
  } catch (const cordon::ConfigError&) {
    // A refusal: what the loader promises for any text it cannot accept.
  } catch (const std::exception& e) {
    cordon::fuzz::violated(kFuzzTarget, std::string("parse_config threw other than ConfigError: ") + e.what());
  } catch (...) {
    cordon::fuzz::violated(kFuzzTarget, "parse_config threw a non-exception");
  }
  return 0;
}
