#include "launcher/plan/command.h"

#include "common/error.h"

namespace cordon {

std::vector<std::string> resolve_command(const AgentProfile& profile, const HostFacts& facts,
                                         const LaunchRequest& request) {
  if (!request.command.empty()) return request.command;
  std::string binary = agent_binary(profile, facts);
  if (binary.empty())
    throw Error("no command given", "usage: cordon run [OPTIONS] -- COMMAND [ARGS...]", kExitConfigError);
  if (!facts.exists(binary))
    throw Error("agent \"" + profile.name + "\" binary " + binary + " does not exist",
                "run `cordon shim install --agent " + profile.name + "`, or set agents." + profile.name +
                    ".binary in the configuration, or give the command after --");
  return {binary};
}

bool runs_the_agent(const AgentProfile& profile, const HostFacts& facts, const std::vector<std::string>& command) {
  if (command.empty()) return false;
  const std::string& program = command[0];
  const std::string binary = agent_binary(profile, facts);
  return program.substr(program.rfind('/') + 1) == profile.name || (!binary.empty() && program == binary);
}

}  // namespace cordon
