#!/usr/bin/python3
"""The test's view of deploy/kubernetes (kubernetes_test.cpp). Run by Debian's /usr/bin/python3.

  kube_manifests.py validate DIR
      Checks every document of DIR's kustomization against the Kubernetes API schema that
      Debian's python3-kubernetes (22.6, generated from Kubernetes 1.22's OpenAPI) carries: each
      field's name and type, and the enums the manifests use. Fields newer than that schema are
      listed in NEWER (with the version that added them); any other unknown field is an error.
      Prints one line per document checked, or the problems, and exits 1 on any.

  kube_manifests.py security DIR MANIFEST
      The settings of MANIFEST's pod the sandbox depends on (hostUsers, the security contexts,
      resources, the configuration's volume), as one JSON line: the tests hold pod.yaml's equal
      to the Job's.

  kube_manifests.py configs DIR
      Each ConfigMap's cordon.toml up to its [records] table, one JSON line each: the tests hold
      the Job's and the interactive Pod's equal there.

  kube_manifests.py play DIR IMAGE [--manifest job.yaml|pod.yaml] [--name NAME] [--task TEXT]
                          [--without SETTING]... [--config-replace OLD NEW]...
      Writes to stdout what `podman kube play` runs: DIR's ConfigMap and the pod of the manifest
      (the Job's pod template as a Pod: podman 4.3 plays Pods, not Jobs), named NAME (its
      ConfigMap NAME-config), with IMAGE and the Job's CORDON_TASK replaced by TEXT. What podman
      cannot express is changed and said on stderr, one "podman:" line each. --without takes a
      security setting away (a control): procMount, seccompProfile (the runtime's default
      instead), hostUsers. --config-replace edits cordon.toml (OLD must be in it).
"""
import argparse
import sys

import yaml

# Fields of the manifests newer than python3-kubernetes 22.6's schema: field path -> version.
NEWER = {"Pod.spec.hostUsers": "1.25", "Job.spec.template.spec.hostUsers": "1.25"}

SECCOMP_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
PROC_MOUNT_ANNOTATION = "cordon.test/proc-mount"

ENUMS = {
    "procMount": {"Default", "Unmasked"},
    "type": {"RuntimeDefault", "Localhost", "Unconfined"},  # seccompProfile.type
    "restartPolicy": {"Always", "OnFailure", "Never"},
    "imagePullPolicy": {"Always", "IfNotPresent", "Never"},
}


def load(directory):
    with open(directory + "/kustomization.yaml", encoding="utf-8") as f:
        kustomization = yaml.safe_load(f)
    docs = []
    for resource in kustomization["resources"]:
        with open(directory + "/" + resource, encoding="utf-8") as f:
            docs.extend((resource, d) for d in yaml.safe_load_all(f) if d)
    return kustomization, docs


def check(value, type_name, path, models, problems):
    """Checks `value` against the client's type name ("str", "list[V1Container]", "V1PodSpec", ...)."""
    if type_name.startswith("list["):
        if not isinstance(value, list):
            problems.append("%s: a list expected" % path)
            return
        for i, item in enumerate(value):
            check(item, type_name[5:-1], "%s[%d]" % (path, i), models, problems)
    elif type_name.startswith("dict("):
        if not isinstance(value, dict):
            problems.append("%s: a mapping expected" % path)
            return
        inner = type_name[5:-1].split(", ", 1)[1]
        for key, item in value.items():
            check(item, inner, "%s.%s" % (path, key), models, problems)
    elif type_name == "str":
        if not isinstance(value, str):
            problems.append("%s: a string expected, not %r" % (path, value))
        elif path.rsplit(".", 1)[-1] in ENUMS and value not in ENUMS[path.rsplit(".", 1)[-1]]:
            problems.append("%s: %r is not one of %s" % (path, value, sorted(ENUMS[path.rsplit(".", 1)[-1]])))
    elif type_name == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            problems.append("%s: an integer expected, not %r" % (path, value))
    elif type_name == "bool":
        if not isinstance(value, bool):
            problems.append("%s: a boolean expected, not %r" % (path, value))
    elif type_name == "object":
        pass  # IntOrString, Quantity: any scalar
    else:
        model = getattr(models, type_name, None)
        if model is None:
            problems.append("%s: the schema has no type %s" % (path, type_name))
            return
        if not isinstance(value, dict):
            problems.append("%s: a %s mapping expected" % (path, type_name))
            return
        by_json = {json: attr for attr, json in model.attribute_map.items()}
        for key, item in value.items():
            field = "%s.%s" % (path, key)
            if key not in by_json:
                if field not in NEWER:
                    problems.append("%s: no such field in %s" % (field, type_name))
                continue
            check(item, model.openapi_types[by_json[key]], field, models, problems)


