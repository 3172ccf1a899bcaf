#!/bin/sh
# Throughput of cordon-egress-proxy's CONNECT tunnel against a direct connection, in an offline
# world (tests/integration/egress_world/world.sh under `unshare -n -m`: loopback and a local
# 203.0.113.10 only; nothing leaves this machine's own network namespace). Needs root.
#
#   bench/proxy_throughput.sh [BUILD_DIR] [MIB] [RUNS]     (defaults: build 1024 5)
#   LATENCY_RUNS=N sets the small-request pairs of the latency line (default 200)
#
# The same client (curl -o /dev/null) fetches a MIB-sized file from the same origin RUNS times
# each way, alternating, over plain HTTP (origin: Python's sendfile; the tunnel is CONNECT with
# curl -p) and over HTTPS (origin: Python's ssl, 1 MiB writes; curl's own CONNECT, TLS end to
# end with a certificate from a CA this script makes, as an agent's HTTPS traffic runs in
# allowlist mode); prints each run's MB/s and the ratios of the medians (proxied / direct).
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
# The HTTPS origin's certificate for allowed.test, from a CA made here (trusted by --cacert only).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=bench-ca \
  -keyout "$D/ca.key" -out "$D/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=allowed.test \
  -keyout "$D/site.key" -out "$D/site.csr" 2>/dev/null
printf 'subjectAltName=DNS:allowed.test\n' >"$D/ext.cnf"
openssl x509 -req -in "$D/site.csr" -CA "$D/ca.pem" -CAkey "$D/ca.key" -CAcreateserial -days 1 \
  -extfile "$D/ext.cnf" -out "$D/site.pem" 2>/dev/null
cat >"$D/body.sh" <<BODY
start_proxy --allow allowed.test:8080 --allow allowed.test:8443
fetch() { curl -s --max-time 600 -o /dev/null -w '%{speed_download}\n' "\$@"; }
median() { sort -n | awk '{ v[NR] = \$1 } END { print v[int((NR + 1) / 2)] }'; }
plain=http://allowed.test:8080/blob
tls="--cacert \$D/ca.pem https://allowed.test:8443/blob"
: >\$D/direct; : >\$D/proxied; : >\$D/tls-direct; : >\$D/tls-proxied
fetch --noproxy '*' \$plain >/dev/null  # warm-up: the file's pages into the page cache
for i in \$(seq $RUNS); do
  # Direct: curl resolves allowed.test itself, from the world's hosts file.
  fetch --noproxy '*' \$plain >>\$D/direct
  fetch --noproxy '' --proxy http://127.0.0.1:\$PORT -p \$plain >>\$D/proxied
  fetch --noproxy '*' \$tls >>\$D/tls-direct
  fetch --noproxy '' --proxy http://127.0.0.1:\$PORT \$tls >>\$D/tls-proxied
done
echo "size: $MIB MiB, runs: $RUNS"
for way in direct proxied tls-direct tls-proxied; do
  printf '%-11s MB/s: %s\n' \$way "\$(awk '{ printf "%.0f ", \$1 / 1e6 }' \$D/\$way)"
done
report() {
  awk -v what="\$1" -v d="\$(median <\$D/\$2)" -v p="\$(median <\$D/\$3)" \
    'BEGIN { printf "median %sdirect %.0f MB/s, proxied %.0f MB/s, ratio %.2f\n", what, d / 1e6, p / 1e6, p / d }'
}
report "" direct proxied
report "https " tls-direct tls-proxied
# Latency of one small request, alternating: direct, through the CONNECT tunnel, and
# absolute-form GET over plain HTTP; and one whole HTTPS request (a fresh curl: TCP, CONNECT,
# the TLS handshake, the GET) direct and through the proxy.
small() { curl -s --max-time 10 -o /dev/null -w '%{time_total}\n' "\$@"; }
plain_small=http://allowed.test:8080/index.txt
tls_small="--cacert \$D/ca.pem https://allowed.test:8443/index.txt"
: >\$D/l-direct; : >\$D/l-connect; : >\$D/l-get; : >\$D/l-tls-direct; : >\$D/l-tls-proxied
for i in \$(seq $LATENCY_RUNS); do
  small --noproxy '*' \$plain_small >>\$D/l-direct
  small --noproxy '' --proxy http://127.0.0.1:\$PORT -p \$plain_small >>\$D/l-connect
  small --noproxy '' --proxy http://127.0.0.1:\$PORT \$plain_small >>\$D/l-get
  small --noproxy '*' \$tls_small >>\$D/l-tls-direct
  small --noproxy '' --proxy http://127.0.0.1:\$PORT \$tls_small >>\$D/l-tls-proxied
done
ld=\$(median <\$D/l-direct); lc=\$(median <\$D/l-connect); lg=\$(median <\$D/l-get)
awk -v d="\$ld" -v c="\$lc" -v g="\$lg" 'BEGIN { printf "latency direct %.2f ms, CONNECT %.2f ms (%+.2f), GET via proxy %.2f ms (%+.2f)\n", d * 1e3, c * 1e3, (c - d) * 1e3, g * 1e3, (g - d) * 1e3 }'
awk -v d="\$(median <\$D/l-tls-direct)" -v p="\$(median <\$D/l-tls-proxied)" 'BEGIN { printf "latency https direct %.2f ms, via proxy %.2f ms (%+.2f)\n", d * 1e3, p * 1e3, (p - d) * 1e3 }'
BODY
ORIGIN_TLS="$D/site.pem:$D/site.key" \
  unshare -n -m /bin/sh "$ROOT/tests/integration/egress_world/world.sh" "$D" "$PROXY" "$D/body.sh"
