#!/bin/sh
# Installs the agents pinned by package-lock.json into a cache outside the repository, once per
# lockfile and Node major version, and prints the prefix. The prefix has the layout
# `npm install -g --prefix PREFIX` makes: PREFIX/bin/{claude,codex,gemini} linked to
# PREFIX/lib/node_modules/...; the agent tests map it onto /usr/local inside each launch's own
# mount namespace (the host's /usr/local is never written).
#
#   tests/agents/install.sh      as root; CORDON_AGENTS_CACHE overrides /var/cache/cordon-test/agents
#
# Its only network use is `npm ci` from the registry npm is configured for, run here in the
# machine's own namespace and never by an agent. Package install scripts do not run: gemini-cli's
# optional keytar and node-pty would fetch prebuilt binaries or Node headers from elsewhere (it
# works without them). Claude Code's postinstall, which only hard-links its native binary into
# place, runs by hand.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cache=${CORDON_AGENTS_CACHE:-/var/cache/cordon-test/agents}
# gemini-cli 0.61 needs Node.js 20 or later (Debian 12's nodejs is 18): see CORDON_AGENT_TEST_PACKAGES.
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ] || ! command -v npm >/dev/null; then
  echo "cordon agents: the agent tests need Node.js 20 or later and its npm (found: node $node_major," \
    "npm $(command -v npm || echo none)); install NodeSource's nodejs 20 package, which brings npm" >&2
  exit 1
fi
key=$({ cat "$here/package-lock.json"; echo "node $node_major"; } | sha256sum | cut -c1-16)
prefix=$cache/$key
agents="@anthropic-ai/claude-code @openai/codex @google/gemini-cli"

if [ -f "$prefix/.complete" ]; then
  echo "$prefix"
  exit 0
fi
mkdir -p "$cache"
chmod 0755 "$cache"
# Parallel test processes install once: the first holds the lock, the rest find it complete.
exec 9>"$cache/.lock"
flock -w 900 9
if [ -f "$prefix/.complete" ]; then
  echo "$prefix"
  exit 0
fi

stage=$cache/.stage-$$
trap 'rm -rf "$stage"' EXIT
rm -rf "$stage"
mkdir -p "$stage/project" "$stage/lib" "$stage/bin"
cp "$here/package.json" "$here/package-lock.json" "$stage/project/"
echo "cordon agents: installing $agents (package-lock.json) into $prefix" >&2
(cd "$stage/project" && npm ci --ignore-scripts --no-audit --no-fund --no-update-notifier --loglevel=error >&2)
mv "$stage/project/node_modules" "$stage/lib/node_modules"
(cd "$stage/lib/node_modules/@anthropic-ai/claude-code" && node install.cjs >&2)

# What npm -g does for each package's "bin": a relative link in PREFIX/bin, the target executable.
node -e '
const fs = require("fs"), path = require("path");
const [stage, ...names] = process.argv.slice(1);
for (const name of names) {
  const dir = path.join(stage, "lib/node_modules", name);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const bins = typeof pkg.bin === "string" ? { [pkg.name.split("/").pop()]: pkg.bin } : pkg.bin;
  for (const [bin, target] of Object.entries(bins)) {
    fs.chmodSync(path.join(dir, target), 0o755);
    fs.symlinkSync(path.join("../lib/node_modules", name, target), path.join(stage, "bin", bin));
  }
}' "$stage" $agents
for bin in claude codex gemini; do
  [ -x "$stage/bin/$bin" ] || { echo "cordon agents: $stage/bin/$bin is missing after npm ci" >&2; exit 1; }
done
mv "$stage/project" "$stage/npm-project"
chmod -R a+rX "$stage"
rm -rf "$prefix"
mv "$stage" "$prefix"
touch "$prefix/.complete"
echo "$prefix"
