// Config parser: strict schema, file:line:column errors, defaults. Table-driven.
#include "launcher/inputs/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "common/build_config.h"
#include "common/error.h"
#include "common/text.h"
#include "launcher/plan/session_options.h"

namespace cordon {
namespace {

TEST(Config, DefaultsWhenEmpty) {
  Config c = parse_config("", "/etc/cordon/cordon.toml");
  EXPECT_EQ(c.network.mode, NetworkMode::EgressJail);
  EXPECT_EQ(c.network.dns_forward, "auto");
  EXPECT_EQ(c.filesystem.proc, ProcMode::Fresh);
  EXPECT_TRUE(c.agents.count("generic"));
  EXPECT_TRUE(c.environment.allow.empty());
}

TEST(Config, ParsesEverySection) {
  Config c = parse_config(R"(
[workspace]
root = "/src"
[environment]
allow = ["EDITOR", "MY_*"]
deny = ["MY_SECRET"]
[home]
keep = [".vimrc"]
[filesystem]
writable = ["/var/cache/x"]
masks = ["/etc/ssh/ssh_host_ed25519_key"]
proc = "host-ro"
[git]
name = "A B"
email = "a@b.example"
[network]
egress_jail = false
allow_ip = ["203.0.113.7", "198.51.100.0/24"]
dns_forward = "198.18.0.53"
[agents.claude]
binary = "/usr/local/bin/claude"
home = [".claude", ".claude.json"]
env = ["ANTHROPIC_API_KEY"]
allow_ptrace = true
)",
                          "t.toml");
  EXPECT_EQ(c.workspace.root, "/src");
  EXPECT_EQ(c.environment.allow, (std::vector<std::string>{"EDITOR", "MY_*"}));
  EXPECT_EQ(c.environment.deny, (std::vector<std::string>{"MY_SECRET"}));
  EXPECT_EQ(c.home.keep_read_only, (std::vector<std::string>{".vimrc"}));
  EXPECT_EQ(c.workspace.protect, (std::vector<std::string>{".envrc", ".vscode", ".idea", ".devcontainer"}));
  EXPECT_EQ(c.filesystem.writable, (std::vector<std::string>{"/var/cache/x"}));
  EXPECT_EQ(c.filesystem.proc, ProcMode::HostReadOnly);
  EXPECT_EQ(c.network.mode, NetworkMode::Host);
  EXPECT_EQ(c.network.allow_ip.size(), 2u);
  EXPECT_EQ(c.network.dns_forward, "198.18.0.53");
  const AgentProfile& p = c.agent("claude");
  EXPECT_EQ(p.binary, "/usr/local/bin/claude");
  EXPECT_EQ(p.home, (std::vector<std::string>{".claude", ".claude.json"}));
  EXPECT_TRUE(p.allow_ptrace);
  EXPECT_TRUE(c.agents.count("generic"));  // built-ins stay
  EXPECT_TRUE(c.agents.count("codex"));
}

TEST(Config, RecordsExportTargets) {
  auto target = [](const std::string& value) {
    return parse_config("[records]\nexport = \"" + value + "\"\n", "/etc/cordon/cordon.toml").records.export_to;
  };
  EXPECT_EQ(parse_config("", "/etc/cordon/cordon.toml").records.export_to.kind, RecordExportTarget::Kind::None);
  EXPECT_EQ(target("").kind, RecordExportTarget::Kind::None);
  EXPECT_EQ(target("stderr").kind, RecordExportTarget::Kind::Stderr);
  EXPECT_EQ(target("/proc/1/fd/1").kind, RecordExportTarget::Kind::File);
  EXPECT_EQ(target("/proc/1/fd/1").path, "/proc/1/fd/1");
  const RecordExportTarget socket = target("unix:/run/collector.sock");
  EXPECT_EQ(socket.kind, RecordExportTarget::Kind::UnixSocket);
  EXPECT_EQ(socket.path, "/run/collector.sock");
  EXPECT_EQ(socket.spelled, "unix:/run/collector.sock");
}

struct BadCase {
  const char* text;
  const char* expect;  // substring of the one-line error
};

class ConfigRejects : public ::testing::TestWithParam<BadCase> {};

TEST_P(ConfigRejects, WithLocationAndKey) {
  try {
    parse_config(GetParam().text, "/etc/cordon/cordon.toml");
    FAIL() << "accepted: " << GetParam().text;
  } catch (const ConfigError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(GetParam().expect), std::string::npos) << message;
    EXPECT_EQ(message.rfind("/etc/cordon/cordon.toml:", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    // Nothing the file holds reaches the operator's terminal raw (an ESC could restyle it).
    for (unsigned char ch : message) EXPECT_TRUE(ch >= 0x20 && ch != 0x7f) << "control byte in: " << message;
    EXPECT_EQ(e.exit_code(), 2);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ConfigRejects,
    ::testing::Values(
        BadCase{"[workspace]\nroot = 3\n", "2:8: workspace.root: expected a string"},
        BadCase{"[records]\nexport = \"log.jsonl\"\n", "records.export: must be \"stderr\", an absolute path"},
        BadCase{"[records]\nexport = \"unix:relative\"\n", "records.export: must be \"stderr\""},
        BadCase{"[records]\nexport = \"tcp:127.0.0.1:9\"\n", "records.export: must be"},
        BadCase{"[workspace]\nprotect = [\"/etc\"]\n", "2:12: workspace.protect: \"/etc\" must be a path relative"},
        BadCase{"[workspace]\nprotect = [\"a/../../x\"]\n", "workspace.protect: \"a/../../x\" must stay inside"},
        BadCase{"[workspace]\nprotect = [\"\"]\n", "workspace.protect: \"\" must be a path relative"},
        BadCase{"[workspace]\nprotect = [\"./\"]\n", "names the workspace itself"},
        BadCase{"[workspace]\nprotect = [\"a\\u0000b\"]\n", "workspace.protect: contains a NUL"},
        BadCase{"[workspace]\nroot = \"src\"\n", "workspace.root: \"src\" must be an absolute path"},
        BadCase{"[workspace]\nrooot = \"/x\"\n", "2:1: workspace.rooot: unknown key"},
        BadCase{"[nope]\n", "nope: unknown key"},
        BadCase{"[environment]\nallow = [\"A\", \"A\"]\n", "environment.allow: duplicate entry \"A\""},
        BadCase{"[environment]\nallow = \"A\"\n", "expected an array of strings"},
        BadCase{"[environment]\nallow = [\"A-B\"]\n", "not an environment variable name"},
        BadCase{"[environment]\ndeny = [1]\n", "environment.deny: expected a string, found integer"},
        BadCase{"[home]\nkeep = [\"/abs\"]\n", "must be a path relative to $HOME"},
        BadCase{"[home]\nkeep = [\"../x\"]\n", "must stay inside $HOME"},
        BadCase{"[filesystem]\nwritable = [\"rel/path\"]\n",
                "filesystem.writable: \"rel/path\" must be an absolute path"},
        BadCase{"[filesystem]\nwritable = [\"/a/../b\"]\n", "must not contain '..'"},
        BadCase{"[filesystem]\nproc = \"maybe\"\n", "filesystem.proc: must be \"fresh\" or \"host-ro\""},
        BadCase{"[network]\negress_jail = \"yes\"\n", "network.egress_jail: expected a boolean, found string"},
        BadCase{"[network]\nallow_ip = [\"10.0.0.1/8\"]\n", "host bits set"},
        BadCase{"[network]\nallow_ip = [\"300.1.1.1\"]\n", "not an IPv4 address"},
        BadCase{"[network]\nallow_ip = [\"1.2.3.4/33\"]\n", "prefix length"},
        BadCase{"[network]\nallow_ip = [\"1.2.3.4\", \"1.2.3.4\"]\n", "duplicate entry"},
        BadCase{"[network]\ndns_forward = \"here\"\n", "must be \"auto\" or an IPv4 address"},
        BadCase{"[limits]\nnofile = -1\n", "limits.nofile: must not be negative"},
        // Values the launch could never honour: one error at the value, exit 2, nothing run.
        BadCase{"[limits]\nnofile = 20\n", "2:10: limits.nofile: 20 is outside 64..1048576"},
        BadCase{"[limits]\nas_bytes = 1048576\n", "limits.as_bytes: 1048576 is outside 16777216.."},
        BadCase{"[limits]\nwall_clock_seconds = 9223372036854775807\n",
                "limits.wall_clock_seconds: 9223372036854775807 is outside 0..31536000"},
        BadCase{"[limits]\npids_max = 4194305\n", "limits.pids_max: 4194305 is outside 1..4194304"},
        BadCase{"[limits]\npids_max = 4194305\n", "limits.pids_max: 4194305 is outside"},
        BadCase{"[limits]\nmemory_max_bytes = 4096\n", "limits.memory_max_bytes: 4096 is outside"},
        BadCase{"[home]\nkeep = [\"./\"]\n", "\"./\" names $HOME itself"},
        BadCase{"[home]\nkeep = [\".\"]\n", "names $HOME itself"},
        BadCase{"[home]\nkeep = [\"./.\"]\n", "names $HOME itself"},
        BadCase{"[filesystem]\nwritable = [\"/srv/a\\u0000b\"]\n", "filesystem.writable: contains a NUL character"},
        BadCase{"[git]\nname = \"a\\u0000b\"\n", "git.name: contains a NUL character"},
        BadCase{"[limits]\ncpu = 1\n", "limits.cpu: unknown key"},
        BadCase{"[limits]\nbest_effort = [\"cpu\"]\n", "\"cpu\" is not a limit name"},
        BadCase{"[agents.claude]\nbinary = \"claude\"\n", "agents.claude.binary: \"claude\" must be an absolute path"},
        BadCase{"[agents.claude]\nhome = [\".claude\"]\nhme = 1\n", "agents.claude.hme: unknown key"},
        BadCase{"[agents.\"a b\"]\n", "profile names use letters"},
        BadCase{"[agents]\nclaude = 1\n", "agents.claude: expected a table"},
        BadCase{"[git]\nname = \"a\"\nname = \"b\"\n", "3:8: Error while parsing key-value pair: cannot redefine"},
        // Keys and values are echoed terminal-safe, on one line (control bytes as \xNN).
        BadCase{"[workspace]\n\"a\\u001b[31m\" = 1\n", "2:1: workspace.a\\x1b[31m: unknown key"},
        BadCase{"\"\\u001b]0;x\\u0007\" = 1\n", "1:1: \\x1b]0;x\\x07: unknown key"},
        BadCase{"[limits]\n\"a\\nb\" = 1\n", "2:1: limits.a\\x0ab: unknown key"},
        BadCase{"[agents.\"a\\u001bb\"]\n", "agents.a\\x1bb: profile names use letters"},
        BadCase{"[network]\nmode = \"a\\nb\\u001b[2J\"\n", "network.mode: \"a\\x0ab\\x1b[2J\" is not one of"},
        BadCase{"[filesystem]\nview = \"x\\ny\"\n", "filesystem.view: must be \"system\" or \"host\", not \"x\\x0ay\""},
        BadCase{"[filesystem]\nwritable = [\"rel\\npath\"]\n", "\"rel\\x0apath\" must be an absolute path"},
        BadCase{"[environment]\nallow = [\"A\\u009bB\"]\n", "\"A\\xc2\\x9bB\" is not an environment variable name"},
        BadCase{"[network]\nallow = [\"a\\u001b.test\"]\n", "network.allow: "},
        BadCase{"[terminal]\npass = [\"x\\ry\"]\n", "\"x\\x0dy\" is not a class"},
        BadCase{"[workspace\n", "1:"},  // malformed TOML
        BadCase{"x = \"unterminated\n", "1:"}, BadCase{"= 1\n", "1:"}));

// toml++ 3.3.0's UTF-8 decoder reaches an `unreachable` on some malformed bytes (a truncated
// byte order mark): such a file is refused before toml++ reads it, at its first bad byte.
TEST(Config, InvalidUtf8IsRefusedAtItsFirstBadByte) {
  struct Case {
    std::string text;
    const char* expect;
  } cases[] = {
      {"\xEF", "t.toml:1:1: invalid UTF-8 (byte 0xef)"},
      {"\xEF\xBB", "t.toml:1:1: invalid UTF-8 (byte 0xef)"},
      {"\xEF\xBB[network]\n", "t.toml:1:1: invalid UTF-8 (byte 0xef)"},
      {"#\xEF\xBF\xBF\xEF\xBB", "t.toml:1:3: invalid UTF-8 (byte 0xef)"},
      {"[git]\nname = \"\xC3\xA9\xFF\"\n", "t.toml:2:10: invalid UTF-8 (byte 0xff)"},
      {"[git]\nname = \"\xC0\x80\"\n", "t.toml:2:9: invalid UTF-8 (byte 0xc0)"},   // overlong NUL
      {"# \xED\xA0\x80\n", "t.toml:1:3: invalid UTF-8 (byte 0xed)"},               // a surrogate
      {"[git]\r\nname = \"x\"\r\n\x80", "t.toml:3:1: invalid UTF-8 (byte 0x80)"},  // a lone continuation
  };
  for (const auto& c : cases) {
    try {
      parse_config(c.text, "t.toml");
      ADD_FAILURE() << "accepted: " << terminal_safe(c.text);
    } catch (const ConfigError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(c.expect, 0), 0u) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      EXPECT_EQ(e.exit_code(), kExitConfigError);
    }
  }
  // A whole byte order mark is UTF-8's own, and toml++ skips it.
  EXPECT_EQ(parse_config("\xEF\xBB\xBF[network]\nmode = \"offline\"\n", "t.toml").network.mode, NetworkMode::Offline);
  EXPECT_EQ(parse_config("[git]\nname = \"\xC3\xA9\xF0\x9F\x99\x82\"\n", "t.toml").git.name,
            "\xC3\xA9\xF0\x9F\x99\x82");
}

// load_config reads the file, then refuses it the same way.
TEST(Config, AFileWithATruncatedByteOrderMarkIsRefused) {
  char name[] = "/tmp/cordon-config-test-XXXXXX";
  int fd = ::mkstemp(name);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "\xEF\xBB", 2), 2);
  ::close(fd);
  try {
    load_config(name);
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(std::string(name) + ":1:1: invalid UTF-8", 0), 0u) << e.what();
  }
  ::unlink(name);
}

