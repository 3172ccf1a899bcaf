// Names are data: a workspace, a file, a config value, an environment name or a command word
// holding escape sequences (a cloned repository can supply one) reaches the operator's terminal
// through cordon's own messages only as printable text. Every subcommand that prints a name is
// fed hostile ones (OSC 0 title, OSC 52 clipboard, CSI 2J, a bare CR, the C1 CSI as UTF-8 and
// as a raw byte, invalid and overlong UTF-8, a newline), and everything it writes to stdout and
// stderr is read by an oracle: printable UTF-8, nothing below 0x20 but \n and \t, no DEL, no
// U+0080..U+009F. As root and as the unprivileged test user.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "launch_fixture.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

// The oracle, independent of cordon's own helpers: "" when every byte of `text` is printable
// UTF-8 (RFC 3629, strict: no overlong form, no surrogate, nothing above U+10FFFF) with no C0
// control but \n and \t, no DEL and no C1 control; otherwise where and what the first offender is.
std::string terminal_offence(const std::string& text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  for (size_t i = 0; i < text.size();) {
    const unsigned char lead = byte(i);
    size_t length = lead < 0x80 ? 1 : (lead & 0xe0) == 0xc0 ? 2 : (lead & 0xf0) == 0xe0 ? 3 : (lead & 0xf8) == 0xf0 ? 4 : 0;
    const auto at = [&](const std::string& what) {
      const size_t from = i > 16 ? i - 16 : 0;
      std::string context;
      for (size_t k = from; k < std::min(text.size(), i + 16); ++k) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "%02x ", byte(k));
        context += hex;
      }
      return what + " at byte " + std::to_string(i) + " (bytes around: " + context + ")";
    };
    if (length == 0 || i + length > text.size()) return at("invalid UTF-8 lead or truncated sequence");
    uint32_t code = length == 1 ? lead : lead & (0x7f >> length);
    for (size_t k = 1; k < length; ++k) {
      if ((byte(i + k) & 0xc0) != 0x80) return at("invalid UTF-8 continuation");
      code = (code << 6) | (byte(i + k) & 0x3f);
    }
    static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[length]) return at("overlong UTF-8");
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return at("not a Unicode scalar value");
    if ((code < 0x20 && code != '\n' && code != '\t') || code == 0x7f) return at("C0 control or DEL");
    if (code >= 0x80 && code <= 0x9f) return at("C1 control");
    i += length;
  }
  return "";
}

// A pty's line discipline writes each \n as \r\n: that CR is the terminal's, not cordon's.
std::string without_onlcr(std::string text) {
  for (size_t at; (at = text.find("\r\n")) != std::string::npos;) text.erase(at, 1);
  return text;
}

TEST(HostileNamesOracle, RejectsWhatATerminalWouldObeyAndAcceptsPrintableText) {
  for (const std::string bad : {"\x1b]0;pwned\x07", "\x1b]52;c;cHduZWQ=\x07", "\x1b[2J", "a\rb", "\xc2\x9b" "31m",
                                "\x9b" "31m", "\xff", "\xc0\xaf", "\xed\xa0\x80", "x\x7f", "\x07", "\xe2\x82"})
    EXPECT_NE(terminal_offence(bad), "") << "accepted: " << ::testing::PrintToString(bad);
  EXPECT_EQ(terminal_offence("plain caf\xc3\xa9 \xe2\x82\xac\ttab\nline \\x1b]0;escaped\\x07\n"), "");
  EXPECT_EQ(without_onlcr("a\r\nb\rc"), "a\nb\rc");
}

// The hostile part of every name below (no '/' and no NUL: it is one directory name).
const std::string kHostile = std::string("\x1b]0;pwned\x07-\x1b]52;c;cHduZWQ=\x07-\x1b[2J-\r-\xc2\x9b" "31m-\x9b" "1m-") +
                             "\xff-\xc0\xaf-\x7f-end";

class HostileNames : public LaunchFixture {
 protected:
  void SetUp() override {
    stage("/tmp/cordon-names-");
    if (IsSkipped() || HasFatalFailure()) return;
    write_file(config_, "[network]\negress_jail = false\n");
    make_workspace();
    hostile_ws_ = base_->path() + "/ws-" + kHostile;
    fs::create_directories(hostile_ws_);
    write_file(hostile_ws_ + "/file-" + kHostile, "x\n");
    chown_tree(hostile_ws_, who_.uid, who_.gid);
  }

