#include "launcher/commands/probe_bait.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"
#include "common/process_start.h"
#include "common/review_bait.h"
#include "common/text.h"

namespace cordon {
namespace {

std::string random_suffix() {
  unsigned char bytes[6] = {};
  if (::getrandom(bytes, sizeof bytes, 0) != sizeof bytes) throw Error(errno_text("getrandom", errno));
  char out[16];
  std::snprintf(out, sizeof out, "%02x%02x%02x%02x%02x%02x", bytes[0], bytes[1], bytes[2], bytes[3], bytes[4],
                bytes[5]);
  return out;
}

}  // namespace

ProbeBait::ProbeBait(const std::string& home, const std::string& workspace, bool review) {
  const std::string tag = random_suffix();

  loopback_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof in;
  if (!loopback_.valid() || ::bind(loopback_.get(), reinterpret_cast<sockaddr*>(&in), sizeof in) != 0 ||
      ::listen(loopback_.get(), 4) != 0 || ::getsockname(loopback_.get(), reinterpret_cast<sockaddr*>(&in), &len) != 0)
    throw Error(errno_text("opening the loopback bait listener", errno));
  loopback_port_ = ntohs(in.sin_port);

  abstract_name_ = "cordon-bait-" + tag;
  abstract_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  std::memcpy(un.sun_path + 1, abstract_name_.data(), abstract_name_.size());
  socklen_t un_len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + abstract_name_.size());
  if (!abstract_.valid() || ::bind(abstract_.get(), reinterpret_cast<sockaddr*>(&un), un_len) != 0 ||
      ::listen(abstract_.get(), 4) != 0)
    throw Error(errno_text("opening the abstract-socket bait listener", errno));

  // Canaries where the sandbox must not see: the real home and next to the workspace. A
  // directory this user cannot write simply gets none.
  std::string parent = workspace.substr(0, workspace.rfind('/'));
  for (const std::string& dir : {home, parent.empty() ? std::string("/") : parent}) {
    std::string path = dir + "/.cordon-canary-" + tag;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) continue;
    const char text[] = "cordon canary: a sandbox that can read this leaks\n";
    bool ok = ::write(fd, text, sizeof text - 1) == static_cast<ssize_t>(sizeof text - 1);
    ::close(fd);
    if (ok) canaries_.push_back(path);
    else ::unlink(path.c_str());
  }
  // Review mode: bait inside the workspace, which the session may change only in its overlay.
  if (review) {
    review_stem_ = workspace + "/" + kReviewBaitPrefix + tag;
    for (const char* suffix : {kReviewBaitEdit, kReviewBaitRename, kReviewBaitDelete}) {
      const std::string path = review_stem_ + suffix;
      UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644));
      if (!fd.valid()) throw Error(errno_text("planting the review bait " + terminal_safe(path), errno));
      write_all(fd.get(), kReviewBaitText, "the review bait");
    }
  }
}

ProbeBait::~ProbeBait() {
  for (const auto& path : canaries_) ::unlink(path.c_str());
  if (!review_stem_.empty())
    for (const char* suffix : {kReviewBaitEdit, kReviewBaitRename, kReviewBaitDelete, kReviewBaitNew})
      for (const std::string& extra : {"", ".renamed"}) ::unlink((review_stem_ + suffix + extra).c_str());
}

std::string ProbeBait::review_escape() const {
  std::string escaped;
  for (const char* suffix : {kReviewBaitEdit, kReviewBaitRename, kReviewBaitDelete}) {
    const std::string path = review_stem_ + suffix;
    std::optional<std::string> text = read_file(path, 4096);
    if (!text) escaped += path + " is gone from the host tree; ";
    else if (*text != kReviewBaitText) escaped += path + " changed in the host tree; ";
  }
  for (const std::string& made : {review_stem_ + kReviewBaitRename + ".renamed", review_stem_ + kReviewBaitNew}) {
    struct stat st {};
    if (::lstat(made.c_str(), &st) == 0) escaped += made + " appeared in the host tree; ";
  }
  return escaped;
}

std::vector<std::string> ProbeBait::probe_args() const {
  std::vector<std::string> args = {
      "--target-pid",
      std::to_string(::getpid()) + ":" + std::to_string(process_start_ticks("self").value_or(0)),
      "--host-loopback-port",
      std::to_string(loopback_port_),
      "--host-abstract",
      abstract_name_};
  for (const auto& c : canaries_) args.insert(args.end(), {"--canary", c});
  return args;
}

}  // namespace cordon
