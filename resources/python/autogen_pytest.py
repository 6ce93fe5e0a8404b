"""pytest plugin loaded by autogen-bot into every pytest run it makes (`-p autogen_pytest`).

- $AUTOGEN_TEST_TIMEOUT (seconds of CPU time) and $AUTOGEN_TEST_WALL_TIMEOUT (seconds of
  wall-clock time, for a test that blocks; autogen_test_limit.py): a test past either fails
  with TimeoutError, so one looping or hanging test cannot take the whole run (and its report)
  with it. CPU time, so that a busy machine does not stop an honest test.
- $AUTOGEN_TRACE_OUT (path): records, for each test, the source lines it executed inside
  the repository and its outcome, written there as JSON at the end of the session.
- $AUTOGEN_TRACE_FOCUS (path to JSON {file: [lines]}): trace only the functions holding one
  of those lines (the lines the failing tests ran); every other call is left untraced, so
  the passing tests of a large suite run at close to their own speed.

It changes nothing else about how the repository's tests run.
"""
import json
import os
import sys
import threading

import pytest

from autogen_test_limit import PerTestLimit

_ROOT = os.path.realpath(os.getcwd()) + os.sep
_TRACE_OUT = os.environ.get("AUTOGEN_TRACE_OUT")
# The warm server (autogen_warm.py) replaces it per request.
_LIMIT = PerTestLimit.from_env(os.environ)
_FOCUS_PATH = os.environ.get("AUTOGEN_TRACE_FOCUS")
_results = {}
_lines = set()


def _load_focus():
    if not _FOCUS_PATH:
        return None
    with open(_FOCUS_PATH, encoding="utf-8") as handle:
        return {path: set(lines) for path, lines in json.load(handle).items()}


_FOCUS = _load_focus()
# Code object -> its repository-relative path when traced, else None; decided once per code object.
_decided = {}


def _in_repo(code):
    filename = code.co_filename
    if not filename.startswith(_ROOT) or "site-packages" in filename:
        return None
    path = filename[len(_ROOT):]
    if _FOCUS is None:
        return path
    wanted = _FOCUS.get(path)
    if not wanted:
        return None
    lines = {line for _, _, line in code.co_lines() if line is not None}
    lines.add(code.co_firstlineno)
    return path if lines & wanted else None


def _tracer(frame, event, arg):
    code = frame.f_code
    try:
        path = _decided[code]
    except KeyError:
        path = _decided[code] = _in_repo(code)
    if path is None:
        return None
    _lines.add((path, frame.f_lineno))
    return _local_tracer


def _local_tracer(frame, event, arg):
    if event == "line":
        _lines.add((_decided[frame.f_code], frame.f_lineno))
    return _local_tracer


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    limit = _LIMIT
    timer = limit.usable()
    if timer:
        limit.start()
    if _TRACE_OUT:
        _lines.clear()
        sys.settrace(_tracer)
        threading.settrace(_tracer)
    try:
        yield
    finally:
        if timer:
            limit.stop()
        if _TRACE_OUT:
            sys.settrace(None)
            threading.settrace(None)
            lines = {}
            for path, line in _lines:
                lines.setdefault(path, []).append(line)
            entry = _results.setdefault(item.nodeid, {})
            entry["lines"] = {path: sorted(found) for path, found in lines.items()}


def pytest_runtest_logreport(report):
    if not _TRACE_OUT:
        return
    entry = _results.setdefault(report.nodeid, {})
    if report.when == "call" or report.outcome != "passed":
        if entry.get("outcome") in (None, "passed"):
            entry["outcome"] = report.outcome


def pytest_sessionfinish(session, exitstatus):
    if _TRACE_OUT:
        with open(_TRACE_OUT, "w", encoding="utf-8") as handle:
            json.dump(_results, handle)
