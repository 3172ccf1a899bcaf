#!/usr/bin/env bash
# Launch overhead, measured side by side in one run. Every comparison is interleaved pairs
# (A B A B ...: drift on a shared machine hits both sides alike), both sides started by the
# same posix_spawn and waited for the same way (cordon_bench_pairs, bench/spawn_pairs.cpp):
#   1. cordon run -- /bin/true (jail off) against bwrap with cordon's exact argv and the same
#      generated files (its seccomp filter included), both waited for until every descendant
#      is reaped, as cordon waits for its sandbox (target <= 1.10); and the same pair with a
#      plain waitpid on each side (target <= 1.20).
#   2. the egress jail: a jailed launch against an unjailed one, and against the same-argv bwrap
#      (target: jailed cordon <= that bwrap + 12 ms).
#   3. the launcher's own work: in-process (config, facts, plan, seccomp, each phase's median;
#      the /etc walk of a root launch's facts timed apart), as a whole process
#      (`cordon argv` against /bin/true: start, dynamic linking, CLI, config, facts, plan), and
#      as callgrind's instruction count of that process (repeatable where times are not).
#   4. the whole battery inside a sandbox.
#   5. memory and pids budgets: a budgeted launch against an unbudgeted one (target <= +1 ms).
#   6. N concurrent sessions of `sleep 2`, jailed and not, N = 1, 10, 50 (target: 50 jailed
#      within 1.2 x the wall time of 50 unjailed).
#   7. the private terminal: `cat` of 64 MiB through the relay against the same on a direct
#      terminal, and the keystroke round trip through each (cordon_bench_terminal,
#      bench/terminal_pairs.cpp: both sides lead a session on a fresh pty; no target set,
#      the ratio and the added microseconds are printed).
#   8. the network modes: an offline and an allowlist launch against a jail-off one; the
#      allowlist proxy's CONNECT throughput against a direct fetch, plain HTTP and HTTPS
#      (target >= 0.80), and the latency one small request adds, plain and HTTPS
#      (bench/proxy_throughput.sh, its own offline world).
#   9. what the claude profile adds over generic (its entries made and audited), and what an
#      ordinary user's launch (nobody, through setpriv) adds over root's (no target set).
#  10. the Landlock layer: a launch with it (the default, "auto") against the same launch with
#      [sandbox] landlock = "off" (target <= +0.3 ms: the cordon-landlock step's exec, its
#      rules and restrict_self).
#  11. the transcript ([records] transcript): the relay's `cat` of 64 MiB with a transcript
#      that keeps all of it, against the relay without one (target >= 0.90 of its throughput);
#      both sides keep their records in the bench's own state directory.
# As root the whole run is in a private network namespace the script builds (a veth pair with
# a default route): pasta attaches there and nothing leaves the machine's network.
# Needs a build (scripts/quickstart or scripts/test) and hyperfine; valgrind for step 3's count.
# Usage: bench/run.sh [BUILD_DIR]       RUNS=N sets the number of pairs (default 200)
#        bench/run.sh --labels          the labels of the lines it prints (README's format test)
set -euo pipefail
cd "$(dirname "$0")/.."

labels=(
  "ratio, same argv, waited for every descendant"
  "ratio, same argv, plain waitpid"
  "jail adds"
  "jailed cordon minus same-argv bwrap"
  "launcher work in-process"
  "launcher as a process (cordon argv) minus /bin/true"
  "launcher instructions (cordon argv, callgrind)"
  "battery inside a sandbox"
  "budgets add"
  "concurrent sleep 2, unjailed ms (1, 10, 50)"
  "concurrent sleep 2, jailed ms (1, 10, 50)"
  "50 jailed / 50 unjailed"
  "terminal relay throughput (cat 64 MiB)"
  "keystroke round trip through the relay"
  "offline adds"
  "allowlist adds"
  "allowlist proxy throughput (plain HTTP via CONNECT, 1 GiB)"
  "allowlist proxy throughput (HTTPS via CONNECT, 1 GiB)"
  "one request through the proxy adds"
  "one HTTPS request through the proxy adds"
  "claude profile adds"
  "an ordinary user's launch adds"
  "landlock adds"
  "terminal relay throughput with a transcript (cat 64 MiB)"
)
if [ "${1:-}" = "--labels" ]; then
  printf '%s\n' "${labels[@]}"
  exit 0
