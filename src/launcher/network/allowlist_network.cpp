#include "launcher/network/allowlist_network.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "common/netlink.h"
#include "common/network_modes.h"
#include "launcher/process/namespace_users.h"
#include "launcher/process/pidfd.h"
#include "launcher/process/session_init.h"

namespace cordon::proxy {
namespace {

constexpr int kSocketTimeoutMs = 5000;
constexpr int kListenBacklog = 128;

const char* const kFix =
    "nothing ran. Check the message above; or choose another [network] mode in /etc/cordon/cordon.toml";

// In the holder's new namespace: loopback up, the proxy's endpoint listening on it.
UniqueFd listen_inside(bool bring_up_loopback = true) {
  if (bring_up_loopback) {
    netlink::Socket rtnl;
    for (const auto& link : rtnl.links())
      if (link.flags & IFF_LOOPBACK) rtnl.set_link_up(link.index);
  }
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) throw Error(errno_text("allowlist: socket", errno), kFix);
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_port = htons(kProxyPort);
  ::inet_pton(AF_INET, kProxyHost, &at.sin_addr);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&at), sizeof at) != 0 || ::listen(fd.get(), kListenBacklog) != 0)
    throw Error(errno_text("allowlist: listening on " + std::string(kProxyHost) + ":" + std::to_string(kProxyPort) +
                               " in the sandbox's network namespace",
                           errno),
                kFix);
  return fd;
}

// One byte carrying one descriptor (SCM_RIGHTS): the message both ends of the socketpair use.
struct FdMessage {
  char byte = 'L';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  FdMessage() {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
  }
  FdMessage(const FdMessage&) = delete;
  FdMessage& operator=(const FdMessage&) = delete;
};

void send_fd(int over, int fd) {
  FdMessage m;
  cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ssize_t n;
  do n = ::sendmsg(over, &m.msg, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n != 1) throw Error(errno_text("allowlist: handing the listening socket to the launcher", errno), kFix);
}

// Bounded: the holder either sends the socket or dies (its refusal arrives on the error pipe).
UniqueFd receive_fd(int from) {
  if (!wait_readable(from, kSocketTimeoutMs))
    throw Error("allowlist: the holder did not create its network namespace within " +
                    std::to_string(kSocketTimeoutMs / 1000) + " s",
                kFix);
  FdMessage m;
  ssize_t n;
  do n = ::recvmsg(from, &m.msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  cmsghdr* c = n == 1 ? CMSG_FIRSTHDR(&m.msg) : nullptr;
  if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
    throw Error("allowlist: the holder stopped before it handed over the proxy's listening socket", kFix);
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return UniqueFd(fd);
}

}  // namespace

std::string check_allowlist_prerequisites(const std::string& libexec_dir, const std::string& config_path) {
  std::string path = libexec_dir + "/cordon-egress-proxy";
  if (::access(path.c_str(), X_OK) != 0)
    throw Error(errno_text("network.mode = \"allowlist\" needs cordon's egress proxy " + path, errno),
                "reinstall cordon (cmake --install); or choose another [network] mode in " + config_path);
  return path;
}

AllowlistNetwork::AllowlistNetwork(std::string proxy_path, ProxyArgs args, bool own_namespace)
    : proxy_path_(std::move(proxy_path)),
      args_(std::move(args)),
      own_namespace_(own_namespace),
      uid_(::getuid()),
      gid_(::getgid()) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    throw Error(errno_text("allowlist: socketpair", errno));
  launcher_end_.reset(pair[0]);
  holder_end_.reset(pair[1]);
}

AllowlistNetwork::~AllowlistNetwork() = default;  // proxy_ (if any) is ended by its destructor

void AllowlistNetwork::in_child(const ChildSide&) {
  launcher_end_.reset();
  // A network namespace of the session's own, owned by a user namespace of our own ids (as the
  // jail's holder): CAP_NET_ADMIN over it brings loopback up; bwrap, nested below, has none.
  if (!own_namespace_) {  // test weakening: listen in the launcher's namespace instead
    send_fd(holder_end_.get(), listen_inside(false).get());
    holder_end_.reset();
    return;
  }
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
    throw Error(errno_text("allowlist: creating the user and network namespaces (unshare)", errno),
                "enable user namespaces (user.max_user_namespaces > 0, kernel.unprivileged_userns_clone = 1); or "
                "choose another [network] mode in /etc/cordon/cordon.toml");
  map_own_ids(uid_, gid_);
  UniqueFd listening = listen_inside();
  send_fd(holder_end_.get(), listening.get());
  holder_end_.reset();  // the socket now lives on in the launcher (and then the proxy) only
}

void AllowlistNetwork::after_fork(pid_t child) {
  holder_end_.reset();
  UniqueFd listening = receive_fd(launcher_end_.get());
  launcher_end_.reset();
  struct stat st {};
  std::string ns = "/proc/" + std::to_string(child) + "/ns/net";
  if (::stat(ns.c_str(), &st) != 0) throw Error(errno_text("allowlist: " + ns, errno), kFix);
  if (own_namespace_) {
    netns_dev_ = st.st_dev;
    netns_ino_ = st.st_ino;
  }
  proxy_ = std::make_unique<EgressProxy>();
  proxy_->start(proxy_path_, std::move(listening), args_);
}

void AllowlistNetwork::after_exit() {
  std::string problems;
  if (proxy_) {
    problems = proxy_->stop();
    decisions_ = proxy_->decisions();
  }
  append_namespace_leftovers(netns_dev_, netns_ino_, problems);
  if (!problems.empty())
    throw Error("allowlist: teardown incomplete: " + problems,
                "the command has finished; inspect and end what is listed (kill PID) and report this");
}

}  // namespace cordon::proxy
