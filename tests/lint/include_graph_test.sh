#!/usr/bin/env bash
# scripts/include-graph's folder order: plants an upward include, a sideways include between two
# mechanisms and a folder not in the order, each in its own copy of src/, and checks that --check
# fails naming it. The real tree may itself fail today (arrows being fixed), so the clean case
# compares a copy's verdict with the real tree's instead of expecting a pass.
# Usage: tests/lint/include_graph_test.sh [INCLUDE_GRAPH [SRC_DIR]]
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
graph="${1:-$here/scripts/include-graph}"
src="$(cd "${2:-$here/src}" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

check() { # NAME CONDITION...: one assertion, printed either way
  local name="$1"
  shift
  if "$@"; then
    echo "PASS: $name"
    passed=$((passed + 1))
  else
    echo "FAIL: $name"
    failed=$((failed + 1))
  fi
}
run() { # DIR: sets out and rc to include-graph DIR --check
  out="$("$graph" "$1" --check 2>&1)" && rc=0 || rc=$?
}
fresh() { # NAME: a copy of src/ at $tmp/NAME/src
  mkdir -p "$tmp/$1"
  cp -r "$src" "$tmp/$1/src"
  echo "$tmp/$1/src"
}
pick() { # DIR PREFERRED EXT: PREFERRED if it exists under DIR, else DIR's first *.EXT
  if [ -f "$src/$1/$2" ]; then echo "$1/$2"; else
    (cd "$src" && find "$1" -maxdepth 1 -name "*.$3" | sort | head -n 1)
  fi
}
plant() { # COPY FILE HEADER: appends an include of HEADER to COPY/FILE; prints its line number
  printf '#include "%s"\n' "$3" >>"$1/$2"
  grep -n -F "#include \"$3\"" "$1/$2" | tail -n 1 | cut -d: -f1
}
has() { grep -q -F -- "$1" <<<"$out"; }
fails_naming() { [ "$rc" -eq 1 ] && has "$1"; }
same() { [ "$1" = "$2" ]; }
v_prints() {
  grep -q -E '^modules [0-9]+  arrows [0-9]+  layers [0-9]+  upward [0-9]+  cycles [0-9]+$' \
    <<<"$out" &&
    grep -q -E '^  folder [a-z_/]+ -> common [0-9]+$' <<<"$out"
}

# Clean: a copy without planted lines gives the real tree's verdict (same exit code, same
# output once the root is the same).
copy="$(fresh clean)"
run "$src"
real_rc=$rc
real_out="${out//"$src/"/SRC/}"
run "$copy"
check "clean copy: exit $rc, real tree exit $real_rc, same output" \
  same "$rc ${out//"$copy/"/SRC/}" "$real_rc $real_out"

# -v still prints the summary line and the folder arrows.
out="$("$graph" "$src" -v 2>&1)" || true
check "-v prints the summary line and folder arrows" v_prints

# Upward: inputs includes run.
copy="$(fresh up)"
file="$(pick launcher/inputs paths.cpp cpp)"
header="$(pick launcher/run session.h h)"
line="$(plant "$copy" "$file" "$header")"
run "$copy"
arrow="$file:$line includes $header (launcher/inputs -> launcher/run)"
check "upward: $arrow fails" fails_naming "folder up: $copy/$arrow"

# Sideways: one mechanism includes another.
copy="$(fresh sideways)"
file="$(pick launcher/landlock ruleset_plan.cpp cpp)"
header="$(pick launcher/env env.h h)"
line="$(plant "$copy" "$file" "$header")"
run "$copy"
arrow="$file:$line includes $header (launcher/landlock -> launcher/env)"
check "sideways: $arrow fails" fails_naming "folder sideways: $copy/$arrow"

# Unknown: a folder not in the order, even one nothing includes.
copy="$(fresh unknown)"
mkdir -p "$copy/launcher/zzz"
printf '#pragma once\n' >"$copy/launcher/zzz/x.h"
run "$copy"
check "unknown folder launcher/zzz fails" \
  fails_naming "unknown folder: launcher/zzz is not in the folder order; add it to ORDER"

echo "include_graph_test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
