"""The `bytecode` library as the assembler a user can choose: `--assembler bytecode`,
`Simulator(..., assembler="bytecode")`, LC3JIT_ASSEMBLER, and `lc3jit check`.

The differential tests' cases run here with every code object assembled by `bytecode` (a
lean share of them: the programs of tests/test_differential.py, random programs, both
editions, under the OS, self-modifying code), each against the interpreter; CI runs this
file on every Python, as the rest of the suite runs on the fast assembler.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from types import CodeType
from typing import Any

import pytest
from hypothesis import given, settings
from typer.testing import CliRunner

from lc3jit.api import Simulator
from lc3jit.inspection.check import check_program
from lc3jit.session import boot, os_images
from lc3jit.translator import cache
from lc3jit.translator.codegen import assembler, reference
from lc3jit.translator.regions import engine as regions_engine
from lc3jit_runtime.console import Console
from lc3jit_runtime.loader import Image

from .conftest import run_on
from .test_cli import lc3jit
from .test_differential import ORIGIN, REAL_PROGRAMS, assert_same, program, real_runs, run_program

EXAMPLES = Path(__file__).parent.parent / "examples"
PROGRAMS = Path(__file__).parent / "programs"
IMPORTED = "print('bytecode' in sys.modules, file=sys.stderr)"


@pytest.fixture
def by_bytecode(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every code object assembled by `bytecode`, none shared with an earlier test (the
    pytest plugin's `shared_code`); the names of those it assembled."""
    monkeypatch.setattr(regions_engine, "shared_code", None)
    names: list[str] = []
    assemble = reference.assemble_with_bytecode

    def counted(*args: Any) -> CodeType:
        names.append(args[2])
        return assemble(*args)

    monkeypatch.setattr(reference, "assemble_with_bytecode", counted)
    previous = assembler.use_assembler("bytecode")
    yield names
    assembler.use_assembler(previous)


@pytest.mark.parametrize(("files", "keys"), REAL_PROGRAMS, ids=lambda v: str(v)[:24])
@pytest.mark.parametrize("edition", [3, 2])
def test_real_programs_agree_assembled_by_bytecode(
    files: list[str], keys: bytes, edition: int, by_bytecode: list[str]
) -> None:
    assert_same(*real_runs("regions", files, keys, edition))
    assert by_bytecode


@pytest.mark.parametrize("engine", ["regions", "blocks"])
@pytest.mark.parametrize("edition", [3, 2])
@settings(max_examples=40)
@given(case=program())
def test_random_programs_agree_assembled_by_bytecode(
    engine: str, edition: int, case: tuple[list[int], list[int], bytes]
) -> None:
    previous = assembler.use_assembler("bytecode")
    try:
        assert_same(run_program("interp", *case, edition), run_program(engine, *case, edition))
    finally:
        assembler.use_assembler(previous)


@pytest.mark.parametrize("edition", [3, 2])
@settings(max_examples=20)
@given(case=program())
def test_random_programs_under_the_os_agree_assembled_by_bytecode(
    edition: int, case: tuple[list[int], list[int], bytes]
) -> None:
    words, _, keys = case
    previous = assembler.use_assembler("bytecode")
    try:
        runs = []
        for name in ("interp", "regions"):
            display = io.BytesIO()
            console = Console(io.BytesIO(keys), display)
            machine = boot([Image(ORIGIN, tuple(words))], console, edition, None, os_images(edition))
            runs.append(run_on(name, machine, display, max_steps=5000))
        assert_same(*runs)
    finally:
        assembler.use_assembler(previous)


@pytest.mark.parametrize("name", ["selfmod.asm", "nested_trap.asm", "indirect.asm", "all_traps.asm"])
@pytest.mark.parametrize("os", [False, True])
def test_test_programs_agree_assembled_by_bytecode(name: str, os: bool) -> None:
    """Self-modifying code, traps within traps, indirect jumps: a Simulator assembling with
    `bytecode` ends as one on the interpreter, with and without the OS."""
    ends = []
    for engine, chosen in (("interp", None), ("regions", "bytecode")):
        with Simulator(PROGRAMS / name, engine=engine, os=os, keys="ab\n", assembler=chosen) as sim:
            result = sim.run(200_000, check=False)
            ends.append((sim.state(), sim.output, result.outcome.reason))
    assert ends[0] == ends[1]


def test_a_simulator_assembling_with_bytecode_assembles_every_code_object_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names: list[str] = []
    assemble = reference.assemble_with_bytecode
    monkeypatch.setattr(
        reference, "assemble_with_bytecode", lambda *args: names.append(args[2]) or assemble(*args)
    )
    with Simulator(EXAMPLES / "sieve.obj", assembler="bytecode") as sim:
        sim.run()
        output = sim.output
    assert any(name.startswith("region_") for name in names)
    with Simulator(EXAMPLES / "sieve.obj") as sim:  # the default: lc3jit's own assembler
        count = len(names)
        sim.run()
        assert sim.output == output and len(names) == count
    assert assembler.chosen_assembler() == "fast"  # the choice was the Simulator's alone
    with pytest.raises(ValueError, match="no assembler 'bytecodes'; choose from fast, bytecode"):
        Simulator(EXAMPLES / "sieve.obj", assembler="bytecodes")


