"""`lc3jit compile`: a program and its translations in a .pyc, run by `lc3jit run`, by `python`
with only the runtime package, and shown by `lc3jit dump`; exactly the results of running
the program itself, on every engine."""

from __future__ import annotations

import functools
import importlib.util
import io
import marshal
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

import lc3jit_runtime
from lc3jit import __version__
from lc3jit.cli import app
from lc3jit.session import ENGINES, boot, load_images, os_images
from lc3jit.translator import saved as saved_module
from lc3jit.translator.cache import restored
from lc3jit.translator.compile import compile_program, find_entries, quiet_machine
from lc3jit.translator.saved import MODULE_SOURCE, pyc_bytes
from lc3jit_runtime import compiled as compiled_module
from lc3jit_runtime.compiled import Compiled, parse_compiled, saved_dispatcher
from lc3jit_runtime.console import Console
from lc3jit_runtime.dispatch import Dispatcher
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.loader import Image

from .conftest import Run
from .test_differential import ORIGIN, assert_same, program

EXAMPLES = Path(__file__).parent.parent / "examples"
#: How a compiled program may run: with the engine's own translator for what was not compiled
#: (lc3jit installed), or with the interpreter for it (`python FILE.pyc` with only the runtime).
MODES = ["regions", "blocks", "regions-without-lc3jit"]


def through_a_file(compiled: Compiled) -> Compiled:
    """The compiled program as a run reads it back from the bytes of its file."""
    return parse_compiled(pyc_bytes(compiled), "test.pyc")


def run_compiled(
    mode: str, compiled: Compiled, keys: bytes, max_steps: int, registers: list[int] | None = None
) -> Run:
    """Boot the compiled program and run it: the interpreter on its images, or its saved code."""
    display = io.BytesIO()
    console = Console(io.BytesIO(keys), display)
    machine = boot(compiled.images, console, compiled.edition, compiled.pc, compiled.system)
    if registers is not None:
        machine.reg[:] = registers
    if mode == "interp":
        engine: Interpreter | Dispatcher = Interpreter(machine)
    elif mode == "regions-without-lc3jit":
        engine = saved_dispatcher(machine, compiled.engines["regions"])
    else:
        engine = restored(machine, compiled.engines[mode], mode)
    outcome = engine.run(max_steps)
    console.flush()
    return Run(machine, outcome, display.getvalue())


EXAMPLE_RUNS = [
    (["2048.obj"], b"n" + b"wasd" * 60 + b"n", 3, False),
    (["2048.obj"], b"y" + b"dsaw" * 30, 2, False),
    (["2048.obj"], b"n" + b"wasd" * 20, 2, True),
    (["rogue.obj"], b"x" + b"wasd" * 40, 3, False),
    (["rogue.obj"], b"x" + b"wasd" * 20, 3, True),
    (["rogue.obj"], b"x" + b"dsaw" * 20, 2, True),
    (["hello.obj"], b"", 3, False),
    (["echo.obj"], b"echo me\n", 3, True),
    (["add.hex"], b"79", 2, False),
    (["fib.obj"], b"", 3, False),
    (["sieve.obj"], b"", 3, False),
    (["strings.obj"], b"", 2, False),
    (["subroutines.obj", "subroutines-1.obj"], b"", 3, False),
    (["bench/strings.asm"], b"", 3, False),
]


@functools.cache
def compiled_example(files: tuple[str, ...], edition: int, with_os: bool) -> Compiled:
    images = load_images([EXAMPLES / f for f in files])
    system = os_images(edition) if with_os else []
    return through_a_file(compile_program(files[0], images, edition, None, system))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("files", "keys", "edition", "with_os"), EXAMPLE_RUNS, ids=lambda v: str(v)[:20])
def test_compiled_examples_end_as_the_programs_do(
    mode: str, files: list[str], keys: bytes, edition: int, with_os: bool
) -> None:
    """Output, registers, PSR, memory, device state and instruction count, against the
    interpreter running the program (the games with scripted keys, some under the OS)."""
    compiled = compiled_example(tuple(files), edition, with_os)
    expected = run_compiled("interp", compiled, keys, 3_000_000)
    assert_same(expected, run_compiled(mode, compiled, keys, 3_000_000))
    assert expected.outcome.reason in {"halt", "input-exhausted"}