TEST(Config, ShippedAgentProfiles) {
  Config c = default_config();
  EXPECT_EQ(c.agent("claude").home, (std::vector<std::string>{".claude", ".claude.json"}));
  const auto& claude_env = c.agent("claude").env;
  for (const char* name :
       {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"})
    EXPECT_NE(std::find(claude_env.begin(), claude_env.end(), name), claude_env.end()) << name;
  const auto& codex_env = c.agent("codex").env;
  EXPECT_NE(std::find(codex_env.begin(), codex_env.end(), "OPENAI_BASE_URL"), codex_env.end());
  const auto& gemini_env = c.agent("gemini").env;
  EXPECT_NE(std::find(gemini_env.begin(), gemini_env.end(), "GEMINI_CLI_TRUST_WORKSPACE"), gemini_env.end());
  EXPECT_EQ(c.agent("codex").home, (std::vector<std::string>{".codex"}));
  EXPECT_EQ(c.agent("gemini").home, (std::vector<std::string>{".gemini"}));
  EXPECT_TRUE(c.agent("generic").home.empty());
  // A profile in the file replaces the shipped one.
  Config custom = parse_config("[agents.claude]\nhome = [\".claude\"]\n", "t.toml");
  EXPECT_EQ(custom.agent("claude").home, std::vector<std::string>{".claude"});
  EXPECT_FALSE(custom.agent("claude").builtin);
}

// `cordon run -- claude` is the claude profile; --agent wins; anything else is generic.
TEST(Config, TheActiveAgentFollowsTheCommandsName) {
  Config c = default_config();
  EXPECT_EQ(c.active_agent("", {"claude"}), "claude");
  EXPECT_EQ(c.active_agent("", {"/usr/local/bin/codex", "exec"}), "codex");
  EXPECT_EQ(c.active_agent("", {"gemini"}), "gemini");
  EXPECT_EQ(c.active_agent("", {"bash"}), "generic");
  EXPECT_EQ(c.active_agent("", {}), "generic");
  EXPECT_EQ(c.active_agent("generic", {"claude"}), "generic");
  EXPECT_EQ(c.active_agent("codex", {"bash"}), "codex");
  // An operator's own profile is chosen by name only.
  Config custom = parse_config("[agents.mytool]\nhome = [\".mytool\"]\n", "t.toml");
  EXPECT_EQ(custom.active_agent("", {"mytool"}), "generic");
}

TEST(Config, UnknownAgentNamesFix) {
  Config c = default_config();
  try {
    c.agent("nobody");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.fix()).find("generic"), std::string::npos);
  }
}

