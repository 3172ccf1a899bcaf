#include "launcher/network/egress_jail.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/error.h"
#include "common/network_opt_out.h"
#include "launcher/network/routes.h"
#include "launcher/process/exec_setup.h"
#include "launcher/process/namespace_users.h"
#include "launcher/process/pidfd.h"
#include "launcher/process/session_init.h"

namespace cordon::jail {
namespace {

// Bounds on every wait. Generous: they only matter when something is broken.
constexpr int kNamespacesTimeoutMs = 5000;
constexpr int kRoutesTimeoutMs = 10000;
constexpr int kGoTimeoutMs = 15000;  // the holder outwaits the launcher's pasta timeout (10 s)

const std::string& fix_report() {
  static const std::string fix = "nothing ran. Check the message above; or, to run without network confinement, " +
                                 egress_jail_opt_out();
  return fix;
}

enum class Signal { Got, Closed, TimedOut };

Signal await_byte(int fd, char expected, int timeout_ms) {
  if (!wait_readable(fd, timeout_ms)) return Signal::TimedOut;
  char c = 0;
  ssize_t n;
  do n = ::read(fd, &c, 1);
  while (n < 0 && errno == EINTR);
  return n == 1 && c == expected ? Signal::Got : Signal::Closed;
}

void send_byte(int fd, char c) {
  ssize_t n;
  do n = ::write(fd, &c, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1) throw Error(errno_text("egress jail: signalling across the fork", errno), fix_report());
}

void make_pipe(UniqueFd& read_end, UniqueFd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(errno_text("egress jail: pipe", errno));
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
}

}  // namespace

EgressJail::EgressJail(JailPlan plan, std::string pasta_path, std::string session_id)
    : plan_(std::move(plan)),
      pasta_path_(std::move(pasta_path)),
      session_id_(std::move(session_id)),
      uid_(::getuid()),
      gid_(::getgid()) {
  make_pipe(to_child_read_, to_child_write_);
  make_pipe(to_parent_read_, to_parent_write_);
}

EgressJail::~EgressJail() = default;  // pasta_ (if any) is ended by its own destructor

void EgressJail::in_child(const ChildSide& side) {
  // Only the holder's ends stay open here, so either side sees the other's death as EOF.
  to_child_write_.reset();
  to_parent_read_.reset();
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
    throw Error(errno_text("egress jail: creating the user and network namespaces (unshare)", errno),
                "enable user namespaces (user.max_user_namespaces > 0, kernel.unprivileged_userns_clone = 1; "
                "in a container allow unshare/clone in its seccomp profile); or " +
                    egress_jail_opt_out());
  // Our own ids, 1:1: works unprivileged and as root; bwrap nests its own mapping on top.
  map_own_ids(uid_, gid_);
  send_byte(to_parent_write_.get(), 'N');
  if (!side.command_gated) {
    program_after_go();
    return;
  }
  // bwrap waits at the command gate, which the launcher opens only after "R": the routes are
  // programmed by a process of their own (in these namespaces, so with CAP_NET_ADMIN over
  // this network) while the holder goes on to exec bwrap, whose setup then overlaps pasta's.
  const pid_t holder = ::getpid();
  pid_t programmer = ::fork();
  if (programmer < 0) throw Error(errno_text("egress jail: fork of the route programmer", errno), fix_report());
  if (programmer > 0) {
    to_child_read_.reset();
    to_parent_write_.reset();
    return;  // the holder's own wait reaps the programmer
  }
  if (!die_with_launcher(holder)) ::_exit(kExitLaunchRefused);
  try {
    program_after_go();
  } catch (const Error& e) {
    refuse_from_child(side.error_fd, e.what(), e.fix());
  }
  ::_exit(0);
}

void EgressJail::program_after_go() {
  switch (await_byte(to_child_read_.get(), 'G', kGoTimeoutMs)) {
    case Signal::Got: break;
    // The launcher gave up and reports why itself; a second report here would hide it.
    case Signal::Closed: ::_exit(kExitLaunchRefused);
    case Signal::TimedOut: throw Error("egress jail: the launcher never confirmed that pasta attached", fix_report());
  }
  program_jail_network(plan_);
  send_byte(to_parent_write_.get(), 'R');
}

void EgressJail::after_fork(pid_t child) {
  to_child_read_.reset();
  to_parent_write_.reset();
  try {
    if (await_byte(to_parent_read_.get(), 'N', kNamespacesTimeoutMs) != Signal::Got)
      throw Error("egress jail: the holder process did not create its namespaces", fix_report());
    struct stat st {};
    std::string ns = "/proc/" + std::to_string(child) + "/ns/net";
    if (::stat(ns.c_str(), &st) != 0) throw Error(errno_text("egress jail: " + ns, errno), fix_report());
    netns_dev_ = st.st_dev;
    netns_ino_ = st.st_ino;

    pasta_ = std::make_unique<Pasta>();
    pasta_->start(pasta_path_, child, plan_.dns_forward, session_id_);
    send_byte(to_child_write_.get(), 'G');
    Signal routes = await_byte(to_parent_read_.get(), 'R', kRoutesTimeoutMs);
    if (routes == Signal::TimedOut)
      throw Error("egress jail: the holder did not finish programming the routes within " +
                      std::to_string(kRoutesTimeoutMs / 1000) + " s",
                  fix_report());
    if (routes != Signal::Got)
      throw Error("egress jail: the holder stopped before its routes were verified", fix_report());
  } catch (...) {
    pasta_.reset();  // ends pasta, removes its temp dir
    throw;
  }
}

void EgressJail::after_exit() {
  std::string problems;
  if (pasta_) problems = pasta_->stop();
  pasta_.reset();
  append_namespace_leftovers(netns_dev_, netns_ino_, problems);
  if (!problems.empty())
    throw Error("egress jail: teardown incomplete: " + problems,
                "the command has finished; inspect and end what is listed (kill PID, rm -r DIR) and report this");
}

}  // namespace cordon::jail
