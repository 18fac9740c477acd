"""A hostile program ends within the limits a grader sets: strings
with no end, floods of output, code that is expensive to translate; on every engine,
through the CLI (a real process where signals matter), the API and the pytest plugin."""

from __future__ import annotations

import errno
import json
import marshal
import os
import random
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lc3jit.api import MachineFaultError, OutputLimitError, Simulator
from lc3jit.cli import app
from lc3jit.translator.blocks import find_blocks
from lc3jit.translator.regions.ahead import AHEAD_COPIES
from lc3jit_runtime.compiled import PAYLOAD_MARK
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import DDR
from lc3jit_runtime.outcome import Outcome

from .conftest import engine_options, make_machine, run_on
from .machine_code import HALT, ORIGIN, PUTS, PUTSP, execute, op
from .processes import drain_and_wait, signals_as_at_a_shell

LC3JIT = [sys.executable, "-m", "lc3jit"]
EXAMPLES = Path(__file__).parent.parent / "examples"
#: Generous: only a hang fails it.
HANG = 120


def write_obj(path: Path, words: list[int], origin: int = 0x3000) -> Path:
    path.write_bytes(struct.pack(f">{len(words) + 1}H", origin, *words))
    return path


def endless_string(trap_word: int) -> list[int]:
    """The issue's reproduction: `.ORIG x0000`, the trap (R0 = 0: the string starts at the
    trap itself), then `.FILL x41` to the end of memory: no x0000 word anywhere."""
    return [trap_word] + [0x41] * 0xFFFF


@pytest.mark.parametrize(("trap_word", "name"), [(PUTS, "PUTS"), (PUTSP, "PUTSP")])
def test_a_string_with_no_end_is_a_fault(engine: str, trap_word: int, name: str) -> None:
    run = execute(engine, endless_string(trap_word), origin=0, max_steps=10)
    assert run.outcome.reason == "fault"
    assert run.outcome.exit_code == 3
    assert run.outcome.message == f"{name} at x0000: no x0000 word ends the string at x0000 (all memory read)"
    assert (run.machine.pc, run.machine.icount, run.output) == (0, 0, b"")


@pytest.mark.parametrize(("trap_word", "text"), [(PUTS, b"AB"), (PUTSP, b"ABC")])
def test_a_string_may_wrap_around_memory(engine: str, trap_word: int, text: bytes) -> None:
    run = execute(engine, [trap_word, HALT], regs={0: 0xFFFE}, data={0xFFFE: [0x41, 0x4342], 0: [0]})
    assert run.outcome.reason == "halt"
    assert run.output == text + b"HALT\n"


def test_an_endless_string_on_the_command_line(tmp_path: Path) -> None:
    program = write_obj(tmp_path / "fill.obj", endless_string(PUTS), origin=0)
    done = subprocess.run(
        [*LC3JIT, "run", "--max-steps", "10", str(program)], capture_output=True, timeout=HANG
    )
    assert done.returncode == 3
    assert done.stdout == b""
    assert done.stderr.decode() == (
        f"lc3jit: {program}: PUTS at x0000: no x0000 word ends the string at x0000 (all memory read)\n"
    )


def test_an_endless_string_through_the_api(engine: str) -> None:
    sim = Simulator(Image(0, tuple(endless_string(PUTSP))), engine=engine, max_steps=10)
    with pytest.raises(MachineFaultError, match="PUTSP at x0000: no x0000 word"):
        sim.run()
    assert sim.instructions == 0


