"""One test's time limit, for autogen-bot's pytest plugin and unittest wrapper.

$AUTOGEN_TEST_TIMEOUT (seconds of CPU time): a test that has used that much CPU time (user and
system, every thread of the process: ITIMER_PROF) fails with TimeoutError. A loop in the code
under test burns CPU at full rate, so it reaches the limit as soon as a quiet machine would let
it; a busy machine does not make a test's CPU time longer, so an honest test is not stopped
because other work shares the cores.

$AUTOGEN_TEST_WALL_TIMEOUT (seconds of wall-clock time, default 10 x the CPU limit): a test that
blocks (sleeps, waits on a lock, a socket, a child process) uses no CPU; it is stopped after this.

The TimeoutError's message says which limit stopped the test:
"timed out after 2 s of CPU time (...)" or "timed out after 20 s of wall-clock time (...)".
Both timers repeat after their first expiry: a test that swallows the TimeoutError (a subTest,
a bare `except`) and goes on is stopped again, at once, until it ends.
"""
import signal
import threading

WALL_FACTOR = 10
_REPEAT = 0.2


class PerTestLimit:
    def __init__(self, cpu_seconds, wall_seconds):
        self.cpu = cpu_seconds
        self.wall = wall_seconds

    @classmethod
    def of(cls, cpu, wall=0):
        cpu = float(cpu or 0)
        wall = float(wall or 0)
        return cls(cpu, wall if wall > 0 else cpu * WALL_FACTOR)

    @classmethod
    def from_env(cls, env):
        return cls.of(env.get("AUTOGEN_TEST_TIMEOUT"), env.get("AUTOGEN_TEST_WALL_TIMEOUT"))

    def usable(self):
        return (
            self.cpu > 0
            and hasattr(signal, "setitimer")
            and hasattr(signal, "ITIMER_PROF")
            and threading.current_thread() is threading.main_thread()
        )

    def start(self):
        signal.signal(signal.SIGPROF, self._on_cpu)
        signal.signal(signal.SIGALRM, self._on_wall)
        signal.setitimer(signal.ITIMER_PROF, self.cpu, _REPEAT)
        signal.setitimer(signal.ITIMER_REAL, self.wall, _REPEAT)

    def stop(self):
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)

    def _on_cpu(self, signum, frame):
        raise TimeoutError("timed out after %g s of CPU time (the per-test limit, AUTOGEN_TEST_TIMEOUT)" % self.cpu)

    def _on_wall(self, signum, frame):
        raise TimeoutError(
            "timed out after %g s of wall-clock time (the per-test limit for a test that blocks, "
            "AUTOGEN_TEST_WALL_TIMEOUT)" % self.wall
        )
