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
#  12. review mode ([workspace] mode = "review", `cordon run --review`): a review-mode launch
#      against a direct one in the same workspace, of 10,000 files (target <= +5 ms) and of
#      100,000 files (no target set). A review's base is taken at launch (a watermark and the
#      git HEAD, nothing per file) and a session that changed nothing leaves no review, so
#      pairs pile up no state; both sides use the bench's own state directory.
#  13. `cordon diff` and `cordon apply` of a review whose session changed 1,000 files of a
#      2,000-file workspace (600 modified, 300 added, 100 deleted): each command's median wall
#      time, timed by the script around it (no second side: not a comparison; target <= 1 s
#      each). apply writes the host tree: each timed apply is of a fresh session over a fresh
#      copy of the workspace.
# Not run from here, because it takes minutes: bench/review_build.sh, a build of cordon's own
# sources inside a review-mode workspace against the same build in direct mode (target <= 1.10).
# As root the whole run is in a private network namespace the script builds (a veth pair with
# a default route): pasta attaches there and nothing leaves the machine's network.
# Needs a build (scripts/quickstart or scripts/test) and hyperfine; valgrind for step 3's count;
# git for steps 12 and 13, which need a test-hooks build (-DCORDON_TEST_HOOKS=ON): their reviews
# go to the bench's own state directory through CORDON_TEST_STATE_DIR, which only such a build
# reads (otherwise they print skipped).
# Usage: bench/run.sh [BUILD_DIR]       RUNS=N sets the number of pairs (default 200)
#                                       STEPS=12,13 runs only those steps (default: all)
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
  "review mode adds, 10,000-file workspace"
  "review mode adds, 100,000-file workspace"
  "cordon diff of 1,000 changed files"
  "cordon apply of 1,000 changed files"
)
if [ "${1:-}" = "--labels" ]; then
  printf '%s\n' "${labels[@]}"
  exit 0
fi
line() { local label="${labels[$1]}"; shift; printf '%s: %s\n' "$label" "$*"; }
signed() { case "$1" in -*) printf '%s' "$1" ;; *) printf '+%s' "$1" ;; esac; }
# Whether step $1 runs: all of them, or those STEPS names.
want() { [ -z "${STEPS:-}" ] || [[ ",$STEPS," == *",$1,"* ]]; }

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
test_build=0
case "$("$cordon" run --help 2>/dev/null || true)" in *--test-weaken*) test_build=1 ;; esac

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
# Step 12: a review-mode launch against a direct one in the same workspace (made at step 12),
# both offline, both with a state directory of the bench's own (where the reviews go), both
# with stderr to /dev/null (a review session that changed nothing says so there).
for n in (10000, 100000):
    for name, flags in (("review", ["--review"]), ("direct", [])):
        side("%s-%d" % (name, n), ["/usr/bin/env", "CORDON_TEST_STATE_DIR=" + os.path.join(tmp, "launch-state"), cordon,
                                   "--config", os.path.join(tmp, "offline.toml"), "run"] + flags + ["--", "/bin/true"],
             fds={"2": "/dev/null"}, cwd=os.path.join(tmp, "tree-%d" % n))
PY

