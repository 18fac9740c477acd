"""However a run ends, nothing is lost: `lc3jit run` as a real process, its output in a
pipe or a file, stopped by signals, writing into a closed pipe, a full disk or a closed
descriptor, reading from a closed stdin. Every such ending is checked on every engine,
and the state it reports is the state after exactly that many instructions."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lc3jit.session import ENGINES

from .conftest import engine_options
from .machine_code import branchy, write_hex
from .processes import signals_as_at_a_shell

#: Seconds a process gets to show what a test waits for (a hang fails, it does not block).
TIMEOUT = 30.0

#: Prints a line without its newline, then counts forever: R1 = iterations begun, R2 = 2 x
#: iterations done, so any state in the loop says how many instructions ran.
COUNTING = """
        .ORIG x3000
        LEA R0, HELLO
        PUTS
LOOP    ADD R1, R1, #1
        ADD R2, R2, #2
        BRnzp LOOP
HELLO   .STRINGZ "counting, no newline yet"
        .END
"""

#: COUNTING with a warm-up the test can see: it says "warm" once R3 has counted down from
#: 2,000 (8,003 instructions, past the tiered switch at 1,000), then counts on silently.
#: A signal sent after "warm" shows finds more than WARM_STEPS instructions run, however
#: fast or slow the machine is.
WARMED = """
        .ORIG x3000
        LEA R0, HELLO
        PUTS
        LD R3, LAPS
WARM    ADD R1, R1, #1
        ADD R2, R2, #2
        ADD R3, R3, #-1
        BRp WARM
        LEA R0, READY
        PUTS
LOOP    ADD R1, R1, #1
        ADD R2, R2, #2
        BRnzp LOOP
LAPS    .FILL #2000
HELLO   .STRINGZ "counting, no newline yet"
READY   .STRINGZ ", warm"
        .END
"""
WARM_STEPS = 3 + 4 * 2000 + 2

#: A line of output, again and again.
LINES = """
        .ORIG x3000
LOOP    LEA R0, LINE
        PUTS
        ADD R1, R1, #1
        BRnzp LOOP
LINE    .STRINGZ "a line of output\\n"
        .END
"""

#: Says hello, then waits for a key with GETC.
ASK = """
        .ORIG x3000
        LEA R0, HELLO
        PUTS
        GETC
        OUT
        HALT
HELLO   .STRINGZ "key? "
        .END
"""

#: Every engine translating from the first instruction, and "tiered": the region engine as a
#: plain `run` starts it, on the interpreter, switching after its first thousand instructions.
ENGINE_OPTIONS = {name: engine_options(name) for name in ENGINES} | {
    "tiered": ["--engine", "regions", "--translate-after", "1000"]
}
engines = pytest.mark.parametrize("engine", sorted(ENGINE_OPTIONS))


def lc3jit(*args: object) -> list[str]:
    return [sys.executable, "-m", "lc3jit", *map(str, args)]


@pytest.fixture
def spawn() -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start `lc3jit ARGS` with pipes (or what the test passes); never leave it running."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*args: object, **options: object) -> subprocess.Popen[bytes]:
        options = {
            "stdin": subprocess.DEVNULL,
            "stdout": subprocess.PIPE,
            "stderr": subprocess.PIPE,
            **options,
        }
        started.append(
            subprocess.Popen(lc3jit(*args), preexec_fn=signals_as_at_a_shell, **options)  # type: ignore[call-overload]
        )
        return started[-1]

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=TIMEOUT)


def source(tmp_path: Path, text: str, name: str = "prog.asm") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def read_until(stream: object, text: bytes) -> bytes:
    """Read a child's pipe until text shows, failing (not blocking) if it does not."""
    fd = stream.fileno()  # type: ignore[attr-defined]
    seen = b""
    deadline = time.monotonic() + TIMEOUT
    while text not in seen:
        if not select.select([fd], [], [], max(deadline - time.monotonic(), 0))[0]:
            raise AssertionError(f"no {text!r} within {TIMEOUT} s; seen {seen!r}")
        data = os.read(fd, 4096)
        if not data:
            raise AssertionError(f"the pipe closed before {text!r}; seen {seen!r}")
        seen += data
    return seen


def state_after(tmp_path: Path, program: Path, engine: str, steps: int) -> dict[str, object]:
    """The state a run reports after exactly `steps` instructions (--max-steps)."""
    path = tmp_path / f"after-{steps}.json"
    run = subprocess.run(
        lc3jit("run", program, *ENGINE_OPTIONS[engine], "--max-steps", steps, "--state-json", path),
        capture_output=True,
        timeout=TIMEOUT,
    )
    assert run.returncode == 4
    return json.loads(path.read_text())


