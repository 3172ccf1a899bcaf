# The network world's web servers for the network-mode tests: plain HTTP on ADDR:8000 and HTTPS
# (certificate for internet.test from the test's own CA) on ADDR:8443, serving DIR. Bounded by
# the caller (timeout); writes READY once both listen.
import http.server, ssl, sys, threading

addr, root, cert, key, ready = sys.argv[1:6]
handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=root, **k)
plain = http.server.ThreadingHTTPServer((addr, 8000), handler)
secure = http.server.ThreadingHTTPServer((addr, 8443), handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
secure.socket = context.wrap_socket(secure.socket, server_side=True)
for server in (plain, secure):
    threading.Thread(target=server.serve_forever, daemon=True).start()
open(ready, "w").write("ready\n")
threading.Event().wait()
