#!/bin/sh
# A self-contained fake network world for the egress-jail tests. Nothing here touches the
# machine's own network namespace: every address, listener and resolver lives in namespaces
# this script creates, and packets never leave them.
#
#   networld.sh up ID DIR     build world ID (state in DIR); prints nothing on success
#   networld.sh down ID DIR   tear it down (idempotent; safe after a partial "up")
#
#  +-------------------------- cjh-ID ("fake host") ----+      +---------- cjr-ID ("router") -----+
#  | eth0 192.0.2.2/24  fd00:cafe::2/64                 |      | r0 192.0.2.1/24 (gateway)        |
#  |   default via 192.0.2.1, ::/0 via fd00:cafe::1     |======|    192.0.2.77/24 (neighbour)     |
#  | lo 127.0.0.1  198.19.7.7/32 (the host's own /32)   | veth |    fd00:cafe::1/64               |
#  |   listeners on 127.0.0.1, 192.0.2.2, 198.19.7.7    |      |                                  |
#  | /etc/resolv.conf (via ip netns exec):              |      | lo (the "LAN" hosts):            |
#  |   nameserver 10.53.0.53, search/options lines      |      |   10.1.2.3 172.16.5.5 192.168.7.7|
#  | cordon + pasta run here                            |      |   100.64.1.1 169.254.169.254     |
#  +----------------------------------------------------+      |   168.63.129.16 10.9.9.9 (allow) |
#                                                              |   10.53.0.53 (dnsmasq resolver)  |
#                                                              |   198.18.0.10 ("internet")       |
#                                                              |   fd00:beef::10 (IPv6 internet)  |
#                                                              +----------------------------------+
# Every listener answers TCP on 8080 and UDP on 8081 with "hello <its address>".
# Addresses: the fake host mirrors this machine (192.0.2.0/24), so the forwarder pick must
# skip 192.0.2.53. "Internet" uses 198.18.0.0/15 (benchmarking range): outside every private
# range and outside the TEST-NET ranges the forwarder is picked from.
set -eu

cmd=${1:?usage: networld.sh up|down ID DIR}
id=${2:?world id}
dir=${3:?state dir}
host=cjh-$id
router=cjr-$id
py=/usr/bin/python3

LAN_ADDRS="10.1.2.3 172.16.5.5 192.168.7.7 100.64.1.1 169.254.169.254 168.63.129.16 10.9.9.9 10.53.0.53 198.18.0.10"

write_listener() {
  cat >"$dir/listener.py" <<'EOF'
# Answers "hello ADDR" on TCP 8080 and UDP 8081 of each address given; bounded by the caller.
import selectors, socket, sys
sel = selectors.DefaultSelector()
for addr in sys.argv[2:]:
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    t = socket.socket(fam, socket.SOCK_STREAM)
    t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    t.bind((addr, 8080)); t.listen(16); sel.register(t, selectors.EVENT_READ, ("tcp", addr))
    u = socket.socket(fam, socket.SOCK_DGRAM)
    u.bind((addr, 8081)); sel.register(u, selectors.EVENT_READ, ("udp", addr))
open(sys.argv[1], "w").write("ready\n")
while True:
    for key, _ in sel.select():
        kind, addr = key.data
        reply = ("hello %s\n" % addr).encode()
        try:
            if kind == "tcp":
                c, _ = key.fileobj.accept(); c.sendall(reply)
                # Half-close, then drain what the client sent (a request through a proxy's
                # tunnel) until it closes, at most 1 s: a close with unread bytes resets the
                # connection, and the reset can overtake the reply (a proxy then relays nothing).
                c.shutdown(socket.SHUT_WR); c.settimeout(1.0)
                try:
                    while c.recv(4096):
                        pass
                except OSError:
                    pass
                c.close()
            else:
                _, peer = key.fileobj.recvfrom(512); key.fileobj.sendto(reply, peer)
        except OSError:
            pass
EOF
}

