# The origin of the egress-proxy world: serves DIR's files over HTTP/1.0 on each ADDR:PORT
# given, plus /headers (the request's headers as the body) and /echo-body (POST: the body).
# A spec tls:ADDR:PORT:CERT:KEY serves the same over HTTPS with that certificate (the bench's
# HTTPS line; the certificate comes from the bench's own CA).
import functools, http.server, ssl, sys, threading

class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/headers":
            body = "".join("%s: %s\n" % kv for kv in self.headers.items()).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def copyfile(self, source, outputfile):
        # The origin must not be what limits the bench's throughput: sendfile(2) for plain TCP;
        # over TLS (no sendfile) 1 MiB writes, which OpenSSL cuts into full 16 KiB records.
        outputfile.flush()
        if not isinstance(self.request, ssl.SSLSocket):
            self.request.sendfile(source)
            return
        while True:
            chunk = source.read(1 << 20)
            if not chunk:
                return
            self.request.sendall(chunk)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

directory, ready = sys.argv[1], sys.argv[2]
servers = []
for spec in sys.argv[3:]:
    tls = spec.startswith("tls:")
    if tls:
        _, host, port, cert, key = spec.split(":")
    else:
        host, port = spec.rsplit(":", 1)
    handler = functools.partial(Handler, directory=directory)
    server = http.server.ThreadingHTTPServer((host, int(port)), handler)
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.daemon_threads = True
    servers.append(server)
for s in servers[1:]:
    threading.Thread(target=s.serve_forever, daemon=True).start()
open(ready, "w").write("ready\n")
servers[0].serve_forever()
