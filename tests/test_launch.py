"""The `lc3jit` entry point: a plain `run` without typer, the same to the user as through typer."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from lc3jit.cli import app
from lc3jit.run_options import RUN_OPTIONS, RunOptions, parse_run

EXAMPLES = Path(__file__).parent.parent / "examples"
PROGRAMS = Path(__file__).parent / "programs"
HELLO = str(EXAMPLES / "hello.obj")
ECHO = str(EXAMPLES / "echo.obj")

#: The whole CLI through typer, as `lc3jit.cli` runs it when the fast path declines.
THROUGH_TYPER = "import sys; from lc3jit.cli import main; sys.argv[0] = 'lc3jit'; main()"
#: The entry point, noting at exit whether it imported typer (in the file `typer-imported`).
ENTRY_POINT = (
    "import atexit, pathlib, sys; from lc3jit.launch import main;"
    " atexit.register(lambda: pathlib.Path('typer-imported').write_text(str('typer' in sys.modules)));"
    " sys.argv[0] = 'lc3jit'; main()"
)


def process(code: str, args: list[str], tmp_path: Path, keys: bytes = b"") -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `python -c code run ARGS`, in tmp_path, with a
    translation cache of its own that each call starts empty (so both ways translate)."""
    cache = tmp_path / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    done = subprocess.run(
        [sys.executable, "-c", code, "run", *args],
        input=keys,
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def both_ways(args: list[str], tmp_path: Path, keys: bytes = b"") -> tuple[tuple[int, str, str], bool]:
    """What the user sees through typer; and whether the entry point, showing the same, used typer."""
    expected = process(THROUGH_TYPER, args, tmp_path, keys)
    (tmp_path / "state.json").unlink(missing_ok=True)
    seen = [expected, process(ENTRY_POINT, args, tmp_path, keys)]
    if "--stats" in args:  # times differ from run to run
        seen = [(code, out, re.sub(r"[0-9.]+", "N", err)) for code, out, err in seen]
    assert seen[1] == seen[0]
    return expected, (tmp_path / "typer-imported").read_text() == "True"


@pytest.mark.parametrize(
    ("args", "keys"),
    [
        ([HELLO], b""),
        ([HELLO, "--engine", "interp"], b""),
        (["--engine=blocks", HELLO, "--max-steps", "3"], b""),
        ([ECHO, "--max-steps=0", "--engine", "regions"], b""),
        ([HELLO, "--stats", "--edition", "2"], b""),
        ([HELLO, "--stats", "--no-cache", "--engine", "blocks"], b""),
        ([HELLO, "--stats", "--translate-after", "0"], b""),
        ([ECHO, "--translate-after=5", "--engine", "blocks", "--stats"], b"keys"),
        (["--os", HELLO, "--pc", "x3000"], b""),
        ([ECHO, "--input", str(EXAMPLES / "echo.asm")], b""),
        ([ECHO], b"typed keys\n"),
        ([ECHO], b""),  # input ends: exit 5
        (["missing.obj"], b""),
        ([str(PROGRAMS / "all_traps.asm"), "--os-image", HELLO, "--max-steps", "50"], b""),
    ],
)
def test_plain_runs_skip_typer_and_look_the_same(args: list[str], keys: bytes, tmp_path: Path) -> None:
    _, used_typer = both_ways(args, tmp_path, keys)
    assert not used_typer


def test_state_json_is_the_same_without_typer(tmp_path: Path) -> None:
    args = [HELLO, "--state-json", "state.json", "--engine", "blocks"]
    process(THROUGH_TYPER, args, tmp_path)
    expected = (tmp_path / "state.json").read_text()
    _, used_typer = both_ways(args, tmp_path)
    assert (tmp_path / "state.json").read_text() == expected
    assert not used_typer


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        [HELLO, "--engine", "nope"],
        [HELLO, "--max-steps", "-1"],
        [HELLO, "--max-steps", "012"],
        [HELLO, "--translate-after", "-1"],
        [HELLO, "--engine", "interp", "--engine", "blocks"],
        ["--eng", "interp", HELLO],
        [HELLO, "--", "more"],
        [HELLO, "--pc", "x10000"],
        [HELLO, "--edition", "4"],
        [HELLO, "--input", "."],
        [HELLO, "--stats=yes"],
        [HELLO, "--engine"],
        [HELLO, "--trace", "-"],
        [HELLO, "--assembler", "Bytecode"],
        [str(EXAMPLES / "hello.pyc")],
        [],
    ],
)
def test_other_command_lines_go_to_typer(args: list[str], tmp_path: Path) -> None:
    assert parse_run(args) is None
    (code, _, err), used_typer = both_ways(args, tmp_path)
    assert used_typer
    assert code in (0, 1, 2), err  # help, a usage error, or (after --) a missing file


