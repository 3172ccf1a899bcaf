#!/usr/bin/env bash
# Launch overhead, measured side by side in one run (ratios, not absolute times):
#   1. cordon run -- true (jail off)  vs  the same bwrap call exec'd directly (same
#      namespaces, mounts and generated files; no seccomp filter, no supervision). target <= 1.30
#   2. cordon run -- true with the egress jail  vs  without it.             target < +40 ms
#   3. the launcher's own in-process work (config, facts, plan, seccomp).   target < 2 ms
#   4. the whole battery inside a sandbox.                                   target << 20 ms
#   5. cordon run -- true with memory and pids budgets  vs  without (the
#      session cgroup: made, limits read back, joined, removed).            target < +5 ms
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
printf '[network]\negress_jail = false\n[limits]\npids_max = 4096\nmemory_max_bytes = 4294967296\n' > "$tmp/budget.toml"
runs="${RUNS:-200}"

# 1. Interleaved pairs (A B A B ...), so drift on a shared machine hits both sides alike.
# B is the same bwrap invocation cordon makes, with the same generated files (fed from plain
# files instead of sealed memfds), exec'd directly; only the seccomp filter is left out, as
# it cannot be exported without cordon. Each side is waited for in full.
python3 - "$cordon" "$tmp" "$runs" <<'PY'
import json, os, statistics, subprocess, sys, time
cordon, tmp, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
ws = os.path.join(tmp, "ws")
cfg = os.path.join(tmp, "nojail.toml")
plan = json.loads(subprocess.run([cordon, "--config", cfg, "argv", "--json", "--workspace", ws, "--", "/bin/true"],
                                 check=True, capture_output=True, text=True, cwd=ws).stdout)
argv, i, bare = plan["argv"], 0, []
while i < len(plan["argv"]):
    if argv[i] == "--seccomp": i += 2; continue
    bare.append(argv[i]); i += 1
fds = {}
for f in plan["data_files"]:
    path = os.path.join(tmp, "data-%d" % f["fd"])
    open(path, "w").write(f["content"])
    fds[f["fd"]] = path
fds[plan["status_fd"]] = "/dev/null"
def run_bare():
    pid = os.fork()
    if pid == 0:
        for fd, path in fds.items():
            src = os.open(path, os.O_RDWR if path == "/dev/null" else os.O_RDONLY)
            os.dup2(src, fd)
        os.chdir(ws)
        os.execve(bare[0], bare, {})
    os.waitpid(pid, 0)
def run_cordon():
    subprocess.run([cordon, "--config", cfg, "run", "--", "/bin/true"], cwd=ws, check=True)
def timed(f):
    t = time.perf_counter(); f(); return (time.perf_counter() - t) * 1000
for _ in range(10): run_cordon(); run_bare()
a, b = [], []
for _ in range(runs):
    a.append(timed(run_cordon)); b.append(timed(run_bare))
ratios = sorted(x / y for x, y in zip(a, b))
print("1. cordon run -- true      : median %.2f ms" % statistics.median(a))
print("   bare bwrap (same call)  : median %.2f ms" % statistics.median(b))
print("   ratio cordon/bwrap      : median of pairs %.3f (p10 %.3f, p90 %.3f)   (target <= 1.30)"
      % (statistics.median(ratios), ratios[len(ratios) // 10], ratios[len(ratios) * 9 // 10]))
PY
cd "$tmp/ws"
median() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; print(" ".join("%.3f" % (x["median"]*1000) for x in r))' "$1"; }

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

if "$cordon" --config "$tmp/budget.toml" run -- /bin/true 2>/dev/null; then
  hyperfine -N --warmup 5 --runs "$((runs / 2))" --export-json "$tmp/budget.json" \
    "$cordon --config $tmp/budget.toml run -- /bin/true" "$cordon --config $tmp/nojail.toml run -- /bin/true" >/dev/null 2>&1
  read -r c n < <(median "$tmp/budget.json")
  python3 -c "print('5. with budgets %.2f ms, without %.2f ms: the session cgroup adds %.2f ms (target < 5)' % ($c, $n, $c-$n))"
else
  echo "5. cgroup budgets: skipped (no cgroup can hold them for this user here: see cordon doctor)"
fi
