#include "common/agent_login.h"

namespace cordon {

const AgentLogin* shipped_agent_login(const std::string& agent) {
  // Codex: `codex login` and the TUI's "Sign in with ChatGPT" listen on 127.0.0.1:1455; the
  // device-code flow (`codex login --device-auth`) and an API key (`codex login
  // --with-api-key`, reading the key on stdin) need no callback.
  static const AgentLogin codex = {
      {".codex/auth.json"},
      {"OPENAI_API_KEY"},
      "Codex's browser sign-in waits on 127.0.0.1:1455 inside the sandbox, which your browser cannot reach: "
      "run `codex login --device-auth` inside (a code you enter on the web), pipe a key to "
      "`codex login --with-api-key`, or log in once outside cordon; the login is kept in ~/.codex/auth.json"};
  // Gemini CLI: "Login with Google" redirects to a listener on 127.0.0.1; an API key or
  // Vertex AI settings in the environment need none.
  static const AgentLogin gemini = {
      {".gemini/oauth_creds.json"},
      {"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"},
      "Gemini CLI's Google login redirects to a listener on 127.0.0.1 inside the sandbox, which your browser "
      "cannot reach: pass GEMINI_API_KEY (the profile lets it through), or log in once outside cordon (`gemini`); "
      "the login is kept in ~/.gemini/oauth_creds.json"};
  if (agent == "codex") return &codex;
  if (agent == "gemini") return &gemini;
  return nullptr;
}

}  // namespace cordon
