#!/bin/sh
# The offline world of the egress-proxy tests and bench. Run it in fresh network and mount
# namespaces (`unshare -n -m`, as root): nothing here can send a packet from the machine's own
# network namespace, and no real name is resolved (/etc/hosts and /etc/resolv.conf are bound
# over in the private mount namespace only).
#
#   unshare -n -m /bin/sh world.sh DIR PROXY BODY
#
# World: lo up; 203.0.113.10/24 local (on a dummy device, or on lo where the kernel has no
# dummy driver); origin.py serving HTTP on 203.0.113.10:8080 and 127.0.0.1:8081 (and HTTPS on
# 203.0.113.10:8443 where ORIGIN_TLS is set); names:
#   allowed.test, other.test -> 203.0.113.10   rebind.test -> 10.1.2.3, 127.0.0.1
#   mixed.test -> 10.1.2.3, 203.0.113.10     local.test -> 127.0.0.1
# Any other name fails: the nameserver is 127.0.0.1:53 of this namespace, where nothing answers.
# Then BODY (a shell file) is sourced: it calls start_proxy ARGS... (the proxy on an inherited
# listening socket; $PORT, $PROXY_PID, log in $D/log) and checks with curl / client.py.
set -eu
D=$1
PROXY=$2
BODY=$3
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

mount --make-rprivate /
ip link set lo up
if ip link add d0 type dummy 2>/dev/null; then
  ip addr add 203.0.113.10/24 dev d0 && ip link set d0 up
else
  ip addr add 203.0.113.10/24 dev lo
fi
printf '203.0.113.10 allowed.test other.test\n10.1.2.3 rebind.test mixed.test\n127.0.0.1 rebind.test local.test\n203.0.113.10 mixed.test\n' >"$D/hosts"
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$D/resolv.conf"
mount --bind "$D/hosts" /etc/hosts
mount --bind "$D/resolv.conf" /etc/resolv.conf

mkdir -p "$D/www"
[ -f "$D/www/index.txt" ] || echo "hello from the origin" >"$D/www/index.txt"
# ORIGIN_TLS=CERT:KEY (the bench) adds HTTPS on 203.0.113.10:8443 with that certificate.
$PY "$HERE/origin.py" "$D/www" "$D/origin.ready" 203.0.113.10:8080 127.0.0.1:8081 \
  ${ORIGIN_TLS:+"tls:203.0.113.10:8443:$ORIGIN_TLS"} >"$D/origin.log" 2>&1 &
PIDS="$PIDS $!"
for _ in $(seq 200); do [ -f "$D/origin.ready" ] && break; sleep 0.05; done
[ -f "$D/origin.ready" ] || { echo "world: origin did not start"; cat "$D/origin.log"; exit 1; }

# start_proxy ARGS...: the proxy on a fresh listening socket of 127.0.0.1; sets PORT, PROXY_PID.
start_proxy() {
  rm -f "$D/port"
  $PY "$HERE/launch.py" "$D/port" "$D/log" "$PROXY" "$@" 2>>"$D/proxy.err" &
  PROXY_PID=$!
  PIDS="$PIDS $PROXY_PID"
  for _ in $(seq 200); do [ -s "$D/port" ] && break; sleep 0.05; done
  PORT=$(cat "$D/port")
}

# via URL [curl args...]: curl through the proxy, printing "code=NNN" after the body.
via() {
  url=$1
  shift
  curl -s --max-time 10 --noproxy '' --proxy "http://127.0.0.1:$PORT" -w '\ncode=%{http_code} connect=%{http_connect}\n' "$@" "$url" || true
}

# The log's lines, once the proxy wrote one per connection so far (bounded wait).
wait_log_lines() {
  for _ in $(seq 100); do
    [ "$(cat "$D/log" 2>/dev/null | wc -l)" -ge "$1" ] && return 0
    sleep 0.05
  done
  return 0
}

. "$BODY"
