#include "jail_world.h"

#include "accounts_lock.h"
#include "common/build_config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace cordon::testing {
namespace {

const std::string kNetworld = std::string(CORDON_SOURCE_DIR) + "/tests/integration/networld.sh";

void write_file(const std::string& path, const std::string& text, mode_t mode = 0644) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The probe run inside the sandbox: one line per spec, "SPEC OK detail" or "SPEC ERR reason".
// Every operation has a 2 s timeout; blocked destinations fail at once (local routes).
const char* const kProbe = R"PY(import errno, socket, struct, sys

def fam(addr): return socket.AF_INET6 if ":" in addr else socket.AF_INET

def tcp(addr, port):
    with socket.socket(fam(addr), socket.SOCK_STREAM) as s:
        s.settimeout(2); s.connect((addr, int(port)))
        return s.recv(200).decode().strip()

def udp(addr, port):
    with socket.socket(fam(addr), socket.SOCK_DGRAM) as s:
        s.settimeout(2); s.connect((addr, int(port))); s.send(b"ping")
        return s.recv(200).decode().strip()

def dns(name, server):
    q = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
    q += b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0" + struct.pack(">HH", 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(2); s.connect((server, 53)); s.send(q)
        r = s.recv(512)
    if struct.unpack(">H", r[6:8])[0] == 0: raise RuntimeError("no answer")
    return socket.inet_ntoa(r[-4:])

def resolve(name):
    return socket.getaddrinfo(name, 80, socket.AF_INET, socket.SOCK_STREAM)[0][4][0]

ops = {"tcp": tcp, "udp": udp, "dns": dns, "resolve": resolve}
for spec in sys.argv[1:]:
    kind, *args = spec.split(",")
    try:
        print(spec, "OK", ops[kind](*args), flush=True)
    except socket.timeout:
        print(spec, "ERR timeout", flush=True)
    except OSError as e:
        print(spec, "ERR", errno.errorcode.get(e.errno, str(e.errno)) if e.errno else repr(e), flush=True)
    except Exception as e:
        print(spec, "ERR", repr(e), flush=True)
)PY";

}  // namespace