def validate(directory):
    from kubernetes.client import models

    kinds = {("v1", "ConfigMap"): "V1ConfigMap", ("v1", "Pod"): "V1Pod", ("batch/v1", "Job"): "V1Job"}
    kustomization, docs = load(directory)
    problems = []
    if kustomization.get("kind") != "Kustomization":
        problems.append("kustomization.yaml: not a Kustomization")
    for resource, doc in docs:
        model = kinds.get((doc.get("apiVersion"), doc.get("kind")))
        if model is None:
            problems.append("%s: %s %s is not a kind this check knows" % (resource, doc.get("apiVersion"),
                                                                           doc.get("kind")))
            continue
        before = len(problems)
        check(doc, model, doc["kind"], models, problems)
        if len(problems) == before:
            newer = [f for f in NEWER if f.startswith(doc["kind"] + ".")]
            print("valid %s %s (%s)%s" % (resource, doc["kind"], model,
                                          "; newer than the schema: " + ", ".join(
                                              "%s (%s)" % (f, NEWER[f]) for f in newer) if newer else ""))
    for p in problems:
        print("INVALID " + p)
    return 1 if problems else 0


def security(directory, manifest):
    """The settings of a manifest's pod that the sandbox depends on, as one JSON line."""
    import json

    _, docs = load(directory)
    doc = next(d for r, d in docs if r == manifest)
    spec = doc["spec"]["template"]["spec"] if doc["kind"] == "Job" else doc["spec"]
    keys = ("hostUsers", "automountServiceAccountToken", "enableServiceLinks", "securityContext", "volumes")
    out = {k: spec.get(k) for k in keys}
    # Which of configmap.yaml's two ConfigMaps it mounts is compared apart (`configs`).
    for volume in out["volumes"] or []:
        if "configMap" in volume:
            volume["configMap"] = dict(volume["configMap"], name="*")
    out["containers"] = [{k: c.get(k) for k in ("image", "securityContext", "resources", "volumeMounts")}
                         for c in spec["containers"]]
    print(json.dumps(out, sort_keys=True))
    return 0


def configs(directory):
    """The two ConfigMaps' cordon.toml with the [records] table cut out, one JSON line each."""
    import json

    _, docs = load(directory)
    for _, doc in docs:
        if doc["kind"] == "ConfigMap":
            text = doc["data"]["cordon.toml"]
            print(json.dumps({doc["metadata"]["name"]: text[:text.index("[records]")]}))
    return 0