#: A loop around PUTS of a 30,000-character string: floods the output.
LONG = 30_000
FLOOD = [op("LEA", dr=0, pcoffset9=2), PUTS, op("BR", nzp=0b111, pcoffset9=-3)] + [0x41] * LONG + [0]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_flood_of_output_stops_at_a_signal(tmp_path: Path, engine: str, signum: int) -> None:
    """A real process: the signal is taken at the next instruction, whatever the engine."""
    program = write_obj(tmp_path / "flood.obj", FLOOD)
    process = subprocess.Popen(
        [*LC3JIT, "run", "--engine", engine, "--translate-after", "0", str(program)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        preexec_fn=signals_as_at_a_shell,
    )
    assert process.stdout is not None
    assert process.stdout.read(LONG) == b"A" * LONG  # it runs
    process.send_signal(signum)
    assert drain_and_wait(process, HANG) == 128 + signum


def test_the_output_limit_cuts_the_output_and_stops_after_the_instruction(engine: str) -> None:
    """Three PUTS of LONG characters under a limit of 2.5 LONG: the third is cut and
    completes, and the run ends before the next instruction."""
    machine, display = make_machine(FLOOD)
    machine.console.max_output = LONG * 5 // 2
    run = run_on(engine, machine, display)
    message = f"the output limit ({LONG * 5 // 2:,} bytes) was reached"
    assert run.outcome == Outcome(Ending.OUTPUT_LIMIT, message)
    assert (run.outcome.reason, run.outcome.exit_code) == ("output-limit", 6)
    assert run.output == b"A" * (LONG * 5 // 2)
    assert (run.machine.icount, run.machine.pc) == (8, ORIGIN + 2)


def test_output_to_the_device_register_is_limited_too(engine: str) -> None:
    """OUT through DDR in a loop: a store, not a trap."""
    loop = [op("STI", sr=0, pcoffset9=1), op("BR", nzp=0b111, pcoffset9=-2), DDR]
    machine, display = make_machine(loop)
    machine.console.max_output = 1000
    run = run_on(engine, machine, display)
    assert run.outcome.reason == "output-limit"
    assert run.output == b"\0" * 1000
    assert (run.machine.icount, run.machine.pc) == (1 + 2 * 1000, ORIGIN + 1)


def test_the_output_limit_on_the_command_line(tmp_path: Path, engine: str) -> None:
    program = write_obj(tmp_path / "flood.obj", FLOOD)
    state = tmp_path / "state.json"
    done = subprocess.run(
        [
            *LC3JIT,
            "run",
            *engine_options(engine),
            "--max-output",
            "70000",
            "--state-json",
            str(state),
            str(program),
        ],
        capture_output=True,
        timeout=HANG,
    )
    assert (done.returncode, done.stdout) == (6, b"A" * 70_000)
    assert done.stderr.decode() == f"lc3jit: {program}: the output limit (70,000 bytes) was reached\n"
    assert json.loads(state.read_text())["stop_reason"] == "output-limit"
    assert json.loads(state.read_text())["instructions"] == 8


def test_the_output_limit_through_typer(tmp_path: Path) -> None:
    program = write_obj(tmp_path / "flood.obj", FLOOD)
    result = CliRunner().invoke(app, ["run", "--max-output=10", str(program)], catch_exceptions=False)
    assert (result.exit_code, result.stdout) == (6, "A" * 10)


def test_the_output_limit_through_the_api(engine: str) -> None:
    sim = Simulator(Image(ORIGIN, tuple(FLOOD)), engine=engine, max_output=LONG + 1)
    limit = r"the output limit \(30,001 bytes\) was reached at x3002"
    with pytest.raises(OutputLimitError, match=limit) as raised:
        sim.run()
    assert raised.value.exit_code == 6
    assert sim.output == "A" * (LONG + 1)
    assert sim.instructions == 5


GRADER = """
import pytest
from lc3jit.api import MachineFaultError, OutputLimitError

def test_flood(lc3):
    sim = lc3()
    with pytest.raises(OutputLimitError):
        sim.run()
    assert len(sim.output) == 65_536  # the plugin's default --lc3-max-output

def test_endless_string(lc3):
    with pytest.raises(MachineFaultError, match="no x0000 word"):
        lc3("fill.obj").run()
"""


def test_the_pytest_plugin_limits_output_by_default(tmp_path: Path) -> None:
    write_obj(tmp_path / "flood.obj", FLOOD)
    write_obj(tmp_path / "fill.obj", endless_string(PUTS), origin=0)
    (tmp_path / "test_grader.py").write_text(GRADER)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--lc3-program",
            "flood.obj",
            "test_grader.py",
        ],
        capture_output=True,
        text=True,
        timeout=HANG,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


#: A program long enough for a tiered start to switch (with --translate-after 100).
COUNTDOWN = [
    op("LD", dr=1, pcoffset9=3),
    op("ADDI", dr=1, sr1=1, imm5=-1),
    op("BR", nzp=0b001, pcoffset9=-2),
    HALT,
    5000,
]
NO_HOME = """
import pwd, sys
def no_entry(uid):
    raise KeyError(f"getpwuid(): uid not found: {uid}")
pwd.getpwuid = no_entry  # a uid with no passwd entry, as in a container run with --user N
sys.argv = ["lc3jit", *sys.argv[1:]]
from lc3jit.launch import main
main()
"""


def test_no_home_turns_the_cache_off_with_one_warning(tmp_path: Path) -> None:
    program = write_obj(tmp_path / "countdown.obj", COUNTDOWN)
    state = tmp_path / "state.json"
    environment = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CACHE_HOME")}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            NO_HOME,
            "run",
            "--translate-after",
            "100",
            "--state-json",
            str(state),
            str(program),
        ],
        capture_output=True,
        timeout=HANG,
        cwd=tmp_path,
        env=environment,
    )
    assert (done.returncode, done.stdout) == (0, b"HALT\n"), done.stderr
    assert done.stderr.decode() == (
        "lc3jit: translation cache: no directory for it (HOME is unset and the user has no home): not used\n"
    )
    assert json.loads(state.read_text())["instructions"] == 1 + 2 * 5000 + 1
    assert sorted(tmp_path.iterdir()) == [program, state]  # no `~` folder made here


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_a_cache_entry_that_is_not_a_file_is_translated_again(
    tmp_path: Path, translation_cache: Path, kind: str
) -> None:
    program = write_obj(tmp_path / "countdown.obj", COUNTDOWN)
    command = [*LC3JIT, "run", "--translate-after", "0", str(program)]
    assert subprocess.run(command, capture_output=True, timeout=HANG).returncode == 0
    [entry] = translation_cache.glob("*.pyc")
    entry.unlink()
    if kind == "directory":
        entry.mkdir()
    else:
        os.mkfifo(entry)
    done = subprocess.run(command, capture_output=True, timeout=HANG)  # a FIFO once hung here
    assert (done.returncode, done.stdout) == (0, b"HALT\n")
    assert done.stderr.decode() == (
        f"lc3jit: translation cache: {entry}: not a file lc3jit wrote (not a regular file);"
        " translating again\n"
    )


