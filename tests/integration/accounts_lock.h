// Test accounts are created on demand by whichever test process needs one first; ctest -j
// runs several at once, and useradd fails (rather than waits) while another holds /etc/passwd.
#pragma once

namespace cordon::testing {

// The command prefix that serializes account creation across parallel test processes.
inline constexpr const char* kAccountsLock = "/usr/bin/flock /run/lock/cordon-test-accounts.lock";

}  // namespace cordon::testing
