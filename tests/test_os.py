"""Full-system mode: lc3jit's own OS image, user mode, the exceptions, `lc3jit run --os`."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lc3jit.cli import app
from lc3jit.session import BUILTIN_OS, BUILTIN_OS_2ND, ENGINES, boot, load_images, os_images
from lc3jit.toolchain.asm import assemble_file, obj_bytes
from lc3jit_runtime.console import Console
from lc3jit_runtime.machine import INITIAL_SSP

from .conftest import Run
from .machine_code import HALT, op

PROGRAMS = Path(__file__).parent / "programs"
EXAMPLES = Path(__file__).parent.parent / "examples"
RTI, RET = op("RTI"), op("JMP", baser=7)
#: Instructions of lc3os's start-up code, x0200 up to its RTI into the user program.
STARTUP_STEPS = 14

edition = pytest.mark.parametrize("edition", [3, 2])


def run_program(
    engine: str,
    source: Path | list[int],
    *,
    under_os: bool = True,
    edition: int = 3,
    keys: bytes = b"",
    max_steps: int | None = 200_000,
) -> Run:
    """Run a program (a file, or words at x3000) with or without the built-in OS."""
    images = load_images([source]) if isinstance(source, Path) else load_images([])
    display = io.BytesIO()
    system = os_images(edition) if under_os else ()
    if isinstance(source, Path):
        machine = boot(images, Console(io.BytesIO(keys), display), edition, None, system)
    else:
        machine = boot([], Console(io.BytesIO(keys), display), edition, 0x3000, system)
        machine.load_words(0x3000, source)
    outcome = ENGINES[engine](machine).run(max_steps)
    machine.console.flush()
    return Run(machine, outcome, display.getvalue())


@pytest.mark.parametrize("image", [Path(BUILTIN_OS), Path(BUILTIN_OS_2ND)])
def test_the_shipped_os_objects_are_assembled_from_their_sources(image: Path) -> None:
    (assembled,) = assemble_file(image.with_suffix(".asm")).images
    assert image.read_bytes() == obj_bytes(assembled), f"run `lc3jit asm {image.with_suffix('.asm')}`"


def test_the_2nd_edition_return_replaces_the_os_trap_return() -> None:
    (os_image,) = assemble_file(Path(BUILTIN_OS).with_suffix(".asm")).images
    (patch,) = assemble_file(Path(BUILTIN_OS_2ND).with_suffix(".asm")).images
    assert (patch.origin, patch.words) == (os_image.symbols["TRAP_RETURN"], (RET,))
    assert os_image.words[patch.origin - os_image.origin] == RTI


@edition
def test_the_os_enters_the_program_at_its_origin_in_user_mode(engine: str, edition: int) -> None:
    run = run_program(engine, [HALT], edition=edition, max_steps=STARTUP_STEPS)
    m = run.machine
    assert (run.outcome.reason, m.pc, m.psr, m.saved_ssp) == ("step-limit", 0x3000, 0x8002, INITIAL_SSP)
    assert m.reg == [0] * 8


@edition
def test_a_program_prints_the_same_with_and_without_the_os(engine: str, edition: int) -> None:
    runs = [
        run_program(engine, PROGRAMS / "all_traps.asm", under_os=os, edition=edition, keys=b"xyz")
        for os in (False, True)
    ]
    assert runs[0].output == runs[1].output == b"Hello, LC-3\nAabcdeEnter a character: xxyHALT\n"
    assert [run.outcome.reason for run in runs] == ["halt", "halt"]
    assert runs[1].machine.user_mode == (edition == 2)  # the 3rd edition halts in the OS's HALT


@edition
def test_a_trap_routine_of_the_program_calls_another_trap(engine: str, edition: int) -> None:
    source = PROGRAMS / "nested_trap.asm"
    images = load_images([source])
    if edition == 2:  # the routine's return word: RET instead of RTI
        program = images[0]
        words = list(program.words)
        words[program.symbols["RETURN"] - program.origin] = RET
        images[0] = type(program)(program.origin, tuple(words), program.name, program.symbols, program.source)
    display = io.BytesIO()
    machine = boot(images, Console(io.BytesIO(), display), edition, None, os_images(edition))
    outcome = ENGINES[engine](machine).run(100_000)
    machine.console.flush()
    assert (outcome.reason, display.getvalue()) == ("halt", b"[one][two]HALT\n")


LDR_FROM = (op("LDR", dr=1, baser=2, offset6=0),)
STR_TO = (op("STR", sr=1, baser=2, offset6=0),)


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ([op("ADDI", dr=1, sr1=1, imm5=1), 0xD000], b"\nillegal opcode at x3001\n"),
        ([RTI], b"\nprivilege-mode violation (RTI in user mode) at x3000\n"),
        (
            [op("LEA", dr=2, pcoffset9=-3), *LDR_FROM],
            b"\naccess-control violation (user mode outside x3000-xFDFF) at x3001\n",
        ),
        (
            [op("LD", dr=1, pcoffset9=-256), HALT],
            b"\naccess-control violation (user mode outside x3000-xFDFF) at x3000\n",
        ),
        (
            [op("LDI", dr=1, pcoffset9=0), op("BR", nzp=7, pcoffset9=0), 0xFE00],
            b"\naccess-control violation (user mode outside x3000-xFDFF) at x3000\n",
        ),
        (
            [op("ST", sr=1, pcoffset9=-256)],
            b"\naccess-control violation (user mode outside x3000-xFDFF) at x3000\n",
        ),
        (
            [op("NOT", dr=2, sr=2), *STR_TO],
            b"\naccess-control violation (user mode outside x3000-xFDFF) at x3001\n",
        ),
        (
            [op("LEA", dr=2, pcoffset9=-256), op("JMP", baser=2)],
            b"\naccess-control violation (user mode outside x3000-xFDFF) at x2F01\n",
        ),
    ],
    ids=["illegal", "rti", "ldr-low", "ld-low", "ldi-kbsr", "st-low", "str-top", "fetch"],
)
def test_each_exception_prints_what_and_where_then_halts(
    engine: str, words: list[int], message: bytes
) -> None:
    run = run_program(engine, words)
    assert (run.outcome.reason, run.output) == ("halt", message + b"HALT\n")
    assert not run.machine.user_mode


def test_the_2nd_edition_has_no_access_control(engine: str) -> None:
    run = run_program(engine, [op("LDI", dr=3, pcoffset9=1), HALT, 0x0021], edition=2)  # OUT's vector
    assert (run.outcome.reason, run.output) == ("halt", b"HALT\n")
    assert run.machine.reg[3] == run.machine.mem[0x0021] != 0


def test_the_2nd_edition_os_takes_illegal_opcodes_and_rti_in_user_mode(engine: str) -> None:
    assert run_program(engine, [0xD000], edition=2).output == b"\nillegal opcode at x3000\nHALT\n"
    assert run_program(engine, [RTI], edition=2).output.startswith(b"\nprivilege-mode violation")


def cli(*args: str, keys: str = "") -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["run", *args], input=keys.encode(), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_run_os_and_os_image_give_the_same_run() -> None:
    program = str(PROGRAMS / "all_traps.asm")
    expected = (0, "Hello, LC-3\nAabcdeEnter a character: xxyHALT\n", "")
    assert cli("--os", program, keys="xyz") == expected
    assert cli("--os-image", str(BUILTIN_OS), program, keys="xyz") == expected
    assert cli(program, keys="xyz") == expected


def test_run_help_documents_the_os_options() -> None:
    text = CliRunner().invoke(app, ["run", "--help"]).stdout
    assert "--os " in text and "--os-image" in text and "x0200" in text


def test_a_missing_os_image_is_one_line() -> None:
    code, _, err = cli("--os-image", "no-such-os.obj", str(PROGRAMS / "all_traps.asm"))
    assert code == 1 and err.count("\n") == 1 and "no-such-os.obj" in err


def test_2048_polling_kbsr_in_user_mode_takes_an_access_violation(engine: str) -> None:
    code, out, _ = cli("--os", "--engine", engine, str(EXAMPLES / "2048.obj"), keys="n")
    assert code == 0
    assert out.endswith("(y/n)? \naccess-control violation (user mode outside x3000-xFDFF) at x32C2\nHALT\n")


@pytest.mark.parametrize(("game", "keys"), [("2048.obj", "nadws"), ("rogue.obj", "xwsqdddd")])
def test_the_games_print_the_same_under_the_os(engine: str, game: str, keys: str) -> None:
    path = str(EXAMPLES / game)
    edition = ["--edition", "2"] if game == "2048.obj" else []  # 2048 polls KBSR itself
    host = cli("--engine", engine, *edition, path, keys=keys)
    under_os = cli("--os", "--engine", engine, *edition, path, keys=keys)
    assert under_os[:2] == host[:2]
    assert host[0] == 5 and len(host[1]) > 1000
