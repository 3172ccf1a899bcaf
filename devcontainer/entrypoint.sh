#!/bin/sh
# cordon devcontainer entrypoint: with cordon installed from its Debian package (the image's
# Dockerfile), shim the agents that are installed, install the verify-sandbox skill, and refuse
# to start a session unless `cordon doctor` passes. Then run the container's command.
#
# Environment (all optional):
#   CORDON_AGENTS      agents to shim when present  (unset: "claude codex gemini"; empty: none)
#   CORDON_USER        the user sessions run as (devcontainer.json remoteUser): receives the
#                      verify-sandbox skill in its home, owned by it (default: none)
#   CORDON_SKILL_HOME  home that receives the skill (default CORDON_USER's home, else $HOME)
#   CORDON_STAGE_ROOT  the root cordon is installed under, instead of / (tests stage one here)
set -eu

root="${CORDON_STAGE_ROOT:-}"
agents="${CORDON_AGENTS-claude codex gemini}"  # set but empty: none
user="${CORDON_USER:-}"
user_home=""
if [ -n "$user" ]; then
  user_home=$(getent passwd "$user" | cut -d: -f6) || true
  [ -n "$user_home" ] || { printf 'cordon-entrypoint: CORDON_USER %s has no account in the image\n' "$user" >&2; exit 1; }
fi
skill_home="${CORDON_SKILL_HOME:-${user_home:-${HOME:-/root}}}"

say() { printf 'cordon-entrypoint: %s\n' "$*" >&2; }

# 1. cordon, as the package installs it.
cordon="$root/usr/bin/cordon"
libexec="$root/usr/libexec/cordon"
if [ ! -x "$cordon" ]; then
  say "refusing to start: no $cordon (install the cordon package in the image: see devcontainer/Dockerfile)"
  exit 1
fi
say "$("$cordon" --version | head -n 1) ($cordon)"

# 2. Shims: typing an agent's name runs it under cordon.
for agent in $agents; do
  if "$cordon" shim status | grep -q "^  $agent:"; then
    say "$agent already shimmed"
  else
    for candidate in "$root/usr/local/bin/$agent" "$root/usr/bin/$agent"; do
      if [ -x "$candidate" ]; then
        # An agent left unshimmed would run outside any sandbox when its name is typed: refuse
        # to start instead (a non-root container cannot write the shim beside cordon).
        if ! problem=$("$cordon" shim install --agent "$agent" --binary "$candidate" 2>&1 >/dev/null); then
          say "$problem"
          say "refusing to start: $agent ($candidate) would run unsandboxed, and it cannot be shimmed as uid $(id -u);" \
            "shim it in the image (RUN cordon shim install --agent $agent --binary $candidate)," \
            "or leave it out of CORDON_AGENTS"
          exit 1
        fi
        say "shimmed $agent ($candidate)"
        break
      fi
    done
  fi
done

# 3. The agent-driven audit, in the formats Claude Code and Codex read.
install_skill() {  # $1 source under libexec, $2 destination directory
  [ -f "$libexec/$1" ] || return 0
  mkdir -p "$2"
  cp "$libexec/$1" "$2/"
  chmod 0644 "$2/$(basename "$1")"
  # The user's agent state directories must stay the user's: made here by root, handed over
  # (the agent writes its own files beside the skill).
  if [ -n "$user" ] && [ "$skill_home" = "$user_home" ]; then
    top="$2"
    while [ "$(dirname "$top")" != "$skill_home" ]; do top=$(dirname "$top"); done
    chown -R "$user": "$top"
  fi
}
install_skill claude/commands/verify-sandbox.md "$skill_home/.claude/commands"
install_skill codex/prompts/verify-sandbox.md "$skill_home/.codex/prompts"

# 4. The tun device for the users' jailed sessions. `--device=/dev/net/tun` gives the container
# a node of its own with the host's mode, and a host without udev keeps 0600 (root only): the
# remote user's sessions could not open it. Made 0666 here, in the container's own /dev only
# (the mode udev gives it; opening it grants nothing without CAP_NET_ADMIN in a network
# namespace). Only the real tun device (character 10:200) is touched.
if [ -c /dev/net/tun ] && [ "$(stat -c '%t:%T' /dev/net/tun)" = "a:c8" ] &&
   [ "$(( 0$(stat -c '%a' /dev/net/tun) & 06 ))" -ne 6 ]; then
  chmod 0666 /dev/net/tun && say "made /dev/net/tun usable by the sessions' users (mode 0666, as udev makes it)"
fi

# 5. No session on a host that cannot enforce the sandbox.
if ! "$cordon" doctor; then
  say "refusing to start: cordon doctor reported FAIL (fix the rows above; see devcontainer/README.md)"
  exit 1
fi

# 6. The container's command.
if [ "$#" -gt 0 ]; then exec "$@"; fi
exec sleep infinity