fi
line() { local label="${labels[$1]}"; shift; printf '%s: %s\n' "$label" "$*"; }
signed() { case "$1" in -*) printf '%s' "$1" ;; *) printf '+%s' "$1" ;; esac; }

build="$(realpath "${1:-build}")"
if [ "$(id -u)" -eq 0 ] && [ -z "${CORDON_BENCH_WORLD:-}" ]; then
  exec unshare -n env CORDON_BENCH_WORLD=1 RUNS="${RUNS:-200}" sh -c '
    ip link set lo up && ip link add b0 type veth peer name b1 &&
    ip addr add 203.0.113.10/24 dev b0 && ip link set b0 up && ip link set b1 up &&
    ip route add default via 203.0.113.1 && exec "$0" "$1"' "$0" "$build"
fi
cordon="$build/bin/cordon"
pairs="$build/bin/cordon_bench_pairs"
terminal="$build/bin/cordon_bench_terminal"
battery="$build/libexec/cordon/cordon-battery"
command -v hyperfine >/dev/null || { echo "bench: apt-get install hyperfine" >&2; exit 1; }
tmp="$(mktemp -d /var/tmp/cordon-bench-XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws" "$tmp/state"
# Default budgets off, so that each comparison measures one mechanism ("budgets add" is theirs).
nobudget='[limits]\npids_max = 0\nmemory_max_bytes = 0\n'
printf "[network]\nmode = \"host\"\n$nobudget" > "$tmp/nojail.toml"
printf "[network]\nmode = \"jail\"\n$nobudget" > "$tmp/jail.toml"
printf "[network]\nmode = \"offline\"\n$nobudget" > "$tmp/offline.toml"
printf "[network]\nmode = \"allowlist\"\n$nobudget" > "$tmp/allowlist.toml"
printf '[network]\negress_jail = false\n[limits]\npids_max = 4096\nmemory_max_bytes = 4294967296\n' > "$tmp/budget.toml"
printf "[network]\nmode = \"host\"\n[terminal]\nprivate = false\n$nobudget" > "$tmp/direct.toml"
printf "[network]\nmode = \"host\"\n$nobudget[sandbox]\nlandlock = \"off\"\n" > "$tmp/nolandlock.toml"
printf "[network]\nmode = \"host\"\n$nobudget[records]\ntranscript = true\ntranscript_max_bytes = 134217728\n" \
  > "$tmp/transcript.toml"
runs="${RUNS:-200}"
jailed=0
[ -n "${CORDON_BENCH_WORLD:-}" ] && jailed=1

# The sides, as cordon_bench_pairs reads them. The bare bwrap gets cordon's argv as `cordon
# argv --json` prints it, its generated files from plain files at the planned descriptors,
# and the seccomp filter cordon compiles for this configuration.
(cd "$tmp/ws" && "$build/bin/cordon_bench_work" "$tmp/nojail.toml" 300 "$tmp/seccomp.bpf" > "$tmp/work.txt")
python3 - "$cordon" "$tmp" <<'PY'
import json, os, subprocess, sys
cordon, tmp = sys.argv[1], sys.argv[2]
ws = os.path.join(tmp, "ws")
def side(name, argv, fds=None, cwd=None):
    json.dump({"argv": argv, "cwd": cwd or ws, "fds": fds or {}}, open(os.path.join(tmp, name + ".json"), "w"))
for cfg in ("nojail", "jail", "budget", "offline", "allowlist", "nolandlock"):
    conf = os.path.join(tmp, cfg + ".toml")
    side("cordon-" + cfg, [cordon, "--config", conf, "run", "--", "/bin/true"])
    side("sleep-" + cfg, [cordon, "--config", conf, "run", "--", "/bin/sleep", "2"])
plan = json.loads(subprocess.run([cordon, "--config", os.path.join(tmp, "nojail.toml"), "argv", "--json",
                                  "--workspace", ws, "--", "/bin/true"],
                                 check=True, capture_output=True, text=True, cwd=ws).stdout)
fds = {str(plan["status_fd"]): "/dev/null", str(plan["seccomp_fd"]): os.path.join(tmp, "seccomp.bpf")}
for f in plan["data_files"]:
    path = os.path.join(tmp, "data-%d" % f["fd"])
    open(path, "w").write(f["content"])
    fds[str(f["fd"])] = path