def play(directory, image, options):
    """The ConfigMap and the pod of `options.manifest` (the Job's template, or pod.yaml's Pod)."""
    _, docs = load(directory)
    say = lambda text: sys.stderr.write("podman: " + text + "\n")
    if options.manifest == "job.yaml":
        job = next(d for r, d in docs if r == "job.yaml")
        template = job["spec"]["template"]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": dict(template["metadata"]), "spec": template["spec"]}
        say("Job (batch/v1) is played as its pod template, a Pod: podman 4.3 plays Pods and Deployments")
        for field in ("backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished"):
            if field in job["spec"]:
                say("Job.spec.%s is the Job controller's: not played" % field)
    else:
        pod = next(d for r, d in docs if r == options.manifest)
    spec = pod["spec"]
    mounted = next(v["configMap"]["name"] for v in spec["volumes"] if "configMap" in v)
    config = next(d for _, d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == mounted)
    # This run's names: the pod (its containers are NAME-CONTAINER) and its ConfigMap (podman
    # keeps a ConfigMap as a volume of that name).
    pod["metadata"] = dict(pod["metadata"], name=options.name)
    pod["metadata"]["labels"] = dict(pod["metadata"].get("labels", {}), **{"cordon.test": "kubernetes"})
    pod["metadata"]["annotations"] = dict(pod["metadata"].get("annotations", {}))
    config_name = options.name + "-config"
    for volume in spec.get("volumes", []):
        if volume.get("configMap", {}).get("name") == config["metadata"]["name"]:
            volume["configMap"]["name"] = config_name
    config["metadata"]["name"] = config_name
    for old, new in options.config_replace:
        if old not in config["data"]["cordon.toml"]:
            sys.stderr.write("--config-replace: %r is not in cordon.toml\n" % old)
            sys.exit(2)
        config["data"]["cordon.toml"] = config["data"]["cordon.toml"].replace(old, new)
    for container in spec["containers"]:
        container["image"] = image
        for env in container.get("env", []):
            path = env.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
            if path in ("metadata.namespace", "spec.nodeName"):
                stand_in = {"metadata.namespace": "default", "spec.nodeName": "podman-node"}[path]
                say("env %s: fieldRef %s is not supported by podman 4.3: the value %s stands in" %
                    (env["name"], path, stand_in))
                del env["valueFrom"]
                env["value"] = stand_in
            if env["name"] == "CORDON_TASK" and options.task is not None:
                env["value"] = options.task
        # What kubelet puts in every pod's environment; cordon doctor reads it to know a pod.
        say("env KUBERNETES_SERVICE_HOST set as kubelet sets it in every pod")
        container.setdefault("env", []).append({"name": "KUBERNETES_SERVICE_HOST", "value": "10.96.0.1"})
        if "procMount" in options.without:
            container["securityContext"].pop("procMount")
        if container.get("securityContext", {}).get("procMount") == "Unmasked":
            say("container %s: procMount: Unmasked is not applied by podman 4.3; the annotation %s asks the "
                "test's runtime wrapper (oci_proc_mount.sh) to clear the OCI maskedPaths and readonlyPaths, as "
                "containerd and CRI-O do for it" % (container["name"], PROC_MOUNT_ANNOTATION))
            pod["metadata"]["annotations"][PROC_MOUNT_ANNOTATION] = "Unmasked"
    seccomp = spec["securityContext"].get("seccompProfile", {})
    if "seccompProfile" in options.without:
        seccomp = spec["securityContext"]["seccompProfile"] = {"type": "RuntimeDefault"}
    # podman 4.3 reads the seccomp profile from Kubernetes' annotation form (before 1.19), not
    # from the field.
    value = {"Localhost": "localhost/" + seccomp.get("localhostProfile", ""), "RuntimeDefault": "runtime/default",
             "Unconfined": "unconfined"}.get(seccomp.get("type"))
    if value:
        say("securityContext.seccompProfile %s is not read by podman 4.3: the annotation %s: %s carries it" %
            (seccomp["type"], SECCOMP_ANNOTATION, value))
        pod["metadata"]["annotations"][SECCOMP_ANNOTATION] = value
    if "hostUsers" in options.without:
        spec.pop("hostUsers")
    yaml.safe_dump_all([config, pod], sys.stdout, sort_keys=False)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "validate":
        return validate(argv[2])
    if len(argv) == 4 and argv[1] == "security":
        return security(argv[2], argv[3])
    if len(argv) == 3 and argv[1] == "configs":
        return configs(argv[2])
    if len(argv) >= 4 and argv[1] == "play":
        parser = argparse.ArgumentParser(prog="kube_manifests.py play")
        parser.add_argument("--manifest", default="job.yaml", choices=["job.yaml", "pod.yaml"])
        parser.add_argument("--name", default="cordon-session")
        parser.add_argument("--task", default=None)
        parser.add_argument("--without", action="append", default=[],
                            choices=["procMount", "seccompProfile", "hostUsers"])
        parser.add_argument("--config-replace", nargs=2, action="append", default=[], metavar=("OLD", "NEW"))
        return play(argv[2], argv[3], parser.parse_args(argv[4:]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
