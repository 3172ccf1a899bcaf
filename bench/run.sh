#!/usr/bin/env bash
# Launch overhead, measured side by side in one run (ratios, not absolute times):
#   1. cordon run -- true (jail off)  vs  the same bare bwrap call (same namespaces and mounts,
#      without cordon's generated files, seccomp filter and supervision).   target <= 1.30
#   2. cordon run -- true with the egress jail  vs  without it.             target < +40 ms
#   3. the launcher's own in-process work (config, facts, plan, seccomp).   target < 2 ms
#   4. the whole battery inside a sandbox.                                   target << 20 ms
# As root the jail measurement runs in a private network namespace the script builds (a veth
# pair with a default route): pasta attaches there and nothing leaves the machine's network.
# Needs hyperfine (apt-get install hyperfine) and a build (scripts/quickstart or scripts/test).
# Usage: bench/run.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="$(realpath "${1:-build}")"
if [ "$(id -u)" -eq 0 ] && [ -z "${CORDON_BENCH_WORLD:-}" ]; then
  exec unshare -n env CORDON_BENCH_WORLD=1 sh -c '
    ip link set lo up && ip link add b0 type veth peer name b1 &&
    ip addr add 203.0.113.10/24 dev b0 && ip link set b0 up && ip link set b1 up &&
    ip route add default via 203.0.113.1 && exec "$0" "$1"' "$0" "$build"
fi
cordon="$build/bin/cordon"
battery="$build/libexec/cordon/cordon-battery"
command -v hyperfine >/dev/null || { echo "bench: install hyperfine" >&2; exit 1; }
tmp="$(mktemp -d /var/tmp/cordon-bench-XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws"
printf '[network]\negress_jail = false\n' > "$tmp/nojail.toml"
printf '[network]\negress_jail = true\n' > "$tmp/jail.toml"
runs="${RUNS:-200}"

# The bare bwrap equivalent: cordon's own argv minus what needs cordon's descriptors.
python3 - "$cordon" "$tmp/nojail.toml" "$tmp/ws" > "$tmp/bare.sh" <<'PY'
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
cd "$tmp/ws"
median() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.3f" % (x["median"]*1000) for x in r))' "$1"; }

hyperfine -N --warmup 10 --runs "$runs" --export-json "$tmp/launch.json" \
  "$cordon --config $tmp/nojail.toml run -- /bin/true" "$(cat "$tmp/bare.sh")" >/dev/null
read -r c b < <(median "$tmp/launch.json")
echo "1. cordon run -- true      : median $c ms"
echo "   bare bwrap (same mounts): median $b ms"
python3 -c "print('   ratio cordon/bwrap      : %.3f   (target <= 1.30)' % ($c/$b))"

if [ -n "${CORDON_BENCH_WORLD:-}" ]; then
  hyperfine -N --warmup 5 --runs "$((runs / 2))" --export-json "$tmp/jail.json" \
    "$cordon --config $tmp/jail.toml run -- /bin/true" "$cordon --config $tmp/nojail.toml run -- /bin/true" >/dev/null
  read -r j n < <(median "$tmp/jail.json")
  python3 -c "print('2. with jail %.2f ms, without %.2f ms: the jail adds %.2f ms (target < 40)' % ($j, $n, $j-$n))"
else
  echo "2. jail: skipped (run as root to measure it in a private network namespace)"
fi

"$build/bin/cordon_bench_work" "$tmp/nojail.toml" 300 | sed 's/^/3. /'

# -i: hyperfine adds its own environment variable, which check 04 rightly reports.
"$cordon" --config "$tmp/nojail.toml" run -- hyperfine -N -i --warmup 20 --runs 300 \
  --export-json "$tmp/ws/battery.json" "$battery" >/dev/null 2>&1 || true
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("4. battery (all checks) inside a sandbox: median %.2f ms (target << 20)" % (r["median"]*1000))' "$tmp/ws/battery.json"