@given(case=program(), edition=st.sampled_from([3, 2]), with_os=st.booleans())
def test_compiled_random_programs_end_as_the_programs_do(
    case: tuple[list[int], list[int], bytes], edition: int, with_os: bool
) -> None:
    """Random programs, with a table of addresses before them (which the compiler follows),
    compiled and run every way, against the interpreter, also with a step limit."""
    words, registers, keys = case
    image = Image(ORIGIN - 4, (ORIGIN + 3, ORIGIN, ORIGIN + 40, 0, *words))
    system = os_images(edition) if with_os else []
    compiled = through_a_file(compile_program("random", [image], edition, ORIGIN, system))
    limit, start = (5000, None) if with_os else (3000, registers)  # the OS finds the program in R0
    expected = run_compiled("interp", compiled, keys, limit, start)
    for mode in MODES:
        assert_same(expected, run_compiled(mode, compiled, keys, limit, start))
    stopped = run_compiled("interp", compiled, keys, 150, start)
    assert_same(stopped, run_compiled("regions", compiled, keys, 150, start))


def constants(code: types.CodeType | tuple[object, ...]) -> list[object]:
    """Every constant of a code object, of the code objects among them and of the tuples
    among them (a budget step's table)."""
    found: list[object] = []
    for value in code.co_consts if isinstance(code, types.CodeType) else code:
        found += constants(value) if isinstance(value, types.CodeType | tuple) else [value]
    return found


@pytest.mark.parametrize("files", [["2048.obj"], ["rogue.obj"], ["subroutines.obj", "subroutines-1.obj"]])
def test_translated_code_holds_only_plain_constants_and_marshals_back_equal(files: list[str]) -> None:
    """No function, list or other object that marshal cannot store or that would have to be
    rebuilt at load time: the machine and the slow paths are globals, bound at load."""
    compiled = compile_program(files[0], load_images([EXAMPLES / f for f in files]), 3, None, os_images(3))
    codes = [r.code for e in compiled.engines.values() for r in e.regions]
    codes += [b.code for e in compiled.engines.values() for b in e.blocks]
    assert codes
    for code in codes:
        assert {type(c) for c in constants(code)} <= {int, type(None)}
        assert marshal.loads(marshal.dumps(code)) == code


def test_the_compiler_looks_for_labels_and_tables_that_lead_to_code(tmp_path: Path) -> None:
    """A subroutine reached only through a table of addresses (JSRR) is compiled ahead; a
    string, and a table of numbers, are not; the JSRR is reported as left to run time."""
    source = tmp_path / "table.asm"
    source.write_text(
        ".ORIG x3000\n"
        "        LD R1, TABLE\n        JSRR R1\n        LEA R0, TEXT\n        PUTS\n        HALT\n"
        "TABLE   .FILL SUB\n"
        'TEXT    .STRINGZ "ok"\n'
        "NUMBERS .FILL x3005\n        .FILL #0\n"
        "SUB     ADD R0, R0, #1\n        RET\n.END\n"
    )
    assert CliRunner().invoke(app, ["asm", str(source)]).exit_code == 0
    source.with_suffix(".sym").unlink()  # no labels: the table alone must lead to SUB
    images = load_images([source.with_suffix(".obj")])
    sub = 0x300B
    report = find_entries(quiet_machine(images, 3, None, []), images)
    assert report.entries == ((0x3000, "start"), (sub, "table"))
    compiled = compile_program("table", images)
    assert sub in {entry for region in compiled.engines["regions"].regions for entry in region.entries}
    assert sub in {block.start for block in compiled.engines["blocks"].blocks}
    assert compiled.report.indirect == (0x3001,)
    text_start = 0x3006
    words = {a for region in compiled.engines["regions"].regions for a in region.words}
    assert text_start not in words and 0x3009 not in words


def compile_cli(tmp_path: Path, *args: str) -> tuple[Path, Result]:
    out = tmp_path / "compiled.pyc"
    result = CliRunner().invoke(app, ["compile", *args, "-o", str(out)], catch_exceptions=False)
    return out, result


def test_compile_reports_what_it_translated_and_what_it_left(tmp_path: Path) -> None:
    files = [str(EXAMPLES / "subroutines.obj"), str(EXAMPLES / "subroutines-1.obj")]
    out, result = compile_cli(tmp_path, *files)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"wrote {out} ({out.stat().st_size:,} bytes)"
    assert "engine regions: 4 regions (16 entries), 68 instructions translated ahead of time" in lines
    assert "engine blocks: 22 blocks, 68 instructions translated ahead of time" in lines
    assert "translated from: start x3000; label x4000 x400C x401A" in lines
    assert lines[-1].startswith("left to run time: 13 label targets that look like data (x3018 ")
    assert lines[-1].endswith("the targets of 5 indirect jumps at x3005 x3007 x300E x3010 x3014")


