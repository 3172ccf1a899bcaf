// What the Kubernetes tests share (kubernetes_manifests_test.cpp, kubernetes_test.cpp): where
// the manifests are, and the script that reads them for the tests (kube_manifests.py).
#pragma once

#include <string>

namespace cordon::testing {

inline const std::string kKubeManifests = std::string(CORDON_SOURCE_DIR) + "/deploy/kubernetes";
// Debian's python3 (python3-yaml, python3-kubernetes), whatever python3 comes first on PATH.
inline const std::string kKubeTool =
    "/usr/bin/python3 " + std::string(CORDON_SOURCE_DIR) + "/tests/integration/kube_manifests.py";

}  // namespace cordon::testing
