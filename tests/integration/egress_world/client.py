# Raw clients for the egress-proxy tests (every wait bounded by a socket timeout):
#   client.py send PORT TEXT           send TEXT (\r\n escapes allowed), print the whole answer
#   client.py tunnel PORT TARGET SECS  CONNECT TARGET, print the 200 line, hold the tunnel SECS
#   client.py hold PORT N SECS TEXT    hold N idle connections open, then `send TEXT` on another
#   client.py slow PORT SECS           send half a request head, then nothing, for SECS
import socket, sys, time

def connect(port):
    c = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
    return c

def read_all(c):
    out = b""
    try:
        while True:
            chunk = c.recv(65536)
            if not chunk:
                break
            out += chunk
    except socket.timeout:
        out += b"\n[client: timed out]"
    except ConnectionResetError:
        out += b"\n[client: reset]"
    return out.decode("utf-8", "replace")

def unescape(text):
    return text.encode().decode("unicode_escape").encode("latin-1")

cmd, port = sys.argv[1], sys.argv[2]
if cmd == "send":
    c = connect(port)
    c.sendall(unescape(sys.argv[3]))
    print(read_all(c))
elif cmd == "tunnel":
    c = connect(port)
    c.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (sys.argv[3], sys.argv[3])).encode())
    print(c.recv(4096).decode().splitlines()[0], flush=True)
    c.settimeout(float(sys.argv[4]))
    print("tunnel:", read_all(c).strip() or "closed", flush=True)
elif cmd == "hold":
    held = [connect(port) for _ in range(int(sys.argv[3]))]
    # The proxy accepts in connection order: these N are its connections before the next.
    c = connect(port)
    c.sendall(unescape(sys.argv[5]))
    print(read_all(c), flush=True)
    time.sleep(float(sys.argv[4]))
elif cmd == "slow":
    c = connect(port)
    c.sendall(b"GET http://allowed.test:8080/index.txt HTTP/1.1\r\nHo")
    c.settimeout(float(sys.argv[3]))
    print("slow:", (read_all(c).splitlines() or ["closed"])[0], flush=True)