for b in plan["bound_paths"]:  # the workspace, bound by descriptor: opened at its fd
    fds[str(b["fd"])] = b["source"]
side("bwrap-same", plan["argv"], fds)
side("cordon-argv", [cordon, "--config", os.path.join(tmp, "nojail.toml"), "argv", "--", "/bin/true"])
side("true", ["/bin/true"])
# Step 9: the claude profile against generic, both with a home of the bench's own (the profile
# makes and audits its entries there); and an ordinary user's launch against root's, both
# through setpriv, each with a home and a workspace of its own.
nojail = os.path.join(tmp, "nojail.toml")
profile_home = os.path.join(tmp, "profile-home")
for prof in ("claude", "generic"):
    side("profile-" + prof, ["/usr/bin/env", "HOME=" + profile_home, cordon, "--config", nojail, "run", "--agent",
                             prof, "--", "/bin/true"])
for who, ids in (("user", ("nobody", "nogroup")), ("root", ("0", "0"))):
    home = os.path.join(tmp, who + "-home")
    side("as-" + who, ["/usr/bin/setpriv", "--reuid=" + ids[0], "--regid=" + ids[1], "--clear-groups",
                       "/usr/bin/env", "HOME=" + home, cordon, "--config", nojail, "run", "--", "/bin/true"],
         cwd=os.path.join(home, "ws"))
# The private terminal (step 7): the relay is the default, nojail.toml; direct.toml turns it off.
big = os.path.join(ws, "big.txt")  # written at step 7: the workspace stays as it was until then
for name, cfg in (("relay", "nojail"), ("direct", "direct")):
    conf = os.path.join(tmp, cfg + ".toml")
    side("cat-" + name, [cordon, "--config", conf, "run", "--", "/bin/cat", big])
    side("echo-" + name, [cordon, "--config", conf, "run", "--", "/bin/sh", "-c", "stty raw -echo; echo READY; exec cat"])
# Step 11: both sides with the bench's own state directory (a test build's hook), so the
# transcripts (64 MiB each) go to the bench's temp dir, not the machine's records.
state = os.path.join(tmp, "state")
for name, cfg in (("transcript", "transcript"), ("plain", "nojail")):
    side("cat-" + name, ["/usr/bin/env", "CORDON_TEST_STATE_DIR=" + state, cordon, "--config",
                         os.path.join(tmp, cfg + ".toml"), "run", "--", "/bin/cat", big])
PY

# 1. cordon against bwrap with the same argv.
read -r c b r p10 p90 _ < <("$pairs" pairs "$runs" all "$tmp/cordon-nojail.json" "$tmp/bwrap-same.json")
line 0 "$r (p10 $p10, p90 $p90; cordon $c ms, bwrap $b ms; target <= 1.10)"
read -r c b r p10 p90 _ < <("$pairs" pairs "$runs" plain "$tmp/cordon-nojail.json" "$tmp/bwrap-same.json")
line 1 "$r (p10 $p10, p90 $p90; cordon $c ms, bwrap $b ms; target <= 1.20)"

# 2. The egress jail.
if [ "$jailed" = 1 ]; then
  read -r j n _ _ _ d < <("$pairs" pairs "$((runs / 2))" all "$tmp/cordon-jail.json" "$tmp/cordon-nojail.json")
  line 2 "$(signed "$d") ms (jailed $j ms, unjailed $n ms; median of pair differences)"
  read -r j b _ _ _ d < <("$pairs" pairs "$((runs / 2))" all "$tmp/cordon-jail.json" "$tmp/bwrap-same.json")
  line 3 "$(signed "$d") ms (jailed $j ms, bwrap $b ms; target <= +12)"
else
  line 2 "skipped (run as root: the jail is measured in a private network namespace)"
  line 3 "skipped"
fi

