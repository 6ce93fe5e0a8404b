"""pytest plugin that turns one sandboxed pytest session into a warm runner for a validation
slot (`-p autogen_warm`, with $AUTOGEN_WARM_SOCKET naming the bot's unix socket).

The session collects once, then, instead of running the tests, serves requests: for each
it forks; the fork re-executes the source modules whose files changed since collection
(rebinding names other modules imported from them), keeps the requested items, points the
JUnit report and its own stdout/stderr at the request's files, and finishes exactly as a
cold pytest run would (same hooks, same report). The server itself never runs a test, so
whatever a candidate does (loops, os._exit, sys.modules damage) ends with its fork.

A request the fork cannot reproduce faithfully is answered "cold" and the bot runs pytest
as usual: a changed test module, conftest.py or configuration file, a changed file that is
not a loaded Python module, a test id not collected here, or a module that fails to load.
"""
import gc
import hashlib
import json
import os
import select
import signal
import socket
import sys
import time

import pytest

_SOCKET = os.environ.get("AUTOGEN_WARM_SOCKET")
# Set by the bot only inside a PID namespace of our own: strays of a fork are killed there.
_REAP = os.environ.get("AUTOGEN_WARM_REAP") == "1"
_ROOT = os.path.realpath(os.getcwd())
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".pytest_cache", ".mypy_cache", ".tox", ".nox", ".venv", "venv", ".hypothesis"}
_CONFIG_NAMES = {"conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "setup.py", ".pytest.ini"}
_MAX_FILES = 20000
_MAX_HASHED = 8 * 1024 * 1024
_RELOAD_FAILED = 86
# In a fork: (session, fd for the names it imported, modules loaded before it ran).
_FORK = None
_PRIMITIVE = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset, range)


def _digest(path, size):
    if size > _MAX_HASHED:
        return None
    try:
        with open(path, "rb") as handle:
            return hashlib.sha1(handle.read()).hexdigest()
    except OSError:
        return None


