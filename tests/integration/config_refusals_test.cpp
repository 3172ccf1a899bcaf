// Refusals caused by a value of the configuration file, as the operator sees them: `cordon
// argv` (which launches nothing) prints one line naming FILE:LINE:COL of the value and exits 2;
// `cordon run` exits 125 with the same line. The parser's own refusals are tested in
// tests/unit/inputs/config_test.cpp; these are the ones only planning against the host finds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "support.h"

namespace cordon::testing {
namespace {

struct ValueCase {
  const char* name;
  std::string toml;                // after [network] mode = "host" unless it has its own [network]
  std::vector<std::string> flags;  // argv options before "--"
  std::string expect;              // after "FILE:", the error line's beginning
};

class ConfigRefusals : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "runs as root (the suite's setup)";
    workspace_ = std::make_unique<TempDir>("/var/tmp/cordon-cr-");
    config_ = workspace_->path() + "/cordon.toml";
  }

  RunResult cordon(const std::string& toml, const std::string& command, const std::vector<std::string>& flags) {
    write_file(config_, toml);
    std::vector<std::string> argv = {CORDON_BINARY, "--config", config_, command};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"--", "/bin/true"});
    RunOptions o;
    o.env = base_env(root_identity());
    o.cwd = workspace_->path();
    return run(argv, o);
  }

  std::unique_ptr<TempDir> workspace_;
  std::string config_;
};

TEST_F(ConfigRefusals, APlanTimeRefusalOfAValueNamesItsLineAndExits2FromArgv) {
  const std::string host = "[network]\nmode = \"host\"\n";
  const std::string ws = workspace_->path();
  const ValueCase cases[] = {
      {"allow_ip everything",
       "[network]\nmode = \"jail\"\nallow_ip = [\"0.0.0.0/0\"]\n",
       {},
       ":3:13: network.allow_ip: "},
      {"loopback dns_forward",
       "[network]\nmode = \"jail\"\ndns_forward = \"127.0.0.53\"\n",
       {},
       ":3:15: network.dns_forward: "},
      {"missing writable",
       host + "[filesystem]\nwritable = [\"/nonexistent/cordon-w\"]\n",
       {},
       ":4:13: filesystem.writable: "},
      {"writable /etc", host + "[filesystem]\nwritable = [\"/etc\"]\n", {}, ":4:13: filesystem.writable: "},
      {"missing read path", host + "[filesystem]\nread = [\"/nonexistent/cordon-r\"]\n", {}, ":4:9: filesystem.read: "},
      {"mask in the workspace",
       host + "[filesystem]\nmasks = [\"" + ws + "/.env\"]\n",
       {},
       ":4:10: filesystem.masks: "},
      {"cache over the profile's state",
       host + "[home]\ncaches = [\".cordon-cr/x\"]\n[agents.mine]\nhome = [\".cordon-cr\"]\n",
       {"--agent", "mine"},
       ":4:11: home.caches: "},
      {"missing agent binary",
       host + "[agents.ghost]\nbinary = \"/nonexistent/ghost\"\n",
       {"--agent", "ghost"},
       ":4:10: agents.ghost.binary: "},
      {"root is a system tree", host + "[workspace]\nroot = \"/etc\"\n", {}, ":4:8: workspace.root: "},
      {"root with a newline",
       host + "[workspace]\nroot = \"/nonexistent/a\\nb\\u001b[2J\"\n",
       {},
       ":4:8: workspace.root: workspace /nonexistent/a\\x0ab\\x1b[2J does not exist"},
  };
  for (const auto& c : cases) {
    RunResult r = cordon(c.toml, "argv", c.flags);
    const std::string line = "cordon: error: " + config_ + c.expect;
    EXPECT_EQ(r.exit_code, kExitConfigError) << c.name << ": " << r.err;
    EXPECT_EQ(r.err.rfind(line, 0), 0u) << c.name << ": " << r.err;
    // One line for the error, one for its fix; nothing of the value reaches the terminal raw.
    const std::string first = r.err.substr(0, r.err.find('\n'));
    EXPECT_EQ(r.err.substr(first.size() + 1).rfind("cordon:   fix: ", 0), 0u) << c.name << ": " << r.err;
    for (unsigned char ch : r.err) EXPECT_TRUE(ch >= 0x20 || ch == '\n') << c.name << ": " << r.err;
  }
}

// Under `run` the same refusal exits 125 (its own statuses must not look like a command's 2).
TEST_F(ConfigRefusals, UnderRunTheSameRefusalExits125) {
  RunResult r = cordon("[network]\nmode = \"host\"\n[filesystem]\nwritable = [\"/etc\"]\n", "run", {});
  EXPECT_EQ(r.exit_code, kExitLaunchRefused) << r.err;
  EXPECT_EQ(r.err.rfind("cordon: error: " + config_ + ":4:13: filesystem.writable: ", 0), 0u) << r.err;
}

// Every refusal prints as one line and its fix as another, whatever it echoes: a --limit
// value (a usage error), a --workspace that is not the file's (a launch refusal, 125 from
// argv too).
TEST_F(ConfigRefusals, ARefusalEchoingACommandLineValueIsOneLineToo) {
  RunResult usage = cordon("[network]\nmode = \"host\"\n", "argv", {"--limit", "nofile\n\x1b[2J=1"});
  EXPECT_EQ(usage.exit_code, kExitConfigError) << usage.err;
  EXPECT_EQ(usage.err.rfind("cordon: error: --limit nofile\\x0a\\x1b[2J=1: expected NAME=NUMBER", 0), 0u) << usage.err;
  RunResult r = cordon("[network]\nmode = \"host\"\n", "argv", {"--workspace", "/nonexistent/a\nb\x1b[2J"});
  EXPECT_EQ(r.exit_code, kExitLaunchRefused) << r.err;
  EXPECT_EQ(r.err.rfind("cordon: error: workspace /nonexistent/a\\x0ab\\x1b[2J does not exist\ncordon:   fix: ", 0), 0u)
      << r.err;
}

// A file toml++ 3.3.0 cannot read safely (its whitespace table reaches `unreachable` on
// U+FEC0, which EF BB 80, a byte order mark's lookalike, encodes) is refused before it reads it.
TEST_F(ConfigRefusals, ABrokenByteOrderMarkIsAConfigurationError) {
  const std::pair<std::string, std::string> cases[] = {
      {"\xEF\xBB", ":1:1: invalid UTF-8 (byte 0xef)"},
      {"\xEF\xBB[network]\nmode = \"host\"\n", ":1:1: invalid UTF-8 (byte 0xef)"},
      {"\xEF\xBB\x80[network]\n", ":1:1: U+FEC0 outside a string or a comment"},
  };
  for (const auto& [text, expect] : cases) {
    RunResult r = cordon(text, "argv", {});
    EXPECT_EQ(r.exit_code, kExitConfigError) << r.err;
    EXPECT_EQ(r.err.rfind("cordon: error: " + config_ + expect, 0), 0u) << r.err;
  }
}

}  // namespace
}  // namespace cordon::testing
