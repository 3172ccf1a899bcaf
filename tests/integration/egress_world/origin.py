# The origin of the egress-proxy world: serves DIR's files over HTTP/1.0 on each ADDR:PORT
# given, plus /headers (the request's headers as the body) and /echo-body (POST: the body).
import functools, http.server, sys, threading

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
        # sendfile(2): the origin must not be what limits the bench's throughput.
        outputfile.flush()
        self.request.sendfile(source)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

directory, ready = sys.argv[1], sys.argv[2]
servers = []
for spec in sys.argv[3:]:
    host, port = spec.rsplit(":", 1)
    handler = functools.partial(Handler, directory=directory)
    server = http.server.ThreadingHTTPServer((host, int(port)), handler)
    server.daemon_threads = True
    servers.append(server)
for s in servers[1:]:
    threading.Thread(target=s.serve_forever, daemon=True).start()
open(ready, "w").write("ready\n")
servers[0].serve_forever()
