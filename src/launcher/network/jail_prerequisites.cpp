// The egress jail's prerequisites, checked before the launcher forks anything. A missing one
// refuses the launch: the jail never falls back to the host network.
#include <unistd.h>

#include <fstream>
#include <string>

#include "common/error.h"
#include "common/network_opt_out.h"
#include "launcher/inputs/paths.h"
#include "launcher/network/egress_jail.h"
#include "launcher/network/tun_device.h"

namespace cordon::jail {
namespace {

std::string opt_out(const std::string& config_path) {
  return "; or, to run without network confinement, " + egress_jail_opt_out(config_path);
}

// -1 when the sysctl does not exist on this kernel.
long read_sysctl(const char* path) {
  std::ifstream in(path);
  long value = -1;
  if (!(in >> value)) return -1;
  return value;
}

void check_tun(const std::string& config_path) {
  TunDeviceCheck tun = check_tun_device();
  if (!tun.problem.empty()) throw Error("egress jail: " + tun.problem, tun.fix + opt_out(config_path));
}

void check_user_namespaces(const std::string& config_path) {
  const std::string fix_tail = opt_out(config_path);
  if (read_sysctl("/proc/sys/user/max_user_namespaces") == 0)
    throw Error("egress jail: user namespaces are disabled (user.max_user_namespaces = 0)",
                "sysctl -w user.max_user_namespaces=15000 (and persist it in /etc/sysctl.d)" + fix_tail);
  if (::geteuid() == 0) return;
  if (read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == 0)
    throw Error("egress jail: unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)",
                "sysctl -w kernel.unprivileged_userns_clone=1 (and persist it in /etc/sysctl.d)" + fix_tail);
  if (read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
    throw Error(
        "egress jail: AppArmor restricts unprivileged user namespaces "
        "(kernel.apparmor_restrict_unprivileged_userns = 1)",
        "allow user namespaces for cordon with an AppArmor profile granting `userns`, or sysctl -w "
        "kernel.apparmor_restrict_unprivileged_userns=0" +
            fix_tail);
}

}  // namespace

std::string check_jail_prerequisites(const std::string& config_path) {
  std::string pasta = find_system_binary("pasta");
  if (pasta.empty())
    throw Error("egress jail: pasta is not installed (looked in /usr/bin, /usr/local/bin, /bin, /usr/sbin, /sbin)",
                "install it: apt-get install passt" + opt_out(config_path));
  check_tun(config_path);
  check_user_namespaces(config_path);
  return pasta;
}

}  // namespace cordon::jail
