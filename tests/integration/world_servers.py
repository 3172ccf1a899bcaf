# The network world's web servers for the network-mode tests: plain HTTP on ADDR:8000 and HTTPS
# (certificate for internet.test from the test's own CA) on ADDR:8443, serving DIR. Paths under
# /git/ are git's smart HTTP protocol (git-http-backend as a CGI program) for the bare
# repositories in GITROOT, clone and push. Bounded by the caller (timeout); writes READY once
# both listen.
import http.server, ssl, subprocess, sys, threading

addr, root, git_root, cert, key, ready = sys.argv[1:7]
BACKEND = "/usr/lib/git-core/git-http-backend"


def read_chunked(stream):
    body = b""
    while True:
        size = int(stream.readline().split(b";")[0], 16)
        if size == 0:
            stream.readline()
            return body
        body += stream.read(size)
        stream.readline()


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=root, **kwargs)

    def do_GET(self):
        if self.path.startswith("/git/"):
            return self.git()
        return super().do_GET()

    def do_POST(self):
        if self.path.startswith("/git/"):
            return self.git()
        return self.send_error(405)

    def git(self):
        path, _, query = self.path[len("/git"):].partition("?")
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = read_chunked(self.rfile)
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        env = {
            "PATH": "/usr/bin:/bin", "GIT_PROJECT_ROOT": git_root, "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
            "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
            "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
            # A named user: git-http-backend then serves receive-pack (push) as well.
            "REMOTE_USER": "world", "REMOTE_ADDR": self.client_address[0],
        }
        out = subprocess.run([BACKEND], input=body, env=env, capture_output=True, timeout=60).stdout
        sep = b"\r\n\r\n" if b"\r\n\r\n" in out else b"\n\n"
        head, _, payload = out.partition(sep)
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


plain = http.server.ThreadingHTTPServer((addr, 8000), Handler)
secure = http.server.ThreadingHTTPServer((addr, 8443), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
secure.socket = context.wrap_socket(secure.socket, server_side=True)
for server in (plain, secure):
    threading.Thread(target=server.serve_forever, daemon=True).start()
open(ready, "w").write("ready\n")
threading.Event().wait()