#: The ending signals, with the exit code and the message each ends a run with.
each_ending_signal = pytest.mark.parametrize(
    ("signum", "code", "message"),
    [
        (signal.SIGTERM, 143, "interrupted (SIGTERM)"),
        (signal.SIGHUP, 129, "interrupted (SIGHUP)"),
        (signal.SIGINT, 130, "interrupted"),
    ],
    ids=["SIGTERM", "SIGHUP", "SIGINT"],
)


ARCHITECTURAL = ("registers", "pc", "psr", "cond", "saved_ssp", "saved_usp", "instructions")


@engines
@each_ending_signal
def test_a_signal_ends_the_run_with_its_output_and_its_exact_state(
    spawn: Callable[..., subprocess.Popen[bytes]],
    tmp_path: Path,
    engine: str,
    signum: int,
    code: int,
    message: str,
) -> None:
    program = source(tmp_path, WARMED)
    state_json = tmp_path / "state.json"
    process = spawn("run", program, *ENGINE_OPTIONS[engine], "--stats", "--state-json", state_json)
    said = read_until(process.stdout, b", warm")  # it has run WARM_STEPS: no guess at its speed
    assert said == b"counting, no newline yet, warm"  # while it runs, without a newline
    process.send_signal(signum)
    out, err = process.communicate(timeout=TIMEOUT)
    assert (process.returncode, out) == (code, b"")  # nothing more: the loop prints nothing
    lines = err.decode().splitlines()
    assert "instructions in" in lines[0]  # --stats
    assert lines[1] == f"lc3jit: {program}: {message}"
    assert lines[2].startswith("  at x")  # then where it is, and what it is doing (tests/test_runaway.py)
    state = json.loads(state_json.read_text())
    assert (state["stop_reason"], state["exit_code"]) == ("interrupted", code)
    steps = state["instructions"]
    assert steps >= WARM_STEPS  # past the warm-up (and the tiered switch): not the starting state
    after = state_after(tmp_path, program, engine, steps)
    assert {k: state[k] for k in ARCHITECTURAL} == {k: after[k] for k in ARCHITECTURAL}


@engines
def test_a_signal_while_waiting_for_a_key_ends_the_run_at_once(
    spawn: Callable[..., subprocess.Popen[bytes]], tmp_path: Path, engine: str
) -> None:
    """GETC waits on a pipe that stays open and says nothing: SIGTERM still ends it."""
    program = source(tmp_path, ASK)
    state_json = tmp_path / "state.json"
    process = spawn(
        "run", program, *ENGINE_OPTIONS[engine], "--state-json", state_json, stdin=subprocess.PIPE
    )
    read_until(process.stdout, b"key? ")
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=TIMEOUT)
    assert process.returncode == 143
    state = json.loads(state_json.read_text())
    assert (state["pc"], state["instructions"]) == (0x3002, 2)  # on GETC, not done


@engines
def test_output_reaches_a_pipe_line_by_line_while_the_program_runs(
    spawn: Callable[..., subprocess.Popen[bytes]], tmp_path: Path, engine: str
) -> None:
    process = spawn("run", source(tmp_path, LINES), *ENGINE_OPTIONS[engine])
    assert read_until(process.stdout, b"output\n").startswith(b"a line of output\n")


@engines
def test_an_unfinished_line_reaches_a_file_while_the_program_runs(
    spawn: Callable[..., subprocess.Popen[bytes]], tmp_path: Path, engine: str
) -> None:
    out = tmp_path / "out.txt"
    with out.open("wb") as f:
        process = spawn("run", source(tmp_path, COUNTING), *ENGINE_OPTIONS[engine], stdout=f)
    deadline = time.monotonic() + TIMEOUT
    while out.read_bytes() != b"counting, no newline yet":
        assert process.poll() is None and time.monotonic() < deadline, out.read_bytes()
        time.sleep(0.05)


@engines
def test_a_reader_that_goes_away_ends_the_run_quietly_with_141(
    spawn: Callable[..., subprocess.Popen[bytes]], tmp_path: Path, engine: str
) -> None:
    """`lc3jit run lines.asm | head -c 10`: head reads 10 bytes and exits; so does lc3jit."""
    state_json = tmp_path / "state.json"
    process = spawn("run", source(tmp_path, LINES), *ENGINE_OPTIONS[engine], "--state-json", state_json)
    assert process.stdout is not None
    assert os.read(process.stdout.fileno(), 10)
    process.stdout.close()
    assert process.wait(timeout=TIMEOUT) == 141
    assert process.stderr is not None and process.stderr.read() == b""
    state = json.loads(state_json.read_text())
    assert (state["stop_reason"], state["exit_code"]) == ("broken-pipe", 141)