def _scan():
    """{relative path: (size, mtime_ns)} of the workspace's files; None when too many to watch."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(_ROOT):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        for name in filenames:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            found[os.path.relpath(path, _ROOT)] = (st.st_size, st.st_mtime_ns)
            if len(found) > _MAX_FILES:
                return None
    return found


class _Baseline:
    def __init__(self):
        self.stats = _scan()
        self.digests = {}
        if self.stats is not None:
            for rel, (size, _) in self.stats.items():
                self.digests[rel] = _digest(os.path.join(_ROOT, rel), size)

    def changed(self):
        """Files whose content differs from collection time (added and removed ones too)."""
        now = _scan()
        if now is None:
            return None
        out = []
        for rel, stat in now.items():
            before = self.stats.get(rel)
            if before == stat:
                continue
            if before is None or before[0] != stat[0]:
                out.append(rel)
                continue
            digest = _digest(os.path.join(_ROOT, rel), stat[0])
            if digest is None or digest != self.digests.get(rel):
                out.append(rel)
        out.extend(rel for rel in self.stats if rel not in now)
        return sorted(out)


def _workspace_modules():
    """{relative file: module} for modules loaded from the workspace."""
    found = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) if module is not None else None
        if not path:
            continue
        real = os.path.realpath(path)
        if real.startswith(_ROOT + os.sep):
            found[os.path.relpath(real, _ROOT)] = module
    return found


def _reload(module):
    """Re-executes a module's new source in its own namespace (as importlib.reload does, but from
    the source, never a stale bytecode cache), then points names other workspace modules bound
    to its old objects (`from mod import f`) at the new ones."""
    old = dict(module.__dict__)
    with open(module.__file__, "rb") as handle:
        source = handle.read()
    exec(compile(source, module.__file__, "exec", dont_inherit=True), module.__dict__)
    swaps = {}
    for name, value in old.items():
        if name.startswith("__") or name not in module.__dict__:
            continue
        new = module.__dict__[name]
        if new is not value:
            swaps[id(value)] = (name, value, new)
    if not swaps:
        return
    for other in _workspace_modules().values():
        if other is module:
            continue
        namespace = other.__dict__
        for key, value in list(namespace.items()):
            hit = swaps.get(id(value))
            # Small ints and strings are shared objects: rebind those only under the same name.
            if hit and hit[1] is value and (key == hit[0] or not isinstance(value, _PRIMITIVE)):
                namespace[key] = hit[2]


def _select(items, ids):
    chosen, seen = [], set()
    for want in ids:
        hits = [it for it in items if it.nodeid == want or it.nodeid.startswith((want + "::", want + "[", want.rstrip("/") + "/"))]
        if not hits:
            return None, want
        for item in hits:
            if id(item) not in seen:
                seen.add(id(item))
                chosen.append(item)
    return chosen, None


def _is_test_or_config(rel, test_files):
    return rel in test_files or os.path.basename(rel) in _CONFIG_NAMES


def _why_cold(changed, test_files, modules):
    if changed is None:
        return "the workspace has too many files to watch", []
    reload = []
    for rel in changed:
        if _is_test_or_config(rel, test_files):
            return "the candidate changes a test or configuration file: " + rel, []
        if not rel.endswith(".py"):
            return "the candidate changes a file that is not a Python module: " + rel, []
        if rel in modules:
            reload.append(modules[rel])
    return None, reload


def _ancestors():
    found, pid = set(), os.getpid()
    while pid > 1:
        found.add(pid)
        try:
            with open("/proc/%d/stat" % pid) as handle:
                pid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    found.add(1)
    return found


def _reap_strays():
    """Kills every process of the sandbox but the server and its ancestors (what a cold run's end does)."""
    keep = _ancestors()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in keep:
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _wait(pid, timeout):
    """(status, timed_out): waits for the fork at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status, False
            left = deadline - time.monotonic()
            if left <= 0:
                return None, True
            if pidfd is not None:
                select.select([pidfd], [], [], left)
            else:
                time.sleep(min(left, 0.005))
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _send(conn, message):
    conn.sendall((json.dumps(message) + "\n").encode("utf-8"))


def _lines(conn):
    buffer = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield json.loads(line)


def _capture_fds(config):
    """fds pytest's capture restores between tests (the session's own stdout/stderr)."""
    capman = config.pluginmanager.getplugin("capturemanager")
    multi = getattr(capman, "_global_capturing", None)
    fds = []
    for name in ("out", "err"):
        capture = getattr(multi, name, None) if multi is not None else None
        saved = getattr(capture, "targetfd_save", None)
        if isinstance(saved, int):
            fds.append(saved)
    return fds


def _serve(session):
    """Returns in a fork that is to run a request's items; never returns in the server."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(_SOCKET)
    if session.testsfailed:
        _send(conn, {"ready": False, "reason": "collection errors"})
        os._exit(0)
    baseline = _Baseline()
    test_files = {os.path.relpath(os.path.realpath(str(item.path)), _ROOT) for item in session.items}
    modules = _workspace_modules()
    _cache_statement_ranges(test_files)
    all_items = list(session.items)
    _send(conn, {"ready": True, "items": len(all_items)})
    for request in _lines(conn):
        started = time.monotonic()
        chosen, missing = _select(all_items, request["ids"])
        if chosen is None:
            _send(conn, {"status": "cold", "reason": "not collected by the warm runner: " + missing})
            continue
        reason, reload = _why_cold(baseline.changed(), test_files, modules)
        if reason:
            _send(conn, {"status": "cold", "reason": reason})
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        _prime()
        # Objects collected so far are never garbage: the fork's collections skip them
        # instead of touching (and so copying) every page of the server's heap.
        gc.freeze()
        imports_r, imports_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            conn.close()
            os.close(imports_r)
            _enter_fork(session, request, chosen, reload, imports_w)
            return
        os.close(imports_w)
        status, timed_out = _wait(pid, float(request["timeout"]))
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        if timed_out:
            os.waitpid(pid, 0)
        if _REAP:
            _reap_strays()
        _import_what_forks_imported(imports_r)
        ms = round((time.monotonic() - started) * 1000)
        if timed_out:
            _send(conn, {"status": "timeout", "ms": ms})
        elif os.WIFEXITED(status) and os.WEXITSTATUS(status) == _RELOAD_FAILED:
            _send(conn, {"status": "cold", "reason": "a changed module failed to load"})
        else:
            code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
            sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
            _send(conn, {"status": "ran", "exit": code, "signal": sig, "ms": ms})
    os._exit(0)