def test_state_json_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk while writing it leaves the file that was there, not an empty one."""
    program = write_obj(tmp_path / "halt.obj", [HALT])
    state = tmp_path / "state.json"
    state.write_text("before\n")

    def full(fd: int, mode: int) -> None:  # the last step before the rename
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fchmod", full)
    result = CliRunner().invoke(
        app, ["run", "--state-json", str(state), str(program)], catch_exceptions=False
    )
    monkeypatch.undo()
    assert result.exit_code == 1
    assert f"lc3jit: {state}: No space left on device" in result.stderr
    assert state.read_text() == "before\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["halt.obj", "state.json"]  # no temporary left


def test_state_json_to_a_device_is_written_to(tmp_path: Path) -> None:
    program = write_obj(tmp_path / "halt.obj", [HALT])
    done = subprocess.run(
        [*LC3JIT, "run", "--state-json", "/dev/stdout", str(program)], capture_output=True, timeout=HANG
    )
    assert done.returncode == 0
    assert json.loads(done.stdout.decode().removeprefix("HALT\n"))["stop_reason"] == "halt"


def test_a_trace_that_cannot_be_written_names_its_file(tmp_path: Path) -> None:
    program = write_obj(tmp_path / "countdown.obj", COUNTDOWN)
    state = tmp_path / "state.json"
    done = subprocess.run(
        [*LC3JIT, "run", "--trace", "/dev/full", "--state-json", str(state), str(program)],
        capture_output=True,
        timeout=HANG,
    )
    assert done.returncode == 1
    assert done.stderr.decode() == (
        f"lc3jit: {program}: cannot write the trace to /dev/full: No space left on device\n"
    )
    assert json.loads(state.read_text())["stop_reason"] == "output-error"


def test_a_damaged_compiled_file_is_refused_by_python_itself(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Single bit flips in the program a .pyc carries: `python X.pyc` refuses each in one
    line (a flip there once crashed CPython with SIGSEGV, or hung it)."""
    compiled = tmp_path / "hello.pyc"
    made = subprocess.run(
        [*LC3JIT, "compile", str(EXAMPLES / "hello.asm"), "-o", str(compiled)], capture_output=True
    )
    assert made.returncode == 0, made.stderr
    data = compiled.read_bytes()
    [payload] = [c for c in marshal.loads(data[16:]).co_consts if isinstance(c, bytes)]
    start = data.index(payload)
    flips = random.Random(19).sample(
        range((start + len(PAYLOAD_MARK)) * 8, (start + len(payload)) * 8),
        200 if request.config.getoption("--slow") else 8,
    )
    for bit in flips:
        damaged = bytearray(data)
        damaged[bit // 8] ^= 1 << bit % 8
        compiled.write_bytes(damaged)
        ran = subprocess.run([sys.executable, str(compiled)], capture_output=True, text=True, timeout=HANG)
        assert ran.returncode == 1, (bit, ran)
        assert (
            ran.stderr
            == "hello.pyc: hello.pyc: corrupt (its program's checksum does not match its contents)\n"
        )


def flowing_code(count: int, seed: int = 0) -> tuple[int, ...]:
    """Random instructions that go on (no reserved opcode, RTI or JMP): every word is
    reached, and every JSR target roots a region reaching most of the rest."""
    chooser = random.Random(seed)
    opcodes = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 14, 15]
    return tuple(chooser.choice(opcodes) << 12 | chooser.randrange(4096) for _ in range(count))


