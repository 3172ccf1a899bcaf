// The proxy's own confinement (issue 27 item 6): it runs outside the sandbox, in the host's
// network namespace, and parses what the sandbox sends it, so a parser bug must not become the
// host's. Before any thread: every capability given up, a Landlock domain that handles every filesystem right and
// allows only reading what name resolution reads (and both scopes: no abstract unix socket, no signal outside it), then
// the helpers' seccomp filter (no exec, no fork, no mount, no new Landlock domain; common/seccomp_policy.h).
// docs/landlock.md "The helpers outside the sandbox".
#pragma once

#include <string>
#include <vector>

#include "common/landlock_helper.h"
#include "egress_proxy/options.h"

namespace cordon::egress {

// What getaddrinfo reads (NSS's configuration, the resolver's, the loader's cache for an NSS
// module, the library directories it is loaded from): READ_FILE only, nothing writable.
// `resolv_target` is where /etc/resolv.conf's symlink points ("" when it is a file).
std::vector<landlock::PathGrant> resolution_grants(const std::string& resolv_target);

// Enters the Landlock domain (per options.landlock) and installs the filter; the calling thread
// must be the only one. Throws cordon::Error (exit 125) when --landlock required finds none, or
// the filter cannot be installed; under "auto" a kernel without Landlock is no failure.
landlock::HelperDomain confine_proxy(const Options& options);

// Test builds: the probes --test-probe-open/--test-probe-abstract ask for, one line each on
// stderr ("probe open PATH: ok" or the errno's name).
void run_test_probes(const Options& options);

}  // namespace cordon::egress
