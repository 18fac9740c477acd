"""`lc3jit grade TESTS SUBMISSIONS...`: a whole class graded in parallel, by submission.

Each worker process starts pytest once on the tests (imports, collection, the plugin's
set-up: paid once per worker, not once per submission), then runs every collected test
against one submission after another, as the parent hands them out. So two workers keep
two cores busy however many tests or submissions there are, and a submission's tests
share its assembly and translation.

What a submission may do to the grader: not assemble (every test fails with one line,
the assembler's messages kept once), loop forever (the step and wall-clock limits end
each test), flood output (the output cap), crash its worker (the parent notices the
process is gone, records that submission as lost, and starts another worker), or hang
in a way no limit catches (past `submission_timeout` seconds the worker is killed).

The parent writes scores.csv (a row per submission, a column per test), scores.json
(every test's record: score, message, explanation, lines never run) and scores.html.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path

import pytest

from lc3jit.grader import pytest_plugin as plugin
from lc3jit.grader.protocol import WorkerProtocol
from lc3jit.grading import report

#: A submission that is a link to a file outside the submissions' folder: not read at all.
LINK_OUT = "a link to a file outside the submissions' folder: not graded"
#: Seconds a worker may spend on one submission before it is killed.
SUBMISSION_TIMEOUT = 600.0
#: pytest's plugins whose work at each test only feeds what a report or the terminal shows
#: (captured output, log sections, the fixtures set up), which no one reads from a worker,
#: with the fixtures and options that need them: a worker leaves each out unless a test
#: asks for one of its fixtures or one of its options is given (on the command line or in
#: the ini file).
UNSHOWN_PLUGINS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "capturemanager": (("capsys", "capsysbinary", "capfd", "capfdbinary", "capteesys"), ()),
    "logging-plugin": (("caplog",), ("log_file",)),
    "setuponly": ((), ("setuponly", "setupshow")),
    "setupplan": ((), ("setupplan",)),
}


class ClassRunner:
    """A pytest plugin inside a worker: runs the collected tests once per submission."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        config = session.config
        records = config.stash[plugin.RECORDS]
        items = session.items
        # Nobody reads a worker's terminal: its reporter would keep every report of every
        # submission and, at the end, go through them once per failure (quadratic).
        config.pluginmanager.unregister(name="terminalreporter")
        leave_out_unshown(config, items)
        for item in items:  # a failure's text comes from its exception: no traceback drawn
            item.repr_failure = item._repr_failure_py = plugin.short_failure  # type: ignore[method-assign]
        protocol = WorkerProtocol(config)
        config.pluginmanager.register(protocol, "lc3jit-worker-protocol")
        protocol.set_up_direct_parameters(items)
        self.connection.send(("ready", None))
        while (path := self.connection.recv()) is not None:
            start = time.monotonic()
            program = [Path(path)]
            config.stash[plugin.SETTINGS].program = program
            plugin.load.cache_clear()  # one submission's images at a time, however big the class
            config.stash[plugin.PROGRAM] = plugin.load(plugin.absolute(program))
            records.clear()
            for index, item in enumerate(items):
                following = items[index + 1] if index + 1 < len(items) else None
                # pytest's protocol hook, as `pytest` runs each test (the records come from
                # its reports), which makes each test's request afresh; its wrappers wrap
                # the worker's protocol (protocol.py), which leaves out the reports of
                # setups and teardowns that raised nothing
                item.ihook.pytest_runtest_protocol(item=item, nextitem=following)
            record = plugin.submission(config, time.monotonic() - start)
            record.program = path
            self.connection.send(("done", record.as_dict()))
        # The class is graded and the worker ends. pytest's end collects the garbage (twice,
        # for finalizers' unraisable exceptions), walking all the cycles every submission
        # left: about a second a worker. Frozen, they are left to the process's exit.
        gc.freeze()
        return True


