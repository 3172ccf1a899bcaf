// One check: a stable number, a short name, the property it establishes, and a function that
// looks at the sandbox from inside. A property passes only on evidence; the mechanism is a
// diagnostic (what produced the evidence), never a reason to pass.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "battery/context.h"

namespace cordon::battery {

// Warn: the property holds as far as it was promised, but the launcher recorded part of it as
// not in force here (a budget the host could not hold): never counted as a FAIL, never shown
// as a plain PASS either.
enum class Status { Pass, Warn, Fail };

// What a check function returns: the verdict, a one-line reason (FAIL) or note (PASS, may
// be empty), and the mechanism observed (empty = the check's default mechanism).
struct Outcome {
  Status status = Status::Fail;
  std::string detail;
  std::string mechanism;
};

inline Outcome pass(std::string note = {}, std::string mechanism = {}) {
  return {Status::Pass, std::move(note), std::move(mechanism)};
}
inline Outcome warn(std::string note, std::string mechanism = {}) {
  return {Status::Warn, std::move(note), std::move(mechanism)};
}
inline Outcome fail(std::string reason, std::string mechanism = {}) {
  return {Status::Fail, std::move(reason), std::move(mechanism)};
}

using CheckFn = Outcome (*)(const Context&);

struct CheckSpec {
  const char* id;  // "01".."27": stable
  const char* name;
  const char* property;   // behavioural: credential_isolation, privilege_floor, ...
  const char* mechanism;  // the defence expected to produce it (diagnostic)
  CheckFn run;
};

struct CheckResult {
  std::string id, name;
  Status status = Status::Fail;
  std::string detail, property, mechanism;
};

// Every check, in number order.
const std::vector<CheckSpec>& all_checks();

// Runs one check; an exception inside it becomes a FAIL naming the problem.
CheckResult run_check(const CheckSpec& spec, const Context& context);

// The checks, one function per number (checks_*.cpp).
Outcome check_sentinel(const Context&);          // 01
Outcome check_no_new_privs(const Context&);      // 02
Outcome check_strict_home(const Context&);       // 03
Outcome check_env_scrub(const Context&);         // 04
Outcome check_no_display(const Context&);        // 05
Outcome check_cap_eff(const Context&);           // 06
Outcome check_pid_namespace(const Context&);     // 07
Outcome check_ipc_namespace(const Context&);     // 08
Outcome check_uts_namespace(const Context&);     // 09
Outcome check_fresh_dev(const Context&);         // 10
Outcome check_private_tmp(const Context&);       // 11
Outcome check_run_user(const Context&);          // 12
Outcome check_run_secrets(const Context&);       // 13
Outcome check_netrc(const Context&);             // 14
Outcome check_xauthority(const Context&);        // 15
Outcome check_gitconfig(const Context&);         // 16
Outcome check_writable_set(const Context&);      // 17
Outcome check_config_readonly(const Context&);   // 18
Outcome check_jail_routes(const Context&);       // 19
Outcome check_jail_behaviour(const Context&);    // 20
Outcome check_agent_binary(const Context&);      // 21
Outcome check_seccomp_tiocsti(const Context&);   // 22
Outcome check_userns_refused(const Context&);    // 23
Outcome check_abstract_sockets(const Context&);  // 24
Outcome check_proc1_init(const Context&);        // 25
Outcome check_system_masks(const Context&);      // 26
Outcome check_resource_budgets(const Context&);  // 27
Outcome check_system_view(const Context&);       // 30
Outcome check_egress_policy(const Context&);     // 31
Outcome check_agent_control(const Context&);     // 32
Outcome check_private_terminal(const Context&);  // 28
Outcome check_footholds_ro(const Context&);      // 29
Outcome check_landlock(const Context&);          // 33
Outcome check_review_overlay(const Context&);    // 34

}  // namespace cordon::battery
