// Namespace checks: the sandbox's pid, ipc and uts namespaces are its own, compared with the
// ids the launcher recorded (or, without a session file, with the kernel's initial ones).
#include <sys/utsname.h>

#include <cctype>
#include <string>
#include <vector>

#include "battery/check.h"
#include "battery/sys.h"

namespace cordon::battery {
namespace {

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  for (char ch : text) {
    if (ch == ' ' || ch == '\t') {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word.push_back(ch);
    }
  }
  if (!word.empty()) out.push_back(word);
  return out;
}

std::string join_words(const std::string& text) {
  std::string out;
  for (const auto& w : words(text)) out += (out.empty() ? "" : " ") + w;
  return out;
}

size_t process_count() {
  size_t n = 0;
  if (auto names = list_dir("/proc"))
    for (const auto& name : *names) n += !name.empty() && std::isdigit(static_cast<unsigned char>(name[0]));
  return n;
}

// Compares this process's namespace of `kind` with the launcher's (or the initial one).
Outcome own_namespace(const Context& c, const std::string& kind, unsigned long long init_ino, const std::string& flag) {
  std::string own = c.own_ns(kind);
  if (own.empty()) return fail("cannot read /proc/self/ns/" + kind);
  std::string host = c.host_ns(kind);
  if (!host.empty()) {
    if (own == host) return fail("same " + kind + " namespace as the launcher (" + own + "): " + flag + " missing");
    return pass(own + ", launcher " + host);
  }
  if (ns_inode(own) == init_ino)
    return fail("the host's initial " + kind + " namespace (" + own + "): " + flag + " missing");
  return pass(std::string(kNoSession) + ": " + own + " is not the initial " + kind +
              " namespace (the launcher's own is unknown)");
}

}  // namespace

Outcome check_pid_namespace(const Context& c) {
  Outcome ns = own_namespace(c, "pid", kInitPidIno, "--unshare-pid");
  if (ns.status == Status::Fail) return fail(ns.detail + ": processes outside the sandbox can be signalled");
  // NSpid lists this process's pid in every namespace from /proc's namespace down to its own:
  // one entry means /proc belongs to this pid namespace and shows only its processes.
  std::vector<std::string> nspid = words(c.status_value("NSpid"));
  if (nspid.size() != 1)
    return fail("/proc is not this pid namespace's (NSpid " + join_words(c.status_value("NSpid")) +
                "): the host's /proc is bound in and shows processes outside the sandbox");
  return pass(ns.detail + "; /proc shows " + std::to_string(process_count()) + " processes, all in this namespace");
}

Outcome check_ipc_namespace(const Context& c) { return own_namespace(c, "ipc", kInitIpcIno, "--unshare-ipc"); }

Outcome check_uts_namespace(const Context& c) {
  Outcome o = own_namespace(c, "uts", kInitUtsIno, "--unshare-uts");
  utsname u{};
  if (o.status == Status::Pass && ::uname(&u) == 0) o.detail += "; hostname " + std::string(u.nodename);
  return o;
}

Outcome check_proc1_init(const Context& c) {
  int err = 0;
  std::string own = c.own_ns("pid");
  std::string init_ns = read_link("/proc/1/ns/pid", &err);
  std::string cmd;
  if (auto text = read_file("/proc/1/cmdline", 4096)) {
    cmd = text->substr(0, text->find('\0'));
    if (auto slash = cmd.rfind('/'); slash != std::string::npos) cmd = cmd.substr(slash + 1);
  }
  std::string who = "/proc/1 (" + (cmd.empty() ? std::string("?") : cmd) + ")";
  std::string host = c.host_ns("pid");
  if ((!host.empty() && own == host) || ns_inode(own) == kInitPidIno)
    return fail("this process is in the " + std::string(host.empty() ? "initial" : "launcher's") + " pid namespace " +
                own + ", so " + who + " is the host's init");
  if (words(c.status_value("NSpid")).size() > 1)
    return fail(who + " is the init of an outer pid namespace, so it is the host's init (/proc is the host's: NSpid " +
                join_words(c.status_value("NSpid")) + ")");
  if (!init_ns.empty()) {
    if (init_ns != own)
      return fail(who + " is in " + init_ns + ", not this sandbox's " + own + ": it is the host's init");
    if (!host.empty() && init_ns == host) return fail(who + " is in the launcher's pid namespace " + host);
    if (host.empty() && ns_inode(init_ns) == kInitPidIno)
      return fail(who + " is in the initial pid namespace: it is the host's init");
    return pass(who + " in " + init_ns + (host.empty() ? std::string("; ") + kNoSession : std::string()));
  }
  // /proc/1/ns unreadable (another owner): fall back to NSpid of pid 1, as /proc reports it.
  auto status = read_file("/proc/1/status");
  std::string line;
  if (status) {
    auto at = status->find("\nNSpid:");
    if (at != std::string::npos) {
      line = status->substr(at + 7, status->find('\n', at + 1) - at - 7);
      line.erase(0, line.find_first_not_of(" \t"));
    }
  }
  std::vector<std::string> ids = words(line);
  if (ids.size() == 1 && words(c.status_value("NSpid")).size() == 1 && own != host && ns_inode(own) != kInitPidIno)
    return pass(who + " is pid 1 of this sandbox's /proc (its namespace link is unreadable: " + errno_name(err) + ")");
  return fail(who + ": cannot show it belongs to this sandbox (/proc/1/ns/pid: " + errno_name(err) + ", NSpid " + line +
              ")");
}

}  // namespace cordon::battery