TEST(Config, MissingFileMeansDefaults) {
  Config c = load_config("/nonexistent/cordon.toml");
  EXPECT_FALSE(c.file_found);
  EXPECT_EQ(c.source.file, "/nonexistent/cordon.toml");
  EXPECT_EQ(c.network.mode, NetworkMode::EgressJail);
}

// A path that exists but is not a regular file reads as empty: it must not mean "the defaults".
TEST(Config, APathThatIsNotARegularFileIsAConfigError) {
  for (const std::string path : {"/tmp", "/dev/null"}) {
    try {
      load_config(path);
      ADD_FAILURE() << path << " was accepted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()), path + ": not a regular file");
      EXPECT_EQ(e.exit_code(), kExitConfigError);
    }
  }
  // Control: a regular file with the same (empty) content loads, as found.
  char name[] = "/tmp/cordon-config-test-XXXXXX";
  int fd = ::mkstemp(name);
  ASSERT_GE(fd, 0);
  ::close(fd);
  Config c = load_config(name);
  ::unlink(name);
  EXPECT_TRUE(c.file_found);
  EXPECT_EQ(c.network.mode, NetworkMode::EgressJail);
}

// Garbage must never crash the parser or be accepted silently: every outcome is either a
// parsed config or a ConfigError. Deterministic pseudo-random mutations of a valid file.
TEST(Config, MutationFuzzNeverCrashes) {
  const std::string seed = "[network]\negress_jail = true\nallow_ip = [\"10.1.2.3\"]\n[agents.x]\nhome = [\".x\"]\n";
  // Bytes of U+00E9 and U+FEC0 too (EF BB 80: toml++ 3.3.0's whitespace test has undefined
  // behaviour on it, so the parser must refuse it before toml++ reads it).
  const std::string alphabet = "[]=\"'.,/\\\n #\t{}0129azAZ-_\x01\xff\xc3\xa9\xef\xbb\x80";
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1103515245u + 12345u; };
  int rejected = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string text = seed;
    int edits = 1 + next() % 4;
    for (int e = 0; e < edits; ++e) {
      size_t pos = next() % (text.size() + 1);
      char c = alphabet[next() % alphabet.size()];
      switch (next() % 3) {
        case 0: text.insert(pos, 1, c); break;
        case 1:
          if (pos < text.size()) text.erase(pos, 1);
          break;
        default:
          if (pos < text.size()) text[pos] = c;
          break;
      }
    }
    try {
      parse_config(text, "fuzz.toml");
    } catch (const ConfigError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 1000);  // most mutations are invalid and must be reported as such
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

