#!/bin/sh
# An OCI runtime for `podman --runtime` in kubernetes_test.cpp: runc, after doing to a
# container's config.json what containerd and CRI-O do for securityContext.procMount: Unmasked
# (leave /proc unmasked: no maskedPaths, no readonlyPaths), which podman 4.3's kube play does
# not apply. Only a container whose config carries the annotation cordon.test/proc-mount:
# Unmasked (kube_manifests.py sets it for a manifest that asks for Unmasked) is changed.
set -eu
bundle=""
command=""
previous=""
for arg in "$@"; do
  case "$previous" in --bundle | -b) bundle=$arg ;; esac
  case "$arg" in
    create) [ -n "$command" ] || command=create ;;
    --bundle=*) bundle=${arg#--bundle=} ;;
  esac
  previous=$arg
done
if [ "$command" = create ] && [ -n "$bundle" ]; then
  /usr/bin/python3 - "$bundle/config.json" <<'PY'
import json
import sys

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    spec = json.load(f)
if spec.get("annotations", {}).get("cordon.test/proc-mount") == "Unmasked":
    spec["linux"].pop("maskedPaths", None)
    spec["linux"].pop("readonlyPaths", None)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(spec, f)
PY
fi
exec runc "$@"
