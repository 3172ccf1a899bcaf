#include "launcher/commands/argv.h"

#include <string>
#include <vector>

#include "common/json_codec.h"
#include "common/print.h"

namespace cordon {

void print_argv(const SandboxPlan& plan, bool json) {
  if (!json) {
    print_out(printable_shell_command(plan.argv) + "\n");
    return;
  }
  Json files = Json::array();
  for (const auto& f : plan.data_files)
    files.push_back({{"fd", f.fd}, {"dest", bytes_json(f.dest)}, {"content", bytes_json(f.content)}});
  // The paths bound by descriptor: whoever runs this argv opens each source at its fd.
  Json bound = Json::array();
  for (const auto& b : plan.bound_paths)
    bound.push_back({{"fd", b.fd}, {"source", bytes_json(b.source)}, {"dest", bytes_json(b.dest)}});
  std::vector<std::string> env_names;
  for (const auto& [name, value] : plan.env) env_names.push_back(name);
  Json document{{"format", "cordon-argv"},
                {"version", 1},
                {"argv", bytes_array_json(plan.argv)},
                {"seccomp_fd", kSeccompFd},
                {"status_fd", kStatusFd},
                {"data_files", files},
                {"bound_paths", bound},
                {"env_names", bytes_array_json(env_names)},
                {"writable", bytes_array_json(plan.writable)},
                {"workspace", bytes_json(plan.workspace)},
                {"agent", bytes_json(plan.agent)}};
  // Only when bwrap waits at the gate: whoever runs this argv must write one byte there.
  if (plan.command_gate) document["command_gate_fd"] = kCommandGateFd;
  print_out(dump_line(document) + "\n");
}

}  // namespace cordon
