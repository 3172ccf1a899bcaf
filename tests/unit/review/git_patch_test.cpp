#include "launcher/review/git_patch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <regex>
#include <stdexcept>
#include <string>

#include "common/error.h"
#include "common/json_codec.h"
#include "common/text.h"
#include "scratch_dir.h"

namespace cordon::review {
namespace {

namespace fs = std::filesystem;

// --- a tree of files, written to and read from disk ------------------------------------

enum class Kind { File, Symlink, Fifo };

struct Entry {
  Kind kind = Kind::File;
  mode_t permissions = 0644;
  std::string data;  // a file's content or a symlink's target

  bool operator==(const Entry&) const = default;
};

using Tree = std::map<std::string, Entry>;  // by path, in byte order like a ChangeSet

Entry file(std::string content, mode_t permissions = 0644) { return {Kind::File, permissions, std::move(content)}; }
Entry symlink_to(std::string target) { return {Kind::Symlink, 0777, std::move(target)}; }
Entry fifo() { return {Kind::Fifo, 0644, ""}; }

EntryState state_of(const Tree& tree, const std::string& path) {
  EntryState state;
  const auto found = tree.find(path);
  if (found == tree.end()) return state;
  const Entry& entry = found->second;
  state.exists = true;
  const mode_t type = entry.kind == Kind::File ? S_IFREG : entry.kind == Kind::Symlink ? S_IFLNK : S_IFIFO;
  state.mode = type | entry.permissions;
  state.size = entry.data.size();
  if (entry.kind == Kind::Symlink) state.link_target = entry.data;
  return state;
}

// The changes from one tree to the other, as review_changes would find them.
ChangeSet changes_between(const Tree& before, const Tree& after) {
  std::map<std::string, bool> paths;
  for (const auto& [path, entry] : before) paths[path] = true;
  for (const auto& [path, entry] : after) paths[path] = true;
  ChangeSet changes;
  for (const auto& [path, unused] : paths) {
    Change change{path, ChangeKind::Added, state_of(before, path), state_of(after, path)};
    const auto old_entry = before.find(path), new_entry = after.find(path);
    if (old_entry == before.end()) change.kind = ChangeKind::Added;
    else if (new_entry == after.end()) change.kind = ChangeKind::Deleted;
    else if (old_entry->second == new_entry->second) continue;
    else if (old_entry->second.kind != new_entry->second.kind) change.kind = ChangeKind::Retyped;
    else if (old_entry->second.data != new_entry->second.data) change.kind = ChangeKind::Modified;
    else if (old_entry->second.kind == Kind::File) change.kind = ChangeKind::ModeOnly;
    else change.kind = ChangeKind::Modified;
    changes.push_back(change);
  }
  return changes;
}

ReadContent reader(const Tree& before, const Tree& after) {
  return [&before, &after](const Change& change, Side side) {
    const Tree& tree = side == Side::Before ? before : after;
    const auto found = tree.find(change.path);
    if (found == tree.end() || found->second.kind != Kind::File) throw std::logic_error("read of a non-file");
    return found->second.data;
  };
}

void make_parents(const std::string& root, const std::string& path) {
  for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string directory = root + "/" + path.substr(0, slash);
    if (::mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST) throw std::runtime_error("mkdir " + directory);
  }
}

void write_tree(const std::string& root, const Tree& tree) {
  for (const auto& [path, entry] : tree) {
    make_parents(root, path);
    const std::string full = root + "/" + path;
    if (entry.kind == Kind::Symlink) {
      if (::symlink(entry.data.c_str(), full.c_str()) != 0) throw std::runtime_error("symlink " + full);
    } else if (entry.kind == Kind::Fifo) {
      if (::mkfifo(full.c_str(), entry.permissions) != 0) throw std::runtime_error("mkfifo " + full);
    } else {
      const int fd = ::open(full.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (fd < 0) throw std::runtime_error("open " + full);
      const std::string failure = write_all(fd, entry.data, full);
      ::fchmod(fd, entry.permissions);
      ::close(fd);
      if (!failure.empty()) throw std::runtime_error(failure);
    }
  }
}

// Files, symlinks and fifos under `root` (not .git); a file's permissions only as git keeps
// them (0755 with any x bit, else 0644), as git apply sets them through the umask.
Tree read_tree(const std::string& root) {
  Tree tree;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    const std::string path = it->path().lexically_relative(root).string();
    const fs::file_status status = it->symlink_status();
    if (fs::is_symlink(status)) tree[path] = symlink_to(fs::read_symlink(it->path()).string());
    else if (fs::is_fifo(status)) tree[path] = fifo();
    else if (fs::is_regular_file(status)) {
      struct stat st {};
      ::lstat(it->path().c_str(), &st);
      tree[path] = file(read_text_file(it->path().string()), (st.st_mode & 0111) != 0 ? 0755 : 0644);
    }
  }
  return tree;
}

// `tree` as git apply leaves it: fifos are not in a patch, file modes are 0644 or 0755.
Tree as_git_keeps(const Tree& tree) {
  Tree out;
  for (const auto& [path, entry] : tree) {
    if (entry.kind == Kind::Fifo) continue;
    Entry kept = entry;
    if (kept.kind == Kind::File) kept.permissions = (kept.permissions & 0111) != 0 ? 0755 : 0644;
    out[path] = kept;
  }
  return out;
}

// --- running git -----------------------------------------------------------------------

struct Run {
  int status = -1;
  std::string output;  // stdout and stderr
};

Run run_in(const std::string& directory, const std::string& command) {
  const std::string line = "cd " + shell_quote(directory) +
                           " && env -u GIT_DIR -u GIT_WORK_TREE -u GIT_INDEX_FILE GIT_CONFIG_GLOBAL=/dev/null "
                           "GIT_CONFIG_NOSYSTEM=1 LC_ALL=C COLUMNS=80 " +
                           command + " 2>&1";
  Run result;
  std::FILE* pipe = ::popen(line.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen " + line);
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

void write_file(const std::string& path, std::string_view data) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("open " + path);
  const std::string failure = write_all(fd, data, path);
  ::close(fd);
  if (!failure.empty()) throw std::runtime_error(failure);
}

struct Applied {
  Run check;
  Run apply;
  Tree tree;
};

// `patch` applied with git apply in a copy of `before`.
Applied git_apply(const Tree& before, const std::string& patch) {
  cordon::testing::ScratchDir scratch;
  const std::string tree_dir = scratch.path() + "/tree";
  ::mkdir(tree_dir.c_str(), 0755);
  write_tree(tree_dir, before);
  write_file(scratch.path() + "/change.patch", patch);
  Applied applied;
  applied.check = run_in(tree_dir, "git apply --check ../change.patch");
  applied.apply = run_in(tree_dir, "git apply ../change.patch");
  applied.tree = read_tree(tree_dir);
  return applied;
}

// Applies the patch render_patch writes for before -> after and expects the after-tree.
void expect_round_trip(const Tree& before, const Tree& after) {
  const std::string patch = render_patch(changes_between(before, after), reader(before, after));
  const Applied applied = git_apply(before, patch);
  ASSERT_EQ(applied.check.status, 0) << applied.check.output << "\n" << patch;
  ASSERT_EQ(applied.apply.status, 0) << applied.apply.output;
  EXPECT_EQ(applied.tree, as_git_keeps(after)) << patch;
}

// What git itself writes comparing the two trees (`git diff OPTIONS T1 T2` in a scratch
// repository).
std::string git_diff(const Tree& before, const Tree& after, const std::string& options) {
  cordon::testing::ScratchDir scratch;
  const std::string& repo = scratch.path();
  const auto must = [&](const std::string& command) {
    const Run run = run_in(repo, command);
    if (run.status != 0) throw std::runtime_error(command + ": " + run.output);
    return trim(run.output);
  };
  must("git init -q .");
  write_tree(repo, before);
  must("git add -A");
  const std::string old_tree = must("git write-tree");
  for (const auto& entry : fs::directory_iterator(repo))
    if (entry.path().filename() != ".git") fs::remove_all(entry.path());
  write_tree(repo, after);
  must("git add -A");
  const std::string new_tree = must("git write-tree");
  return run_in(repo, "git diff --no-renames " + options + " " + old_tree + " " + new_tree).output;
}

// The lines of `text`, without their newlines.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t begin = 0; begin < text.size();) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

std::string patch_of(const Tree& before, const Tree& after, const PatchStyle& style = {}) {
  return render_patch(changes_between(before, after), reader(before, after), style);
}

// Text changes of every kind git shows, under names it must quote.
struct TextCase {
  Tree before = {
      {"a.txt", file("one\ntwo\nthree\n")},
      {"blank-lines", file("x\n\n\n\ny\n\n\nz\n")},
      {"crlf.txt", file("line 1\r\nline 2\r\nline 3\r\n")},
      {"deleted.txt", file("gone\nfor\ngood\n")},
      {"empty-deleted", file("")},
      {"exec.sh", file("#!/bin/sh\necho hi\n", 0644)},
      {"link", symlink_to("target-one")},
      {"mode+content", file("a\n", 0755)},
      {"no-eol.txt", file("last line")},
      {"retype", file("f\n")},
      {"src/main.c", file("int main()\n{\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n}\n")},
      {std::string("we\"ird\\name"), file("q\n")},
      {std::string("caf\xc3\xa9 tab\there"), file("x\n")},
  };
  Tree after = {
      {"a.txt", file("one\n2\nthree\nfour\n")},
      {"added dir/new file.txt", file("fresh\ncontent\n")},
      {"blank-lines", file("x\nreplaced\n\n\ny\n\nz\n")},
      {"crlf.txt", file("line 1\r\nline two\r\nline 3\r\n")},
      {"empty-added", file("")},
      {"exec.sh", file("#!/bin/sh\necho hi\n", 0755)},
      {"link", symlink_to("target-two")},
      {"mode+content", file("b\n", 0644)},
      {"new.sh", file("#!/bin/sh\n", 0700)},
      {"no-eol.txt", file("last line changed")},
      {"retype", symlink_to("somewhere")},
      {"src/main.c", file("int main()\n{\n1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n}\n")},
      {std::string("we\"ird\\name"), file("Q\n")},
      {std::string("caf\xc3\xa9 tab\there"), file("y\n")},
      {std::string("new\nline\x1b[31m\xff"), file("n\n")},
  };
};

// --- names -----------------------------------------------------------------------------

TEST(GitQuotedPath, LeavesPlainNamesAlone) {
  EXPECT_EQ(git_quoted_path("src/main.c"), "src/main.c");
  EXPECT_EQ(git_quoted_path("with space/and-dash_~!"), "with space/and-dash_~!");
  EXPECT_EQ(git_quoted_path("main.c", "a/"), "a/main.c");
}

TEST(GitQuotedPath, QuotesLikeGit) {
  EXPECT_EQ(git_quoted_path("new\nline\x1b[31m\xff"), "\"new\\nline\\033[31m\\377\"");
  EXPECT_EQ(git_quoted_path("new\nline", "b/"), "\"b/new\\nline\"");
  EXPECT_EQ(git_quoted_path("we\"ird\\name"), "\"we\\\"ird\\\\name\"");
  EXPECT_EQ(git_quoted_path("\a\b\t\n\v\f\r"), "\"\\a\\b\\t\\n\\v\\f\\r\"");
  EXPECT_EQ(git_quoted_path(std::string("\x01\x1f\x7f", 3)), "\"\\001\\037\\177\"");
  EXPECT_EQ(git_quoted_path("caf\xc3\xa9"), "\"caf\\303\\251\"");  // core.quotePath=true
}

// --- blob ids, zlib, base85 ----------------------------------------------------------------

TEST(GitBlobId, MatchesGitHashObject) {
  EXPECT_EQ(git_blob_id(""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  EXPECT_EQ(git_blob_id("hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
}

TEST(ZlibStored, EmptyInputIsOneFinalEmptyBlock) {
  EXPECT_EQ(zlib_stored(""), std::string("\x78\x01\x01\x00\x00\xff\xff\x00\x00\x00\x01", 11));
}

TEST(ZlibStored, EndsWithAdler32) {
  const std::string stream = zlib_stored("Wikipedia");  // Adler-32 0x11e60398
  EXPECT_EQ(stream.substr(stream.size() - 4), "\x11\xe6\x03\x98");
  EXPECT_EQ(stream.substr(0, 7), std::string("\x78\x01\x01\x09\x00\xf6\xff", 7));
  EXPECT_EQ(stream.substr(7, 9), "Wikipedia");
}

TEST(ZlibStored, SplitsIntoBlocksOf65535) {
  const std::string data(70000, 'z');
  const std::string stream = zlib_stored(data);
  ASSERT_EQ(stream.size(), 2 + 5 + 65535 + 5 + 4465 + 4);
  EXPECT_EQ(stream.substr(2, 5), std::string("\x00\xff\xff\x00\x00", 5));
  EXPECT_EQ(stream.substr(2 + 5 + 65535, 5), std::string("\x01\x71\x11\x8e\xee", 5));
}

// git's own "literal 0" line: its zlib stream of nothing, 78 01 03 00 00 00 00 01.
TEST(GitBase85, MatchesGitsEncoding) {
  EXPECT_EQ(git_base85_lines(std::string("\x78\x01\x03\x00\x00\x00\x00\x01", 8)), "HcmV?d00001\n");
  EXPECT_EQ(git_base85_lines(""), "");
  const std::string lines = git_base85_lines(std::string(53, '\xff'));
  EXPECT_EQ(lines.substr(0, 1), "z");  // 52 bytes
  EXPECT_EQ(lines.size(), 1 + 65 + 1 + 1 + 5 + 1);
  EXPECT_EQ(lines.substr(67, 1), "A");  // then 1
}

// --- the patch against git's own -----------------------------------------------------------

TEST(RenderPatch, TextChangesMatchGitDiffExactly) {
  const TextCase text;
  EXPECT_EQ(patch_of(text.before, text.after), git_diff(text.before, text.after, ""));
}

TEST(RenderPatch, TextChangesApply) {
  const TextCase text;
  expect_round_trip(text.before, text.after);
}

TEST(RenderPatch, ShortExample) {
  const Tree before = {{"hello.txt", file("hello\nworld\n")}, {"old", file("bye\n")}};
  const Tree after = {{"hello.txt", file("hello\nthere\nworld\n")}, {"run.sh", file("echo\n", 0755)}};
  EXPECT_EQ(patch_of(before, after),
            "diff --git a/hello.txt b/hello.txt\n"
            "index 94954ab..363f0a5 100644\n"
            "--- a/hello.txt\n"
            "+++ b/hello.txt\n"
            "@@ -1,2 +1,3 @@\n"
            " hello\n"
            "+there\n"
            " world\n"
            "diff --git a/old b/old\n"
            "deleted file mode 100644\n"
            "index b023018..0000000\n"
            "--- a/old\n"
            "+++ /dev/null\n"
            "@@ -1 +0,0 @@\n"
            "-bye\n"
            "diff --git a/run.sh b/run.sh\n"
            "new file mode 100755\n"
            "index 0000000..fa11a6a\n"
            "--- /dev/null\n"
            "+++ b/run.sh\n"
            "@@ -0,0 +1 @@\n"
            "+echo\n");
  EXPECT_EQ(patch_of(before, after), git_diff(before, after, ""));
}

// Binary content: the same headers as git diff --binary, then data git apply takes.
TEST(RenderPatch, BinaryHeadersMatchGitAndApply) {
  std::string big(200000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 7919) >> 3);
  const Tree before = {{"changed.bin", file(std::string("bin\0ary", 7))},
                       {"gone.bin", file(std::string("\0\1\2", 3))},
                       {"text-to-binary", file("was text\n")}};
  const Tree after = {{"big.bin", file(big, 0755)},
                      {"changed.bin", file(std::string("bin\0ary2", 8))},
                      {"text-to-binary", file(std::string("now\0binary", 10))}};
  const std::string ours = patch_of(before, after);
  const std::string gits = git_diff(before, after, "--binary");
  const auto headers = [](const std::string& patch) {
    std::string out;
    for (const auto& line : lines_of(patch))
      if (line.rfind("diff ", 0) == 0 || line.rfind("index ", 0) == 0 || line.rfind("new ", 0) == 0 ||
          line.rfind("deleted ", 0) == 0 || line.rfind("GIT ", 0) == 0 || line.rfind("literal ", 0) == 0)
        out += line + "\n";
    return out;
  };
  EXPECT_EQ(headers(ours), headers(gits));
  EXPECT_NE(headers(ours).find("literal 200000\n"), std::string::npos);
  expect_round_trip(before, after);
}

TEST(RenderPatch, EmptyFilesAddedAndDeletedLikeGit) {
  const Tree before = {{"empty-old", file("")}};
  const Tree after = {{"empty-new", file("", 0755)}};
  const std::string patch = patch_of(before, after);
  EXPECT_EQ(patch,
            "diff --git a/empty-new b/empty-new\n"
            "new file mode 100755\n"
            "index 0000000..e69de29\n"
            "diff --git a/empty-old b/empty-old\n"
            "deleted file mode 100644\n"
            "index e69de29..0000000\n");
  EXPECT_EQ(patch, git_diff(before, after, ""));
  expect_round_trip(before, after);
}

TEST(RenderPatch, ModeOnlyChangeHasNoIndexLine) {
  const Tree before = {{"tool", file("x\n", 0644)}};
  const Tree after = {{"tool", file("x\n", 0755)}};
  EXPECT_EQ(patch_of(before, after), "diff --git a/tool b/tool\nold mode 100644\nnew mode 100755\n");
  expect_round_trip(before, after);
}

TEST(RenderPatch, SymlinksAndTypeChangesApply) {
  const Tree before = {
      {"dir/link", symlink_to("../a")}, {"file-to-link", file("content\n")}, {"link-to-file", symlink_to("elsewhere")}};
  const Tree after = {{"dir/link", symlink_to("../b")},
                      {"file-to-link", symlink_to("dir")},
                      {"link-to-file", file("now a file\n", 0755)}};
  EXPECT_EQ(patch_of(before, after), git_diff(before, after, ""));
  expect_round_trip(before, after);
}

TEST(RenderPatch, VeryLongLinesApply) {
  const Tree before = {{"long", file(std::string(1 << 20, 'a') + "\nshort\n")}};
  const Tree after = {{"long", file(std::string(1 << 20, 'a') + "b\nshort\n" + std::string(300000, 'c'))}};
  expect_round_trip(before, after);
}

// Names git must quote: control characters, escape sequences, bytes that are not UTF-8,
// quotes, backslashes, and spaces where git apply looks for the end of a name.
TEST(RenderPatch, StrangeNamesApply) {
  Tree before, after;
  const std::vector<std::string> names = {std::string("new\nline"),   std::string("esc\x1b]52;c;AAAA\x07"),
                                          std::string("bad\xff\xfe"), std::string("quote\"back\\slash"),
                                          std::string(" leading"),    std::string("trailing "),
                                          std::string("tab\tname"),   std::string("d\x01ir/f\x7f"),
                                          std::string("caf\xc3\xa9")};
  for (const auto& name : names) {
    before[name] = file("old " + name + "\n");
    after[name] = file("new " + name + "\n");
    after[name + ".added"] = file("added\n");
  }
  before["deleted\nname"] = file("x\n");
  EXPECT_EQ(patch_of(before, after), git_diff(before, after, ""));
  expect_round_trip(before, after);
}

// --- entries a patch cannot hold -----------------------------------------------------------

TEST(RenderPatch, UnexpressibleEntriesBecomeNotesGitSkips) {
  const Tree before = {{"a.txt", file("a\n")},
                       {"m.bin", file(std::string("\0m", 2))},
                       {"old-pipe", fifo()},
                       {"to-fifo", file("was a file\n")},
                       {"z.txt", file("z\n")}};
  const Tree after = {{"a.txt", file("A\n")}, {"m.bin", file(std::string("\0M", 2))},
                      {"new-pipe", fifo()},   {"to-fifo", fifo()},
                      {"z.txt", file("Z\n")}, {"zz-pipe\n", fifo()}};
  const std::string patch = patch_of(before, after);
  EXPECT_NE(patch.find("# cordon: new-pipe: new fifo (not expressible in a patch)\n"), std::string::npos);
  // After a binary patch's closing empty line too.
  EXPECT_NE(patch.find("\n\n# cordon: new-pipe: new fifo"), std::string::npos);
  EXPECT_NE(patch.find("# cordon: old-pipe: deleted fifo (not expressible in a patch)\n"), std::string::npos);
  EXPECT_NE(patch.find("# cordon: to-fifo: file -> fifo (not expressible in a patch)\n"), std::string::npos);
  EXPECT_NE(patch.find("# cordon: \"zz-pipe\\n\": new fifo (not expressible in a patch)\n"), std::string::npos);
  EXPECT_EQ(patch.find("diff --git a/to-fifo"), std::string::npos);
  // Notes between sections and after the last one: git apply skips them.
  const Applied applied = git_apply(before, patch);
  ASSERT_EQ(applied.check.status, 0) << applied.check.output;
  Tree expected = {{"a.txt", file("A\n")},
                   {"m.bin", file(std::string("\0M", 2))},
                   {"old-pipe", fifo()},
                   {"to-fifo", file("was a file\n")},
                   {"z.txt", file("Z\n")}};
  EXPECT_EQ(applied.tree, expected);
}

// A note before the first section.
TEST(RenderPatch, NoteBeforeTheFirstSectionIsSkipped) {
  const Tree before = {{"b.txt", file("b\n")}};
  const Tree after = {{"a-pipe", fifo()}, {"b.txt", file("B\n")}};
  const std::string patch = patch_of(before, after);
  EXPECT_EQ(patch.rfind("# cordon: a-pipe: new fifo", 0), 0u);
  const Applied applied = git_apply(before, patch);
  EXPECT_EQ(applied.check.status, 0) << applied.check.output;
  EXPECT_EQ(applied.tree, as_git_keeps(after));
}

TEST(RenderPatch, PermissionBitsGitCannotCarryGetANote) {
  const Tree before = {{"private", file("x\n", 0644)}, {"setuid", file("y\n", 0755)}};
  const Tree after = {{"private", file("x\n", 0600)}, {"setuid", file("y\n", 04755)}, {"sticky", file("", 01644)}};
  EXPECT_EQ(patch_of(before, after),
            "# cordon: private: mode 0644 -> 0600 (not expressible in a patch)\n"
            "# cordon: setuid: mode 0755 -> 4755 (not expressible in a patch)\n"
            "# cordon: sticky: mode 1644 (not expressible in a patch)\n"
            "diff --git a/sticky b/sticky\n"
            "new file mode 100644\n"
            "index 0000000..e69de29\n");
}

// --- terminal output ---------------------------------------------------------------------

// No byte that could drive a terminal: only printable ASCII, '\n', '\t' and UTF-8 text.
void expect_terminal_safe(const std::string& text) {
  EXPECT_TRUE(is_valid_utf8(text));
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    EXPECT_FALSE((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) << "byte " << i << ": " << int(c);
    if (c == 0xc2 && i + 1 < text.size()) {
      EXPECT_GE(static_cast<unsigned char>(text[i + 1]), 0xa0) << "C1 at " << i;
    }
  }
}

const Tree kHostileBefore = {{"evil.txt", file("safe\n")}, {"bin", file(std::string("\0a", 2))}};
const Tree kHostileAfter = {{"evil.txt", file("safe\n\x1b]52;c;cGF5bG9hZA==\x07\r\x1b[2J\xc2\x9b"
                                              "31m\xff\xfe caf\xc3\xa9\tx\r\n")},
                            {"bin", file(std::string("\0b", 2))},
                            {"name\x1b[31m", file("\x1b[0m")}};

TEST(RenderPatchTerminal, EscapesEveryControlByte) {
  const std::string shown = patch_of(kHostileBefore, kHostileAfter, {.terminal = true, .colour = false});
  expect_terminal_safe(shown);
  EXPECT_NE(shown.find("+\\x1b]52;c;cGF5bG9hZA==\\x07\\x0d\\x1b[2J\\xc2\\x9b31m\\xff\\xfe caf\xc3\xa9\tx\\x0d\n"),
            std::string::npos)
      << shown;
  EXPECT_NE(shown.find("diff --git \"a/name\\033[31m\" \"b/name\\033[31m\"\n"), std::string::npos);
  EXPECT_NE(shown.find("Binary files a/bin and b/bin differ\n"), std::string::npos);
  EXPECT_EQ(shown.find("GIT binary patch"), std::string::npos);
}

TEST(RenderPatchTerminal, ColoursAreTheOnlyEscapes) {
  const std::string shown = patch_of(kHostileBefore, kHostileAfter, {.terminal = true, .colour = true});
  EXPECT_EQ(shown.rfind("\033[1mdiff --git a/bin b/bin\033[m\n", 0), 0u) << shown;
  EXPECT_NE(shown.find("\033[36m@@ -1 +1,2 @@\033[m\n"), std::string::npos);
  EXPECT_NE(shown.find("\033[32m+\\x1b]52;"), std::string::npos);
  const std::string without_colours = std::regex_replace(shown, std::regex("\033\\[(1|31|32|33|36)?m"), "");
  expect_terminal_safe(without_colours);
  EXPECT_EQ(without_colours, patch_of(kHostileBefore, kHostileAfter, {.terminal = true, .colour = false}));
}

TEST(RenderPatchTerminal, RawModeKeepsTheBytes) {
  const std::string raw = patch_of(kHostileBefore, kHostileAfter);
  EXPECT_NE(raw.find("+\x1b]52;c;cGF5bG9hZA==\x07\r\x1b[2J"), std::string::npos);
  const Applied applied = git_apply(kHostileBefore, raw);
  EXPECT_EQ(applied.check.status, 0) << applied.check.output;
  EXPECT_EQ(applied.tree, as_git_keeps(kHostileAfter));
}

// --- stat and name-status ------------------------------------------------------------------

TEST(RenderStat, MatchesGitDiffStat) {
  const TextCase text;
  const ChangeSet changes = changes_between(text.before, text.after);
  EXPECT_EQ(render_stat(changes, reader(text.before, text.after)), git_diff(text.before, text.after, "--stat"));
}

TEST(RenderStat, ScalesBinaryAndLongNamesLikeGit) {
  std::string many;
  for (int i = 0; i < 300; ++i) many += "line " + std::to_string(i) + "\n";
  const std::string deep = "a/very/deep/directory/structure/that/goes/on/and/on/for/quite/a/while/file.txt";
  const Tree before = {{"big.txt", file(many)},
                       {"bin", file(std::string("\0x", 2))},
                       {"bin-mode", file(std::string("\0m", 2))},
                       {"mode", file("m\n")}};
  const Tree after = {{"big.txt", file("replaced\n")},
                      {"bin", file(std::string("\0xyz", 4))},
                      {"bin-mode", file(std::string("\0m", 2), 0755)},
                      {"mode", file("m\n", 0755)},
                      {deep, file("x\n")},
                      {"new-bin", file(std::string("\0", 1))}};
  const std::string ours = render_stat(changes_between(before, after), reader(before, after));
  EXPECT_EQ(ours, git_diff(before, after, "--stat"));
  EXPECT_NE(ours.find(" big.txt "), std::string::npos);
  EXPECT_NE(ours.find("Bin 2 -> 4 bytes"), std::string::npos);
}

TEST(RenderStat, ListsEntriesNotInThePatch) {
  const Tree before = {{"a.txt", file("a\n")}};
  const Tree after = {{"a.txt", file("b\n")}, {"pipe", fifo()}};
  EXPECT_EQ(render_stat(changes_between(before, after), reader(before, after)),
            " a.txt | 2 +-\n"
            " pipe  | new fifo (not in patch)\n"
            " 2 files changed, 1 insertion(+), 1 deletion(-)\n");
  EXPECT_EQ(render_stat({}, reader(before, after)), "");
}

TEST(RenderStat, Colours) {
  const Tree before = {{"a.txt", file("a\n")}};
  const Tree after = {{"a.txt", file("b\n")}};
  EXPECT_EQ(render_stat(changes_between(before, after), reader(before, after), {.terminal = true, .colour = true}),
            " a.txt | 2 \033[32m+\033[m\033[31m-\033[m\n 1 file changed, 1 insertion(+), 1 deletion(-)\n");
}

TEST(RenderNameStatus, MatchesGit) {
  const TextCase text;
  EXPECT_EQ(render_name_status(changes_between(text.before, text.after)),
            git_diff(text.before, text.after, "--name-status"));
  const Tree before = {{"p", fifo()}};
  const Tree after = {{"p", file("now a file\n")}};
  EXPECT_EQ(render_name_status(changes_between(before, after)), "T\tp\n");
}

// --- JSON --------------------------------------------------------------------------------

TEST(RenderJson, DescribesEachChange) {
  const Tree before = {{"a.txt", file("a\nb\n")}, {"link", symlink_to("old")}, {"pipe", fifo()}};
  const Tree after = {{"a.txt", file("a\nc\nd\n", 0755)},
                      {"bin", file(std::string("\0\1", 2))},
                      {"link", symlink_to("new\xff")},
                      {std::string("n\xffme"), file("x\n")}};
  const Json document = render_json(changes_between(before, after), reader(before, after));
  EXPECT_EQ(document["format"], "cordon-review-diff");
  EXPECT_EQ(document["version"], kReviewDiffVersion);
  const Json& files = document["files"];
  ASSERT_EQ(files.size(), 5u);

  const Json& text = files[0];
  EXPECT_EQ(text["path"], "a.txt");
  EXPECT_EQ(text["status"], "modified");
  EXPECT_EQ(text["name_status"], "M");
  EXPECT_EQ(text["type_before"], "file");
  EXPECT_EQ(text["mode_before"], "0644");
  EXPECT_EQ(text["mode_after"], "0755");
  EXPECT_EQ(text["git_mode_after"], "100755");
  EXPECT_EQ(text["size_before"], 4);
  EXPECT_EQ(text["sha256_before"], "911169ddaaf146aff539f58c26c489af3b892dff0fe283c1c264c65ae5aa59a2");
  EXPECT_EQ(text["sha256_after"].get<std::string>().size(), 64u);
  EXPECT_EQ(text["binary"], false);
  EXPECT_EQ(text["lines_added"], 2);
  EXPECT_EQ(text["lines_removed"], 1);
  EXPECT_EQ(text["in_patch"], true);
  EXPECT_FALSE(text.contains("note"));

  const Json& binary = files[1];
  EXPECT_EQ(binary["status"], "added");
  EXPECT_FALSE(binary.contains("type_before"));
  EXPECT_EQ(binary["binary"], true);
  EXPECT_EQ(binary["lines_added"], 0);

  const Json& link = files[2];
  EXPECT_EQ(link["type_after"], "symlink");
  EXPECT_EQ(link["git_mode_after"], "120000");
  EXPECT_EQ(link["target_before"], "old");
  EXPECT_EQ(bytes_from_json(link["target_after"]), "new\xff");
  EXPECT_TRUE(link["target_after"].is_object());

  const Json& odd_name = files[3];
  EXPECT_EQ(bytes_from_json(odd_name["path"]), "n\xffme");
  EXPECT_EQ(odd_name["path"]["base64"], "bv9tZQ==");

  const Json& pipe = files[4];
  EXPECT_EQ(pipe["status"], "deleted");
  EXPECT_EQ(pipe["type_before"], "fifo");
  EXPECT_FALSE(pipe.contains("git_mode_before"));
  EXPECT_EQ(pipe["in_patch"], false);
  EXPECT_EQ(pipe["note"], "deleted fifo");

  EXPECT_EQ(document["totals"],
            Json::parse(R"({"files":5,"lines_added":4,"lines_removed":2,"binary_files":1,"not_in_patch":1})"));
  EXPECT_NO_THROW((void)dump_line(document));
}

TEST(RenderJson, DigestsAreSha256OfTheContent) {
  const Tree before = {};
  const Tree after = {{"abc", file("abc")}};
  const Json document = render_json(changes_between(before, after), reader(before, after));
  EXPECT_EQ(document["files"][0]["sha256_after"], "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(document["files"][0]["size_after"], 3);
}

// --- errors and scale ----------------------------------------------------------------------

TEST(RenderPatch, ReadErrorsPassThrough) {
  const Tree before = {};
  const Tree after = {{"a", file("a\n")}};
  const ReadContent failing = [](const Change&, Side) -> std::string {
    throw Error("cannot read a", "check the upper layer");
  };
  EXPECT_THROW(render_patch(changes_between(before, after), failing), Error);
}

// Random trees, random edits: git apply must make the after-tree from the before-tree.
TEST(RenderPatch, RandomChangesRoundTripThroughGitApply) {
  std::mt19937 random(4242);
  const auto pick = [&](size_t n) { return static_cast<size_t>(random() % n); };
  const std::vector<std::string> vocabulary = {"a\n",       "b\n",      "{\n",     "}\n",    "\n",     "  x = 1;\n",
                                               "int f()\n", "crlf\r\n", "\ttab\n", "same\n", "same\n", "same\n"};
  const std::vector<std::string> names = {"f",        "dir/g",   "dir/sub/h", "sp ace", "new\nline",
                                          "\xff\xfe", "q\"uote", "e\x1b[m",   "x.sh",   "deep/a/b/c/d"};
  const auto random_text = [&]() {
    std::string text;
    const size_t lines = pick(30);
    for (size_t i = 0; i < lines; ++i)
      text += pick(4) == 0 ? "unique " + std::to_string(random()) + "\n" : vocabulary[pick(vocabulary.size())];
    if (!text.empty() && pick(4) == 0) text.pop_back();  // no final newline
    return text;
  };
  const auto edit = [&](std::string text) {
    std::vector<std::string> lines;
    for (size_t begin = 0; begin < text.size();) {
      const size_t end = std::min(text.find('\n', begin), text.size() - 1) + 1;
      lines.push_back(text.substr(begin, end - begin));
      begin = end;
    }
    const size_t edits = pick(6);
    for (size_t i = 0; i < edits; ++i) {
      const size_t at = lines.empty() ? 0 : pick(lines.size());
      const size_t kind = pick(3);
      if (kind == 0 || lines.empty()) lines.insert(lines.begin() + at, vocabulary[pick(vocabulary.size())]);
      else if (kind == 1) lines.erase(lines.begin() + at);
      else lines[at] = "changed " + std::to_string(random()) + "\n";
    }
    std::string out;
    for (const auto& line : lines) out += line;
    if (pick(8) == 0 && !out.empty()) out += out.back() == '\n' ? "tail" : "\n";
    return out;
  };
  const auto random_binary = [&]() {
    std::string data(1 + pick(300), '\0');
    for (char& c : data) c = static_cast<char>(pick(4) == 0 ? 0 : random());
    data[pick(data.size())] = '\0';
    return data;
  };
  size_t cases = 0;
  for (int round = 0; round < 20; ++round) {
    Tree before, after;
    for (const auto& name : names) {
      const size_t choice = pick(10);
      const std::string path = name + "-" + std::to_string(round);
      if (choice == 0) {
        after[path] = file(random_text(), pick(2) ? 0755 : 0644);  // added
      } else if (choice == 1) {
        before[path] = file(random_text());  // deleted
      } else if (choice == 2) {
        before[path] = file(random_binary());
        std::string changed = before[path].data;
        changed[pick(changed.size())] ^= 0x5a;
        after[path] = file(pick(2) ? changed : changed + random_binary());
      } else if (choice == 3) {
        before[path] = symlink_to("t" + std::to_string(pick(5)));
        after[path] = pick(2) ? symlink_to("u" + std::to_string(pick(5))) : file(random_text());
      } else {
        const std::string text = random_text();
        before[path] = file(text, pick(3) == 0 ? 0755 : 0644);
        after[path] = file(edit(text), pick(3) == 0 ? 0755 : 0644);
      }
      ++cases;
    }
    SCOPED_TRACE("round " + std::to_string(round));
    expect_round_trip(before, after);
  }
  EXPECT_EQ(cases, 200u);
}

TEST(RenderPatch, ThousandSmallFilesRenderWhole) {
  Tree before, after;
  for (int i = 0; i < 1000; ++i) {
    const std::string path = "src/module" + std::to_string(i / 50) + "/file" + std::to_string(i) + ".c";
    std::string text;
    for (int line = 0; line < 40; ++line) text += "line " + std::to_string(line) + " of " + path + "\n";
    before[path] = file(text);
    const size_t middle = text.find('\n', text.size() / 2) + 1;
    after[path] = file(text.substr(0, middle) + "inserted\n" + text.substr(middle));
  }
  const ChangeSet changes = changes_between(before, after);
  const ReadContent read = reader(before, after);
  const auto start = std::chrono::steady_clock::now();
  const std::string patch = render_patch(changes, read);
  const double patch_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const std::string stat = render_stat(changes, read);
  const Json json = render_json(changes, read);
  const double all_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("patch_ms", std::to_string(patch_ms));
  std::printf("1000 files: patch %.1f ms, patch + stat + json %.1f ms\n", patch_ms, all_ms);
  EXPECT_NE(stat.find(" 1000 files changed, 1000 insertions(+)"), std::string::npos);
  EXPECT_EQ(json["files"].size(), 1000u);
}

}  // namespace
}  // namespace cordon::review
