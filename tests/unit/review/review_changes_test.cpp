// Reading an upper layer against the host tree into changes: layers built by hand (whiteouts,
// opaque xattrs, every pairing of types, hostile names and shapes), then layers a real overlay
// wrote, mounted as root (trusted.* xattrs) and inside a user namespace (userxattr).
#include "launcher/review/review_changes.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/unique_fd.h"
#include "scratch_dir.h"

namespace cordon::review {
namespace {

namespace fs = std::filesystem;
using Lines = std::vector<std::string>;

// "kind path" per change, in the order given: what each test states exactly.
Lines summary(const ChangeSet& changes) {
  Lines lines;
  for (const Change& change : changes) lines.push_back(std::string(kind_name(change.kind)) + " " + change.path);
  return lines;
}

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

void write_file(const std::string& path, std::string_view content, mode_t mode = 0644) {
  fs::create_directories(fs::path(path).parent_path());
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
  if (!fd.valid() || ::write(fd.get(), content.data(), content.size()) != static_cast<ssize_t>(content.size())) {
    fail("writing " + path);
  }
  if (::fchmod(fd.get(), mode) != 0) fail("chmod " + path);  // whatever the umask
}

void make_dir(const std::string& path) { fs::create_directories(path); }

void make_link(const std::string& target, const std::string& path) {
  fs::create_directories(fs::path(path).parent_path());
  if (::symlink(target.c_str(), path.c_str()) != 0) fail("symlink " + path);
}

void make_whiteout(const std::string& path) {
  fs::create_directories(fs::path(path).parent_path());
  if (::mknod(path.c_str(), S_IFCHR | 0, makedev(0, 0)) != 0) fail("mknod " + path);
}

void set_xattr(const std::string& path, const std::string& name, std::string_view value) {
  if (::lsetxattr(path.c_str(), name.c_str(), value.data(), value.size(), 0) != 0) fail("setxattr " + path);
}

std::string read_xattr(const std::string& path, const std::string& name) {
  char value[64];
  const ssize_t got = ::lgetxattr(path.c_str(), name.c_str(), value, sizeof value);
  return got < 0 ? "<none>" : std::string(value, static_cast<size_t>(got));
}

void make_socket(const std::string& path) {
  const UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  struct sockaddr_un address {};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) throw std::runtime_error("socket path too long: " + path);
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) fail("bind " + path);
}

int open_fd_count() {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/fd")) ++count;
  return count;
}

// rm -rf, which unlike std::filesystem::remove_all copes with paths longer than PATH_MAX.
void remove_tree(const std::string& path) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execlp("rm", "rm", "-rf", "--", path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  if (pid > 0) ::waitpid(pid, &status, 0);
}