CommandResult run_shell(const std::string& command, int timeout_seconds) {
  CommandResult result;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return result;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    ::dup2(null_fd, 0);
    // Only 0-2 reach the shell: ctest leaves its log open on fd 3 (and more), and a command
    // that counts on low fd numbers breaks on a crowded table. mmdebstrap did: its pipe to apt
    // landed on fd 11 and dash's `cat >&11` accepts one-digit fds only ("Bad fd number").
    ::syscall(SYS_close_range, 3U, ~0U, 0U);
    std::string limit = std::to_string(timeout_seconds);
    ::execl("/usr/bin/timeout", "timeout", "-k", "5", limit.c_str(), "/bin/sh", "-c", command.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) result.output.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string NetWorld::up() {
  // Short, unique per run: interface-free names, so only the netns names carry it.
  id = "t" + std::to_string(::getpid());
  // Not under /tmp: each launch binds a private directory over /tmp (see cordon_run).
  char templ[] = "/var/tmp/cordon-world-XXXXXX";
  if (!::mkdtemp(templ)) return "mkdtemp failed";
  dir = templ;
  ::chmod(dir.c_str(), 0755);  // the test user reads the installed copy and its workspace
  // The launches' private state directory (CORDON_TEST_STATE_DIR): never the host's records.
  state_dir = dir + "/state";
  ::mkdir(state_dir.c_str(), 01777);
  ::chmod(state_dir.c_str(), 01777);
  host_ns = "cjh-" + id;
  router_ns = "cjr-" + id;

  CommandResult world = run_shell(kNetworld + " up " + id + " " + dir);
  if (world.status != 0) return "networld.sh up failed: " + world.output;

  // A world-readable copy of cordon in the install layout (the build tree may be under /root).
  std::string build = CORDON_BUILD_DIR;
  cordon = dir + "/inst/bin/cordon";
  CommandResult install = run_shell("set -e; mkdir -p " + dir + "/inst/bin " + dir + "/inst/libexec " + dir +
                                    "/cfg " + dir + "/scripts; cp " + std::string(CORDON_BINARY) + " " + cordon +
                                    "; cp -r " + build + "/libexec/cordon " + dir + "/inst/libexec/; chmod -R a+rX " +
                                    dir + "/inst " + dir + "/cfg");
  if (install.status != 0) return "installing cordon failed: " + install.output;

  // The unprivileged user, and a tun node it may open, bound over /dev/net/tun only inside
  // the fake host's mount namespace (this machine's node is root-only; Debian's is 0666).
  user_ready = run_shell(std::string(kAccountsLock) + " sh -c 'id -u " + kUser +
                         " >/dev/null 2>&1 || useradd -m -s /bin/sh " + kUser + "'").status == 0;
  std::string tun = dir + "/tun";
  if (::mknod(tun.c_str(), S_IFCHR | 0666, makedev(10, 200)) != 0 || ::chmod(tun.c_str(), 0666) != 0)
    user_ready = false;
  std::string tun_root_only = dir + "/tun-0600";
  ::mknod(tun_root_only.c_str(), S_IFCHR | 0600, makedev(10, 200));
  write_file(dir + "/not-executable", "");

  for (As as : {As::Root, As::User}) {
    std::string ws = workspace(as);
    ::mkdir(ws.c_str(), 0755);
    if (as == As::User) run_shell(std::string("chown ") + kUser + " " + ws);
  }
  put_in_workspaces("probe.py", kProbe);
  return "";
}

void NetWorld::down() {
  if (id.empty()) return;
  run_shell(kNetworld + " down " + id + " " + dir);
  if (!dir.empty() && dir.rfind("/var/tmp/cordon-world-", 0) == 0) run_shell("rm -rf " + dir);
  id.clear();
}

std::string NetWorld::write_config(const std::string& name, const std::string& toml) const {
  std::string path = dir + "/cfg/" + name + ".toml";
  write_file(path, toml);
  return path;
}

std::string NetWorld::workspace(As as) const { return dir + (as == As::Root ? "/ws" : "/uws"); }

void NetWorld::put_in_workspaces(const std::string& name, const std::string& text) const {
  for (As as : {As::Root, As::User}) write_file(workspace(as) + "/" + name, text, 0644);
}

CommandResult NetWorld::cordon_run(const std::string& config, const std::string& args,
                                   const RunOptions& o) const {
  static int counter = 0;
  ++counter;
  std::string ws = o.workspace.empty() ? workspace(o.as) : o.workspace;
  std::string user_prefix;
  last_tmp_ = dir + "/tmp-" + std::to_string(counter);
  ::mkdir(last_tmp_.c_str(), 0777);
  ::chmod(last_tmp_.c_str(), 01777);
  std::string script = "set -e\nmount --bind " + last_tmp_ + " /tmp\n";
  if (o.as == As::User) {
    script += "mount --bind " + dir + "/tun /dev/net/tun\n";
    user_prefix = std::string("runuser -u ") + kUser + " -- env HOME=/home/" + kUser + " ";
  }
  const std::string ns = o.netns.empty() ? host_ns : o.netns;  // the world namespace the run enters
  std::string config_arg = " --config " + config;
  if (o.fixed_config) {
    const std::string fixed = build::kConfigPath;
    std::string anchor = fixed.substr(0, fixed.rfind('/'));
    while (!anchor.empty() && ::access(anchor.c_str(), F_OK) != 0) anchor = anchor.substr(0, anchor.rfind('/'));
    const std::string overlay = dir + "/overlay-" + std::to_string(counter);
    script += "mkdir -p " + overlay + "/upper " + overlay + "/work\n"
              "mount -t overlay overlay -o lowerdir=" + anchor + ",upperdir=" + overlay + "/upper,workdir=" + overlay +
              "/work " + anchor + "\nmkdir -p " + fixed.substr(0, fixed.rfind('/')) + "\ncp " + config + " " + fixed +
              "\nchmod 0644 " + fixed + "\n";
    // Where /etc/cordon does not exist yet the overlay covers all of /etc, and with it the
    // world's resolv.conf that `ip netns exec` bound there: bind the namespace's files again.
    if (anchor == "/etc" || anchor == "/" || anchor.empty())
      script += "for f in /etc/netns/" + ns +
                "/*; do [ -f \"$f\" ] && mount --bind \"$f\" \"/etc/${f##*/}\"; done\n";
    config_arg.clear();
  }
  script += o.prelude + "\ncd " + ws + "\nexec " + user_prefix + o.wrapper + " env CORDON_TEST_STATE_DIR=" + state_dir + " " + o.env + " " + cordon +
            config_arg +
            (o.status   ? " status --workspace " + ws + " " + o.run_flags
             : o.verify ? std::string(o.deep ? " verify --deep" : " verify") + " --workspace " + ws + " " + o.run_flags
                        : " run --workspace " + ws + " " + o.run_flags + " -- " + args) +
            "\n";
  std::string path = script_dir() + "/run-" + std::to_string(counter) + ".sh";
  write_file(path, script, 0644);
  return run_shell("ip netns exec " + ns + " /bin/sh " + path, o.timeout_seconds);
}

std::string NetWorld::leftover_temp_files() const {
  std::string left;
  if (DIR* d = ::opendir(last_tmp_.c_str())) {
    while (dirent* e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") left += std::string(e->d_name) + " ";
    ::closedir(d);
  }
  return left;
}

std::string NetWorld::stray_processes() const {
  std::string listener = read_file(dir + "/host.pid");
  while (!listener.empty() && listener.back() == '\n') listener.pop_back();
  std::istringstream pids(run_shell("ip netns pids " + host_ns).output);
  std::string pid, stray;
  while (pids >> pid)
    if (pid != listener) stray += pid + " (" + read_file("/proc/" + pid + "/comm") + ") ";
  return stray;
}

NetWorld* open_suite_world(std::string& problem) {
  if (::geteuid() != 0) return nullptr;
  auto* world = new NetWorld;
  problem = world->up();
  return world;
}

void close_suite_world(NetWorld*& world) {
  if (world) world->down();
  delete world;
  world = nullptr;
}

}  // namespace cordon::testing