def test_head_ends_the_pipeline_at_once(tmp_path: Path) -> None:
    """The shell pipeline itself; the timeout only turns a hang into a failure."""
    command = f"{' '.join(lc3jit('run', source(tmp_path, LINES)))} | head -c 10"
    run = subprocess.run(["sh", "-c", command], capture_output=True, timeout=TIMEOUT)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"a line of ", b"")


@engines
def test_a_full_disk_is_one_line_and_exit_1(
    spawn: Callable[..., subprocess.Popen[bytes]], tmp_path: Path, engine: str
) -> None:
    program = source(tmp_path, LINES)
    with open("/dev/full", "wb") as full:
        process = spawn("run", program, *ENGINE_OPTIONS[engine], stdout=full)
        _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 1
    assert err.decode() == f"lc3jit: {program}: cannot write the output: No space left on device\n"


def test_a_closed_stdout_is_one_line_and_exit_1(tmp_path: Path) -> None:
    program = source(tmp_path, LINES)
    run = subprocess.run(
        ["sh", "-c", f"{' '.join(lc3jit('run', program))} >&-"], capture_output=True, timeout=TIMEOUT
    )
    assert run.returncode == 1
    assert run.stderr.decode() == f"lc3jit: {program}: cannot write the output: stdout is closed\n"


def test_a_closed_stdin_is_input_that_has_ended(tmp_path: Path) -> None:
    program = source(tmp_path, ASK)
    run = subprocess.run(
        ["sh", "-c", f"{' '.join(lc3jit('run', program))} <&-"], capture_output=True, timeout=TIMEOUT
    )
    assert (run.returncode, run.stdout) == (5, b"key? ")
    said = run.stderr.decode()
    assert said.startswith(f"lc3jit: {program}: input ended while the program waits for a key\n  at x")


def test_asm_onto_a_full_disk_names_the_file(tmp_path: Path) -> None:
    run = subprocess.run(
        lc3jit("asm", source(tmp_path, ASK), "-o", "/dev/full"), capture_output=True, timeout=TIMEOUT
    )
    assert (run.returncode, run.stderr) == (1, b"lc3jit: /dev/full: No space left on device\n")


EXAMPLES = Path(__file__).parent.parent / "examples"

#: Commands other than run that write to stdout (all through typer).
WRITERS = [("disasm", EXAMPLES / "2048.obj"), ("dump", EXAMPLES / "hello.obj"), ("version",)]


@pytest.mark.parametrize("command", WRITERS, ids=[c[0] for c in WRITERS])
def test_every_command_ends_a_full_disk_or_closed_stdout_in_one_line(command: tuple[object, ...]) -> None:
    with open("/dev/full", "wb") as full:
        run = subprocess.run(lc3jit(*command), stdout=full, stderr=subprocess.PIPE, timeout=TIMEOUT)
    assert (run.returncode, run.stderr) == (1, b"lc3jit: cannot write the output: No space left on device\n")
    closed = subprocess.run(
        ["sh", "-c", f"{' '.join(lc3jit(*command))} >&-"], capture_output=True, timeout=TIMEOUT
    )
    assert (closed.returncode, closed.stderr) == (1, b"lc3jit: cannot write the output: stdout is closed\n")


def test_a_listing_into_head_ends_quietly() -> None:
    """`lc3jit disasm | head -1`: the rest of the listing has nowhere to go; no traceback."""
    command = f"{' '.join(lc3jit('disasm', EXAMPLES / '2048.obj'))} | head -1"
    run = subprocess.run(["sh", "-c", command], capture_output=True, timeout=TIMEOUT)
    assert (run.returncode, run.stderr) == (0, b"")
    assert run.stdout.split() == [b".ORIG", b"x3000"]


