// deploy/kubernetes on paper: the manifests are valid Kubernetes (their schema checked offline
// against the API types Debian's python3-kubernetes carries, generated from Kubernetes 1.22's
// OpenAPI: kube_manifests.py validate), the interactive Pod carries the Job's security
// settings, and the Localhost seccomp profile is exactly the runtime default it is made from
// plus cordon's needs (seccomp/make-profile). Each check is shown able to fail on a weakened
// copy. The manifests played for real: kubernetes_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "common/json_codec.h"
#include "jail_world.h"
#include "kube_manifests.h"
#include "support.h"

namespace fs = std::filesystem;

namespace cordon::testing {
namespace {

const std::string kMakeProfile = "/usr/bin/python3 " + kKubeManifests + "/seccomp/make-profile";
// The runtime default the shipped profile is made from: containers-common's (CRI-O's and
// podman's default), which Debian ships with podman.
const std::string kRuntimeDefault = "/usr/share/containers/seccomp.json";

// A copy of deploy/kubernetes to weaken.
std::unique_ptr<TempDir> copy_of_manifests() {
  auto copy = std::make_unique<TempDir>("/tmp/cordon-k8s-manifests-");
  fs::copy(kKubeManifests, copy->path(), fs::copy_options::recursive);
  return copy;
}

void replace_in(const std::string& path, const std::string& from, const std::string& to) {
  std::string text = read_file(path);
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " is not in " << path;
  text.replace(at, from.size(), to);
  write_file(path, text);
}

TEST(KubernetesManifests, AreValidKubernetesWithOnlyTheNamedNewerFields) {
  CommandResult valid = run_shell(kKubeTool + " validate " + kKubeManifests);
  EXPECT_EQ(valid.status, 0) << valid.output;
  EXPECT_NE(valid.output.find("valid configmap.yaml ConfigMap (V1ConfigMap)\nvalid configmap.yaml ConfigMap"),
            std::string::npos)
      << valid.output;
  EXPECT_NE(valid.output.find("valid job.yaml Job (V1Job); newer than the schema: "
                              "Job.spec.template.spec.hostUsers (1.25)"),
            std::string::npos)
      << valid.output;
  EXPECT_NE(valid.output.find("valid pod.yaml Pod (V1Pod); newer than the schema: Pod.spec.hostUsers (1.25)"),
            std::string::npos)
      << valid.output;

  // Control: a misspelt field, a string where the schema wants an integer, and a value outside
  // an enum.
  auto weakened = copy_of_manifests();
  replace_in(weakened->path() + "/job.yaml", "\n            procMount: Unmasked\n", "\n            procMounts: Unmasked\n");
  replace_in(weakened->path() + "/pod.yaml", "runAsUser: 1000", "runAsUser: \"1000\"");
  replace_in(weakened->path() + "/pod.yaml", "procMount: Unmasked", "procMount: Open");
  CommandResult invalid = run_shell(kKubeTool + " validate " + weakened->path());
  EXPECT_EQ(invalid.status, 1) << invalid.output;
  EXPECT_NE(invalid.output.find("INVALID Job.spec.template.spec.containers[0].securityContext.procMounts: no such "
                                "field in V1SecurityContext"),
            std::string::npos)
      << invalid.output;
  EXPECT_NE(invalid.output.find("INVALID Pod.spec.securityContext.runAsUser: an integer expected"), std::string::npos)
      << invalid.output;
  EXPECT_NE(invalid.output.find("INVALID Pod.spec.containers[0].securityContext.procMount: 'Open' is not one of"),
            std::string::npos)
      << invalid.output;
}

// The interactive Pod and the Job's pod must not drift apart in what the sandbox needs.
TEST(KubernetesManifests, TheInteractivePodHoldsTheJobsSecuritySettings) {
  CommandResult job = run_shell(kKubeTool + " security " + kKubeManifests + " job.yaml");
  CommandResult pod = run_shell(kKubeTool + " security " + kKubeManifests + " pod.yaml");
  ASSERT_EQ(job.status, 0) << job.output;
  EXPECT_EQ(pod.output, job.output);
  EXPECT_NE(job.output.find("\"procMount\": \"Unmasked\""), std::string::npos) << job.output;

  // Their two ConfigMaps differ only in [records] (the interactive one exports nothing).
  CommandResult configs = run_shell(kKubeTool + " configs " + kKubeManifests);
  std::istringstream lines(configs.output);
  std::string job_config, pod_config;
  std::getline(lines, job_config);
  std::getline(lines, pod_config);
  auto before_records = [](const std::string& line) {
    std::string problem;
    auto json = parse_json(line, &problem);
    return json && json->is_object() && json->size() == 1 ? json->begin().value().get<std::string>() : line;
  };
  EXPECT_NE(job_config.find("\"cordon-config\""), std::string::npos) << configs.output;
  EXPECT_NE(pod_config.find("\"cordon-config-interactive\""), std::string::npos) << configs.output;
  EXPECT_EQ(before_records(job_config), before_records(pod_config));

  auto weakened = copy_of_manifests();
  replace_in(weakened->path() + "/pod.yaml", "hostUsers: false", "hostUsers: true");
  CommandResult drifted = run_shell(kKubeTool + " security " + weakened->path() + " pod.yaml");
  EXPECT_NE(drifted.output, job.output) << "the comparison sees a drift";
  // The interactive ConfigMap (the second) with the host network: the configs differ.
  std::string text = read_file(weakened->path() + "/configmap.yaml");
  const size_t second = text.find("mode = \"allowlist\"", text.find("name: cordon-config-interactive"));
  ASSERT_NE(second, std::string::npos);
  text.replace(second, std::string("mode = \"allowlist\"").size(), "mode = \"host\"");
  write_file(weakened->path() + "/configmap.yaml", text);
  std::istringstream weakened_lines(run_shell(kKubeTool + " configs " + weakened->path()).output);
  std::getline(weakened_lines, job_config);
  std::getline(weakened_lines, pod_config);
  EXPECT_NE(before_records(job_config), before_records(pod_config)) << "the comparison sees a drift";
}

// Exactly the runtime default plus cordon-needs.json: made again from the Debian package's
// default, the shipped profile is the same bytes, and `diff` of the two shows one rule added
// and the needed calls taken out of the rules that gated them.
TEST(KubernetesManifests, TheSeccompProfileIsTheRuntimeDefaultPlusCordonsNeeds) {
  if (!path_exists(kRuntimeDefault)) GTEST_SKIP() << kRuntimeDefault << " absent (package containers-common)";
  CommandResult made = run_shell(kMakeProfile + " " + kRuntimeDefault);
  ASSERT_EQ(made.status, 0) << made.output;
  EXPECT_EQ(made.output, read_file(kKubeManifests + "/seccomp/cordon.json"))
      << "seccomp/cordon.json is not make-profile's output over " << kRuntimeDefault
      << ": run deploy/kubernetes/seccomp/make-profile " << kRuntimeDefault << " > deploy/kubernetes/seccomp/cordon.json";

  std::string problem;
  auto needs = parse_json(read_file(kKubeManifests + "/seccomp/cordon-needs.json"), &problem);
  ASSERT_TRUE(needs) << problem;
  auto profile = parse_json(made.output, &problem);
  ASSERT_TRUE(profile) << problem;
  const Json& first = (*profile)["syscalls"][0];
  EXPECT_EQ(first["action"], "SCMP_ACT_ALLOW");
  EXPECT_FALSE(first.contains("includes") || first.contains("excludes") || first.contains("args")) << first.dump();
  ASSERT_EQ(first["names"].size(), (*needs)["syscalls"].size());
  for (const auto& name : first["names"]) {
    EXPECT_TRUE((*needs)["syscalls"].contains(name.get<std::string>())) << name;
    for (size_t i = 1; i < (*profile)["syscalls"].size(); ++i)
      for (const auto& other : (*profile)["syscalls"][i]["names"])
        EXPECT_NE(other, name) << "rule " << i << " still conditions " << name;
  }
}

// On a default that gates the namespace calls on CAP_SYS_ADMIN and filters clone's flags (the
// shape of containerd's and Docker's), make-profile lifts exactly the needed calls out of the
// gates and leaves the rest as it was; an allow-by-default profile is refused.
TEST(KubernetesManifests, MakeProfileLiftsOnlyTheNeededCallsOutOfTheirGates) {
  TempDir dir("/tmp/cordon-k8s-seccomp-");
  write_file(dir.path() + "/gated.json", R"({
  "defaultAction": "SCMP_ACT_ERRNO",
  "syscalls": [
    {"names": ["read", "write", "pivot_root"], "action": "SCMP_ACT_ALLOW"},
    {"names": ["bpf", "clone", "mount", "setns", "sethostname", "umount2", "unshare"], "action": "SCMP_ACT_ALLOW",
     "includes": {"caps": ["CAP_SYS_ADMIN"]}},
    {"names": ["clone"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 2114060288,
     "op": "SCMP_CMP_MASKED_EQ"}], "excludes": {"caps": ["CAP_SYS_ADMIN"]}},
    {"names": ["chroot"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_CHROOT"]}}
  ]
})");
  CommandResult made = run_shell(kMakeProfile + " " + dir.path() + "/gated.json");
  ASSERT_EQ(made.status, 0) << made.output;
  std::string problem;
  auto profile = parse_json(made.output, &problem);
  ASSERT_TRUE(profile) << problem << made.output;
  const Json& rules = (*profile)["syscalls"];
  ASSERT_EQ(rules.size(), 3u) << made.output;  // added; read/write; bpf's gate (clone's filter and chroot's gate emptied)
  EXPECT_EQ(rules[0]["names"].size(), 11u) << rules[0].dump();
  EXPECT_EQ(rules[1]["names"], Json::parse(R"(["read", "write"])")) << rules[1].dump();
  EXPECT_EQ(rules[2]["names"], Json::parse(R"(["bpf"])")) << rules[2].dump();
  EXPECT_EQ(rules[2]["includes"]["caps"][0], "CAP_SYS_ADMIN") << "bpf stays gated";
  EXPECT_EQ((*profile)["defaultAction"], "SCMP_ACT_ERRNO");

  write_file(dir.path() + "/open.json", R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": []})");
  CommandResult refused = run_shell(kMakeProfile + " " + dir.path() + "/open.json");
  EXPECT_EQ(refused.status, 1) << refused.output;
  EXPECT_NE(refused.output.find("allows by default"), std::string::npos) << refused.output;
}

}  // namespace
}  // namespace cordon::testing
