#!/usr/bin/env bash
# scripts/output-sites: the real tree passes, and a write to stdout or stderr that bypasses the
# printer (planted in a copy of src/, one form at a time) fails it, naming the file.
# Usage: tests/lint/output_sites_test.sh [OUTPUT_SITES [SRC_DIR]]
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
sites="${1:-$here/scripts/output-sites}"
src="$(cd "${2:-$here/src}" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failed=0
check() { # NAME CONDITION...
  local name="$1"
  shift
  if "$@"; then echo "PASS: $name"; else echo "FAIL: $name"; failed=$((failed + 1)); fi
}
"$sites" "$src" --check >/dev/null && rc=0 || rc=$?
check "the real tree writes only through the printer" [ "$rc" -eq 0 ]
planted=(
  'std::fprintf(stderr, "cordon: %s\n", name.c_str());'
  'std::printf("%s\n", name.c_str());'
  'std::fputs(name.c_str(), stdout);'
  'std::cerr << name;'
  'std::cout << name;'
  '::write(STDERR_FILENO, name.data(), name.size());'
  'write(2, name.data(), name.size());'
  'dprintf(1, "%s", name.c_str());'
  'std::fwrite(name.data(), 1, name.size(), stdout);'
)
for i in "${!planted[@]}"; do
  copy="$tmp/$i/src"
  mkdir -p "$tmp/$i"
  cp -r "$src" "$copy"
  printf '%s\n' "void planted(const std::string& name) { ${planted[$i]} }" >>"$copy/launcher/run/session.cpp"
  out="$("$sites" "$copy" --check 2>&1)" && rc=0 || rc=$?
  check "planted ${planted[$i]} fails" [ "$rc" -eq 1 ]
  check "planted ${planted[$i]} is named" grep -q "launcher/run/session.cpp" <<<"$out"
done
# snprintf into a buffer is not a write.
copy="$tmp/snprintf/src"
mkdir -p "$tmp/snprintf"
cp -r "$src" "$copy"
printf '%s\n' 'void planted(char* b) { std::snprintf(b, 4, "%d", 1); }' >>"$copy/launcher/run/session.cpp"
"$sites" "$copy" --check >/dev/null && rc=0 || rc=$?
check "snprintf is not an output site" [ "$rc" -eq 0 ]
exit "$failed"