# 3. The launcher's own work.
line 4 "$(sed -n 's/.*median \([0-9]*\) us, p90 \([0-9]*\) us.*/\1 us median, p90 \2 us/p' "$tmp/work.txt") (config + facts + plan + seccomp: $(sed -n 's/^phases, median us: //p' "$tmp/work.txt") us)"
read -r a t _ _ _ d < <("$pairs" pairs "$runs" plain "$tmp/cordon-argv.json" "$tmp/true.json")
line 5 "$(signed "$d") ms (cordon argv $a ms, /bin/true $t ms; target <= +1)"
if command -v valgrind >/dev/null; then
  # callgrind's count for `cordon --config CONFIG argv -- /bin/true` in DIR, run through PREFIX.
  instructions() {
    local dir="$1" config="$2"
    shift 2
    (cd "$dir" && "$@" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$cordon" --config "$config" argv \
      -- /bin/true 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  }
  # The shipped etc/cordon.toml is mostly comments, and its defaults gather more (the jail's
  # network facts, the budgets' cgroups); an ordinary user's launch does not walk /etc.
  generic="$(instructions "$tmp/ws" "$tmp/nojail.toml")"
  shipped="$(instructions "$tmp/ws" "$PWD/etc/cordon.toml")"
  user=""
  if [ "$(id -u)" -eq 0 ] && mkdir -p "$tmp/user-home/ws" && chmod 0755 "$tmp" &&
    chown -R nobody:nogroup "$tmp/user-home" 2>/dev/null; then
    as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$tmp/user-home")
    user="; as nobody $(instructions "$tmp/user-home/ws" "$tmp/nojail.toml" "${as_nobody[@]}") and"
    user+=" $(instructions "$tmp/user-home/ws" "$PWD/etc/cordon.toml" "${as_nobody[@]}")"
  fi
  line 6 "$generic (as $(id -un), the bench's config; $shipped with the shipped etc/cordon.toml$user)"
else
  line 6 "skipped (apt-get install valgrind)"
fi

# 4. The battery inside a sandbox (-i: hyperfine adds its own variable, which check 04 reports).
(cd "$tmp/ws" && "$cordon" --config "$tmp/nojail.toml" run -- hyperfine -N -i --warmup 20 --runs 300 \
  --export-json "$tmp/ws/battery.json" "$battery" >/dev/null 2>&1) || true
line 7 "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f ms median" % (r["median"]*1000))' "$tmp/ws/battery.json")"

# 5. Budgets (the session cgroup).
if (cd "$tmp/ws" && "$cordon" --config "$tmp/budget.toml" run -- /bin/true 2>/dev/null); then
  read -r g n _ _ _ d < <("$pairs" pairs "$((runs / 2))" all "$tmp/cordon-budget.json" "$tmp/cordon-nojail.json")
  line 8 "$(signed "$d") ms (budgeted $g ms, unbudgeted $n ms; target <= +1)"
else
  line 8 "skipped (no cgroup can hold them for this user here: see cordon doctor)"
fi

# 6. Concurrent sessions.
walls() { for n in 1 10 50; do "$pairs" concurrent 3 all "$n" "$1"; done | paste -sd' '; }
read -r u1 u10 u50 < <(walls "$tmp/sleep-nojail.json")
line 9 "$u1 $u10 $u50"
if [ "$jailed" = 1 ]; then
  read -r j1 j10 j50 < <(walls "$tmp/sleep-jail.json")
  line 10 "$j1 $j10 $j50"
  line 11 "$(python3 -c "print('%.3f' % ($j50 / $u50))") (target <= 1.20)"
else
  line 10 "skipped"
  line 11 "skipped"
fi

# 7. The private terminal: the relay against a direct terminal, on 64 MiB of text lines.
python3 -c 'import sys; l = b"the quick brown fox jumps over the lazy dog 0123456789\n"
open(sys.argv[1], "wb").write((l * (2**26 // len(l) + 1))[:2**26])' "$tmp/ws/big.txt"
read -r rms dms rr dr ratio < <("$terminal" throughput "$(( runs / 20 > 3 ? runs / 20 : 3 ))" "$tmp/ws/big.txt" \
  "$tmp/cat-relay.json" "$tmp/cat-direct.json")
line 12 "$rr MB/s relay, $dr MB/s direct, ratio $ratio (relay $rms ms, direct $dms ms)"
read -r rmed rp90 dmed dp90 added < <("$terminal" latency 400 "$tmp/echo-relay.json" "$tmp/echo-direct.json")
line 13 "$rmed us median (p90 $rp90), direct $dmed us (p90 $dp90), $added us"

# 8. The network modes.
read -r o n _ _ _ d < <("$pairs" pairs "$((runs / 2))" all "$tmp/cordon-offline.json" "$tmp/cordon-nojail.json")
line 14 "$(signed "$d") ms (offline $o ms, jail-off $n ms; median of pair differences)"
read -r a n _ _ _ d < <("$pairs" pairs "$((runs / 2))" all "$tmp/cordon-allowlist.json" "$tmp/cordon-nojail.json")
line 15 "$(signed "$d") ms (allowlist $a ms, jail-off $n ms)"
if [ "$(id -u)" -eq 0 ]; then
  bench/proxy_throughput.sh "$build" 1024 5 > "$tmp/proxy.txt"
  line 16 "$(sed -n 's/^median direct \(.*\) MB\/s, proxied \(.*\) MB\/s, ratio \(.*\)$/\3 (direct \1 MB\/s, proxied \2 MB\/s; target >= 0.80)/p' "$tmp/proxy.txt")"
  line 17 "$(sed -n 's/^median https direct \(.*\) MB\/s, proxied \(.*\) MB\/s, ratio \(.*\)$/\3 (direct \1 MB\/s, proxied \2 MB\/s; target >= 0.80)/p' "$tmp/proxy.txt")"
  line 18 "$(sed -n 's/^latency direct \(.*\) ms, CONNECT \(.*\) ms (\(.*\)), GET via proxy \(.*\) ms (\(.*\))$/\3 ms CONNECT, \5 ms GET (direct \1 ms, CONNECT \2 ms, GET \4 ms)/p' "$tmp/proxy.txt")"
  line 19 "$(sed -n 's/^latency https direct \(.*\) ms, via proxy \(.*\) ms (\(.*\))$/\3 ms (a fresh curl with its TLS handshake: direct \1 ms, via proxy \2 ms)/p' "$tmp/proxy.txt")"
else
  line 16 "skipped (needs root: its world is unshare -n -m)"
  line 17 "skipped"
  line 18 "skipped"
  line 19 "skipped"
fi

# 9. What a profile and an ordinary user add (issue 30.16: where a user's launch spends its time).
mkdir -p "$tmp/profile-home" "$tmp/user-home/ws" "$tmp/root-home/ws"
chmod 0755 "$tmp"
if [ "$(id -u)" -eq 0 ] && chown -R nobody:nogroup "$tmp/user-home" 2>/dev/null &&
  (cd "$tmp/user-home/ws" && setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$tmp/user-home" \
    "$cordon" --config "$tmp/nojail.toml" run -- /bin/true 2>/dev/null); then
  read -r p g _ _ _ d < <("$pairs" pairs "$((runs / 2))" all "$tmp/profile-claude.json" "$tmp/profile-generic.json")
  line 20 "$(signed "$d") ms (claude $p ms, generic $g ms; median of pair differences)"
  read -r u r _ _ _ d < <("$pairs" pairs "$((runs / 2))" all "$tmp/as-user.json" "$tmp/as-root.json")
  line 21 "$(signed "$d") ms (user $u ms, root $r ms; median of pair differences)"
else
  read -r p g _ _ _ d < <("$pairs" pairs "$((runs / 2))" all "$tmp/profile-claude.json" "$tmp/profile-generic.json")
  line 20 "$(signed "$d") ms (claude $p ms, generic $g ms; median of pair differences)"
  line 21 "skipped (needs root and the user nobody)"
fi

# 10. The Landlock layer (the default) against the same launch without it.
read -r l o _ _ _ d < <("$pairs" pairs "$runs" all "$tmp/cordon-nojail.json" "$tmp/cordon-nolandlock.json")
line 22 "$(signed "$d") ms (landlock $l ms, off $o ms; median of pair differences; target <= +0.3)"

# 11. The transcript: the relay keeping all 64 MiB against the relay keeping none.
read -r tms pms tr pr ratio < <("$terminal" throughput "$(( runs / 20 > 3 ? runs / 20 : 3 ))" "$tmp/ws/big.txt" \
  "$tmp/cat-transcript.json" "$tmp/cat-plain.json")
line 23 "$ratio of the relay's throughput ($tr MB/s with, $pr MB/s without; $tms ms against $pms ms; target >= 0.90)"
