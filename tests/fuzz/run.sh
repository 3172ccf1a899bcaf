#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan: the top-level option CORDON_FUZZ, in a build
# tree of their own) and runs them, each for a bounded time over a copy of its seed corpus
# (tests/fuzz/corpus/TARGET/): the runs never write into the repository. A crash, a sanitizer
# finding or an oracle violation fails the run; its input is kept in BUILD/artifacts/TARGET/.
#
# Usage: tests/fuzz/run.sh [--build-only] [TARGET|all] [SECONDS]
#   TARGET: config, records, egress_decisions, proxy_request, proxy_rules, terminal_filter,
#   or selftest_planted (must fail: its oracle sees a planted defect). Default: all (but the
#   self-test), 60 s each. Longer: tests/fuzz/run.sh terminal_filter 3600.
# Environment: CORDON_FUZZ_BUILD (default build-fuzz), CORDON_FUZZ_JOBS (build jobs, default 2),
#   CORDON_FUZZ_KEEP_CORPUS=DIR (add what the run finds to DIR, e.g. to grow a corpus outside
#   the repository), CORDON_FUZZ_ARGS (more libFuzzer flags).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${CORDON_FUZZ_BUILD:-$root/build-fuzz}"
build_only=0
if [ "${1:-}" = "--build-only" ]; then
  build_only=1
  shift
fi
target="${1:-all}"
seconds="${2:-60}"
all_targets="config records egress_decisions proxy_request proxy_rules terminal_filter"

cxx="$(command -v clang++-14 || command -v clang++ || true)"
cc="$(command -v clang-14 || command -v clang || true)"
[ -n "$cxx" ] || { echo "fuzz: clang++ is missing (scripts/deps.sh installs clang-14 and libclang-rt-14-dev)" >&2; exit 1; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
    -DCORDON_FUZZ=ON -DBUILD_TESTING=OFF "${launcher[@]}" >/dev/null
fi
if ! cmake --build "$build" -j"${CORDON_FUZZ_JOBS:-2}" --target fuzz_targets >"$build/build.log" 2>&1; then
  tail -n 40 "$build/build.log"
  echo "fuzz: building the targets failed (the whole log: $build/build.log)" >&2
  exit 1
fi
[ "$build_only" -eq 1 ] && exit 0

# libFuzzer flags per target: the terminal filter holds up to 4096 bytes, so its inputs go past that.
max_len() {
  case "$1" in
    terminal_filter | selftest_planted) echo 16384 ;;
    config | records | egress_decisions) echo 8192 ;;
    *) echo 4096 ;;
  esac
}
# A dictionary of the target's tokens (tests/fuzz/dict/), when it has one.
dict_of() {
  case "$1" in
    selftest_planted) echo terminal_filter ;;
    records | egress_decisions) echo json ;;
    *) echo "$1" ;;
  esac
}
corpus_of() {
  case "$1" in
    selftest_planted) echo terminal_filter ;;
    *) echo "$1" ;;
  esac
}

run_one() {
  local name="$1" work status
  local binary="$build/fuzz/fuzz_$name"
  [ -x "$binary" ] || { echo "fuzz: no target $name ($binary)" >&2; return 1; }
  work="$(mktemp -d "${TMPDIR:-/tmp}/cordon-fuzz-$name.XXXXXX")"
  mkdir -p "$work/corpus" "$build/artifacts/$name"
  cp "$root/tests/fuzz/corpus/$(corpus_of "$name")/"* "$work/corpus/"
  echo "fuzz: $name for ${seconds}s (seeds: $(find "$work/corpus" -type f | wc -l))"
  local dict flags=()
  dict="$root/tests/fuzz/dict/$(dict_of "$name").dict"
  [ -f "$dict" ] && flags+=(-dict="$dict")
  status=0
  # -timeout: one input taking longer is a hang, reported as a failure; -rss_limit_mb: a leak or a blow-up.
  # shellcheck disable=SC2086
  "$binary" -max_total_time="$seconds" -max_len="$(max_len "$name")" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$name/" "${flags[@]}" ${CORDON_FUZZ_ARGS:-} \
    "$work/corpus" >"$work/log" 2>&1 || status=$?
  # The run's last lines (and the whole finding when it failed); the log is long.
  if [ "$status" -ne 0 ]; then
    # What broke first (the oracle's line, the sanitizer's report), then the end of the log.
    grep -E -m 5 '^fuzz oracle: |runtime error: |^==[0-9]+==ERROR|^SUMMARY: ' "$work/log" || true
    echo "..."
    grep -v -E '^#[0-9]+|^ +#[0-9]+ 0x' "$work/log" | tail -n 25
    echo "fuzz: $name FAILED (status $status); the input is in $build/artifacts/$name/" >&2
    echo "fuzz: reproduce: $binary $build/artifacts/$name/<crash-file>" >&2
  else
    grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^Done ' "$work/log" || true
    echo "fuzz: $name passed"
  fi
  if [ -n "${CORDON_FUZZ_KEEP_CORPUS:-}" ]; then
    mkdir -p "$CORDON_FUZZ_KEEP_CORPUS/$name"
    cp -n "$work/corpus/"* "$CORDON_FUZZ_KEEP_CORPUS/$name/"
  fi
  rm -rf "$work"
  return "$status"
}

failed=0
if [ "$target" = "all" ]; then
  for t in $all_targets; do run_one "$t" || failed=1; done
else
  run_one "$target" || failed=1
fi
exit "$failed"
