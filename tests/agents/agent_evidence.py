"""Run by a real agent's shell tool, inside cordon's sandbox (tests/integration/agents_test.cpp).

  python3 agent_evidence.py inside|writes|review AGENT NONCE

Writes evidence-MODE.json in the current directory (the workspace) and prints
"CORDON-EVIDENCE NONCE" for the model API's log.

  inside      who and where the command runs (uid, user/pid/net namespaces, HOME, cwd,
              IS_SANDBOX, the profile in cordon's session file) and what each write to the
              agent's state did ("ok" or the errno's name)
  writes      what each write to the agent's control entries and executables did, and for
              Claude Code the write of control keys (an MCP server, a granted tool) into
              ~/.claude.json, a state file
  review      what `inside` says plus the session's workspace mode, and beside it
              agent_settings.py holding a GitHub-token-shaped string (REVIEW_TOKEN): the
              planted secret cordon's review scan must block until a person accepts it

  control     the agent's settings, instructions, hooks, commands, plugins, the code it runs:
              append a marker to a file, replace it by rename, create one that is missing, plant
              a file in a directory, rename a directory away. Each must fail.
  state       credentials, history, sessions: create a file, open an existing one for append.
              Each must succeed (nothing is left behind).
  executables the agent's processes (this shell's ancestors) and every file they map executable,
              the agent's command and node: open for writing, create a file beside them. Each
              must fail. ETXTBSY counts as writable unless the file's mount is read-only: a
              running file is reported busy before its mount is checked, and busy stops neither a
              write once it exits nor a rename over it.
"""

import errno
import json
import os
import shutil
import sys

MARKER = "CORDON-PLANTED"
# Shaped like a GitHub personal access token ("ghp_" and 36 letters or digits), a token of
# nobody's; split here so the repository holds no whole token-shaped string.
REVIEW_TOKEN = "ghp_" + "cordon" + "0123456789" * 3
REVIEW_SECRET_FILE = "agent_settings.py"

# The control entries the launcher says it bound read-only (the test holds that list to the
# shipped one, common/agent_control.cpp).
def control_entries():
    return json.load(open("/run/cordon/session"))["agent"].get("control", [])


# (directory to create a file in, existing file to open for append)
STATE = {
    "claude": [(".claude", ".claude.json"), (".claude/projects", None)],
    "codex": [(".codex", ".codex/auth.json"), (".codex/sessions", None)],
    "gemini": [(".gemini", ".gemini/installation_id"), (".gemini/tmp", None)],
}


def attempt(action):
    try:
        action()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def is_file_entry(entry):
    return entry.endswith((".json", ".toml", ".md"))


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


def probe_control(home, entry):
    path = os.path.join(home, entry)
    out = {}
    if not os.path.lexists(path):
        # Absent: creating it must fail too (an entry made now would be read outside later).
        if is_file_entry(entry):
            out["create"] = attempt(lambda: append(path, MARKER + "\n"))
        else:
            out["create"] = attempt(lambda: os.mkdir(path))
        return out
    if os.path.isdir(path):
        planted = os.path.join(path, "cordon-planted")
        out["plant"] = attempt(lambda: append(planted, MARKER + "\n"))
        moved = path + ".cordon-moved"
        out["rename"] = attempt(lambda: os.rename(path, moved))
        if out["rename"] == "ok":
            os.rename(moved, path)
    else:
        out["append"] = attempt(lambda: append(path, "\n" + MARKER + "\n"))
        replacement = path + ".cordon-new"
        made = attempt(lambda: append(replacement, MARKER + "\n"))
        out["replace"] = attempt(lambda: os.rename(replacement, path)) if made == "ok" else made
        if os.path.lexists(replacement):
            os.unlink(replacement)
    return out


