#include "launcher/commands/argv.h"

#include <cstdio>
#include <string>
#include <vector>

#include "common/text.h"

namespace cordon {

void print_argv(const SandboxPlan& plan, bool json) {
  if (!json) {
    std::printf("%s\n", shell_join(plan.argv).c_str());
    return;
  }
  std::string files;
  for (const auto& f : plan.data_files)
    files += std::string(files.empty() ? "" : ",") + "{\"fd\":" + std::to_string(f.fd) +
             ",\"dest\":" + json_string(f.dest) + ",\"content\":" + json_string(f.content) + "}";
  std::vector<std::string> env_names;
  for (const auto& [name, value] : plan.env) env_names.push_back(name);
  std::printf("{\"argv\":%s,\"seccomp_fd\":%d,\"status_fd\":%d,\"data_files\":[%s],\"env_names\":%s,"
              "\"writable\":%s,\"workspace\":%s,\"agent\":%s}\n",
              json_string_array(plan.argv).c_str(), kSeccompFd, kStatusFd, files.c_str(),
              json_string_array(env_names).c_str(), json_string_array(plan.writable).c_str(),
              json_string(plan.workspace).c_str(), json_string(plan.agent).c_str());
}

}  // namespace cordon
