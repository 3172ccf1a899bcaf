# Packages for the network-mode tests' origin, made offline: a wheel written by hand (no build
# backend) with a PEP 503 index page beside it, and an npm package directory to `npm pack`.
#   world_packages.py INDEX_DIR NPM_DIR
import os, sys, zipfile

index_dir, npm_dir = sys.argv[1:3]
wheel = "demo_pkg-1.0-py3-none-any.whl"
files = {
    "demo_pkg/__init__.py": 'VALUE = "py-ok"\n',
    "demo_pkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n",
    "demo_pkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = "".join(f"{name},,\n" for name in files) + "demo_pkg-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(os.path.join(index_dir, wheel), "w") as z:
    for name, content in files.items():
        z.writestr(name, content)
    z.writestr("demo_pkg-1.0.dist-info/RECORD", record)
with open(os.path.join(index_dir, "index.html"), "w") as f:
    f.write(f'<html><body><a href="{wheel}">{wheel}</a></body></html>\n')
with open(os.path.join(npm_dir, "package.json"), "w") as f:
    f.write('{"name":"demo","version":"1.0.0","main":"index.js"}\n')
with open(os.path.join(npm_dir, "index.js"), "w") as f:
    f.write("module.exports = 'node-ok';\n")