TEST(Config, AReleaseRefusesAConfigurationOverride) {
  EXPECT_NO_THROW(refuse_config_override(build::kConfigPath, false));
  EXPECT_NO_THROW(refuse_config_override("/tmp/test.toml", true));  // test builds only
  try {
    refuse_config_override("/tmp/ws/cordon.toml", false);
    FAIL() << "a release accepted --config";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitConfigError);
    EXPECT_NE(std::string(e.what()).find("test builds only"), std::string::npos) << e.what();
  }
}

TEST(Config, TheViewAndItsReadPathsAreParsedStrictly) {
  Config c = parse_config("[filesystem]\nview = \"host\"\nread = [\"/opt/tools\"]\n", "t.toml");
  EXPECT_EQ(c.filesystem.view, RootView::Host);
  EXPECT_EQ(c.filesystem.read, std::vector<std::string>{"/opt/tools"});
  EXPECT_EQ(default_config().filesystem.view, RootView::System);
  EXPECT_THROW(parse_config("[filesystem]\nview = \"all\"\n", "t.toml"), ConfigError);
  EXPECT_THROW(parse_config("[filesystem]\nread = [\"/\"]\n", "t.toml"), ConfigError);
  EXPECT_THROW(parse_config("[filesystem]\nread = [\"opt\"]\n", "t.toml"), ConfigError);
}

}  // namespace
}  // namespace cordon

