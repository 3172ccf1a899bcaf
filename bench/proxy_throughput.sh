#!/bin/sh
# Throughput of cordon-egress-proxy's CONNECT tunnel against a direct connection, in an offline
# world (tests/integration/egress_world/world.sh under `unshare -n -m`: loopback and a local
# 203.0.113.10 only; nothing leaves this machine's own network namespace). Needs root.
#
#   bench/proxy_throughput.sh [BUILD_DIR] [MIB] [RUNS]     (defaults: build 1024 5)
#   LATENCY_RUNS=N sets the small-request pairs of the latency line (default 200)
#
# The same client (curl -o /dev/null) fetches a MIB-sized file from the same origin (Python,
# sendfile) RUNS times each way, alternating; prints each run's MB/s and the ratio of the
# medians (proxied / direct).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
MIB=${2:-1024}
RUNS=${3:-5}
LATENCY_RUNS=${LATENCY_RUNS:-200}
PROXY=$BUILD/libexec/cordon/cordon-egress-proxy
[ -x "$PROXY" ] || { echo "no $PROXY: build first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "needs root (unshare -n -m)" >&2; exit 1; }
D=$(mktemp -d /tmp/cordon-proxy-bench-XXXXXX)
trap 'rm -rf "$D"' EXIT
mkdir -p "$D/www"
truncate -s "${MIB}M" "$D/www/blob"
cat >"$D/body.sh" <<BODY
start_proxy --allow allowed.test:8080
fetch() { curl -s --max-time 600 -o /dev/null -w '%{speed_download}\n' "\$@" http://allowed.test:8080/blob; }
median() { sort -n | awk '{ v[NR] = \$1 } END { print v[int((NR + 1) / 2)] }'; }
: >\$D/direct; : >\$D/proxied
fetch --noproxy '*' >/dev/null  # warm-up: the file's pages into the page cache
for i in \$(seq $RUNS); do
  # Direct: curl resolves allowed.test itself, from the world's hosts file.
  fetch --noproxy '*' >>\$D/direct
  fetch --noproxy '' --proxy http://127.0.0.1:\$PORT -p >>\$D/proxied
done
direct=\$(median <\$D/direct); proxied=\$(median <\$D/proxied)
echo "size: $MIB MiB, runs: $RUNS"
echo "direct  MB/s: \$(awk '{ printf "%.0f ", \$1 / 1e6 }' \$D/direct)"
echo "proxied MB/s: \$(awk '{ printf "%.0f ", \$1 / 1e6 }' \$D/proxied)"
awk -v d="\$direct" -v p="\$proxied" 'BEGIN { printf "median direct %.0f MB/s, proxied %.0f MB/s, ratio %.2f\n", d / 1e6, p / 1e6, p / d }'
# Latency of one small request, alternating: direct, through the CONNECT tunnel (what an HTTPS
# request pays: the TLS handshake itself is the same on both sides), and absolute-form GET.
small() { curl -s --max-time 10 -o /dev/null -w '%{time_total}\n' "\$@" http://allowed.test:8080/index.txt; }
: >\$D/l-direct; : >\$D/l-connect; : >\$D/l-get
for i in \$(seq $LATENCY_RUNS); do
  small --noproxy '*' >>\$D/l-direct
  small --noproxy '' --proxy http://127.0.0.1:\$PORT -p >>\$D/l-connect
  small --noproxy '' --proxy http://127.0.0.1:\$PORT >>\$D/l-get
done
ld=\$(median <\$D/l-direct); lc=\$(median <\$D/l-connect); lg=\$(median <\$D/l-get)
awk -v d="\$ld" -v c="\$lc" -v g="\$lg" 'BEGIN { printf "latency direct %.2f ms, CONNECT %.2f ms (%+.2f), GET via proxy %.2f ms (%+.2f)\n", d * 1e3, c * 1e3, (c - d) * 1e3, g * 1e3, (g - d) * 1e3 }'
BODY
unshare -n -m /bin/sh "$ROOT/tests/integration/egress_world/world.sh" "$D" "$PROXY" "$D/body.sh"