def leave_out_unshown(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Unregister the UNSHOWN_PLUGINS that no test and no option needs."""
    used = {name for item in items for name in getattr(item, "fixturenames", ())}
    for name, (fixtures, options) in UNSHOWN_PLUGINS.items():
        needed = not used.isdisjoint(fixtures) or any(_given(config, option) for option in options)
        if not needed and config.pluginmanager.get_plugin(name) is not None:
            config.pluginmanager.unregister(name=name)


def _given(config: pytest.Config, option: str) -> bool:
    """Is the option given, on the command line or (for those that have one) in the ini file?"""
    if config.getoption(option, None):
        return True
    try:
        return bool(config.getini(option))
    except ValueError:  # no ini value of that name
        return False


def _worker(connection: Connection, arguments: list[str]) -> None:
    """A worker process: pytest on the tests, quiet, with the ClassRunner."""
    with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        code = pytest.main(arguments, plugins=[ClassRunner(connection)])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
        connection.send(("error", f"pytest could not start on the tests (exit code {int(code)})"))


def start_method() -> str:
    """How workers start: on Linux, forked from this process while it runs no other thread
    (pytest and lc3jit come imported: a worker's start costs some 0.76 billion machine
    instructions less, a quarter of it, on 3.11), else spawned (a fork copies no thread but
    the one that forks, and macOS's system libraries do not survive one)."""
    return "fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn"


@dataclass
class Worker:
    process: multiprocessing.process.BaseProcess
    connection: Connection
    submission: str | None = None
    started: float = 0.0
    ready: bool = False


@dataclass
class Grader:
    """Hands submissions to workers and collects their records."""

    tests: Path
    submissions: list[str]
    jobs: int = 2
    options: list[str] = field(default_factory=list)  # more pytest arguments (the plugin's options)
    submission_timeout: float = SUBMISSION_TIMEOUT

    def run(self) -> list[report.SubmissionRecord]:
        context = multiprocessing.get_context(start_method())
        pending = list(self.submissions)
        results: dict[str, report.SubmissionRecord] = {}
        workers = [self._start(context) for _ in range(max(1, min(self.jobs, len(pending))))]
        finished: list[Worker] = []
        while workers:
            ready = wait([w.connection for w in workers] + [w.process.sentinel for w in workers], timeout=1.0)
            for worker in list(workers):
                if worker.connection in ready:
                    try:
                        kind, data = worker.connection.recv()
                    except (EOFError, OSError):
                        kind, data = "died", None
                else:
                    kind, data = ("died", None) if worker.process.sentinel in ready else ("", None)
                if kind == "error":
                    raise RuntimeError(str(data))
                if kind == "done":
                    record = report.SubmissionRecord.from_dict(data)
                    results[record.program] = record
                    worker.submission = None
                if kind == "ready":
                    worker.ready = True
                if kind == "died" and not worker.ready:
                    raise RuntimeError(
                        f"a grading worker died as it started (exit {worker.process.exitcode})"
                    )
                if kind in ("ready", "done"):
                    self._hand_out(worker, pending)
                    if worker.submission is None:
                        worker.connection.send(None)
                        workers.remove(worker)
                        finished.append(worker)
                overdue = worker.submission and time.monotonic() - worker.started > self.submission_timeout
                if kind == "died" or overdue:
                    workers.remove(worker)
                    if overdue:
                        worker.process.kill()
                    worker.process.join()
                    if worker.submission is not None:
                        how = (
                            "took too long"
                            if overdue
                            else f"crashed its grader (exit {worker.process.exitcode})"
                        )
                        results[worker.submission] = report.SubmissionRecord(
                            worker.submission, problem=f"the submission {how}"
                        )
                    if pending:
                        workers.append(self._start(context))
        for worker in finished:  # gone when the grade is written (and their CPU time counted)
            worker.process.join()
        return [results[s] for s in self.submissions if s in results]

    def _start(self, context: multiprocessing.context.BaseContext) -> Worker:
        parent, child = context.Pipe()
        arguments = [
            str(self.tests),
            "-p",
            "no:cacheprovider",
            "-qq",
            "-p",
            "no:xdist",
            "-s",
            "-p",
            "no:warnings",
        ]
        arguments += ["--lc3-program", self.submissions[0], *self.options]
        process = context.Process(target=_worker, args=(child, arguments), daemon=True)
        process.start()
        child.close()
        return Worker(process, parent)

    @staticmethod
    def _hand_out(worker: Worker, pending: list[str]) -> None:
        if pending:
            worker.submission = pending.pop(0)
            worker.started = time.monotonic()
            worker.connection.send(worker.submission)


def _fill_missing_tests(records: list[report.SubmissionRecord]) -> None:
    """A submission that lost its worker gets every test, failed, so its row has all columns."""
    model = next((r.tests for r in records if r.tests), [])
    for record in records:
        if not record.tests:
            record.tests = [
                report.TestRecord(t.name, False, 0.0, t.max_score, record.problem, visibility=t.visibility)
                for t in model
            ]


def grade_class(
    tests: Path, submissions: list[Path], out: Path, jobs: int = 2, options: list[str] | None = None
) -> list[report.SubmissionRecord]:
    """Grade every submission; write scores.csv, scores.json and scores.html into out, naming
    each submission (and every path in a message) relative to the submissions' folder."""
    paths = [os.path.abspath(s) for s in submissions]
    root = os.path.commonpath([os.path.dirname(p) for p in paths]) if paths else ""
    outside = {p for p in paths if not os.path.realpath(p).startswith(os.path.realpath(root) + os.sep)}
    inside = [p for p in dict.fromkeys(paths) if p not in outside]
    graded = Grader(tests, inside, jobs, options or []).run() if inside else []
    lost = {p: report.SubmissionRecord(p, problem=LINK_OUT) for p in outside}
    found = {r.program: r for r in graded} | lost
    records = [found[p].relative_to(root) for p in paths if p in found]
    _fill_missing_tests(records)
    out.mkdir(parents=True, exist_ok=True)
    (out / "scores.csv").write_text(report.class_csv(records))
    report.write_reports(records, out / "scores.json")
    return records
