"""Runs `python -m unittest <args>` as the repository wrote it, for autogen-bot.

    python -m autogen_unittest --autogen-report PATH [--autogen-select ID ...] -- <unittest args>

The tests are loaded exactly as `python -m unittest <args>` loads them (discovery included);
with --autogen-select only the tests of those ids run. Each test's result (its unittest id,
outcome, time, message) is written to PATH as JUnit XML; a test its class's or module's
setup kept from running (setUpClass, setUpModule raised) is an error with that message.
$AUTOGEN_TEST_TIMEOUT (seconds of CPU time) and $AUTOGEN_TEST_WALL_TIMEOUT (seconds of wall-clock
time, for a test that blocks; autogen_test_limit.py): a test past either fails with TimeoutError,
so one endless test cannot take the run with it. Console output is unittest's own.
"""
import os
import sys
import time
import traceback
import unittest
import unittest.util
from xml.sax.saxutils import escape, quoteattr

from autogen_test_limit import PerTestLimit

_LIMIT = PerTestLimit.from_env(os.environ)


def _is_holder(test):
    """unittest's stand-in for a class or module fixture (setUpClass, setUpModule, their teardowns)."""
    return not isinstance(test, unittest.TestCase)


class _Result(unittest.TextTestResult):
    records = []
    # Errors and skips of fixtures, by the holder's description ("setUpClass (tests.test_x.FooTest)").
    fixtures = {}

    def startTest(self, test):
        self._started = time.monotonic()
        self._problem = None
        if _LIMIT.usable():
            # It repeats after the first expiry: a subTest catches the TimeoutError and the test goes on
            # to its next subtest, which must be stopped too, at once, until the test ends.
            _LIMIT.start()
        super().startTest(test)

    def stopTest(self, test):
        if _LIMIT.usable():
            _LIMIT.stop()
        super().stopTest(test)
        status, message, details = self._problem or ("pass", None, None)
        _Result.records.append((test.id(), status, time.monotonic() - self._started, message, details))

    def _note(self, status, err):
        if self._problem is not None and self._problem[0] in ("fail", "error"):
            return
        kind, value, _ = err
        message = "%s: %s" % (kind.__name__, value) if kind else None
        self._problem = (status, message, "".join(traceback.format_exception(*err)))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._note("fail", err)

    def addError(self, test, err):
        super().addError(test, err)
        if _is_holder(test):
            kind, value, _ = err
            _Result.fixtures[test.id()] = ("error", "%s: %s" % (kind.__name__, value), "".join(traceback.format_exception(*err)))
            return
        self._note("error", err)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._note("fail" if issubclass(err[0], test.failureException) else "error", err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        if _is_holder(test):
            _Result.fixtures[test.id()] = ("skip", reason, None)
            return
        self._problem = ("skip", reason, None)

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._problem = ("fail", "unexpected success (the test is marked expectedFailure)", None)


def _only(suite, wanted):
    kept = unittest.TestSuite()
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            inner = _only(test, wanted)
            if inner.countTestCases():
                kept.addTest(inner)
        elif test.id() in wanted:
            kept.addTest(test)
    return kept


def _tests(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _tests(test)
        else:
            yield test


def _fixtures_of(suite):
    """Each test's id and the fixtures that could keep it from running; read before the run (a suite drops its tests as they run)."""
    return [
        (test.id(), ("setUpModule (%s)" % test.__class__.__module__, "setUpClass (%s)" % unittest.util.strclass(test.__class__)))
        for test in _tests(suite)
        if not _is_holder(test)
    ]


def _record_fixture_failures(planned):
    """A test its class's or module's setup kept from running has that setup's error (or skip) as its own
    result; a fixture error no test takes (a teardown's) is recorded under the fixture's own name."""
    seen = {record[0] for record in _Result.records}
    taken = set()
    for test_id, names in planned:
        if test_id in seen:
            continue
        for name in names:
            if name in _Result.fixtures:
                status, message, details = _Result.fixtures[name]
                if status == "error":
                    message = "%s failed: %s" % (name.split(" ")[0], message)
                _Result.records.append((test_id, status, 0.0, message, details))
                taken.add(name)
                break
    for name, (status, message, details) in _Result.fixtures.items():
        if name not in taken and status == "error":
            _Result.records.append((name, status, 0.0, message, details))


def _write_report(path):
    cases = []
    for test_id, status, seconds, message, details in _Result.records:
        body = ""
        if status in ("fail", "error"):
            tag = "failure" if status == "fail" else "error"
            body = "<%s message=%s>%s</%s>" % (tag, quoteattr(message or ""), escape(details or ""), tag)
        elif status == "skip":
            body = "<skipped message=%s/>" % quoteattr(message or "")
        cases.append('<testcase name=%s time="%.3f">%s</testcase>' % (quoteattr(test_id), seconds, body))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write('<?xml version="1.0" encoding="utf-8"?>\n<testsuites>%s</testsuites>\n' % "".join(cases))


def main(argv):
    report = None
    wanted = None
    while argv and argv[0] != "--":
        option = argv.pop(0)
        if option == "--autogen-report" and argv:
            report = argv.pop(0)
        elif option == "--autogen-select" and argv:
            wanted = (wanted or set()) | {argv.pop(0)}
        else:
            sys.exit("autogen_unittest: unknown option %r" % option)
    args = argv[1:]

    class Runner(unittest.TextTestRunner):
        resultclass = _Result

        def run(self, test):
            chosen = _only(test, wanted) if wanted is not None else test
            planned = _fixtures_of(chosen)
            try:
                return super().run(chosen)
            finally:
                _record_fixture_failures(planned)

    try:
        program = unittest.main(module=None, argv=["python -m unittest", *args], testRunner=Runner, exit=False)
    finally:
        if report:
            _write_report(report)
    result = program.result
    sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)


if __name__ == "__main__":
    main(sys.argv[1:])