def test_parse_reads_every_option() -> None:
    args = ["a.obj", "--engine", "interp", "--edition=2", "--pc", "x3001", "--max-steps", "10"]
    args += ["--input", "keys", "--stats", "--state-json", "s.json", "--os", "--os-image", "os.obj", "b.asm"]
    args += ["--no-cache", "--translate-after", "7", "--assembler", "bytecode"]
    assert parse_run(args) == RunOptions(
        programs=["a.obj", "b.asm"], engine="interp", edition=2, pc=0x3001, max_steps=10,
        input_file="keys", stats=True, state_json="s.json", full_system=True,
        os_image="os.obj", no_cache=True, translate_after=7, assembler="bytecode",
    )  # fmt: skip


def test_one_table_of_options_for_both_ways() -> None:
    """The typer command `run` has exactly the options of run_options.RUN_OPTIONS, with their
    help and defaults, and each fills a field of RunOptions: an option added to the table
    exists both ways, and the launcher reads every fast one."""
    command = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    options = {p.opts[0]: p for p in command.params if isinstance(p, typer.core.TyperOption)}
    assert list(options) == [option.name for option in RUN_OPTIONS]
    assert {option.field for option in RUN_OPTIONS} == set(RunOptions.FIELDS) - {"programs"}
    for option in RUN_OPTIONS:
        assert options[option.name].help == option.help
        assert options[option.name].is_flag == (option.kind == "flag")
        if option.kind not in ("range", "address"):  # text, read by the command
            assert options[option.name].default == option.default
    for option in (o for o in RUN_OPTIONS if o.fast and o.kind != "flag"):
        value = {
            "engine": "blocks",
            "edition": "2",
            "address": "x3001",
            "count": "9",
            "assembler": "bytecode",
        }.get(option.kind, "f")
        assert getattr(parse_run(["p.obj", option.name, value]), option.field) not in (None, option.default)


def test_the_fast_path_uses_the_translation_cache(tmp_path: Path) -> None:
    """The second plain run of a program loads what the first saved."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "lc3jit", "run", HELLO, "--stats", "--translate-after", "0"]
    runs = [subprocess.run(command, capture_output=True, env=env, timeout=120, check=True) for _ in range(2)]
    assert b"(from the cache)" not in runs[0].stderr
    assert b"(from the cache)" in runs[1].stderr


#: Modules a plain run must not import: each costs a short run's start-up more than a
#: millisecond of CPU (pathlib on 3.11 brings `re`, `enum` and `urllib.parse` with it).
HEAVY = {
    "pathlib",
    "re",
    "enum",
    "typing",
    "dataclasses",
    "inspect",
    "urllib.parse",
    "tempfile",
    "json",
    "typer",
}
#: Modules a run that ends with HALT does not need, a few hundred microseconds each: what
#: names addresses, the API's views, the run errors, the captured console, `operator`.
UNNEEDED = {
    "operator",
    "lc3jit.toolchain.places",
    "lc3jit.simulator.views",
    "lc3jit.simulator.errors",
    "lc3jit_runtime.capture",
}


@pytest.mark.parametrize("program", ["hello.obj", "hello.hex", "hello.obj hello.sym"])
def test_a_plain_run_imports_none_of_the_heavy_modules(program: str, tmp_path: Path) -> None:
    """Without `site` (whose start-up imports some of them in a development install), the
    packages found through links, so that only the run's own imports are counted. With
    the .sym beside the .obj, the run watches for the PC leaving the program."""
    os.symlink(Path(__file__).parent.parent / "lc3jit", tmp_path / "lc3jit")
    os.symlink(Path(__file__).parent.parent / "runtime", tmp_path / "lc3jit_runtime")
    program, *beside = program.split()
    if program.endswith(".hex"):
        (tmp_path / program).write_text("x3000\nF025\n")
    for name in [program, *beside] if program.endswith(".obj") else []:
        shutil.copy(EXAMPLES / name, tmp_path / name)
    avoid = HEAVY | UNNEEDED
    script = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r}); before = set(sys.modules);"
        " from lc3jit.launch import main; import atexit;"
        f" atexit.register(lambda: print(sorted({avoid!r} & (set(sys.modules) - before)), file=sys.stderr));"
        " sys.argv[0] = 'lc3jit'; main()"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", script, "run", program],
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().splitlines()[-1] == "[]"
