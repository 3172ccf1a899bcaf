#include "launcher/review/review_base.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cctype>

#include "common/error.h"
#include "common/json_codec.h"
#include "common/text.h"
#include "common/unique_fd.h"
#include "launcher/review/beneath.h"

namespace cordon::review {
namespace {

inline constexpr const char* kReviewBaseFormat = "cordon-review-base";
inline constexpr int kReviewBaseVersion = 1;
inline constexpr size_t kMaxRefBytes = 4096;

// A small regular file beneath the workspace, never through a link; "" when absent or odd.
std::string read_small(int workspace_fd, const std::string& relative, size_t limit) {
  UniqueFd fd = open_beneath(workspace_fd, relative, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  std::string text(std::min(limit, static_cast<size_t>(st.st_size)), '\0');
  const ssize_t n = ::pread(fd.get(), text.data(), text.size(), 0);
  text.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return text;
}

bool is_object_id(const std::string& text) {
  if (text.size() != 40 && text.size() != 64) return false;
  for (char c : text)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// The commit a ref names: its loose file, else its packed-refs line.
std::string resolve_ref(int workspace_fd, const std::string& ref) {
  if (ref.find("..") != std::string::npos) return {};
  std::string loose = trim(read_small(workspace_fd, ".git/" + ref, kMaxRefBytes));
  if (is_object_id(loose)) return loose;
  const std::string packed = read_small(workspace_fd, ".git/packed-refs", 64 << 20);
  const std::string suffix = " " + ref + "\n";
  for (size_t at = packed.find(suffix); at != std::string::npos; at = packed.find(suffix, at + 1)) {
    const size_t newline = packed.rfind('\n', at);
    const size_t start = newline == std::string::npos ? 0 : newline + 1;
    std::string id = packed.substr(start, at - start);
    if (is_object_id(id)) return id;
  }
  return {};
}

// The index's own checksum: git ends the file with a hash of everything before it.
std::string index_checksum(int workspace_fd) {
  UniqueFd fd = open_beneath(workspace_fd, ".git/index", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 32) return {};
  unsigned char tail[20];
  if (::pread(fd.get(), tail, sizeof tail, st.st_size - static_cast<off_t>(sizeof tail)) != sizeof tail) return {};
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : tail) {
    hex += digits[byte >> 4];
    hex += digits[byte & 15];
  }
  return hex;
}

}  // namespace

ReviewBase take_review_base(const std::string& session, const std::string& workspace, int workspace_fd) {
  ReviewBase base;
  base.session = session;
  base.workspace = workspace;
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME_COARSE, &now);
  base.watermark_ns = static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  struct stat st {};
  if (::fstat(workspace_fd, &st) != 0) throw Error(errno_text("reading the workspace", errno), "nothing ran");
  base.workspace_dev = st.st_dev;
  base.workspace_ino = st.st_ino;
  const std::string head = trim(read_small(workspace_fd, ".git/HEAD", kMaxRefBytes));
  if (head.rfind("ref: ", 0) == 0) {
    base.git_branch = head.substr(5);
    base.git_head = resolve_ref(workspace_fd, base.git_branch);
  } else if (is_object_id(head)) {
    base.git_head = head;
  }
  if (!head.empty()) base.git_index = index_checksum(workspace_fd);
  return base;
}

std::string review_base_text(const ReviewBase& base) {
  Json doc{{"format", kReviewBaseFormat},
           {"version", kReviewBaseVersion},
           {"session", base.session},
           {"workspace", bytes_json(base.workspace)},
           {"workspace_dev", static_cast<unsigned long long>(base.workspace_dev)},
           {"workspace_ino", static_cast<unsigned long long>(base.workspace_ino)},
           {"watermark_ns", base.watermark_ns},
           {"git_head", base.git_head},
           {"git_branch", bytes_json(base.git_branch)},
           {"git_index", base.git_index},
           {"masked_key", base.masked_key},
           {"masked", Json::parse(base.masked_json)}};
  return dump_line(doc) + "\n";
}

ReviewBase parse_review_base(const std::string& text, const std::string& path) {
  std::string problem;
  std::optional<Json> doc = parse_json(text, &problem);
  if (!doc || !check_format(*doc, kReviewBaseFormat, kReviewBaseVersion, &problem))
    throw Error("the review base " + terminal_safe(path) + " is unreadable: " + problem,
                "it was not written by this cordon; `cordon discard` removes the review");
  try {
    ReviewBase base;
    base.session = string_member(*doc, "session");
    base.workspace = bytes_from_json((*doc)["workspace"]);
    base.workspace_dev = static_cast<dev_t>((*doc)["workspace_dev"].get<unsigned long long>());
    base.workspace_ino = static_cast<ino_t>((*doc)["workspace_ino"].get<unsigned long long>());
    base.watermark_ns = (*doc)["watermark_ns"].get<int64_t>();
    base.git_head = string_member(*doc, "git_head");
    base.git_branch = bytes_from_json(doc->value("git_branch", Json("")));
    base.git_index = string_member(*doc, "git_index");
    base.masked_key = doc->value("masked_key", Json(0)).get<uint64_t>();
    base.masked_json = dump_line(doc->value("masked", Json::array()));
    return base;
  } catch (const std::exception& e) {
    throw Error("the review base " + terminal_safe(path) + " is unreadable: " + e.what(),
                "it was not written by this cordon; `cordon discard` removes the review");
  }
}

bool changed_since(const ReviewBase& base, int64_t ctime_ns) { return ctime_ns >= base.watermark_ns; }

}  // namespace cordon::review
