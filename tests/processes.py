"""What every test of a real `lc3jit` process needs, whoever started the suite.

A suite started in the background (`nohup`, `&` in a script, some CI runners) hands its
children SIGINT and SIGHUP ignored, and a program keeps ignored signals ignored (as lc3jit
does, as Unix tools do). Tests about a run someone can stop must give their child the
dispositions it would have at a shell prompt, or a Ctrl-C they send is lost and the test
waits on a run that never ends."""

from __future__ import annotations

import signal
import subprocess
import threading


def signals_as_at_a_shell() -> None:
    """In the child (a `preexec_fn`): SIGINT and SIGHUP back to their defaults."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def drain_and_wait(process: subprocess.Popen[bytes], timeout: float) -> int:
    """Read the child's stdout to its end, keeping nothing, and return its exit status.

    A child that floods its pipe must never block on it, and one that does not stop must
    fail the test after `timeout` seconds, not fill the test's memory with its output."""
    assert process.stdout is not None
    stdout = process.stdout
    reader = threading.Thread(target=lambda: all(iter(lambda: stdout.read(1 << 16), b"")), daemon=True)
    reader.start()
    try:
        return process.wait(timeout)
    finally:
        process.kill()
        process.wait()
        reader.join()