// Runs `body` in a forked child (its own namespaces stay there) and returns what it reported:
// "" when it succeeded, otherwise its failure.
std::string in_child(const std::function<std::string()>& body) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(ends[0]);
    ::close(ends[1]);
    return "fork failed";
  }
  if (pid == 0) {
    std::string report;
    try {
      report = body();
    } catch (const std::exception& e) {
      report = e.what();
    }
    const ssize_t ignored = ::write(ends[1], report.data(), report.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(ends[1]);
  std::string report;
  char buffer[4096];
  ssize_t got;
  while ((got = ::read(ends[0], buffer, sizeof buffer)) > 0) report.append(buffer, static_cast<size_t>(got));
  ::close(ends[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) report += " (the child did not exit cleanly)";
  return report;
}

class ReviewChanges : public ::testing::Test {
 protected:
  explicit ReviewChanges(const std::string& scratch_prefix = "/tmp/cordon-changes-") : scratch_(scratch_prefix) {}

  void SetUp() override {
    make_dir(upper_);
    make_dir(lower_);
  }

  ChangeSet collect(const CollectLimits& limits = {}) const {
    const UniqueFd upper(::open(upper_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    const UniqueFd lower(::open(lower_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    return collect_changes(upper.get(), lower.get(), limits);
  }

  // The message collect() throws, or "" when it does not.
  std::string collect_error(const CollectLimits& limits = {}) const {
    try {
      collect(limits);
    } catch (const Error& e) {
      return std::string(e.what()) + " | fix: " + e.fix();
    }
    return "";
  }

  std::string up(const std::string& path) const { return upper_ + "/" + path; }
  std::string low(const std::string& path) const { return lower_ + "/" + path; }

  testing::ScratchDir scratch_;
  const std::string upper_ = scratch_.path() + "/upper";
  const std::string lower_ = scratch_.path() + "/lower";
};

TEST_F(ReviewChanges, EmptyLayersHaveNoChanges) { EXPECT_TRUE(collect().empty()); }

TEST_F(ReviewChanges, FilesAddedModifiedModeOnlyAndUnchangedCopyUps) {
  write_file(low("same.txt"), "same");
  write_file(up("same.txt"), "same");  // a copy-up that changed nothing
  write_file(low("sub/deeper/copied.txt"), "copied");
  write_file(up("sub/deeper/copied.txt"), "copied");  // its directories exist only for it
  write_file(low("mode.sh"), "echo", 0644);
  write_file(up("mode.sh"), "echo", 0755);
  write_file(low("same-size.txt"), "abcd");
  write_file(up("same-size.txt"), "abce");
  write_file(low("grown.txt"), "abc");
  write_file(up("grown.txt"), "abcdef", 0600);
  write_file(up("new.txt"), "new");
  write_file(low("untouched.txt"), "host");
  ::chmod(up("sub").c_str(), 0700);  // directory modes are not changes
  const ChangeSet changes = collect();
  EXPECT_EQ(summary(changes), (Lines{"modified grown.txt", "mode mode.sh", "added new.txt", "modified same-size.txt"}));
  ASSERT_EQ(changes.size(), 4u);
  struct stat lower_st {};
  struct stat upper_st {};
  ASSERT_EQ(::lstat(low("grown.txt").c_str(), &lower_st), 0);
  ASSERT_EQ(::lstat(up("grown.txt").c_str(), &upper_st), 0);
  const Change& grown = changes[0];
  EXPECT_TRUE(grown.before.exists && grown.after.exists);
  EXPECT_EQ(grown.before.size, 3u);
  EXPECT_EQ(grown.after.size, 6u);
  EXPECT_EQ(grown.before.ino, lower_st.st_ino);
  EXPECT_EQ(grown.before.dev, lower_st.st_dev);
  EXPECT_EQ(grown.before.nlink, lower_st.st_nlink);
  EXPECT_EQ(grown.after.ino, upper_st.st_ino);
  EXPECT_EQ(grown.after.mode, static_cast<mode_t>(S_IFREG | 0600));
  EXPECT_EQ(grown.after.ctime_ns, upper_st.st_ctim.tv_sec * 1'000'000'000LL + upper_st.st_ctim.tv_nsec);
  EXPECT_EQ(changes[1].before.mode & 07777, 0644u);
  EXPECT_EQ(changes[1].after.mode & 07777, 0755u);
  EXPECT_FALSE(changes[2].before.exists);
  EXPECT_EQ(changes[2].after.size, 3u);
}

TEST_F(ReviewChanges, FilesOfEqualSizeDifferingPastTheFirstChunkAreModified) {
  std::string big(1 << 20, 'x');
  write_file(low("big.bin"), big);
  write_file(up("same.bin"), big);
  write_file(low("same.bin"), big);
  big[big.size() - 1] = 'y';  // the last byte of the last chunk
  write_file(up("big.bin"), big);
  EXPECT_EQ(summary(collect()), (Lines{"modified big.bin"}));
}

TEST_F(ReviewChanges, SymlinksCompareByTargetAndRecordIt) {
  make_link("a", low("changed"));
  make_link("b", up("changed"));
  make_link("same", low("same"));
  make_link("same", up("same"));
  const std::string odd_target = "../\n\x1b]52;\xff";
  make_link(odd_target, up("new"));
  const ChangeSet changes = collect();
  ASSERT_EQ(summary(changes), (Lines{"modified changed", "added new"}));
  EXPECT_EQ(changes[0].before.link_target, "a");
  EXPECT_EQ(changes[0].after.link_target, "b");
  EXPECT_TRUE(S_ISLNK(changes[0].after.mode));
  EXPECT_EQ(changes[1].after.link_target, odd_target);
}

TEST_F(ReviewChanges, ANonDirectoryOfAnotherTypeIsRetyped) {
  write_file(low("file-to-link"), "x");
  make_link("x", up("file-to-link"));
  make_link("x", low("link-to-fifo"));
  ASSERT_EQ(::mkfifo(up("link-to-fifo").c_str(), 0644), 0);
  write_file(low("file-to-device"), "x");
  ASSERT_EQ(::mknod(up("file-to-device").c_str(), S_IFCHR | 0600, makedev(1, 3)), 0);
  const ChangeSet changes = collect();
  ASSERT_EQ(summary(changes), (Lines{"retyped file-to-device", "retyped file-to-link", "retyped link-to-fifo"}));
  EXPECT_TRUE(S_ISREG(changes[1].before.mode));
  EXPECT_EQ(changes[1].after.link_target, "x");
  EXPECT_EQ(changes[2].before.link_target, "x");
  EXPECT_TRUE(S_ISFIFO(changes[2].after.mode));
}

TEST_F(ReviewChanges, SpecialFilesAreAddedAndSameTypeOnesCompareByDevice) {
  ASSERT_EQ(::mkfifo(up("fifo").c_str(), 0600), 0);
  ASSERT_EQ(::mknod(up("null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  make_socket(up("socket"));
  ASSERT_EQ(::mknod(low("dev").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  ASSERT_EQ(::mknod(up("dev").c_str(), S_IFCHR | 0666, makedev(1, 5)), 0);
  ASSERT_EQ(::mkfifo(low("same-fifo").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo(up("same-fifo").c_str(), 0600), 0);
  const ChangeSet changes = collect();
  ASSERT_EQ(summary(changes), (Lines{"modified dev", "added fifo", "added null", "added socket"}));
  EXPECT_TRUE(S_ISFIFO(changes[1].after.mode));
  EXPECT_TRUE(S_ISCHR(changes[2].after.mode));
  EXPECT_TRUE(S_ISSOCK(changes[3].after.mode));
}

TEST_F(ReviewChanges, WhiteoutsDeleteFilesAndEveryFileBelowADirectory) {
  write_file(low("gone.txt"), "x");
  make_whiteout(up("gone.txt"));
  write_file(low("tree/a"), "a");
  write_file(low("tree/sub/b"), "b");
  make_link("/etc", low("tree/sub/link"));
  make_dir(low("tree/empty"));
  make_whiteout(up("tree"));
  make_whiteout(up("nothing-below"));  // a whiteout over nothing changes nothing
  make_dir(up("new-dir"));
  make_whiteout(up("new-dir/also-nothing"));
  const ChangeSet changes = collect();
  ASSERT_EQ(summary(changes),
            (Lines{"deleted gone.txt", "deleted tree/a", "deleted tree/sub/b", "deleted tree/sub/link"}));
  for (const Change& change : changes) EXPECT_FALSE(change.after.exists) << change.path;
  EXPECT_EQ(changes[0].before.size, 1u);
  EXPECT_EQ(changes[3].before.link_target, "/etc");
}

TEST_F(ReviewChanges, AnOpaqueDirectoryHidesTheLowerOneAllTheWayDown) {
  write_file(low("o/kept"), "kept");
  write_file(low("o/replaced"), "old");
  write_file(low("o/gone"), "gone");
  write_file(low("o/sub/deep"), "deep");
  write_file(low("o/sub/kept-deep"), "kept-deep");
  write_file(low("o/hidden-dir/x"), "x");
  make_dir(up("o"));
  set_xattr(up("o"), "trusted.overlay.opaque", "y");
  write_file(up("o/kept"), "kept");
  write_file(up("o/replaced"), "new!");
  write_file(up("o/added"), "added");
  // Not opaque itself, yet nothing merges below an opaque directory.
  write_file(up("o/sub/kept-deep"), "kept-deep");
  write_file(up("o/sub/other"), "other");
  EXPECT_EQ(summary(collect()), (Lines{"added o/added", "deleted o/gone", "deleted o/hidden-dir/x",
                                       "modified o/replaced", "deleted o/sub/deep", "added o/sub/other"}));
}

TEST_F(ReviewChanges, TheUserNamespaceOpaqueXattrCountsAndOnlyYIsOpaque) {
  write_file(low("user/x"), "x");
  make_dir(up("user"));
  set_xattr(up("user"), "user.overlay.opaque", "y");
  write_file(low("no/x"), "x");
  make_dir(up("no"));
  set_xattr(up("no"), "trusted.overlay.opaque", "n");
  write_file(low("long/x"), "x");
  make_dir(up("long"));
  set_xattr(up("long"), "trusted.overlay.opaque", "yes");
  write_file(low("escaped/x"), "x");
  make_dir(up("escaped"));
  set_xattr(up("escaped"), "trusted.overlay.overlay.opaque", "y");  // a nested overlay's, escaped
  EXPECT_EQ(summary(collect()), (Lines{"deleted user/x"}));
}

TEST_F(ReviewChanges, WhenTheNamespaceIsNamedTheOtherOnesOverlayXattrsAreOrdinary) {
  write_file(low("user-opaque/kept.txt"), "kept");
  make_dir(up("user-opaque"));
  set_xattr(up("user-opaque"), "user.overlay.opaque", "y");
  write_file(low("trusted-opaque/x"), "x");
  make_dir(up("trusted-opaque"));
  set_xattr(up("trusted-opaque"), "trusted.overlay.opaque", "y");
  write_file(up("meta"), "m");
  set_xattr(up("meta"), "user.overlay.metacopy", "");
  EXPECT_EQ(summary(collect({.overlay_xattrs = OverlayXattrs::Trusted})),
            (Lines{"added meta", "deleted trusted-opaque/x"}));
  EXPECT_NE(collect_error({.overlay_xattrs = OverlayXattrs::User}).find("user.overlay.metacopy at meta"),
            std::string::npos);
  EXPECT_NE(collect_error().find("user.overlay.metacopy at meta"), std::string::npos);  // Either
  ASSERT_EQ(::lremovexattr(up("meta").c_str(), "user.overlay.metacopy"), 0);
  EXPECT_EQ(summary(collect({.overlay_xattrs = OverlayXattrs::User})),
            (Lines{"added meta", "deleted user-opaque/kept.txt"}));
  EXPECT_EQ(summary(collect()), (Lines{"added meta", "deleted trusted-opaque/x", "deleted user-opaque/kept.txt"}));
}

TEST_F(ReviewChanges, ADirectoryOverAFileAndAFileOverADirectory) {
  write_file(low("was-file"), "file");
  write_file(up("was-file/a"), "a");
  write_file(up("was-file/b/c"), "c");
  write_file(low("was-dir/a"), "a");
  write_file(low("was-dir/b/c"), "c");
  write_file(up("was-dir"), "now a file");
  make_dir(low("empty-dir"));
  make_link("target", up("empty-dir"));
  const ChangeSet changes = collect();
  ASSERT_EQ(summary(changes), (Lines{"added empty-dir", "added was-dir", "deleted was-dir/a", "deleted was-dir/b/c",
                                     "deleted was-file", "added was-file/a", "added was-file/b/c"}));
  EXPECT_FALSE(changes[1].before.exists);  // the directory is not a state of the path's file
  EXPECT_TRUE(S_ISREG(changes[4].before.mode));
}

TEST_F(ReviewChanges, AnUpperOnlyDirectoryIsAddedWholeAndNestedOnesToo) {
  write_file(up("fresh/a"), "a");
  write_file(up("fresh/x/y/z"), "z");
  make_dir(up("fresh/empty"));
  ASSERT_EQ(::mkfifo(up("fresh/x/fifo").c_str(), 0600), 0);
  EXPECT_EQ(summary(collect()), (Lines{"added fresh/a", "added fresh/x/fifo", "added fresh/x/y/z"}));
}

TEST_F(ReviewChanges, AnyByteButSlashAndNulIsANameAndSortingIsByByte) {
  const std::string newline = "line\nbreak", escape = "title\x1b]52;c;Zm9v\a", invalid = "bad\xff\xfe";
  const std::string control = std::string(1, '\x01') + "first";
  write_file(up(newline), "n");
  write_file(up(escape + "/inside"), "e");
  write_file(low(invalid), "old");
  write_file(up(invalid), "new");
  write_file(low("dir\xc3/" + invalid), "x");
  make_whiteout(up("dir\xc3"));
  write_file(up("Zed"), "z");
  write_file(up(control), "1");
  EXPECT_EQ(summary(collect()),
            (Lines{"added " + control, "added Zed", "modified " + invalid, "deleted dir\xc3/" + invalid,
                   "added " + newline, "added " + escape + "/inside"}));
}

TEST_F(ReviewChanges, MetacopyAndRedirectXattrsRefuseTheLayerNamingThePathSafely) {
  write_file(low("dir/evil\x1b]52;"), "lower");
  write_file(up("dir/evil\x1b]52;"), "");
  set_xattr(up("dir/evil\x1b]52;"), "trusted.overlay.metacopy", "");
  std::string error = collect_error();
  EXPECT_NE(error.find("trusted.overlay.metacopy at dir/evil\\x1b]52;"), std::string::npos) << error;
  EXPECT_EQ(error.find('\x1b'), std::string::npos);
  fs::remove_all(upper_);
  write_file(up("plain"), "x");
  set_xattr(up("plain"), "user.overlay.metacopy", "");
  EXPECT_NE(collect_error().find("user.overlay.metacopy at plain"), std::string::npos);
  fs::remove_all(upper_);
  make_dir(up("moved"));
  set_xattr(up("moved"), "trusted.overlay.redirect", "/elsewhere");
  error = collect_error();
  EXPECT_NE(error.find("trusted.overlay.redirect at moved"), std::string::npos) << error;
  EXPECT_NE(error.find("fix: "), std::string::npos);
  fs::remove_all(upper_);
  make_dir(up("fine"));
  set_xattr(up("fine"), "trusted.overlay.origin", "anything");  // overlayfs writes these itself
  set_xattr(up("fine"), "user.note", "ok");
  EXPECT_EQ(collect_error(), "");
}

TEST_F(ReviewChanges, SymlinksInTheLowerLayerAreNeverFollowed) {
  const std::string outside = scratch_.path() + "/outside";
  write_file(outside + "/passwd", "same");
  write_file(outside + "/secret", "secret");
  make_link(outside, low("d"));  // the upper layer merges a directory onto it
  write_file(up("d/passwd"), "same");
  make_link(outside, low("w"));  // whited out
  make_whiteout(up("w"));
  make_link("/etc", low("o"));  // an opaque directory over it
  make_dir(up("o"));
  set_xattr(up("o"), "trusted.overlay.opaque", "y");
  write_file(up("o/hostname"), "h");
  const ChangeSet changes = collect();
  ASSERT_EQ(summary(changes), (Lines{"deleted d", "added d/passwd", "deleted o", "added o/hostname", "deleted w"}));
  EXPECT_EQ(changes[0].before.link_target, outside);
  EXPECT_EQ(changes[2].before.link_target, "/etc");
}

TEST_F(ReviewChanges, AMountInTheWorkspaceWhereTheSessionChangedSomethingIsRefused) {
  write_file(low("mnt/host-file"), "x");
  write_file(scratch_.path() + "/elsewhere/file", "y");
  write_file(up("mnt/new"), "n");
  const std::string report = in_child([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0) fail("unshare");
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail("private");
    if (::mount((scratch_.path() + "/elsewhere").c_str(), low("mnt").c_str(), nullptr, MS_BIND, nullptr) != 0) {
      fail("bind");
    }
    const std::string directory_mount = collect_error();
    fs::remove_all(upper_);
    make_dir(upper_);
    write_file(low("file-mount"), "host");
    if (::mount(low("mnt/file").c_str(), low("file-mount").c_str(), nullptr, MS_BIND, nullptr) != 0) fail("bind file");
    make_whiteout(up("file-mount"));
    const std::string file_mount = collect_error();
    fs::remove_all(upper_);
    make_dir(upper_);
    write_file(up("other"), "o");  // a mount the session left alone does not matter
    const std::string untouched = collect_error();
    return directory_mount + "\n" + file_mount + "\n" + untouched;
  });
  const std::string expected =
      "review: the workspace holds a mount at %s; review mode cannot show it | fix: unmount it "
      "or use [workspace] mode = \"direct\"";
  auto with = [&](const std::string& path) {
    std::string line = expected;
    return line.replace(line.find("%s"), 2, path);
  };
  EXPECT_EQ(report, with("mnt") + "\n" + with("file-mount") + "\n");
}

TEST_F(ReviewChanges, KernelsWithoutTheXattratCallsAreReadThroughProc) {
  write_file(low("o/x"), "x");
  make_dir(up("o"));
  set_xattr(up("o"), "user.overlay.opaque", "y");
  write_file(low("n/x"), "x");
  make_dir(up("n"));
  set_xattr(up("n"), "trusted.overlay.opaque", "yes");
  write_file(low("f"), "old");
  write_file(up("f"), "new");
  const std::string report = in_child([&]() -> std::string {
    // As a kernel before 6.13 (or a seccomp filter that predates them) answers getxattrat
    // (464) and listxattrat (465).
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 464, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 465, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    };
    struct sock_fprog program = {static_cast<unsigned short>(std::size(filter)), filter};
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs");
    if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) fail("seccomp");
    std::string lines;
    for (const std::string& line : summary(collect())) lines += line + "\n";
    set_xattr(up("f"), "trusted.overlay.metacopy", "");
    return lines + collect_error();
  });
  EXPECT_EQ(report.substr(0, report.find(" | fix")),
            "modified f\ndeleted o/x\nreview: the session's upper layer carries trusted.overlay.metacopy at f, an "
            "overlay xattr cordon's overlay (metacopy=off, redirect_dir=nofollow) never writes itself");
}

// "name/name/.../name", `depth` times.
std::string chain(const std::string& name, int depth) {
  std::string path = name;
  for (int level = 1; level < depth; ++level) path += "/" + name;
  return path;
}

// `relative` made beneath `root` one component at a time, so that it may be longer than
// PATH_MAX: its directories, then in its last component a file holding `content`, a whiteout
// for "WHITEOUT" or a directory for "DIR".
void make_beneath(const std::string& root, const std::string& relative, std::string_view content) {
  UniqueFd dir(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  size_t start = 0;
  for (size_t slash; (slash = relative.find('/', start)) != std::string::npos; start = slash + 1) {
    const std::string name = relative.substr(start, slash - start);
    if (::mkdirat(dir.get(), name.c_str(), 0755) != 0 && errno != EEXIST) fail("mkdirat " + name);
    dir = UniqueFd(::openat(dir.get(), name.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) fail("openat " + name);
  }
  const std::string leaf = relative.substr(start);
  if (content == "DIR") {
    if (::mkdirat(dir.get(), leaf.c_str(), 0755) != 0) fail("mkdirat " + leaf);
  } else if (content == "WHITEOUT") {
    if (::mknodat(dir.get(), leaf.c_str(), S_IFCHR, makedev(0, 0)) != 0) fail("mknodat " + leaf);
  } else {
    const UniqueFd file(::openat(dir.get(), leaf.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!file.valid() || ::write(file.get(), content.data(), content.size()) < 0) fail("writing " + leaf);
  }
}

// Lowers the soft open-file limit for the guard's lifetime.
class FileLimit {
 public:
  explicit FileLimit(rlim_t soft) {
    ::getrlimit(RLIMIT_NOFILE, &saved_);
    struct rlimit lowered = saved_;
    lowered.rlim_cur = soft;
    ::setrlimit(RLIMIT_NOFILE, &lowered);
  }
  ~FileLimit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
  FileLimit(const FileLimit&) = delete;
  FileLimit& operator=(const FileLimit&) = delete;

 private:
  struct rlimit saved_ {};
};

// Layers in memory (tmpfs) where there is one: thousands of directories made and removed on a
// busy disk take seconds, which measure the disk rather than the review.
class InMemoryReviewChanges : public ReviewChanges {
 protected:
  InMemoryReviewChanges()
      : ReviewChanges(fs::is_directory("/dev/shm") ? "/dev/shm/cordon-changes-" : "/tmp/cordon-changes-") {}
};

TEST_F(InMemoryReviewChanges, TwoThousandLevelsDeepReadWithSixtyFourDescriptors) {
  // One path through every view: merged for 500 levels, then an opaque directory for 500, then
  // a directory only the upper layer has beside one only the lower layer has, 1000 each.
  const std::string opaque_top = chain("d", 500) + "/o";
  const std::string opaque_bottom = opaque_top + "/" + chain("d", 499);
  const std::string added = opaque_bottom + "/" + chain("n", 1000);
  const std::string hidden = opaque_bottom + "/" + chain("w", 1000);
  make_beneath(lower_, opaque_bottom + "/f", "lower");
  make_beneath(upper_, opaque_bottom + "/f", "upper");
  set_xattr(up(opaque_top), "trusted.overlay.opaque", "y");
  make_beneath(lower_, hidden + "/g", "hidden");
  // Two at the bottom: the second is opened again from the root, 2000 levels up.
  make_beneath(upper_, added + "/x/h", "new");
  make_beneath(upper_, added + "/y/h", "new");
  const int descriptors_before = open_fd_count();
  ChangeSet changes;
  {
    const FileLimit limit(64);
    changes = collect();
  }
  EXPECT_EQ(open_fd_count(), descriptors_before);
  EXPECT_EQ(summary(changes), (Lines{"modified " + opaque_bottom + "/f", "added " + added + "/x/h",
                                     "added " + added + "/y/h", "deleted " + hidden + "/g"}));
  remove_tree(scratch_.path());
}

TEST_F(InMemoryReviewChanges, PathsLongerThanPathMaxAreReadInSteps) {
  const std::string merged = chain(std::string(200, 'n'), 60);  // 12 KB of path
  ASSERT_GT(merged.size(), 2u * PATH_MAX);
  for (const char* leaf : {"/x/f", "/y/f"}) {  // the second is opened from the root
    make_beneath(lower_, merged + leaf, "lower");
    make_beneath(upper_, merged + leaf, "upper!");
  }
  const std::string hidden = chain(std::string(200, 'w'), 60);
  make_beneath(lower_, hidden + "/g", "hidden");
  make_beneath(upper_, hidden, "WHITEOUT");
  EXPECT_EQ(summary(collect()),
            (Lines{"modified " + merged + "/x/f", "modified " + merged + "/y/f", "deleted " + hidden + "/g"}));
  remove_tree(scratch_.path());
}

TEST_F(ReviewChanges, AHundredThousandFilesAreReadQuickly) {
  // Hard links to a few files: as many names to read, without allocating 100,000 inodes (which
  // on an ext4 /tmp just after other tests removed theirs takes many seconds).
  constexpr int kDirs = 100, kFilesPerDir = 1000;
  const std::string sources = scratch_.path() + "/sources";
  write_file(sources + "/host-same", "up");
  write_file(sources + "/host-other", "lo");
  const std::string host_sources[2] = {sources + "/host-same", sources + "/host-other"};
  for (int d = 0; d < kDirs; ++d) {
    const std::string dir = "d" + std::to_string(100 + d), source = sources + "/" + dir;
    write_file(source, "up");  // ext4 links one inode at most 65,000 times
    make_dir(up(dir));
    make_dir(low(dir));
    for (int f = 0; f < kFilesPerDir; ++f) {
      const std::string name = "/f" + std::to_string(1000 + f);
      ASSERT_EQ(::link(source.c_str(), (up(dir) + name).c_str()), 0);
      // The first directory holds unchanged copy-ups, the second files the session rewrote.
      if (d < 2) {
        ASSERT_EQ(::link(host_sources[d].c_str(), (low(dir) + name).c_str()), 0);
      }
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const ChangeSet changes = collect();
  const auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("collect_changes over %d upper files: %.3f s\n", kDirs * kFilesPerDir, elapsed);
  ASSERT_EQ(changes.size(), static_cast<size_t>((kDirs - 1) * kFilesPerDir));
  EXPECT_EQ(changes.front().path, "d101/f1000");
  EXPECT_EQ(changes.front().kind, ChangeKind::Modified);
  EXPECT_EQ(changes[kFilesPerDir].path, "d102/f1000");
  EXPECT_EQ(changes[kFilesPerDir].kind, ChangeKind::Added);
  EXPECT_EQ(changes.back().path, "d199/f1999");
  EXPECT_TRUE(
      std::is_sorted(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.path < b.path; }));
}

TEST_F(ReviewChanges, MoreEntriesThanTheLimitAreRefused) {
  for (int i = 0; i < 6; ++i) write_file(up("f" + std::to_string(i)), "x");
  write_file(low("gone/a"), "a");
  write_file(low("gone/b"), "b");
  make_whiteout(up("gone"));
  // Six files and a whiteout in the upper layer, two files in the hidden lower directory.
  EXPECT_EQ(collect({.max_entries = 9}).size(), 8u);
  const int descriptors_before = open_fd_count();
  const std::string error = collect_error({.max_entries = 8});
  EXPECT_NE(error.find("more than 8 entries"), std::string::npos) << error;
  EXPECT_NE(error.find("fix: "), std::string::npos);
  EXPECT_EQ(open_fd_count(), descriptors_before);  // no descriptor leaks out of the throw
}

// ---- Layers a real overlay wrote ----

// Builds the host tree the sessions below start from.
void make_host_tree(const std::string& lower) {
  write_file(lower + "/keep.txt", "keep");
  write_file(lower + "/touched.txt", "touched");
  write_file(lower + "/edit.txt", "edit me");
  write_file(lower + "/gone.txt", "gone");
  write_file(lower + "/mode.sh", "echo", 0644);
  make_link("keep.txt", lower + "/link");
  write_file(lower + "/olddir/a", "a");
  write_file(lower + "/olddir/sub/b", "b");
  write_file(lower + "/movedir/m1", "m1");
  write_file(lower + "/movedir/deep/m2", "m2");
  write_file(lower + "/replaced.txt", "file");
  write_file(lower + "/dir-to-file/x", "x");
  write_file(lower + "/reborn/old1", "old1");
  write_file(lower + "/reborn/old2", "old2");
  write_file(lower + "/nested/quiet/deep.txt", "deep");
  write_file(lower + "/planted/kept.txt", "kept");
}

void must(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

// What a session does through the merged directory `m`, with the system calls its tools make.
void act_through_overlay(const std::string& m) {
  write_file(m + "/new.txt", "new");
  write_file(m + "/edit.txt", "edited, longer");
  must(::unlink((m + "/gone.txt").c_str()) == 0, "rm gone.txt");
  fs::remove_all(m + "/olddir");
  // redirect_dir=nofollow: renaming a host directory fails with EXDEV and mv copies it instead.
  if (::rename((m + "/movedir").c_str(), (m + "/moved").c_str()) != 0) {
    must(errno == EXDEV, "rename movedir");
    fs::copy(m + "/movedir", m + "/moved", fs::copy_options::recursive);
    fs::remove_all(m + "/movedir");
  }
  write_file(m + "/fresh/a", "a");  // a directory the session made renames in the upper layer alone
  must(::rename((m + "/fresh").c_str(), (m + "/renamed").c_str()) == 0, "rename fresh");
  must(::chmod((m + "/mode.sh").c_str(), 0755) == 0, "chmod");
  must(::unlink((m + "/link").c_str()) == 0 && ::symlink("edit.txt", (m + "/link").c_str()) == 0, "relink");
  must(::symlink("new.txt", (m + "/newlink").c_str()) == 0, "symlink");
  must(::mkfifo((m + "/fifo").c_str(), 0600) == 0, "mkfifo");
  must(::unlink((m + "/replaced.txt").c_str()) == 0, "rm replaced.txt");
  write_file(m + "/replaced.txt/inner", "inner");
  fs::remove_all(m + "/dir-to-file");
  write_file(m + "/dir-to-file", "now a file");
  fs::remove_all(m + "/reborn");  // then made again: an opaque directory
  write_file(m + "/reborn/old1", "old1");
  // Copied up without a change: a timestamp, and a file opened for writing.
  must(::utimensat(AT_FDCWD, (m + "/touched.txt").c_str(), nullptr, 0) == 0, "touch");
  const UniqueFd opened(::open((m + "/nested/quiet/deep.txt").c_str(), O_WRONLY | O_CLOEXEC));
  must(opened.valid(), "open for writing");
  // An ordinary user xattr to a mount by real root, which stores it as it is; refused under
  // userxattr, where the user.overlay. prefix is the overlay's own.
  ::setxattr((m + "/planted").c_str(), "user.overlay.opaque", "y", 1, 0);
}

const Lines kOverlaySessionChanges = {"added dir-to-file",
                                      "deleted dir-to-file/x",
                                      "modified edit.txt",
                                      "added fifo",
                                      "deleted gone.txt",
                                      "modified link",
                                      "mode mode.sh",
                                      "added moved/deep/m2",
                                      "added moved/m1",
                                      "deleted movedir/deep/m2",
                                      "deleted movedir/m1",
                                      "added new.txt",
                                      "added newlink",
                                      "deleted olddir/a",
                                      "deleted olddir/sub/b",
                                      "deleted reborn/old2",
                                      "added renamed/a",
                                      "deleted replaced.txt",
                                      "added replaced.txt/inner"};

// A session in layers under `base`: mounts the overlay in a child (as root, or as root of a new
// user namespace with userxattr), acts through it, and reads what its upper layer then says.
class OverlaySession {
 public:
  OverlaySession(const std::string& base, bool user_namespace)
      : lower_(base + "/lower"),
        upper_(base + "/upper"),
        work_(base + "/work"),
        merged_(base + "/merged"),
        user_namespace_(user_namespace) {
    make_host_tree(lower_);
    for (const std::string& dir : {upper_, work_, merged_}) make_dir(dir);
  }

  // Mounts the overlay in a child and acts through it.
  void act() const {
    const std::string report = in_child([&]() -> std::string {
      enter_namespaces();
      std::string options = "lowerdir=" + lower_ + ",upperdir=" + upper_ + ",workdir=" + work_ +
                            ",redirect_dir=nofollow,metacopy=off";
      if (user_namespace_) options += ",userxattr";
      must(::mount("overlay", merged_.c_str(), "overlay", 0, options.c_str()) == 0, "mounting " + options);
      act_through_overlay(merged_);
      return "";
    });
    if (!report.empty()) throw std::runtime_error(report);
  }

  // What the upper layer then says, its overlay xattrs read in `xattrs`, or in the namespace
  // the mount used.
  ChangeSet collect(std::optional<OverlayXattrs> xattrs = std::nullopt) const {
    const UniqueFd upper(::open(upper_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    const UniqueFd lower(::open(lower_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    CollectLimits limits;
    limits.overlay_xattrs = xattrs.value_or(user_namespace_ ? OverlayXattrs::User : OverlayXattrs::Trusted);
    return collect_changes(upper.get(), lower.get(), limits);
  }

  const std::string& upper() const { return upper_; }

 private:
  void enter_namespaces() const {
    if (!user_namespace_) {
      must(::unshare(CLONE_NEWNS) == 0, "unshare");
    } else {
      must(::unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0, "unshare");
      write_proc("/proc/self/setgroups", "deny");  // before gid_map, or the kernel refuses it
      write_proc("/proc/self/uid_map", "0 0 1");
      write_proc("/proc/self/gid_map", "0 0 1");
    }
    must(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0, "making mounts private");
  }

  static void write_proc(const char* path, std::string_view text) {
    const UniqueFd fd(::open(path, O_WRONLY | O_CLOEXEC));
    must(fd.valid() && ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size()), path);
  }

  std::string lower_, upper_, work_, merged_;
  bool user_namespace_;
};

TEST(RealOverlay, AsRootWithTrustedXattrs) {
  const testing::ScratchDir scratch("/tmp/cordon-overlay-");
  const OverlaySession session(scratch.path(), false);
  session.act();
  EXPECT_EQ(summary(session.collect()), kOverlaySessionChanges);
  EXPECT_EQ(read_xattr(session.upper() + "/reborn", "trusted.overlay.opaque"), "y");
  EXPECT_EQ(read_xattr(session.upper() + "/reborn", "user.overlay.opaque"), "<none>");
  // Copied up, yet unchanged: not in the list above.
  for (const char* copied : {"/touched.txt", "/nested/quiet/deep.txt"}) {
    EXPECT_TRUE(fs::is_regular_file(session.upper() + copied)) << copied;
  }
  // The session's own user.overlay.opaque, which this mount ignored, deletes when honoured.
  EXPECT_EQ(read_xattr(session.upper() + "/planted", "user.overlay.opaque"), "y");
  Lines with_planted = kOverlaySessionChanges;
  with_planted.push_back("deleted planted/kept.txt");
  std::sort(with_planted.begin(), with_planted.end(), [](const std::string& a, const std::string& b) {
    return a.substr(a.find(' ')) < b.substr(b.find(' '));  // by path, as changes are
  });
  EXPECT_EQ(summary(session.collect(OverlayXattrs::Either)), with_planted);
}

TEST(RealOverlay, InAUserNamespaceWithUserXattrs) {
  const testing::ScratchDir scratch("/tmp/cordon-overlay-");
  const OverlaySession session(scratch.path(), true);
  session.act();
  EXPECT_EQ(summary(session.collect()), kOverlaySessionChanges);
  EXPECT_EQ(summary(session.collect(OverlayXattrs::Either)), kOverlaySessionChanges);
  EXPECT_EQ(read_xattr(session.upper() + "/reborn", "user.overlay.opaque"), "y");
  EXPECT_EQ(read_xattr(session.upper() + "/reborn", "trusted.overlay.opaque"), "<none>");
  EXPECT_EQ(read_xattr(session.upper() + "/planted", "user.overlay.opaque"), "<none>");
}

TEST(RealOverlay, BothMountsRecordTheSameChanges) {
  const testing::ScratchDir root_scratch("/tmp/cordon-overlay-"), user_scratch("/tmp/cordon-overlay-");
  const OverlaySession root_session(root_scratch.path(), false), user_session(user_scratch.path(), true);
  root_session.act();
  user_session.act();
  const ChangeSet as_root = root_session.collect(), as_user = user_session.collect();
  ASSERT_EQ(summary(as_root), summary(as_user));
  ASSERT_EQ(summary(as_root), kOverlaySessionChanges);
  for (size_t i = 0; i < as_root.size(); ++i) {
    for (const auto& [root_state, user_state] :
         {std::pair{&as_root[i].before, &as_user[i].before}, std::pair{&as_root[i].after, &as_user[i].after}}) {
      EXPECT_EQ(root_state->exists, user_state->exists) << as_root[i].path;
      EXPECT_EQ(root_state->mode, user_state->mode) << as_root[i].path;
      EXPECT_EQ(root_state->size, user_state->size) << as_root[i].path;
      EXPECT_EQ(root_state->link_target, user_state->link_target) << as_root[i].path;
    }
  }
  const auto find = [&](const std::string& path) {
    return *std::find_if(as_root.begin(), as_root.end(), [&](const Change& c) { return c.path == path; });
  };
  EXPECT_EQ(find("link").before.link_target, "keep.txt");
  EXPECT_EQ(find("link").after.link_target, "edit.txt");
  EXPECT_EQ(find("mode.sh").after.mode, static_cast<mode_t>(S_IFREG | 0755));
  EXPECT_EQ(find("edit.txt").after.size, 14u);
  EXPECT_TRUE(S_ISFIFO(find("fifo").after.mode));
  EXPECT_TRUE(S_ISREG(find("replaced.txt").before.mode));
}

}  // namespace
}  // namespace cordon::review