  RunResult cordon(const std::vector<std::string>& args, std::map<std::string, std::string> extra = {},
                   bool on_pty = false, const std::string& config = "") {
    RunOptions o;
    o.env = base_env(who_, extra);
    o.as = who_;
    o.cwd = workspace_;
    o.on_pty = on_pty;
    std::vector<std::string> argv = {cordon_, "--config", config.empty() ? config_ : config};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, o);
  }

  // Every byte the command wrote is printable; `what` names the subcommand.
  static void expect_printable(const std::string& what, const RunResult& r) {
    EXPECT_FALSE(r.timed_out) << what;
    EXPECT_EQ(terminal_offence(r.out), "") << what << ": stdout:\n" << ::testing::PrintToString(r.out);
    EXPECT_EQ(terminal_offence(r.err), "") << what << ": stderr:\n" << ::testing::PrintToString(r.err);
  }

  std::string hostile_ws_;
};

TEST_P(HostileNames, RunAndTheSessionRecordsPrintNamesAsPrintableText) {
  auto before = session_records(who_, hostile_ws_);
  // The command itself prints nothing: what is read is cordon's own.
  RunResult r = cordon({"run", "--workspace", hostile_ws_, "--", "/bin/sh", "-c", "exit 3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  expect_printable("run", r);
  auto after = session_records(who_, hostile_ws_);
  ASSERT_EQ(after.size(), before.size() + 1);
  std::string id;
  for (const auto& p : after)
    if (!before.count(p)) id = fs::path(p).stem().string();

  RunResult list = cordon({"sessions", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  expect_printable("sessions list", list);
  EXPECT_NE(list.out.find(id), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("ws-\\x1b]0;pwned\\x07"), std::string::npos) << "the name is shown escaped:\n" << list.out;

  RunResult list_json = cordon({"sessions", "list", "--json"});
  EXPECT_EQ(list_json.exit_code, 0) << list_json.err;
  expect_printable("sessions list --json", list_json);
  EXPECT_TRUE(Json::accept(list_json.out)) << list_json.out;

  RunResult show = cordon({"sessions", "show", id});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  expect_printable("sessions show", show);
  Json shown = Json::parse(show.out);
  // The exact bytes survive in the document: base64 (the name is not UTF-8).
  EXPECT_EQ(bytes_from_json(shown["manifest"]["workspace"]), hostile_ws_) << show.out;

  expect_printable("sessions show (a hostile id)", cordon({"sessions", "show", "2026" + kHostile}));
}

// A session in a workspace whose name is valid UTF-8 but holds C1 controls and DEL: the JSON
// documents carry them as \u escapes, never raw (nlohmann writes U+0080..U+009F and DEL as
// they are).
TEST_P(HostileNames, JsonDocumentsEscapeC1ControlsInValidUtf8Names) {
  const std::string c1_ws = base_->path() + "/ws-\xc2\x9b" "31m-\xc2\x9d" "0;pwned\xc2\x9c-\x7f-\xc3\xa9";
  fs::create_directories(c1_ws);
  chown_tree(c1_ws, who_.uid, who_.gid);
  auto before = session_records(who_, c1_ws);
  RunResult r = cordon({"run", "--workspace", c1_ws, "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_printable("run (C1 workspace)", r);
  auto after = session_records(who_, c1_ws);
  ASSERT_EQ(after.size(), before.size() + 1);
  std::string id;
  for (const auto& p : after)
    if (!before.count(p)) id = fs::path(p).stem().string();
  RunResult show = cordon({"sessions", "show", id});
  expect_printable("sessions show (C1 workspace)", show);
  EXPECT_EQ(Json::parse(show.out)["manifest"]["workspace"], c1_ws) << "a string, the same characters";
  RunResult list_json = cordon({"sessions", "list", "--json"});
  expect_printable("sessions list --json (C1 workspace)", list_json);
  for (const auto& json : {std::vector<std::string>{"status", "--json"}, std::vector<std::string>{"argv", "--json"}}) {
    std::vector<std::string> args = json;
    args.insert(args.end(), {"--workspace", c1_ws});
    if (json[0] == "argv") args.insert(args.end(), {"--", "/bin/true"});
    RunResult out = cordon(args);
    EXPECT_EQ(out.exit_code, 0) << out.err;
    expect_printable(json[0] + " --json (C1 workspace)", out);
    EXPECT_EQ(Json::parse(out.out)["workspace"], c1_ws) << out.out;
  }
}

TEST_P(HostileNames, RefusalsEchoNamesAsPrintableText) {
  // A workspace that does not exist, one whose name holds a newline, and $HOME's parent.
  RunResult missing = cordon({"run", "--workspace", hostile_ws_ + "-missing", "--", "/bin/true"});
  EXPECT_EQ(missing.exit_code, 125);
  expect_printable("run (missing workspace)", missing);
  EXPECT_NE(missing.err.find("\\x1b]0;pwned\\x07"), std::string::npos) << missing.err;

  const std::string newline_ws = base_->path() + "/nl\n" + kHostile;
  fs::create_directories(newline_ws);
  chown_tree(newline_ws, who_.uid, who_.gid);
  RunResult newline = cordon({"run", "--workspace", newline_ws, "--", "/bin/true"});
  EXPECT_EQ(newline.exit_code, 125);
  expect_printable("run (workspace with a newline)", newline);

  const std::string home = hostile_ws_ + "/home";
  fs::create_directories(home);
  chown_tree(home, who_.uid, who_.gid);
  RunResult dangerous = cordon({"run", "--workspace", hostile_ws_, "--", "/bin/true"}, {{"HOME", home}});
  EXPECT_EQ(dangerous.exit_code, 125) << dangerous.err;
  expect_printable("run (workspace is $HOME's parent)", dangerous);

  // A command word: not found, and not executable (the hostile file is not).
  RunResult not_found = cordon({"run", "--workspace", workspace_, "--", "/nonexistent/cmd-" + kHostile});
  EXPECT_EQ(not_found.exit_code, 127);
  expect_printable("run (command not found)", not_found);
  RunResult not_exec = cordon({"run", "--workspace", hostile_ws_, "--", hostile_ws_ + "/file-" + kHostile});
  EXPECT_EQ(not_exec.exit_code, 126) << not_exec.err;
  expect_printable("run (command not executable)", not_exec);

  // Usage errors echo the words they did not expect (CLI11's messages).
  expect_printable("run (unknown option)", cordon({"run", "--bogus" + kHostile, "--", "/bin/true"}));
  expect_printable("unknown subcommand", cordon({"sub" + kHostile}));
  expect_printable("--limit", cordon({"run", "--limit", "x" + kHostile + "=1", "--", "/bin/true"}));
  expect_printable("--agent", cordon({"argv", "--agent", "a" + kHostile, "--", "/bin/true"}));
  expect_printable("--network", cordon({"argv", "--network", "n" + kHostile, "--", "/bin/true"}));
}

TEST_P(HostileNames, ConfigRefusalsEchoValuesAsPrintableText) {
  const std::string config = base_->path() + "/hostile.toml";
  // A value with an ESC sequence and a newline (TOML escapes), a raw ESC byte in the file, and
  // a file that is not UTF-8.
  const std::string texts[] = {
      "[workspace]\nroot = \"/nonexistent/a\\u001b]0;pwned\\u0007\\nb\\u009b2J\"\n",
      "[network]\nmode = \"" + kHostile + "\"\n",
      "[filesystem]\nwritable = [\"/nonexistent/\\u001b]52;c;cHduZWQ=\\u0007\"]\n",
      "[\x1b]0;pwned\x07]\nx = 1\n",
      "[agents.\"a\\u001b[2J\"]\nbinary = \"/nonexistent/\\u001b]0;x\\u0007\"\n",
  };
  for (const auto& text : texts) {
    write_file(config, text);
    const std::vector<std::vector<std::string>> commands = {
        {"argv", "--workspace", workspace_, "--", "/bin/true"},
        {"run", "--workspace", workspace_, "--", "/bin/true"},
        {"status", "--workspace", workspace_},
        {"doctor"}};
    for (const auto& command : commands) {
      RunResult r = cordon(command, {}, false, config);
      expect_printable(command[0] + " with config " + ::testing::PrintToString(text), r);
    }
  }
}

TEST_P(HostileNames, ArgvPrintsAShellCommandThatIsPrintableAndExact) {
  const std::vector<std::string> command = {"/bin/echo", "word-" + kHostile, "nl\nword", "it's", "back\\slash"};
  std::vector<std::string> args = {"argv", "--workspace", hostile_ws_, "--"};
  args.insert(args.end(), command.begin(), command.end());
  RunResult shell = cordon(args);
  EXPECT_EQ(shell.exit_code, 0) << shell.err;
  expect_printable("argv", shell);
  EXPECT_EQ(std::count(shell.out.begin(), shell.out.end(), '\n'), 1) << "one line:\n" << shell.out;
  args[0] = "--json";
  args.insert(args.begin(), "argv");
  RunResult json = cordon(args);
  EXPECT_EQ(json.exit_code, 0) << json.err;
  expect_printable("argv --json", json);
  const std::vector<std::string> words = bytes_array_from_json(Json::parse(json.out)["argv"]);
  // bash reads the printed line back as exactly the same words.
  RunOptions o;
  o.env = base_env(root_identity());
  o.stdin_text = shell.out;
  RunResult parsed = run({"/bin/bash", "-c", "IFS= read -r line; eval \"set -- $line\"; printf '%s\\0' \"$@\""}, o);
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
  std::vector<std::string> back;
  for (size_t at = 0, end; (end = parsed.out.find('\0', at)) != std::string::npos; at = end + 1)
    back.push_back(parsed.out.substr(at, end - at));
  EXPECT_EQ(back, words);
  EXPECT_NE(std::find(words.begin(), words.end(), "word-" + kHostile), words.end());
}

TEST_P(HostileNames, StatusAndDoctorPrintNamesAsPrintableText) {
  RunResult status = cordon({"status", "--workspace", hostile_ws_});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  expect_printable("status", status);
  EXPECT_NE(status.out.find("ws-\\x1b]0;pwned\\x07"), std::string::npos) << status.out;
  RunResult status_json = cordon({"status", "--json", "--workspace", hostile_ws_});
  EXPECT_EQ(status_json.exit_code, 0) << status_json.err;
  expect_printable("status --json", status_json);
  EXPECT_EQ(bytes_from_json(Json::parse(status_json.out)["workspace"]), hostile_ws_);
  // doctor runs from the hostile workspace (its rows name paths of the host).
  RunOptions o;
  o.env = base_env(who_);
  o.as = who_;
  o.cwd = hostile_ws_;
  RunResult doctor = run({cordon_, "--config", config_, "doctor"}, o);
  expect_printable("doctor", doctor);
  RunResult doctor_json = run({cordon_, "--config", config_, "doctor", "--json"}, o);
  expect_printable("doctor --json", doctor_json);
  EXPECT_TRUE(Json::accept(doctor_json.out)) << doctor_json.out;
}

// On a terminal: the configuration variables left out are named (an environment name can hold
// any byte but '=' and NUL), and verify's battery names the hostile workspace in its rows.
TEST_P(HostileNames, OnATerminalTheDroppedNamesArePrintable) {
  RunResult r = cordon({"run", "--workspace", hostile_ws_, "--", "/bin/true"},
                       {{"ANTHROPIC_" + kHostile, "value"}, {"OPENAI_API\nKEY", "value"}}, true);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("not passed into the sandbox"), std::string::npos) << r.out;
  EXPECT_EQ(terminal_offence(without_onlcr(r.out)), "") << ::testing::PrintToString(r.out);
}

TEST_P(HostileNames, VerifyReportsThePathsItChecksAsPrintableText) {
  RunResult verify = cordon({"verify", "-v", "--workspace", hostile_ws_});  // every row names its paths
  expect_printable("verify", verify);
  EXPECT_NE(verify.out.find("Summary:"), std::string::npos) << verify.out << verify.err;
  RunResult json = cordon({"verify", "--json", "--workspace", hostile_ws_});
  expect_printable("verify --json", json);
}

// Control: the same capture and oracle see raw bytes when they are there. The sandbox's own
// output on a pipe passes byte for byte (README, "--filter-output"), so the oracle must flag it,
// and with --filter-output it must not.
TEST_P(HostileNames, ControlTheOracleSeesRawBytesThroughTheSameCapture) {
  const std::vector<std::string> command = {"/usr/bin/printf", "%s\\n", "name-" + kHostile};
  std::vector<std::string> args = {"run", "--workspace", workspace_, "--"};
  args.insert(args.end(), command.begin(), command.end());
  RunResult raw = cordon(args);
  EXPECT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_NE(raw.out.find("name-" + kHostile), std::string::npos) << ::testing::PrintToString(raw.out);
  EXPECT_NE(terminal_offence(raw.out), "") << "the oracle missed raw bytes: " << ::testing::PrintToString(raw.out);
  args.insert(args.begin() + 1, "--filter-output");
  RunResult filtered = cordon(args);
  EXPECT_EQ(filtered.exit_code, 0) << filtered.err;
  EXPECT_EQ(filtered.out.find("\x1b]"), std::string::npos) << ::testing::PrintToString(filtered.out);
}

INSTANTIATE_TEST_SUITE_P(As, HostileNames, ::testing::Values(Who::Root, Who::User), who_name);

}  // namespace
}  // namespace cordon::testing