namespace cordon {
namespace {

TEST(ConfigNetwork, ModeAndItsOlderSpellingAgreeOrAreRefused) {
  EXPECT_EQ(parse_config("[network]\nmode = \"offline\"\n", "c.toml").network.mode, NetworkMode::Offline);
  EXPECT_EQ(parse_config("[network]\negress_jail = false\n", "c.toml").network.mode, NetworkMode::Host);
  EXPECT_EQ(parse_config("[network]\nmode = \"allowlist\"\negress_jail = true\n", "c.toml").network.mode,
            NetworkMode::Allowlist);
  EXPECT_THROW(parse_config("[network]\nmode = \"jail\"\negress_jail = false\n", "c.toml"), Error);
  EXPECT_THROW(parse_config("[network]\nmode = \"open\"\n", "c.toml"), Error);
  EXPECT_THROW(parse_config("[network]\nallow = [\"*bad.test\"]\n", "c.toml"), Error);
  Config c = parse_config("[network]\nallow = [\"api.test:8443\", \"203.0.113.0/24\"]\ndeny = [\"*.x.test\"]\n",
                          "c.toml");
  EXPECT_EQ(c.network.allow.size(), 2u);
  EXPECT_EQ(c.network.deny, std::vector<std::string>{"*.x.test"});
  // A shipped profile keeps its destinations unless the operator names its own.
  EXPECT_FALSE(parse_config("[agents.claude]\nenv = []\n", "c.toml").agent("claude").network_allow.empty());
  EXPECT_EQ(parse_config("[agents.claude]\nnetwork_allow = [\"a.test\"]\n", "c.toml").agent("claude").network_allow,
            std::vector<std::string>{"a.test"});
}

TEST(ConfigNetwork, ARunMayOnlyNarrowTheMode) {
  Config c = parse_config("[network]\nmode = \"allowlist\"\n", "c.toml");
  narrow_network_mode(c, "offline");
  EXPECT_EQ(c.network.mode, NetworkMode::Offline);
  narrow_network_mode(c, "");  // no flag: unchanged
  EXPECT_EQ(c.network.mode, NetworkMode::Offline);
  EXPECT_THROW(narrow_network_mode(c, "jail"), Error);
  EXPECT_THROW(narrow_network_mode(c, "wide"), Error);
}

}  // namespace
}  // namespace cordon