def test_a_long_run_into_a_file_keeps_memory_flat(tmp_path: Path) -> None:
    """Output is written as it comes: the process's peak memory does not grow with it."""
    program = source(tmp_path, LINES)

    def peak_kib(steps: int) -> int:
        script = (
            "import resource, sys; from lc3jit.cli import main; sys.argv = sys.argv[1:]\n"
            "try: main()\n"
            "except SystemExit: print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        )
        with (tmp_path / "out.txt").open("wb") as out:
            run = subprocess.run(
                [sys.executable, "-c", script, "lc3jit", "run", program, "--max-steps", str(steps)],
                stdout=out,
                stderr=subprocess.PIPE,
                timeout=TIMEOUT * 4,
            )
        assert (tmp_path / "out.txt").stat().st_size > steps  # 17 bytes every 4 instructions
        return int(run.stderr.split()[-1])

    small, large = peak_kib(100_000), peak_kib(3_000_000)  # 0.4 MB and 13 MB of output
    assert large - small < 6 * 1024


ROOT = Path(__file__).resolve().parent.parent
#: Exit codes that are not endings of a run: a file not loaded (1, as output not written), usage.
NOT_RUN_ENDINGS = {1, 2}


def _documented_exit_codes(document: Path) -> set[int]:
    """The codes in the first column of the exit-code table under "## Exit codes"."""
    section = document.read_text().split("## Exit codes", 1)[1]
    rows = [
        line.split("|")[1]
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| code")
    ]
    return {int(code) for row in rows for code in row.split(",") if code.strip().isdigit()}


@pytest.mark.parametrize("document", ["README.md", "docs/cli.md"])
def test_the_exit_codes_the_docs_give_are_those_of_the_endings(document: str) -> None:
    from lc3jit_runtime.endings import Ending

    endings = {ending.exit_code for ending in Ending}
    assert _documented_exit_codes(ROOT / document) == endings | NOT_RUN_ENDINGS


def test_endings_keep_their_json_names_and_exit_codes() -> None:
    """--state-json, bench --json and dump --format json name endings by these strings."""
    from lc3jit.cli import EXIT_CODES_HELP
    from lc3jit_runtime.endings import BY_SIGNAL, Ending

    assert {ending.reason: ending.exit_code for ending in Ending if not ending.by_signal} == {
        "halt": 0, "fault": 3, "step-limit": 4, "input-exhausted": 5, "output-limit": 6,
        "broken-pipe": 141, "output-error": 1, "breakpoint": 0, "watch": 0, "arrived": 0,
        "pause": 0, "reconfigure": 0, "time-limit": 4, "strict": 3,
    }  # fmt: skip
    assert {signum: (e.reason, e.exit_code) for signum, e in BY_SIGNAL.items()} == {
        signal.SIGHUP: ("interrupted", 129),
        signal.SIGINT: ("interrupted", 130),
        signal.SIGTERM: ("interrupted", 143),
    }
    assert all(str(ending.exit_code) in EXIT_CODES_HELP for ending in Ending)


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used so far (Linux: /proc/PID/stat's utime and stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see a child's CPU time")
@each_ending_signal
def test_a_signal_while_translating_ahead_ends_the_run_at_once(
    spawn: Callable[..., subprocess.Popen[bytes]],
    tmp_path: Path,
    translation_cache: Path,
    signum: int,
    code: int,
    message: str,
) -> None:
    """Translating 52k words of branchy code (all that fits) ahead of the run takes seconds:
    a signal then stops the translation, and the run ends as a signal ends it, before its
    first instruction, with its message and its state file (nothing of it saved in the
    cache)."""
    program = write_hex(tmp_path / "branchy.hex", branchy(52_736))
    state_json = tmp_path / "state.json"
    process = spawn("run", program, "--translate-after", "0", "--state-json", state_json)
    deadline = time.monotonic() + TIMEOUT
    while cpu_seconds(process.pid) < 1.0:  # imported, loaded, blocks found: choosing regions
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    process.send_signal(signum)
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == code
    assert err.decode().splitlines()[0] == f"lc3jit: {program}: {message}"
    state = json.loads(state_json.read_text())
    assert (state["stop_reason"], state["instructions"], state["pc"]) == ("interrupted", 0, 0x3000)
    assert not [path for path in translation_cache.rglob("*") if path.is_file()]


def test_a_signal_ends_a_simulators_run_and_its_handlers_are_put_back() -> None:
    """A Simulator's run (tiered: no handlers while its engine is made, nothing is translated
    ahead) ends at the signal, exactly, and the process's handlers are back after it."""
    from lc3jit.api import Simulator
    from lc3jit_runtime.endings import Ending

    before = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)]
    sim = Simulator(source=".ORIG x3000\nLOOP BR LOOP\n.END\n", time_limit=60.0)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    try:
        result = sim.run(check=False)
    finally:
        timer.cancel()
    assert result.outcome.ending is Ending.TERMINATED
    assert sim.machine.mem[sim.machine.pc] == 0x0FFF  # stopped at the loop's BR, exactly
    assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)] == before