def test_compile_writes_beside_the_current_directory_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["compile", str(EXAMPLES / "hello.obj")])
    assert result.exit_code == 0
    assert result.stdout.startswith("wrote hello.pyc (")
    assert (tmp_path / "hello.pyc").read_bytes()[:4] == importlib.util.MAGIC_NUMBER


def cli_run(*args: object, keys: bytes = b"") -> Result:
    return CliRunner().invoke(app, ["run", *map(str, args)], input=keys, catch_exceptions=False)


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize(
    ("files", "compile_options", "run_options", "keys"),
    [
        (["2048.obj"], [], [], b"n" + b"wasd" * 30 + b"n"),
        (["rogue.obj"], ["--os", "--edition", "2"], [], b"x" + b"wasd" * 10),
        (["subroutines.obj", "subroutines-1.obj"], [], ["--max-steps", "200"], b""),
    ],
    ids=["2048", "rogue-os-2", "subroutines-step-limit"],
)
def test_run_of_a_compiled_file_is_the_run_of_the_program(
    tmp_path: Path,
    engine: str,
    files: list[str],
    compile_options: list[str],
    run_options: list[str],
    keys: bytes,
) -> None:
    """stdout, stderr's message, exit code and --state-json, through the real command."""
    paths = [str(EXAMPLES / f) for f in files]
    out, _ = compile_cli(tmp_path, *paths, *compile_options)
    runs = []
    for name, args in (
        (str(out), [str(out)]),
        (paths[0], [*paths, "--no-cache", *compile_options]),
    ):
        state = tmp_path / "state.json"
        result = cli_run(*args, "--engine", engine, "--state-json", state, *run_options, keys=keys)
        runs.append(
            (result.stdout, result.exit_code, result.stderr.replace(name, "PROGRAM"), state.read_text())
        )
    assert runs[0] == runs[1]


def test_stats_say_the_translations_came_compiled(tmp_path: Path) -> None:
    out, _ = compile_cli(tmp_path, str(EXAMPLES / "fib.obj"))
    assert cli_run(out, "--stats").stderr.endswith(" (compiled)\n")
    assert not cli_run(out, "--stats", "--engine", "interp").stderr.endswith(" (compiled)\n")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--edition", "2"], "was compiled for edition 3"),
        (["--os"], "was compiled without an OS"),
        (["--os-image", "lc3os.obj"], "a compiled program holds the OS it was compiled with"),
        ([str(EXAMPLES / "hello.obj")], "a compiled program (.pyc) is loaded alone"),
    ],
)
def test_options_that_would_change_compiled_code_are_usage_errors(
    tmp_path: Path, options: list[str], message: str
) -> None:
    out, _ = compile_cli(tmp_path, str(EXAMPLES / "hello.obj"))
    result = CliRunner().invoke(app, ["run", str(out), *options])
    assert result.exit_code == 2
    assert message in result.output
    assert cli_run(out, "--edition", "3").exit_code == 0  # saying what it was compiled with is fine


def test_a_compiled_file_keeps_edition_os_and_start(tmp_path: Path) -> None:
    out, _ = compile_cli(tmp_path, str(EXAMPLES / "fib.obj"), "--os", "--edition", "2", "--pc", "x3000")
    state = tmp_path / "state.json"
    assert cli_run(out, "--state-json", state).exit_code == 0
    expected = tmp_path / "expected.json"
    cli_run(EXAMPLES / "fib.obj", "--os", "--edition", "2", "--pc", "x3000", "--state-json", expected)
    assert state.read_text() == expected.read_text()


