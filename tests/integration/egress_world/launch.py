# launch.py PORT_FILE LOG PROXY ARGS...: creates the listening socket (as cordon's launcher
# does, here in the test's own namespace), writes its port to PORT_FILE and execs the proxy
# with the socket and an O_APPEND log inherited.
import os, socket, sys

port_file, log_path, proxy = sys.argv[1:4]
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0))
s.listen(128)
os.set_inheritable(s.fileno(), True)
log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
os.set_inheritable(log, True)
with open(port_file + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)
os.execv(proxy, [proxy, "--listen-fd", str(s.fileno()), "--log-fd", str(log)] + sys.argv[4:])