# The 64 MiB of text lines steps 7 and 11 cat, written at the first of them that runs (the
# workspace stays as it was until then).
big_text() {
  [ -f "$tmp/ws/big.txt" ] || python3 -c 'import sys; l = b"the quick brown fox jumps over the lazy dog 0123456789\n"
open(sys.argv[1], "wb").write((l * (2**26 // len(l) + 1))[:2**26])' "$tmp/ws/big.txt"
}

# 1. cordon against bwrap with the same argv.
if want 1; then
  read -r c b r p10 p90 _ < <("$pairs" pairs "$runs" all "$tmp/cordon-nojail.json" "$tmp/bwrap-same.json")
  line 0 "$r (p10 $p10, p90 $p90; cordon $c ms, bwrap $b ms; target <= 1.10)"
  read -r c b r p10 p90 _ < <("$pairs" pairs "$runs" plain "$tmp/cordon-nojail.json" "$tmp/bwrap-same.json")
  line 1 "$r (p10 $p10, p90 $p90; cordon $c ms, bwrap $b ms; target <= 1.20)"
fi

# 2. The egress jail.
if want 2; then
  if [ "$jailed" = 1 ]; then
    read -r j n _ _ _ d < <("$pairs" pairs "$((runs / 2))" all "$tmp/cordon-jail.json" "$tmp/cordon-nojail.json")
    line 2 "$(signed "$d") ms (jailed $j ms, unjailed $n ms; median of pair differences)"
    read -r j b _ _ _ d < <("$pairs" pairs "$((runs / 2))" all "$tmp/cordon-jail.json" "$tmp/bwrap-same.json")
    line 3 "$(signed "$d") ms (jailed $j ms, bwrap $b ms; target <= +12)"
  else
    line 2 "skipped (run as root: the jail is measured in a private network namespace)"
    line 3 "skipped"
  fi
fi

# 3. The launcher's own work.
if want 3; then
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
fi

# 4. The battery inside a sandbox (-i: hyperfine adds its own variable, which check 04 reports).
if want 4; then
  (cd "$tmp/ws" && "$cordon" --config "$tmp/nojail.toml" run -- hyperfine -N -i --warmup 20 --runs 300 \
    --export-json "$tmp/ws/battery.json" "$battery" >/dev/null 2>&1) || true
  line 7 "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("%.2f ms median" % (r["median"]*1000))' "$tmp/ws/battery.json")"
fi

# 5. Budgets (the session cgroup).
if want 5; then
  if (cd "$tmp/ws" && "$cordon" --config "$tmp/budget.toml" run -- /bin/true 2>/dev/null); then
    read -r g n _ _ _ d < <("$pairs" pairs "$((runs / 2))" all "$tmp/cordon-budget.json" "$tmp/cordon-nojail.json")
    line 8 "$(signed "$d") ms (budgeted $g ms, unbudgeted $n ms; target <= +1)"
  else
    line 8 "skipped (no cgroup can hold them for this user here: see cordon doctor)"
  fi
fi

# 6. Concurrent sessions.
if want 6; then
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
fi

# 7. The private terminal: the relay against a direct terminal, on 64 MiB of text lines.
if want 7; then
  big_text
  read -r rms dms rr dr ratio < <("$terminal" throughput "$(( runs / 20 > 3 ? runs / 20 : 3 ))" "$tmp/ws/big.txt" \
    "$tmp/cat-relay.json" "$tmp/cat-direct.json")
  line 12 "$rr MB/s relay, $dr MB/s direct, ratio $ratio (relay $rms ms, direct $dms ms)"
  read -r rmed rp90 dmed dp90 added < <("$terminal" latency 400 "$tmp/echo-relay.json" "$tmp/echo-direct.json")
  line 13 "$rmed us median (p90 $rp90), direct $dmed us (p90 $dp90), $added us"
fi

# 8. The network modes.
if want 8; then
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
fi

# 9. What a profile and an ordinary user add (issue 30.16: where a user's launch spends its time).
if want 9; then
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
fi

# 10. The Landlock layer (the default) against the same launch without it.
if want 10; then
  read -r l o _ _ _ d < <("$pairs" pairs "$runs" all "$tmp/cordon-nojail.json" "$tmp/cordon-nolandlock.json")
  line 22 "$(signed "$d") ms (landlock $l ms, off $o ms; median of pair differences; target <= +0.3)"
fi

# 11. The transcript: the relay keeping all 64 MiB against the relay keeping none.
if want 11; then
  big_text
  read -r tms pms tr pr ratio < <("$terminal" throughput "$(( runs / 20 > 3 ? runs / 20 : 3 ))" "$tmp/ws/big.txt" \
    "$tmp/cat-transcript.json" "$tmp/cat-plain.json")
  line 23 "$ratio of the relay's throughput ($tr MB/s with, $pr MB/s without; $tms ms against $pms ms; target >= 0.90)"
fi

# DIR as a git repository with everything committed, its objects packed as a clone's are (every
# launch's permission audit walks the .git: 100,000 loose objects would cost both sides ~0.5 s).
# No user configuration needed, and no `git gc --auto` left running in the background.
commit_all() {
  git -C "$1" init -q && git -C "$1" add -A &&
    git -C "$1" -c user.name=bench -c user.email=bench@example.invalid -c gc.auto=0 -c maintenance.auto=false \
      commit -qm base && git -C "$1" repack -adq && git -C "$1" prune-packed
}

# 12. Review mode's launch: the same launch with --review and without, in a git workspace of
#     10,000 small files and in one of 100,000 (100 to a directory, committed).
if want 12 && [ "$test_build" = 0 ]; then
  line 24 "skipped (needs a test-hooks build: its reviews go to the bench's own state directory)"
  line 25 "skipped"
elif want 12; then
  for n in 10000 100000; do
    python3 - "$tmp/tree-$n" "$n" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "src%02d" % (i // 10000), "m%02d" % (i // 100 % 100))
    if i % 100 == 0:
        os.makedirs(d)
    with open(os.path.join(d, "f%02d.txt" % (i % 100)), "w") as f:
        f.write("file %d\n" % i + "the quick brown fox jumps over the lazy dog\n" * 4)
PY
    commit_all "$tmp/tree-$n"
  done
  sync
  read -r r d _ _ _ diff < <("$pairs" pairs "$runs" all "$tmp/review-10000.json" "$tmp/direct-10000.json")
  line 24 "$(signed "$diff") ms (review $r ms, direct $d ms; median of pair differences; target <= +5)"
  read -r r d _ _ _ diff < <("$pairs" pairs "$((runs / 2))" all "$tmp/review-100000.json" "$tmp/direct-100000.json")
  line 25 "$(signed "$diff") ms (review $r ms, direct $d ms; median of pair differences)"
  # Sessions that changed nothing leave no review behind: the pairs measured no piling up.
  left="$(find "$tmp/launch-state" -path '*/reviews/*' -prune -print | wc -l)"
  [ "$left" = 0 ] || echo "bench: step 12 left $left review(s) in $tmp/launch-state" >&2
  rm -rf "$tmp/tree-10000" "$tmp/tree-100000"
  sync
fi

# 13. `cordon diff` and `cordon apply` of a review of 1,000 changed files: a git workspace of
#     2,000 files (20 directories of 100, 100 lines each) whose session modifies 600 (a line
#     edited, one appended), adds 300 and deletes 100. Each cycle: a fresh copy of the
#     workspace, a fresh session over it, `cordon diff` timed 3 times, `cordon apply` once
#     (it writes the host tree and removes the review). Wall time of each command, spawned and
#     waited for by this shell, output to /dev/null.
if want 13 && [ "$test_build" = 0 ]; then
  line 26 "skipped (needs a test-hooks build: its reviews go to the bench's own state directory)"
  line 27 "skipped"
elif want 13; then
  template="$tmp/review-template" ws13="$tmp/review-ws" state13="$tmp/review-state"
  python3 - "$template" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(20):
    os.makedirs(os.path.join(root, "d%02d" % d))
    for f in range(100):
        name = "d%02d/f%03d.txt" % (d, f)
        with open(os.path.join(root, name), "w") as out:
            out.write("".join("    total_%d += weight(%d, %d);  // line %d of %s\n" % (l, d, f, l + 1, name)
                              for l in range(100)))
PY
  commit_all "$template"
  edits='sed -i -e "50s/\$/ (edited)/" -e "\$a appended line" d*/f0[0-2]?.txt && rm d*/f09[0-4].txt &&
    for d in d*; do i=0; while [ $i -lt 15 ]; do printf "new file %s\n" "$d/$i" > "$d/new$i.txt"; i=$((i + 1)); done; done'
  rcordon() { CORDON_TEST_STATE_DIR="$state13" "$cordon" --config "$tmp/offline.toml" "$@"; }
  # Milliseconds one command takes (its output to /dev/null; a failure stops the bench).
  elapsed_ms() {
    local t0="${EPOCHREALTIME//[!0-9]/}"
    "$@" >/dev/null 2>"$tmp/step13.err" ||
      { echo "bench: step 13: $* failed" >&2; cat "$tmp/step13.err" >&2; exit 1; }
    local t1="${EPOCHREALTIME//[!0-9]/}"
    printf '%d.%03d\n' "$(((t1 - t0) / 1000))" "$(((t1 - t0) % 1000))"
  }
  # "MEDIAN MIN MAX COUNT" of the numbers on stdin (the median as cordon_bench_pairs takes it).
  summary() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f %.1f %.1f %d\n", v[int(NR / 2) + 1], v[1], v[NR], NR }'; }
  : > "$tmp/diff-ms.txt"
  : > "$tmp/apply-ms.txt"
  for ((cycle = 0; cycle < (runs / 20 > 5 ? runs / 20 : 5); cycle++)); do
    rm -rf "$ws13" && cp -a "$template" "$ws13"
    # The copy's change times fall before the session's watermark (a coarse clock tick later):
    # apply must find no host change since the session began.
    sleep 0.1
    (cd "$ws13" && rcordon run --review -- /bin/sh -c "$edits" 2>"$tmp/step13.err") ||
      { echo "bench: step 13: the session failed" >&2; cat "$tmp/step13.err" >&2; exit 1; }
    ids=("$state13"/*/reviews/*)
    [ "${#ids[@]}" = 1 ] && [ -d "${ids[0]}" ] || { echo "bench: step 13: not one review: ${ids[*]}" >&2; exit 1; }
    id="${ids[0]##*/}"
    sync
    if [ "$cycle" = 0 ]; then  # what the review holds, by kind: "A 300, D 100, M 600"
      kinds="$(rcordon diff --session "$id" --name-status 2>/dev/null | cut -f1 | sort | uniq -c |
        awk '{ printf "%s%s %s", sep, $2, $1; sep = ", " }')"
    fi
    for _ in 1 2 3; do elapsed_ms rcordon diff --session "$id" >> "$tmp/diff-ms.txt"; done
    elapsed_ms rcordon apply --session "$id" >> "$tmp/apply-ms.txt"
    files="$(find "$ws13" -path "$ws13/.git" -prune -o -type f -print | wc -l)"
    { [ "$files" = 2200 ] && [ ! -e "${ids[0]}" ] && grep -q '(edited)$' "$ws13/d19/f029.txt"; } ||
      { echo "bench: step 13: apply left $files files, or the review, or no edit" >&2; exit 1; }
  done
  read -r med lo hi n < <(summary < "$tmp/diff-ms.txt")
  line 26 "$med ms median of $n (min $lo, max $hi; $kinds; target <= 1000)"
  read -r med lo hi n < <(summary < "$tmp/apply-ms.txt")
  line 27 "$med ms median of $n (min $lo, max $hi; each of a fresh session; target <= 1000)"
  rm -rf "$ws13" "$template"
fi
