#!/usr/bin/env bash
# Launch overhead, measured side by side in one run (ratios, not absolute times):
#   1. cordon run -- true   vs   the same bare bwrap call (same namespaces and mounts,
#      without cordon's generated files, seccomp filter and supervision).
#   2. the launcher's own in-process work (config, facts, plan, seccomp compile).
# Needs hyperfine (apt-get install hyperfine) and a build in ./build (scripts/quickstart).
# Usage: bench/run.sh [BUILD_DIR]   Target: ratio <= 1.30, launcher work < 2 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
build="$(realpath "${1:-build}")"
cordon="$build/bin/cordon"
command -v hyperfine >/dev/null || { echo "bench: install hyperfine" >&2; exit 1; }
tmp="$(mktemp -d /tmp/cordon-bench-XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws"
config="$tmp/cordon.toml"
printf '[network]\negress_jail = false\n' > "$config"

# The bare bwrap equivalent: cordon's own argv minus what needs cordon's descriptors.
python3 - "$cordon" "$config" "$tmp/ws" > "$tmp/bare.sh" <<'PY'
import json, shlex, subprocess, sys
cordon, config, ws = sys.argv[1:4]
out = subprocess.run([cordon, "--config", config, "argv", "--json", "--workspace", ws, "--", "/bin/true"],
                     check=True, capture_output=True, text=True, cwd=ws).stdout
argv = json.loads(out)["argv"]
bare, i = [], 0
while i < len(argv):
    a = argv[i]
    if a in ("--seccomp", "--json-status-fd"): i += 2; continue
    if a == "--ro-bind-data": i += 3; continue
    bare.append(a); i += 1
print(" ".join(shlex.quote(a) for a in bare))
PY
echo "bare bwrap: $(cat "$tmp/bare.sh")" | cut -c1-200
cd "$tmp/ws"
hyperfine -N --warmup 10 --runs "${RUNS:-200}" --export-json "$tmp/launch.json" \
  "$cordon --config $config run -- /bin/true" \
  "$(cat "$tmp/bare.sh")" >/dev/null
python3 - "$tmp/launch.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
c, b = r[0]["median"] * 1000, r[1]["median"] * 1000
print(f"cordon run -- true : median {c:.2f} ms")
print(f"bare bwrap         : median {b:.2f} ms")
print(f"ratio cordon/bwrap : {c / b:.3f}   (target <= 1.30)")
PY
"$build/bin/cordon_bench_work" "$config" 300
