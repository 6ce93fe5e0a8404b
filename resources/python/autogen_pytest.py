"""pytest plugin loaded by autogen-bot into every pytest run it makes (`-p autogen_pytest`).

- $AUTOGEN_TEST_TIMEOUT (seconds of CPU time) and $AUTOGEN_TEST_WALL_TIMEOUT (seconds of
  wall-clock time, for a test that blocks; autogen_test_limit.py): a test past either fails
  with TimeoutError, so one looping or hanging test cannot take the whole run (and its report)
  with it. CPU time, so that a busy machine does not stop an honest test.
- $AUTOGEN_TRACE_OUT (path): records, for each test, the source lines it executed inside
  the repository and its outcome, written there as JSON at the end of the session.
- $AUTOGEN_TRACE_FOCUS (path to JSON {file: [lines]}): record only those lines (the lines the
  failing tests ran, the only ones spectrum ranking can score), each once per test: only the
  functions holding one are traced, and a function whose focus lines the test has all run is
  no longer traced in that test, so a hot loop or generator there stops costing line events.

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
# Focus mode: code object -> (path, its focus lines) or None, decided once per code object; and,
# for the running test, the focus lines of each code object it has not yet run. A line is
# recorded once per test; a code object whose focus lines the test has all run is no longer
# traced in that test (its frames stop line events), so a hot loop or generator in a focus
# function costs line events only until the test has covered what can be ranked.
_focus_code = {}
_left = {}


def _in_repo(code):
    filename = code.co_filename
    if not filename.startswith(_ROOT) or "site-packages" in filename:
        return None
    return filename[len(_ROOT):]


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


def _decide_focus(code):
    path = _in_repo(code)
    wanted = _FOCUS.get(path) if path is not None else None
    if not wanted:
        return None
    lines = {line for _, _, line in code.co_lines() if line is not None}
    lines.add(code.co_firstlineno)
    mine = frozenset(lines & wanted)
    return (path, mine) if mine else None


def _left_for(code):
    """The focus lines of `code` this test has not run yet; None when `code` has none."""
    try:
        return _left[code]
    except KeyError:
        pass
    try:
        decided = _focus_code[code]
    except KeyError:
        decided = _focus_code[code] = _decide_focus(code)
    left = _left[code] = None if decided is None else set(decided[1])
    return left


def _seen(frame, left):
    line = frame.f_lineno
    if line in left:
        left.discard(line)
        _lines.add((_focus_code[frame.f_code][0], line))


def _focus_tracer(frame, event, arg):
    left = _left_for(frame.f_code)
    if not left:
        return None
    _seen(frame, left)
    return _focus_local if left else None


def _focus_local(frame, event, arg):
    if event != "line":
        return _focus_local
    left = _left_for(frame.f_code)
    if left:
        _seen(frame, left)
    if left:
        return _focus_local
    # Every focus line of this code object already ran in this test: no more events from this frame.
    frame.f_trace_lines = False
    frame.f_trace = None
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    limit = _LIMIT
    timer = limit.usable()
    if timer:
        limit.start()
    if _TRACE_OUT:
        _lines.clear()
        _left.clear()
        tracer = _tracer if _FOCUS is None else _focus_tracer
        sys.settrace(tracer)
        threading.settrace(tracer)
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