def test_translating_ahead_copies_the_code_a_bounded_number_of_times() -> None:
    """5.8 KB of such words once took 50 s to translate with regions (each of ~200
    call targets copied up to 160 blocks); the copies are now bounded by the code found."""
    sim = Simulator(Image(ORIGIN, flowing_code(1000)), engine="regions")
    translator = sim.engine.translator
    found = len(
        {
            i.address
            for b in find_blocks(sim.machine.mem, [ORIGIN], frozenset()).values()
            for i in b.instructions
        }
    )
    copied = sum(b.length for region in translator.regions.values() for b in region.blocks)
    assert ORIGIN in translator.regions  # the start's region comes first
    assert found < copied <= AHEAD_COPIES * found


def test_past_the_translation_budget_code_stays_interpreted(engine: str) -> None:
    program = Image(ORIGIN, tuple(COUNTDOWN))
    sim = Simulator(program, engine=engine, translation_budget=0)
    sim.run()
    assert sim.output == "HALT\n" and sim.instructions == 1 + 2 * 5000 + 1
    assert not getattr(sim.engine, "blocks", {})  # nothing translated, ahead or when hot
    assert sim.machine.translation_budget == 0


def test_the_translation_budget_is_spent_on_the_command_line(tmp_path: Path) -> None:
    program = write_obj(tmp_path / "random.obj", list(flowing_code(2900)))
    state = tmp_path / "state.json"
    command = ["run", "--no-cache", "--translate-after", "0", "--max-steps", "1", "--state-json", str(state)]
    done = subprocess.run(
        [*LC3JIT, *command, "--translation-budget", "200", str(program)], capture_output=True, timeout=HANG
    )
    assert done.returncode == 4
    assert json.loads(state.read_text())["instructions"] == 1
