// `cmake --install` lays out bin/, libexec/cordon/, share/doc/cordon/, the man pages, the bash
// completion and the fixed config path, and never overwrites an operator's configuration;
// `--strip` (as scripts/quickstart installs) leaves no symbol table in the binaries.
// scripts/quickstart itself runs against a stand-in cmake. Staged with DESTDIR; nothing
// touches the host.
#include <elf.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <regex>
#include <set>

#include "common/error.h"
#include "support.h"

namespace cordon::testing {
namespace {

mode_t mode_of(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

// The names of an ELF64 file's sections (empty when it is not one).
std::set<std::string> elf_sections(const std::string& path) {
  const std::string bytes = read_file(path);
  std::set<std::string> names;
  Elf64_Ehdr header{};
  if (bytes.size() < sizeof header) return names;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64) return names;
  auto section = [&](size_t i) {
    Elf64_Shdr s{};
    const size_t at = header.e_shoff + i * sizeof s;
    if (at + sizeof s <= bytes.size()) std::memcpy(&s, bytes.data() + at, sizeof s);
    return s;
  };
  const Elf64_Shdr strings = section(header.e_shstrndx);
  for (size_t i = 0; i < header.e_shnum; ++i) {
    const size_t at = strings.sh_offset + section(i).sh_name;
    if (at < bytes.size()) names.insert(std::string(bytes.c_str() + at));
  }
  return names;
}

RunResult install(const std::string& stage, std::vector<std::string> extra = {}) {
  RunOptions o;
  o.env = {{"PATH", "/usr/bin:/bin"}, {"DESTDIR", stage}};
  std::vector<std::string> argv = {"/usr/bin/cmake", "--install", CORDON_BUILD_DIR, "--prefix", "/opt/cordon"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run(argv, o);
}

TEST(Install, LaysOutBinLibexecDocsAndConfig) {
  TempDir stage("/tmp/cordon-install-");
  RunResult r = install(stage.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string root = stage.path();
  EXPECT_EQ(mode_of(root + "/opt/cordon/bin/cordon") & 0111, 0111u);
  EXPECT_EQ(mode_of(root + "/opt/cordon/libexec/cordon/empty"), 0444u);
  EXPECT_TRUE(path_exists(root + "/opt/cordon/libexec/cordon/cordon-battery"));
  EXPECT_EQ(mode_of(root + "/etc/cordon/cordon.toml"), 0644u);
  EXPECT_EQ(read_file(root + "/etc/cordon/cordon.toml"),
            read_file(std::string(CORDON_SOURCE_DIR) + "/etc/cordon.toml"));
  // The README (its exit codes among the rest) and docs/, where `cordon --help` points.
  EXPECT_EQ(read_file(root + "/opt/cordon/share/doc/cordon/README.md"),
            read_file(std::string(CORDON_SOURCE_DIR) + "/README.md"));
  EXPECT_EQ(mode_of(root + "/opt/cordon/share/doc/cordon/docs/schemas.md"), 0644u);

  // A second install keeps the operator's edits.
  write_file(root + "/etc/cordon/cordon.toml", "[network]\negress_jail = false\n");
  r = install(stage.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read_file(root + "/etc/cordon/cordon.toml"), "[network]\negress_jail = false\n");
}

// scripts/quickstart installs with --strip: no symbol table and no debug information in any
// installed program (a RelWithDebInfo cordon was about 50 MB). The build tree's own binary,
// not stripped, is the control that the reading of the sections can see one.
TEST(Install, StripLeavesNoSymbolTable) {
  ASSERT_EQ(elf_sections(CORDON_BINARY).count(".symtab"), 1u) << "the control: an unstripped build binary";
  TempDir stage("/tmp/cordon-install-");
  RunResult r = install(stage.path(), {"--strip"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string root = stage.path() + "/opt/cordon";
  for (const std::string program : {"/bin/cordon", "/libexec/cordon/cordon-battery", "/libexec/cordon/cordon-probe",
                                    "/libexec/cordon/cordon-egress-proxy"}) {
    const std::set<std::string> sections = elf_sections(root + program);
    ASSERT_TRUE(sections.count(".text")) << program << " is not an ELF64 program";
    EXPECT_EQ(sections.count(".symtab"), 0u) << program;
    EXPECT_EQ(sections.count(".debug_info"), 0u) << program;
  }
}

// An installed cordon's --help holds the exit table itself and names the installed README:
// every status it names is one cordon exits with (common/error.h).
TEST(Install, HelpNamesTheExitCodesAndTheInstalledDocs) {
  TempDir stage("/tmp/cordon-install-");
  ASSERT_EQ(install(stage.path()).exit_code, 0);
  const std::string prefix = stage.path() + "/opt/cordon";
  RunOptions o;
  o.env = {{"PATH", "/usr/bin:/bin"}};
  RunResult help = run({prefix + "/bin/cordon", "--help"}, o);
  ASSERT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("\nDocumentation: " + prefix + "/share/doc/cordon/README.md"), std::string::npos)
      << help.out;
  EXPECT_EQ(help.out.find("See README.md"), std::string::npos) << help.out;
  const size_t table = help.out.find("Exit status:\n");
  ASSERT_NE(table, std::string::npos) << help.out;
  std::set<std::string> named;
  std::regex row("\n    ([0-9](?:[-0-9+N, ]*[0-9N])?) ");
  for (std::sregex_iterator it(help.out.begin() + static_cast<long>(table), help.out.end(), row), end; it != end;
       ++it)
    named.insert((*it)[1].str());
  const std::string signal = std::to_string(kExitSignalBase) + "+N";
  const std::set<std::string> statuses = {
      "0-255", signal, std::to_string(kExitSuccess), std::to_string(kExitChecksFailed),
      std::to_string(kExitConfigError), std::to_string(kExitInconclusive), std::to_string(kExitLaunchRefused),
      std::to_string(kExitNotExecutable) + ", " + std::to_string(kExitNotFound)};
  EXPECT_EQ(named, statuses) << help.out;
  for (const char* group : {"  cordon run\n", "  cordon verify [--deep]\n", "  cordon doctor\n"})
    EXPECT_NE(help.out.find(group), std::string::npos) << group << help.out;
  // Each subcommand's --help has its own rows.
  RunResult verify = run({prefix + "/bin/cordon", "verify", "--help"}, o);
  EXPECT_NE(verify.out.find("Exit status:\n  0 "), std::string::npos) << verify.out;
  EXPECT_NE(verify.out.find("\n  " + std::to_string(kExitInconclusive) + " "), std::string::npos) << verify.out;
  RunResult shim = run({prefix + "/bin/cordon", "shim", "install", "--help"}, o);
  EXPECT_NE(shim.out.find("any other failure"), std::string::npos) << shim.out;
}

// The man pages and the bash completion the build writes are installed where man and
// bash-completion look under the prefix, and are the build tree's own.
TEST(Install, ManPagesAndBashCompletion) {
  TempDir stage("/tmp/cordon-install-");
  ASSERT_EQ(install(stage.path()).exit_code, 0);
  const std::string prefix = stage.path() + "/opt/cordon";
  for (const char* page : {"man1/cordon.1", "man5/cordon.toml.5", "man8/cordon-battery.8", "man8/cordon-probe.8"}) {
    EXPECT_EQ(mode_of(prefix + "/share/man/" + page), 0644u) << page;
    EXPECT_EQ(read_file(prefix + "/share/man/" + page), read_file(std::string(CORDON_BUILD_DIR) + "/share/man/" + page))
        << page;
  }
  const std::string completion = "/share/bash-completion/completions/cordon";
  EXPECT_EQ(mode_of(prefix + completion), 0644u);
  EXPECT_NE(read_file(prefix + completion).find("complete -F _cordon cordon"), std::string::npos);
}

// scripts/quickstart against a stand-in cmake that prints 200 lines a step and "installs" a
// stand-in cordon: a Release build installed with --strip, the build's lines in the log and not
// on the terminal, and a closing block naming the next two commands. A failed build prints
// the log's tail and its path.
class Quickstart : public ::testing::Test {
 protected:
  void SetUp() override {
    // The script installs missing packages first (apt, the network): only where none is missing.
    RunOptions check;
    check.env = {{"PATH", "/usr/bin:/bin"}};
    check.cwd = CORDON_SOURCE_DIR;
    RunResult missing = run({"/bin/bash", "-c",
                             ". scripts/deps.sh; for p in $CORDON_BUILD_PACKAGES $CORDON_RUNTIME_PACKAGES; do "
                             "dpkg-query -W -f='${Status}' $p 2>/dev/null | grep -q 'install ok installed' || "
                             "echo $p; done"},
                            check);
    if (!missing.out.empty()) GTEST_SKIP() << "packages the quick start would install: " << missing.out;
    dir_ = std::make_unique<TempDir>("/tmp/cordon-quickstart-test-");
    write_file(dir_->path() + "/stubs/cmake",
               "#!/bin/sh\n"
               "echo \"cmake $*\" >> \"$STUB_CALLS\"\n"
               "i=0; while [ $i -lt 200 ]; do echo \"[ $i%] Building CXX object noise.o\"; i=$((i+1)); done\n"
               "case \"$*\" in *--build*) [ -n \"$STUB_FAIL\" ] && { echo 'error: the planted failure'; exit 2; };; "
               "esac\n"
               "case \"$*\" in *--install*) mkdir -p \"$PREFIX/bin\" && printf '#!/bin/sh\\necho \"stand-in cordon "
               "$*\"\\n' > \"$PREFIX/bin/cordon\" && chmod +x \"$PREFIX/bin/cordon\";; esac\n",
               0755);
  }

  RunResult quickstart(bool fail) {
    RunOptions o;
    o.env = {{"PATH", dir_->path() + "/stubs:/usr/bin:/bin"},
             {"PREFIX", dir_->path() + "/prefix"},
             {"BUILD_DIR", dir_->path() + "/build"},
             {"STUB_CALLS", dir_->path() + "/calls"}};
    if (fail) o.env["STUB_FAIL"] = "1";
    o.cwd = "/";
    return run({"/bin/bash", std::string(CORDON_SOURCE_DIR) + "/scripts/quickstart"}, o);
  }

  std::unique_ptr<TempDir> dir_;
};

TEST_F(Quickstart, BuildsReleaseInstallsStrippedAndSaysWhatNext) {
  RunResult r = quickstart(false);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string calls = read_file(dir_->path() + "/calls");
  EXPECT_NE(calls.find("-DCMAKE_BUILD_TYPE=Release"), std::string::npos) << calls;
  EXPECT_NE(calls.find("cmake --install " + dir_->path() + "/build --strip"), std::string::npos) << calls;
  const std::string log = dir_->path() + "/build/quickstart.log";
  EXPECT_NE(r.out.find("the build's output goes to " + log), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Building CXX object"), std::string::npos) << r.out;
  EXPECT_NE(read_file(log).find("[ 199%] Building CXX object noise.o"), std::string::npos);
  EXPECT_NE(r.out.find("stand-in cordon verify --workspace /tmp/cordon-quickstart-"), std::string::npos) << r.out;
  // The closing block: the next two commands, as README.md's quick start has them.
  const size_t next = r.out.find("What next, as your own user (not root):\n");
  ASSERT_NE(next, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  cordon doctor ", next), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  cd ~/src/app && cordon run -- claude ", next), std::string::npos) << r.out;
  const std::string readme = read_file(std::string(CORDON_SOURCE_DIR) + "/README.md");
  EXPECT_NE(readme.find("cd ~/src/app && cordon run -- claude"), std::string::npos);
  size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  EXPECT_LT(lines, 20u) << r.out;
}

TEST_F(Quickstart, AFailedBuildShowsTheLogsTailAndPath) {
  RunResult r = quickstart(true);
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  const std::string log = dir_->path() + "/build/quickstart.log";
  EXPECT_NE(r.err.find("error: the planted failure"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the whole log is " + log), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("What next"), std::string::npos) << r.out;
  EXPECT_FALSE(path_exists(dir_->path() + "/prefix/bin/cordon"));
}

}  // namespace
}  // namespace cordon::testing