def _statement_lines(node):
    """The sorted statement lines pytest's get_statement_startend2 bisects (same rules)."""
    import ast

    values = []
    for x in ast.walk(node):
        if isinstance(x, (ast.stmt, ast.ExceptHandler)):
            if isinstance(x, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                values.extend(d.lineno - 1 for d in x.decorator_list)
            values.append(x.lineno - 1)
            for name in ("finalbody", "orelse"):
                val = getattr(x, name, None)
                if val:
                    values.append(val[0].lineno - 1 - 1)
    values.sort()
    return values


def _cache_statement_ranges(test_files):
    """A failure's report parses its whole test module and walks it to find the failing
    statement's lines. Test modules do not change while warm (a change runs cold), so the
    parse and the statement lines are computed once here, not in every fork. Used only if
    it agrees with pytest's own function on this module."""
    try:
        import ast
        import warnings

        from _pytest._code import code as pytest_code
        from _pytest._code import source as pytest_source

        original_range = pytest_source.getstatementrange_ast
        original_startend = pytest_source.get_statement_startend2
        nodes, lines = {}, {}
        for rel in sorted(test_files):
            with open(os.path.join(_ROOT, rel), encoding="utf-8") as handle:
                text = handle.read()
            content = str(pytest_source.Source(text))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                node = ast.parse(content, "source", "exec")
            values = _statement_lines(node)
            last = max(len(content.splitlines()), 1)
            if any(original_startend(n, node) != _bisect(values, n) for n in range(0, last, max(1, last // 10))):
                return
            nodes[content] = node
            lines[id(node)] = values

        def startend(lineno, node):
            values = lines.get(id(node))
            return _bisect(values, lineno) if values is not None else original_startend(lineno, node)

        def statement_range(lineno, source, assertion=False, astnode=None):
            if astnode is None:
                astnode = nodes.get(str(source))
            return original_range(lineno, source, assertion, astnode)

        pytest_source.get_statement_startend2 = startend
        pytest_source.getstatementrange_ast = statement_range
        pytest_code.getstatementrange_ast = statement_range
    except Exception:
        return


def _bisect(values, lineno):
    import bisect

    index = bisect.bisect_right(values, lineno)
    return values[index - 1], (values[index] if index < len(values) else None)


def _prime():
    """Fills, in the server, caches every fork would otherwise fill again: inspect's map of
    module files (built on a failure's first traceback) and the XML escaping pattern."""
    try:
        import inspect

        inspect.getmodule(None, os.path.join(_ROOT, "<autogen-warm>"))
        from _pytest.junitxml import bin_xml_escape

        bin_xml_escape("")
    except Exception:
        pass


def _from_workspace(module):
    path = getattr(module, "__file__", None) if module is not None else None
    return bool(path) and os.path.realpath(path).startswith(_ROOT + os.sep)


def _import_what_forks_imported(fd):
    """Imports in the server what a fork imported late (plugins' end-of-session modules,
    assertion helpers), so later forks find them loaded. Only modules from outside the
    workspace, whose code a candidate does not change."""
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(1024 * 1024)
    for name in data.decode("utf-8", "replace").split("\n")[:2000]:
        if not name or name in sys.modules:
            continue
        try:
            module = __import__(name)
        except BaseException:
            continue


def _report_imports(fd, before):
    try:
        fresh = [name for name, module in list(sys.modules.items()) if name not in before and not _from_workspace(module)]
        os.write(fd, "\n".join(fresh).encode("utf-8")[: 1024 * 1024 - 1])
    except BaseException:
        pass


def _enter_fork(session, request, chosen, reload, imports_w):
    global _FORK
    os.setpgid(0, 0)
    _FORK = (session, imports_w, set(sys.modules))
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    out = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    for fd in {1, 2, *_capture_fds(session.config)}:
        os.dup2(out, fd)
    os.close(out)
    try:
        for module in reload:
            _reload(module)
    except BaseException:
        os._exit(_RELOAD_FAILED)
    from _pytest.junitxml import xml_key

    xml = session.config.stash.get(xml_key, None)
    if xml is not None:
        xml.logfile = os.path.normpath(os.path.abspath(request["report"]))
    timeout = request.get("testTimeout")
    if timeout:
        plugin = sys.modules.get("autogen_pytest")
        if plugin is not None:
            # Seconds of CPU time, and of wall-clock time for a test that blocks (autogen_test_limit.py).
            plugin._LIMIT = plugin.PerTestLimit.of(timeout, request.get("testWallTimeout"))
    session.items = chosen
    session.testscollected = len(chosen)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    if not _SOCKET or session.config.option.collectonly:
        return None
    _serve(session)
    # In the fork: the request's items, as pytest's own loop runs them.
    for i, item in enumerate(session.items):
        nextitem = session.items[i + 1] if i + 1 < len(session.items) else None
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        if session.shouldfail:
            raise session.Failed(session.shouldfail)
        if session.shouldstop:
            raise session.Interrupted(session.shouldstop)
    return True


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    # The fork's report and summary are written by now: skip tearing down the server's heap.
    if _FORK is None:
        return
    session, imports_w, before = _FORK
    _report_imports(imports_w, before)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(session.exitstatus))
