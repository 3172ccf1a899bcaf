// Terminal (70-72): injecting input into, or reading the selection of, a terminal shared
// with the host (70, 71), and reaching the operator's terminal at all (72): with cordon's
// private terminal, the sandbox holds only its own pty, and its bytes reach the operator's
// terminal through the relay's filter alone. TIOCSTI is attempted with a null byte pointer: the kernel runs every
// permission check first and then fails to read the byte with EFAULT, so "accepted" is
// proved without a single character reaching any terminal.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>

#include "common/tty_device.h"
#include "common/unique_fd.h"
#include "probe/context.h"
#include "probe/probe.h"
#include "probe/util.h"

namespace cordon::probe {
namespace {

void judge_tiocsti(const std::string& where, int err, Tally& tally) {
  switch (err) {
    case EFAULT:
    case 0: tally.escaped(where + " accepted TIOCSTI (EFAULT on a null byte pointer: nothing injected)"); break;
    case EPERM: tally.blocked(where + ": TIOCSTI EPERM"); break;
    case EIO: tally.blocked(where + ": TIOCSTI EIO (the kernel's legacy_tiocsti is off)"); break;
    default: tally.inconclusive(where + ": TIOCSTI " + errno_name(err)); break;
  }
}

// A pty of our own as the controlling terminal of a short-lived grandchild (TIOCSTI only
// works on one's controlling terminal without CAP_SYS_ADMIN). Returns the ioctl's errno, or
// -1 with *why set when the pty could not be set up.
int tiocsti_on_private_pty(std::string* why) {
  UniqueFd master(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master.valid() || ::grantpt(master.get()) != 0 || ::unlockpt(master.get()) != 0) {
    *why = "no pty available: " + errno_name(errno);
    return -1;
  }
  const char* name = ::ptsname(master.get());
  if (!name) {
    *why = "ptsname: " + errno_name(errno);
    return -1;
  }
  std::string slave = name;
  pid_t child = ::fork();
  if (child < 0) {
    *why = "fork: " + errno_name(errno);
    return -1;
  }
  if (child == 0) {
    ::alarm(2);
    if (::setsid() < 0) ::_exit(250);
    int fd = ::open(slave.c_str(), O_RDWR);
    if (fd < 0) ::_exit(251);
    ::ioctl(fd, TIOCSCTTY, 0);
    int r = ::ioctl(fd, TIOCSTI, nullptr);
    ::_exit(r == 0 ? 0 : (errno & 0xff));
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) >= 250) {
    *why = "the pty child failed to start";
    return -1;
  }
  return WEXITSTATUS(status);
}

// 70 -----------------------------------------------------------------------------------
void probe_tiocsti(const Context&, Tally& tally) {
  UniqueFd tty(::open("/dev/tty", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
  if (tty.valid()) {
    int r = ::ioctl(tty.get(), TIOCSTI, nullptr);
    judge_tiocsti("the controlling terminal", r == 0 ? 0 : errno, tally);
  } else {
    tally.note("no controlling terminal (" + errno_name(errno) + ")");
  }
  std::string why;
  int err = tiocsti_on_private_pty(&why);
  if (err < 0) tally.inconclusive("private pty: " + why);
  else judge_tiocsti("a private pty", err, tally);
}

// 71 -----------------------------------------------------------------------------------
void probe_tioclinux(const Context&, Tally& tally) {
  int opened = 0;
  for (const char* dev : {"/dev/tty", "/dev/tty0", "/dev/tty1", "/dev/console"}) {
    UniqueFd fd(::open(dev, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) {
      tally.blocked(std::string(dev) + ": " + errno_name(errno));
      continue;
    }
    ++opened;
    char arg[2] = {6 /* TIOCL_GETSHIFTSTATE: reads the keyboard shift state */, 0};
    if (::ioctl(fd.get(), TIOCLINUX, arg) == 0) {
      tally.escaped(std::string(dev) + " answered TIOCLINUX (a virtual console: selection and paste reachable)");
    } else if (errno == EPERM) {
      tally.blocked(std::string(dev) + ": TIOCLINUX EPERM");
    } else if (errno == ENOTTY || errno == EINVAL) {
      tally.blocked(std::string(dev) + ": " + errno_name(errno) + " (not a virtual console)");
    } else {
      tally.inconclusive(std::string(dev) + ": TIOCLINUX " + errno_name(errno));
    }
  }
  // Without a terminal, a private pty still shows whether the filter refuses the request.
  if (!opened) {
    UniqueFd master(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
    if (master.valid()) {
      char arg[2] = {6, 0};
      int r = ::ioctl(master.get(), TIOCLINUX, arg);
      if (r == 0) tally.escaped("a private pty answered TIOCLINUX");
      else
        tally.blocked("a private pty: TIOCLINUX " + errno_name(errno) +
                      (errno == EPERM ? "" : " (not a virtual console)"));
    }
  }
}

// Every descriptor this process holds that is the terminal `device`.
void held_descriptors(const std::string& device, Tally& tally) {
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return tally.inconclusive("/proc/self/fd: " + errno_name(errno));
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const int fd = std::atoi(e->d_name);
    if (fd == ::dirfd(dir)) continue;
    auto held = terminal_device(fd);
    if (held && device_name(*held) == device)
      tally.escaped("fd " + std::to_string(fd) + " is the operator's terminal " + device);
  }
  ::closedir(dir);
}

// 72 -----------------------------------------------------------------------------------
void probe_operator_terminal(const Context& c, Tally& tally) {
  const std::string device = c.session ? c.session->terminal.operator_device : "";
  if (device.empty()) {
    tally.blocked(c.session ? "the launcher has no terminal: there is none to reach"
                            : "no session file: no operator terminal named");
    return;
  }
  held_descriptors(device, tally);
  if (auto ctty = controlling_terminal_device()) {
    if (device_name(*ctty) == device) tally.escaped("the controlling terminal is the operator's " + device);
    else tally.blocked("the controlling terminal is " + device_name(*ctty) + ", not the operator's " + device);
  } else {
    tally.blocked("no controlling terminal");
  }
  // By path: a pty of the host's devpts, where the operator's terminal would be.
  const unsigned major_number = static_cast<unsigned>(std::stoul(device.substr(0, device.find(':'))));
  if (major_number >= 136 && major_number <= 143) {
    const unsigned minor_number = static_cast<unsigned>(std::stoul(device.substr(device.find(':') + 1)));
    const std::string path = "/dev/pts/" + std::to_string((major_number - 136) * 256 + minor_number);
    UniqueFd opened(::open(path.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
    auto found = opened.valid() ? terminal_device(opened.get()) : std::nullopt;
    if (found && device_name(*found) == device) tally.escaped(path + " opens the operator's terminal");
    else tally.blocked(path + ": " + (opened.valid() ? "another pty (a private devpts)" : errno_name(errno)));
  }
}

}  // namespace

std::vector<ProbeDef> terminal_probes() {
  return {
      {"70", "term-tiocsti", "terminal", "TIOCSTI on the controlling terminal and on a private pty",
       "EPERM (filter) or EIO (kernel legacy_tiocsti=0)", probe_tiocsti},
      {"71", "term-tioclinux", "terminal", "TIOCLINUX on the terminal, /dev/tty0, /dev/tty1, /dev/console",
       "EPERM, ENOENT (no VT here) or ENOTTY (not a VT)", probe_tioclinux},
      {"72", "term-operator", "terminal",
       "the operator's terminal (named in the session file) among the held descriptors, as the controlling "
       "terminal, and by its /dev/pts path",
       "not held, not the controlling terminal, not found", probe_operator_terminal},
  };
}

}  // namespace cordon::probe
