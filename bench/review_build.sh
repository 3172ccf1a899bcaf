#!/usr/bin/env bash
# A real build inside a review-mode workspace against the same build in direct mode (target:
# review <= 1.10 x direct). Each build takes minutes, so bench/run.sh does not run this.
#
# The project is cordon's own tree at HEAD (git archive), committed into a scratch git
# workspace under /var/tmp. Each side has a build directory of its own there, configured once
# (Release, no ccache) in a direct session, so that both are in the host tree. Then TARGET is
# built with -j2, the sides alternating (direct, review, direct, review, ...):
#   direct  `cordon run -- cmake --build build-direct ...`: build-direct is first put back as
#           configure left it (a copy taken then, its times kept), then built in the host tree.
#   review  `cordon run --review -- cmake --build build-review ...`: build-review stays as
#           configure left it in the host tree (the overlay's lower layer); the objects go to
#           the session's upper layer, which `cordon discard` throws away after the build.
# Both sides are started and timed by this shell around the whole cordon command (a review
# session's end, where it counts its changes, included), offline, without budgets, with
# their state in the bench's own directory (CORDON_TEST_STATE_DIR, which only a test-hooks
# build reads). Before the first build every file a compile reads is read once, so that the
# first side does not pay for a cold page cache. As root, the run is in a private network
# namespace, as bench/run.sh's is.
# Usage: bench/review_build.sh [BUILD_DIR]   RUNS=N builds a side (default 2)
#        TARGET=T (default cordon; cordon_core, all of it but main.cpp, when a build of cordon
#        takes too long)
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
runs="${RUNS:-2}"
target="${TARGET:-cordon}"
case "$("$cordon" run --help 2>/dev/null || true)" in
  *--test-weaken*) ;;
  *) echo "review_build: $cordon is not a test-hooks build (-DCORDON_TEST_HOOKS=ON)" >&2; exit 1 ;;
esac
tmp="$(mktemp -d /var/tmp/cordon-review-build-XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
ws="$tmp/ws"
mkdir -p "$ws" "$tmp/state"
printf '[network]\nmode = "offline"\n[limits]\npids_max = 0\nmemory_max_bytes = 0\n' > "$tmp/offline.toml"
export CORDON_TEST_STATE_DIR="$tmp/state"
sandbox() { (cd "$ws" && "$cordon" --config "$tmp/offline.toml" run "$@"); }
now_us() { local t="${EPOCHREALTIME//[!0-9]/}"; printf '%s' "$t"; }

git archive HEAD | tar -x -C "$ws"
git -C "$ws" init -q && git -C "$ws" add -A &&
  git -C "$ws" -c user.name=bench -c user.email=bench@example.invalid commit -qm base
for side in direct review; do
  t0="$(now_us)"
  sandbox -- /usr/bin/env CCACHE_DISABLE=1 cmake -S . -B "build-$side" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_TESTING=OFF -DCMAKE_CXX_COMPILER_LAUNCHER= >/dev/null 2>"$tmp/configure.err" ||
    { cat "$tmp/configure.err" >&2; exit 1; }
  echo "configure $side: $(( ($(now_us) - t0) / 1000 )) ms" >&2
done
cp -a "$ws/build-direct" "$tmp/direct-configured"
# The page cache: the sources and the compiler's headers and programs, read once.
find "$ws" /usr/include /usr/lib/gcc /usr/libexec/gcc -type f -exec cat {} + >/dev/null 2>&1 || true

# One build of `side`; prints its wall time in seconds.
build_once() {
  local side="$1" t0 t1 flags=()
  if [ "$side" = direct ]; then
    rm -rf "$ws/build-direct" && cp -a "$tmp/direct-configured" "$ws/build-direct"
  else
    flags=(--review)
  fi
  sync
  t0="$(now_us)"
  sandbox "${flags[@]}" -- /usr/bin/env CCACHE_DISABLE=1 cmake --build "build-$side" --target "$target" -j2 \
    >"$tmp/build.out" 2>&1 || { tail -30 "$tmp/build.out" >&2; exit 1; }
  t1="$(now_us)"
  if [ "$side" = review ]; then
    local ids=("$tmp"/state/*/reviews/*)
    [ "${#ids[@]}" = 1 ] && [ -d "${ids[0]}" ] || { echo "review_build: not one review: ${ids[*]}" >&2; exit 1; }
    [ -x "${ids[0]}/upper/build-review/bin/$target" ] || [ "$target" != cordon ] ||
      { echo "review_build: the review build left no bin/cordon in its upper layer" >&2; exit 1; }
    "$cordon" --config "$tmp/offline.toml" discard --session "${ids[0]##*/}" >/dev/null 2>&1
  fi
  awk -v us="$((t1 - t0))" 'BEGIN { printf "%.1f\n", us / 1e6 }'
}

direct=() review=()
for ((i = 1; i <= runs; i++)); do
  t="$(build_once direct)"
  direct+=("$t")
  echo "direct build $i: $t s"
  t="$(build_once review)"
  review+=("$t")
  echo "review build $i: $t s"
done
python3 - "$target" "${direct[*]}" "${review[*]}" <<'PY'
import sys
target, direct, review = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
d, r = sum(direct) / len(direct), sum(review) / len(review)
pairs = ", ".join("%.3f" % (b / a) for a, b in zip(direct, review))
print("review-mode build / direct build (%s, Release, -j2): %.3f (review %.1f s, direct %.1f s, means of %d; "
      "pairs %s; target <= 1.10)" % (target, r / d, r, d, len(direct), pairs))
PY
