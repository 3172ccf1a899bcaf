// How each shipped agent logs in, and which of its logins can complete inside cordon. A
// browser login that redirects to a listener on 127.0.0.1 (Codex's "Sign in with ChatGPT",
// Gemini CLI's Google login) waits inside the sandbox's own network namespace, where the
// browser on the host can never reach it. cordon does not forward ports into the sandbox, so
// on a terminal it names the login that works before such an agent starts without one.
#pragma once

#include <string>
#include <vector>

namespace cordon {

struct AgentLogin {
  // Relative to $HOME: any of these existing means a login is already there.
  std::vector<std::string> credential_files;
  // Environment names that authenticate without a login (an API key passed in).
  std::vector<std::string> key_variables;
  // What to do instead of the browser login, one line.
  std::string hint;
};

// The login facts of "codex" and "gemini"; nullptr for any other name (Claude Code's login
// prints a URL and takes the code pasted back, which works inside).
const AgentLogin* shipped_agent_login(const std::string& agent);

}  // namespace cordon
