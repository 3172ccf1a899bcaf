#include "podman.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <regex>

#include "common/json_codec.h"
#include "jail_world.h"
#include "support.h"

namespace cordon::testing {

void make_compiler_cache() {
  run_shell("mkdir -p " + kCompilerCacheDir + " && { [ -e " + kCompilerCacheDir +
            "/ccache.conf ] || echo 'max_size = 2G' > " + kCompilerCacheDir + "/ccache.conf; }");
}

std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char ch : word) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string hard_limit(int resource, rlim_t cap) {
  rlimit limit{};
  ::getrlimit(resource, &limit);
  rlim_t n = std::min(limit.rlim_max, cap);
  std::string word = n == RLIM_INFINITY ? "-1" : std::to_string(n);
  return word + ":" + word;
}

std::string podman_ulimits() {
  return " --ulimit nofile=" + hard_limit(RLIMIT_NOFILE, RLIM_INFINITY) +
         " --ulimit nproc=" + hard_limit(RLIMIT_NPROC, 32768);
}

std::string debian_base_image(const std::string& dockerfile, std::string& image) {
  CommandResult base = run_shell(
      std::string(CORDON_SOURCE_DIR) + "/tests/integration/devcontainer_base.sh " + dockerfile, 1800);
  if (base.status != 0) return "base image: " + base.output;
  // The image's name is the script's last line; its progress (stderr, merged) comes before.
  const std::string& out = base.output;
  size_t end = out.find_last_not_of('\n');
  image = end == std::string::npos ? "" : out.substr(0, end + 1);
  image = image.substr(image.rfind('\n') + 1);
  if (image.rfind("localhost/cordon-devc-base:", 0) != 0) return "base image: no image name in: " + out;
  return "";
}

std::string build_cordon_image(const std::string& label) {
  const std::string source = CORDON_SOURCE_DIR;
  std::string problem;
  auto json = parse_json(read_file(source + "/devcontainer/devcontainer.json"), &problem);
  if (!json || !json->is_object()) return "devcontainer.json is not JSON: " + problem;
  const Json& build = (*json)["build"];
  const std::string dockerfile = source + "/devcontainer/" + string_member(build, "dockerfile");
  const std::string context =
      std::filesystem::weakly_canonical(source + "/devcontainer/" + string_member(build, "context")).string();

  auto start = std::chrono::steady_clock::now();
  std::string base_image;
  if (problem = debian_base_image(dockerfile, base_image); !problem.empty()) return problem;
  std::printf("[image] base image %s ready in %.1f s\n", base_image.c_str(), seconds_since(start));

  // --network=none: the base holds the packages of both stages, so no apt-get step fetches
  // anything (the package's Depends are there too). JOBS=1: other tests compile beside this
  // one. The compiler cache (shared with package_test.cpp) only speeds the first stage's build
  // (a miss compiles as without it); it lives outside the image.
  make_compiler_cache();
  start = std::chrono::steady_clock::now();
  CommandResult image = run_shell(
      kPodman + " build --network=none --pull=never -q --label " + label + " -f " + dockerfile + " -t " +
          kCordonImage + " --build-arg BASE=" + base_image + " --build-arg JOBS=1" +
          " --build-arg CMAKE_ARGS=-DCMAKE_CXX_COMPILER_LAUNCHER=ccache --build-arg CCACHE_DIR=/ccache -v " +
          kCompilerCacheDir + ":/ccache " + context,
      1800);
  if (image.status != 0) return "podman build: " + image.output;
  std::printf("[image] %s built in %.1f s, %s\n", kCordonImage.c_str(), seconds_since(start),
              run_shell(kPodman + " image inspect -f '{{.Size}} bytes' " + kCordonImage).output.c_str());
  return "";
}

bool wait_for_sleep(const std::string& podman, const std::string& container, std::string& logs) {
  CommandResult r = run_shell("p='" + podman + "'; c=" + container +
                                  "; i=0\n"
                                  "while [ $i -lt 240 ]; do\n"
                                  "  [ \"$($p inspect -f '{{.State.Running}}' $c)\" = true ] || exit 3\n"
                                  "  $p exec $c pgrep -x sleep >/dev/null 2>&1 && exit 0\n"
                                  "  i=$((i + 1)); sleep 0.5\n"
                                  "done\n"
                                  "exit 4\n",
                              180);
  logs = run_shell(podman + " logs " + container).output;
  return r.status == 0;
}

std::string ContainerWorld::up(const std::string& id) {
  id_ = id;
  char templ[] = "/var/tmp/cordon-world-XXXXXX";
  if (!::mkdtemp(templ)) return "mkdtemp failed";
  dir_ = templ;
  CommandResult world = run_shell(std::string(CORDON_SOURCE_DIR) + "/tests/integration/networld.sh up " + id_ + " " +
                                  dir_);
  return world.status == 0 ? "" : "networld.sh up: " + world.output;
}

void ContainerWorld::down() {
  if (dir_.empty()) return;
  run_shell(std::string(CORDON_SOURCE_DIR) + "/tests/integration/networld.sh down " + id_ + " " + dir_);
  run_shell("rm -rf " + dir_);
  dir_.clear();
}

std::string ContainerWorld::podman_network() const {
  return " --network ns:/run/netns/cjh-" + id_ + " --dns 10.53.0.53";
}

std::string verify_report_problem(const std::string& output) {
  std::smatch checks, summary;
  if (!std::regex_search(output, checks, std::regex("cordon-battery: ([0-9]+) checks"))) return "no check count";
  if (!std::regex_search(output, summary, std::regex("Summary: ([0-9]+) PASS / (?:([0-9]+) WARN / )?([0-9]+) FAIL")))
    return "no summary";
  std::printf("[container] %s\n", summary[0].str().c_str());
  if (summary[3].str() != "0") return summary[3].str() + " FAIL";
  const int warned = summary[2].matched ? std::stoi(summary[2].str()) : 0;
  if (warned > 1 || (warned == 1 && output.find("[WARN] 27 ") == std::string::npos))
    return std::to_string(warned) + " WARN, not only check 27's";
  if (std::stoi(summary[1].str()) + warned != std::stoi(checks[1].str())) return "checks missing from the summary";
  return "";
}

}  // namespace cordon::testing
