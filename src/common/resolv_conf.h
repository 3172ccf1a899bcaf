// resolv.conf's nameserver lines, read one way for everyone: the jail's plan (which resolvers
// the host uses), battery check 31 and cordon-probe's resolver probes (which ones the sandbox
// would ask).
#pragma once

#include <string>
#include <vector>

namespace cordon {

// The value of every "nameserver ADDRESS" line of resolv.conf text, in order. Pure.
std::vector<std::string> resolv_conf_nameservers(const std::string& text);

}  // namespace cordon