wait_ready() {  # bounded: 100 x 50 ms
  i=0
  while [ ! -s "$1" ]; do
    i=$((i + 1))
    [ "$i" -le 100 ] || { echo "networld: $1 never appeared" >&2; exit 1; }
    sleep 0.05
  done
}

up() {
  mkdir -p "$dir"
  ip netns add "$host"
  ip netns add "$router"
  ip -n "$host" link set lo up
  ip -n "$router" link set lo up
  ip -n "$host" link add eth0 type veth peer name r0 netns "$router"
  ip -n "$host" addr add 192.0.2.2/24 dev eth0
  ip -n "$host" addr add fd00:cafe::2/64 dev eth0 nodad
  ip -n "$host" link set eth0 up
  ip -n "$router" addr add 192.0.2.1/24 dev r0
  ip -n "$router" addr add 192.0.2.77/24 dev r0
  ip -n "$router" addr add fd00:cafe::1/64 dev r0 nodad
  ip -n "$router" link set r0 up
  ip -n "$host" route add default via 192.0.2.1
  ip -n "$host" -6 route add default via fd00:cafe::1
  # The LAN hosts are addresses on the router's loopback (this kernel has no dummy driver):
  # the router accepts them as local, which is all a listener needs.
  for a in $LAN_ADDRS; do ip -n "$router" addr add "$a/32" dev lo; done
  ip -n "$router" addr add fd00:beef::10/128 dev lo nodad
  # An address of the fake host itself, public and /32, on its loopback device (as a service
  # address or a cloud VM's own address is carried): no connected subnet covers it.
  ip -n "$host" addr add 198.19.7.7/32 dev lo

  # The fake host's resolver configuration; ip netns exec binds it over /etc/resolv.conf.
  mkdir -p "/etc/netns/$host"
  printf 'nameserver 10.53.0.53\nsearch corp.test\noptions ndots:2 timeout:1 attempts:1\n' \
    >"/etc/netns/$host/resolv.conf"

  write_listener
  ip netns exec "$router" "$py" "$dir/listener.py" "$dir/router.ready" \
    $LAN_ADDRS 192.0.2.1 192.0.2.77 fd00:beef::10 >"$dir/router.log" 2>&1 &
  echo $! >"$dir/router.pid"
  ip netns exec "$host" "$py" "$dir/listener.py" "$dir/host.ready" 127.0.0.1 192.0.2.2 198.19.7.7 ::1 \
    >"$dir/host.log" 2>&1 &
  echo $! >"$dir/host.pid"
  # Answers as a real resolver does, which musl's (Codex's) needs: a name's missing AAAA is
  # NODATA, an unknown name under .test (a search-list try: internet.test.corp.test) NXDOMAIN;
  # a REFUSED there fails the whole lookup. Names elsewhere have no upstream: REFUSED.
  ip netns exec "$router" dnsmasq --conf-file=/dev/null --no-resolv --no-hosts \
    --listen-address=10.53.0.53 --bind-interfaces --pid-file="$dir/dnsmasq.pid" \
    --host-record=internet.test,198.18.0.10 --host-record=lan.test,10.1.2.3 \
    --host-record=hostself.test,198.19.7.7 --local=/test/ \
    --log-facility="$dir/dnsmasq.log" --user=root
  wait_ready "$dir/router.ready"
  wait_ready "$dir/host.ready"
}

down() {
  for f in router host dnsmasq; do
    if [ -s "$dir/$f.pid" ]; then kill "$(cat "$dir/$f.pid")" 2>/dev/null || true; fi
  done
  # Anything still inside the namespaces (a stray pasta, a listener) goes with them.
  for ns in "$host" "$router"; do
    if ip netns pids "$ns" >/dev/null 2>&1; then
      for p in $(ip netns pids "$ns"); do kill -9 "$p" 2>/dev/null || true; done
      ip netns del "$ns" 2>/dev/null || true
    fi
  done
  rm -rf "/etc/netns/$host"
}

case "$cmd" in
  up) up ;;
  down) down ;;
  *) echo "usage: networld.sh up|down ID DIR" >&2; exit 2 ;;
esac