@pytest.mark.parametrize(
    "how", [["--assembler", "bytecode"], ["--assembler=bytecode", "--max-steps", "1000000000"]]
)
def test_run_with_the_bytecode_assembler_plays_2048_and_imports_bytecode(
    how: list[str], tmp_path: Path
) -> None:
    keys = tmp_path / "keys"
    keys.write_bytes(b"n" + b"wasd" * 20 + b"n")
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    args = ["run", *how, "--translate-after", "0", "--input", str(keys), str(EXAMPLES / "2048.obj")]
    played = lc3jit(*args, code=IMPORTED, env=env)
    assert played.returncode in (0, 5), played.stderr  # halted, or out of keys
    assert "+----" in played.stdout and played.stderr.splitlines()[-1] == "True"
    assert not (tmp_path / "lc3jit").exists()  # nothing saved to or loaded from the cache
    args.remove(how[0])
    plain = lc3jit(*(a for a in args if a != "bytecode"), code=IMPORTED, env=env)
    assert plain.stdout == played.stdout and plain.stderr.splitlines()[-1] == "False"
    by_variable = lc3jit(*plain.args[3:], code=IMPORTED, env={**env, "LC3JIT_ASSEMBLER": "bytecode"})
    assert by_variable.stdout == played.stdout and by_variable.stderr.splitlines()[-1] == "True"


def test_run_with_the_bytecode_assembler_translates_a_short_run_too(tmp_path: Path) -> None:
    """A tiered start would interpret hello whole, and `bytecode` would assemble nothing:
    asked for, it assembles before the run (unless --translate-after says when)."""
    hello = str(EXAMPLES / "hello.obj")
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    chosen = lc3jit("run", "--assembler", "bytecode", hello, code=IMPORTED, env=env)
    assert chosen.returncode == 0 and chosen.stderr.splitlines()[-1] == "True"
    tiered = lc3jit(
        "run", "--assembler", "bytecode", "--translate-after", "1000", hello, code=IMPORTED, env=env
    )
    assert tiered.stdout == chosen.stdout and tiered.stderr.splitlines()[-1] == "False"


def test_the_cache_knows_the_variable_that_chooses_the_assembler() -> None:
    assert cache.ASSEMBLER_VARIABLE == assembler.VARIABLE


def test_an_unknown_assembler_is_a_usage_error() -> None:
    result = lc3jit("run", "--assembler", "gcc", str(EXAMPLES / "hello.obj"))
    assert result.returncode == 2 and "no assembler 'gcc'; choose from fast, bytecode" in result.stderr


def test_check_says_each_program_is_the_same_both_ways() -> None:
    result = lc3jit("check", str(EXAMPLES / "2048.obj"), str(EXAMPLES / "hello.obj"), "--steps", "5000")
    assert result.returncode == 0, result.stdout + result.stderr
    first, second = result.stdout.splitlines()
    assert (
        first.startswith(f"{EXAMPLES / '2048.obj'}: same: ")
        and "of 10, runs of 5,000 instructions alike" in first
    )
    assert second.startswith(f"{EXAMPLES / 'hello.obj'}: same: ")


def test_check_finds_a_difference_and_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """A `bytecode` that wrote another line table: check names the field, exit 1."""
    assemble = reference.assemble_with_bytecode

    def other_lines(*args: Any) -> CodeType:
        code = assemble(*args)
        return code.replace(co_firstlineno=code.co_firstlineno + 1)

    monkeypatch.setattr(reference, "assemble_with_bytecode", other_lines)
    verdict = check_program([EXAMPLES / "fib.obj"], steps=1000)
    assert verdict.codes > 0 and verdict.differences[0].endswith(": co_firstlineno differ")
    from lc3jit.cli import app

    result = CliRunner().invoke(app, ["check", str(EXAMPLES / "fib.obj"), "--steps", "1000"])
    assert result.exit_code == 1 and ": DIFFERENT: " in result.output


def test_dump_symbolic_lists_each_code_object_with_named_labels(tmp_path: Path) -> None:
    result = lc3jit("dump", str(EXAMPLES / "fib.obj"), "--symbolic", "--addr", "x3000")
    assert result.returncode == 0, result.stderr
    dis_view, _, symbolic = result.stdout.partition("region_x3000, as the bytecode library lists it")
    assert "POP_JUMP" in dis_view and "(to " in dis_view  # the dis view first, as before
    used = set(re.findall(r"<(label_instr\d+)>", symbolic))
    placed = set(re.findall(r"^\s*(label_instr\d+):?$", symbolic, re.MULTILINE))
    assert used and used == placed  # jumps name labels, each placed once, no offsets
    assert "L.12288" in symbolic  # line numbers: x3000
    page = tmp_path / "fib.html"
    assert lc3jit("dump", str(EXAMPLES / "fib.obj"), "--symbolic", "--html", str(page)).returncode == 0
    assert "region_x3000 as the bytecode library lists it" in page.read_text()