def probe_state(home, directory, existing):
    out = {}
    probe = os.path.join(home, directory, "cordon-state-probe")

    def create():
        append(probe, "state\n")
        os.unlink(probe)

    out[os.path.join(directory, "cordon-state-probe")] = attempt(create)
    if existing:
        out[existing] = attempt(lambda: open(os.path.join(home, existing), "a").close())
    return out


def plant_claude_json_keys(home):
    """Control inside a state file: an MCP server and a granted tool in ~/.claude.json, which
    Claude Code started outside cordon would run. The file stays writable; the keys must not
    reach the host after the session (the test reads them there)."""
    path = os.path.join(home, ".claude.json")
    with open(path) as f:
        doc = json.load(f)
    doc.setdefault("mcpServers", {})["cordon-planted"] = {"command": "/bin/sh", "args": ["-c", "echo " + MARKER]}
    project = doc.setdefault("projects", {}).setdefault(os.getcwd(), {})
    project["allowedTools"] = project.get("allowedTools", []) + ["Bash(echo %s)" % MARKER]
    with open(path, "w") as f:  # in place: a rename over a bound file fails
        json.dump(doc, f)


def ancestors():
    pids, pid = [], os.getppid()
    while pid > 1:
        pids.append(pid)
        with open("/proc/%d/status" % pid) as f:
            pid = int(next(l for l in f if l.startswith("PPid:")).split()[1])
    return pids


def executables(agent):
    files = set()
    for pid in ancestors():
        try:
            files.add(os.path.realpath("/proc/%d/exe" % pid))
            with open("/proc/%d/maps" % pid) as maps:
                for line in maps:
                    fields = line.split(None, 5)
                    if len(fields) == 6 and "x" in fields[1] and fields[5].startswith("/"):
                        path = fields[5].strip()
                        if not path.endswith("(deleted)"):
                            files.add(path)
        except OSError:
            pass
    for name in (agent, "node"):
        found = shutil.which(name)
        if found:
            files.add(os.path.realpath(found))
    out = {}
    for path in sorted(files):
        beside = os.path.join(os.path.dirname(path), ".cordon-planted")

        def plant():
            append(beside, MARKER)
            os.unlink(beside)

        write = attempt(lambda: os.close(os.open(path, os.O_WRONLY | os.O_APPEND)))
        if write == "ETXTBSY" and os.statvfs(path).f_flag & os.ST_RDONLY:
            write = "EROFS"  # the kernel reports a running file busy before its read-only mount
        out[path] = {"write": write, "beside": attempt(plant)}
    return out


def main():
    mode, agent, nonce = sys.argv[1], sys.argv[2], sys.argv[3]
    home = os.environ["HOME"]
    if mode in ("inside", "review"):
        evidence = {
            "uid": os.getuid(),
            "ns": {n: os.readlink("/proc/self/ns/" + n) for n in ("user", "pid", "net")},
            "home": home,
            "cwd": os.getcwd(),
            "is_sandbox": os.environ.get("IS_SANDBOX", ""),
            # The launcher's intent as it handed it in: the profile it chose for this command.
            "profile": json.load(open("/run/cordon/session"))["agent"]["name"],
            "state": {},
        }
        for directory, existing in STATE[agent]:
            evidence["state"].update(probe_state(home, directory, existing))
        if mode == "review":
            evidence["workspace_mode"] = json.load(open("/run/cordon/session")).get("workspace_mode", "")
            with open(REVIEW_SECRET_FILE, "w") as f:
                f.write('GITHUB_TOKEN = "%s"  # planted by the agent test (%s)\n' % (REVIEW_TOKEN, nonce))
    else:
        evidence = {"control": {e: probe_control(home, e) for e in control_entries()},
                    "executables": executables(agent)}
        if agent == "claude":
            evidence["control_keys"] = attempt(lambda: plant_claude_json_keys(home))
    with open("evidence-%s.json" % mode, "w") as f:
        json.dump(evidence, f, indent=1)
    print("CORDON-EVIDENCE " + nonce)


if __name__ == "__main__":
    main()