def corrupted(tmp_path: Path, change: str) -> Path:
    """A compiled file spoilt as named."""
    out, _ = compile_cli(tmp_path, str(EXAMPLES / "hello.obj"))
    data = bytearray(out.read_bytes())
    if change == "truncated":
        del data[len(data) // 2 :]
    elif change == "a flipped byte":
        data[len(data) // 2] ^= 0x40
    elif change == "another Python":
        data[0] ^= 0x01
    elif change == "Python 3.12 or 3.11":
        data[:2] = (3531 if sys.version_info[:2] != (3, 12) else 3495).to_bytes(2, "little")
    elif change == "not a pyc":
        data[:] = b"\x30\x00\x12\x34" * 8
    elif change == "a Python module":
        code = compile("print('hi')", "hi.py", "exec")
        body = marshal.dumps(code)
        data[:] = importlib.util.MAGIC_NUMBER + b"\x01\x00\x00\x00" + importlib.util.source_hash(body) + body
    out.write_bytes(bytes(data))
    return out


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ("truncated", "corrupt or truncated (its checksum does not match its contents)"),
        ("a flipped byte", "corrupt or truncated (its checksum does not match its contents)"),
        ("another Python", "compiled for another Python version (bytecode magic "),
        (
            "Python 3.12 or 3.11",
            f"compiled by Python {'3.12' if sys.version_info[:2] != (3, 12) else '3.11'}; "
            f"this is Python {sys.version_info.major}.{sys.version_info.minor}: compile it again",
        ),
        ("not a pyc", "not a compiled program (no .pyc header)"),
        ("a Python module", "a Python file, not an LC-3 program compiled by lc3jit"),
    ],
)
@pytest.mark.parametrize("command", ["run", "dump"])
def test_a_bad_compiled_file_is_one_line_naming_it(
    tmp_path: Path, change: str, problem: str, command: str
) -> None:
    out = corrupted(tmp_path, change)
    result = CliRunner().invoke(app, [command, str(out)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"lc3jit: {out}: {problem}")
    assert result.stderr.count("\n") == 1


def test_a_file_of_another_format_asks_to_compile_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    current = compiled_module.FORMAT
    monkeypatch.setattr(saved_module, "FORMAT", 99)  # what the writer writes
    out, _ = compile_cli(tmp_path, str(EXAMPLES / "hello.obj"))
    monkeypatch.undo()
    result = CliRunner().invoke(app, ["run", str(out)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"lc3jit: {out}: compiled by lc3jit {__version__} in format 99; this runtime reads format {current}: "
        "compile it again\n"
    )


def only_runtime(tmp_path: Path) -> dict[str, str]:
    """An environment where `python -S` imports the standard library and runtime, nothing else."""
    shutil.copytree(Path(lc3jit_runtime.__file__).parent, tmp_path / "path" / "lc3jit_runtime")
    return {"PYTHONPATH": str(tmp_path / "path"), "PATH": "/usr/bin:/bin"}


def test_python_runs_a_compiled_file_with_only_the_runtime(tmp_path: Path) -> None:
    env = only_runtime(tmp_path)
    for missing in ("lc3jit", "bytecode"):
        check = subprocess.run(
            [sys.executable, "-S", "-c", f"import {missing}"], env=env, capture_output=True, cwd=tmp_path
        )
        assert check.returncode == 1
    out, _ = compile_cli(tmp_path, str(EXAMPLES / "2048.obj"))
    keys = b"n" + b"wasdn" * 400  # plays until the board is full, then declines another game
    ran = subprocess.run(
        [sys.executable, "-S", str(out)], env=env, input=keys, capture_output=True, timeout=120
    )
    expected = cli_run(EXAMPLES / "2048.obj", keys=keys)
    assert expected.stdout.endswith("You lost :(\n\nWould you like to play again (y/n)? n\nHALT\n")
    assert (ran.returncode, ran.stdout.decode(), ran.stderr) == (0, expected.stdout, b"")


def test_python_runs_a_compiled_file_with_its_options_and_exit_codes(tmp_path: Path) -> None:
    out, _ = compile_cli(tmp_path, str(EXAMPLES / "add.hex"))
    keys = tmp_path / "keys"
    keys.write_bytes(b"3")
    ran = subprocess.run([sys.executable, str(out), "--input", str(keys)], capture_output=True, timeout=60)
    assert (ran.returncode, ran.stdout) == (5, b"3+")
    assert ran.stderr == b"compiled.pyc: input ended while the program waits for a key\n"
    ran = subprocess.run([sys.executable, str(out), "--max-steps", "3"], input=b"34", capture_output=True)
    assert (ran.returncode, ran.stderr) == (4, b"compiled.pyc: step limit reached\n")


def test_a_compiled_file_whose_display_goes_away_ends_quietly(tmp_path: Path) -> None:
    """`python 2048.pyc | head -c 10`: exit 141 with nothing on stderr, as `lc3jit run` then."""
    out, _ = compile_cli(tmp_path, str(EXAMPLES / "2048.obj"))
    reader, writer = os.pipe()
    process = subprocess.Popen(
        [sys.executable, str(out)], stdin=subprocess.PIPE, stdout=writer, stderr=subprocess.PIPE
    )
    os.close(writer)
    assert os.read(reader, 10) == b"Control th"
    os.close(reader)
    _, errors = process.communicate(b"n" + b"wasd" * 200, timeout=60)
    assert (process.returncode, errors) == (141, b"")


def test_without_runtime_a_compiled_file_says_what_it_needs(tmp_path: Path) -> None:
    out, _ = compile_cli(tmp_path, str(EXAMPLES / "hello.obj"))
    ran = subprocess.run([sys.executable, "-S", str(out)], env={"PATH": "/usr/bin:/bin"}, capture_output=True)
    assert ran.returncode == 1
    assert ran.stderr == f"{out}: needs the runtime package of lc3jit (pip install lc3jit)\n".encode()


COMPUTED_JUMP = [
    0x5020,  # x3000 AND R0, R0, #0
    0x1025,  # x3001 ADD R0, R0, #5: five times round
    0xE203,  # x3002 LEA R1, #3: R1 = x3006
    0x1262,  # x3003 ADD R1, R1, #2: R1 = x3008, known only at run time
    0xC040,  # x3004 JMP R1
    0xF025,  # x3005 HALT (never reached)
    0xF025,  # x3006 HALT (never reached)
    0xF025,  # x3007 HALT (never reached)
    0x103F,  # x3008 ADD R0, R0, #-1
    0x0BF8,  # x3009 BRnp x3002: back to the computed jump
    0xF025,  # x300A HALT
]


def test_code_not_compiled_is_translated_with_lc3jit_and_interpreted_without(tmp_path: Path) -> None:
    compiled = through_a_file(compile_program("jump", [Image(0x3000, tuple(COMPUTED_JUMP))]))
    target = 0x3008
    assert target not in {e for r in compiled.engines["regions"].regions for e in r.entries}
    runs = {}
    for mode in ("regions", "regions-without-lc3jit"):
        machine = boot(compiled.images, Console(io.BytesIO(), io.BytesIO()))
        saved = compiled.engines["regions"]
        dispatcher = (
            restored(machine, saved, "regions") if mode == "regions" else saved_dispatcher(machine, saved)
        )
        runs[mode] = (dispatcher.run(1000), machine.snapshot(), machine.icount)
        assert (target in dispatcher.blocks) == (mode == "regions")
    assert runs["regions"] == runs["regions-without-lc3jit"]


def test_compiled_files_written_before_find_the_late_translator_where_they_look() -> None:
    """Their code imports LateTranslator from lc3jit.translator.saved, where it was before it
    moved to lc3jit.translator.cache (a cache hit imports that module alone): without it, the
    code they did not compile would run on the interpreter."""
    from lc3jit.translator import cache, saved

    assert saved.LateTranslator is cache.LateTranslator
    assert "from lc3jit.translator.cache import LateTranslator" in MODULE_SOURCE


def test_dump_of_a_compiled_file_shows_what_is_inside(tmp_path: Path) -> None:
    """The compiler's report, then the same blocks and regions as a dump of the program
    (hello has no code the compiler finds beyond what a run translates)."""
    out, _ = compile_cli(tmp_path, str(EXAMPLES / "hello.obj"))
    for engine in ("regions", "blocks"):
        inside = CliRunner().invoke(app, ["dump", str(out), "--engine", engine])
        program = CliRunner().invoke(app, ["dump", str(EXAMPLES / "hello.obj"), "--engine", engine])
        assert inside.exit_code == program.exit_code == 0
        header, _, blocks = inside.stdout.partition("\n\n")
        assert header.splitlines()[0] == f"compiled file {out}, by lc3jit {__version__}"
        assert f"engine {engine}: " in header
        assert "translated from: start x3000" in header
        assert blocks.split("summary: ")[0] == program.stdout.split("summary: ")[0]
    ran = CliRunner().invoke(app, ["dump", str(out), "--run", "--format", "json"])
    assert '"output": "Hello, World!\\nHALT\\n"' in ran.stdout


def test_compile_errors_are_one_line(tmp_path: Path) -> None:
    out, _ = compile_cli(tmp_path, str(EXAMPLES / "hello.obj"))
    again = CliRunner().invoke(app, ["compile", str(out)])
    assert again.exit_code == 2 and "already compiled: give the program itself" in again.output
    bad = tmp_path / "odd.obj"
    bad.write_bytes(b"\x30\x00\x12")
    result = CliRunner().invoke(app, ["compile", str(bad), "-o", str(tmp_path / "odd.pyc")])
    assert (result.exit_code, result.stderr) == (
        1,
        f"lc3jit: {bad}: odd number of bytes (3): an .obj holds 16-bit words\n",
    )
    nowhere = tmp_path / "missing" / "hello.pyc"
    result = CliRunner().invoke(app, ["compile", str(EXAMPLES / "hello.obj"), "-o", str(nowhere)])
    assert (result.exit_code, result.stderr) == (1, f"lc3jit: {nowhere}: No such file or directory\n")
