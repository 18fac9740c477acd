"""The typer CLI (lc3jit/cli/): plain help on every command, and commands that import only
what they need. Each test runs the real `lc3jit` entry point in a process of its own."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parent.parent / "examples"
COMMANDS = [
    "run", "compile", "debug", "asm", "disasm", "dump", "bench", "check", "grade", "dap", "lsp", "version",
    "web",
]  # fmt: skip
#: How typer writes what a student should not have to read: {NAME}, <list[Path]>, <int range>.
TYPER_NOTATION = re.compile(r"\{\w+\}|<[\w\[\] |]+>")


def lc3jit(
    *args: str, code: str = "", cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`lc3jit ARGS` through the entry point; `code` runs after it, at exit (it can read sys.modules)."""
    at_exit = f"import atexit; atexit.register(lambda: ({code}));" if code else ""
    entry = f"import sys; {at_exit} from lc3jit.launch import main; sys.argv[0] = 'lc3jit'; main()"
    return subprocess.run(
        [sys.executable, "-c", entry, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"COLUMNS": "100", "PATH": "/usr/bin:/bin", **(env or {})},
        timeout=120,
        check=False,
    )


def test_every_command_is_listed_in_its_place() -> None:
    shown = lc3jit("--help").stdout
    listed = re.findall(r"^  (\w+) ", shown.split("Commands:")[1], re.MULTILINE)
    assert listed == COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_plain_names_and_choices(command: str) -> None:
    result = lc3jit(command, "--help")
    assert result.returncode == 0
    assert TYPER_NOTATION.findall(result.stdout) == []
    usage = result.stdout.splitlines()[0]
    expected = {
        "run": "Usage: lc3jit run [OPTIONS] PROGRAM...",
        "asm": "Usage: lc3jit asm [OPTIONS] FILE",
        "disasm": "Usage: lc3jit disasm [OPTIONS] PROGRAM",
        "grade": "Usage: lc3jit grade [OPTIONS] TESTS [SUBMISSIONS...]",  # none with --gradescope-autograder
        "version": "Usage: lc3jit version [OPTIONS]",
    }
    assert usage == expected.get(command, usage)


def test_choices_are_listed_where_a_value_is_one_of_a_few() -> None:
    run = " ".join(lc3jit("run", "--help").stdout.split())
    assert "PROGRAM... Program files" in run
    assert "--engine regions|blocks|interp" in run and "--edition 3|2" in run
    dump = " ".join(lc3jit("dump", "--help").stdout.split())
    assert "--format text|json" in dump and "--engine regions|blocks" in dump and "--addr ADDR" in dump


def test_a_missing_program_is_named_as_the_usage_names_it() -> None:
    result = lc3jit("run")
    assert result.returncode == 2
    assert "Missing argument 'PROGRAM...'" in result.stderr or "Missing argument 'PROGRAM'" in result.stderr


LOADED = "print(sorted(sys.modules), file=sys.stderr)"
#: What only translating, debugging, grading or drawing needs; and pydantic, which typer
#: needs only for values other than text and paths (lc3jit/cli/typer_adapter.py).
HEAVY = (
    "bytecode",
    "rich",
    "lc3jit.translator",
    "lc3jit.api",
    "lc3jit.simulator",
    "lc3jit.grading",
    "lc3jit.debugging.debugger",
    "lc3jit.inspection.dump",
    "lc3jit_runtime.dispatch",
    "pydantic",
)


def modules_of(*args: str, cwd: Path) -> set[str]:
    """The modules a command has imported when it ends."""
    result = lc3jit(*args, code=LOADED, cwd=cwd)
    return set(eval(result.stderr.strip().splitlines()[-1]))


def heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m.startswith(HEAVY)}


@pytest.mark.parametrize(
    "args",
    [["asm", "hello.asm"], ["disasm", "hello.obj"], ["--help"], ["asm", "--help"], ["dump", "--help"]],
    ids=["asm", "disasm", "help", "asm-help", "dump-help"],
)
def test_toolchain_commands_and_help_import_neither_translator_nor_debugger(
    args: list[str], tmp_path: Path
) -> None:
    for name in ("hello.asm", "hello.obj", "hello.sym"):
        (tmp_path / name).write_bytes((EXAMPLES / name).read_bytes())
    loaded = modules_of(*args, cwd=tmp_path)
    assert "typer" in loaded  # it did reach typer
    assert heavy(loaded) == set()
    assert ("lc3jit.toolchain.asm" in loaded) == (args[0] in ("asm", "disasm") and args[1] != "--help")


def test_dump_still_finds_its_translator(tmp_path: Path) -> None:
    loaded = modules_of("dump", str(EXAMPLES / "hello.obj"), cwd=tmp_path)
    assert {"lc3jit.translator", "lc3jit.inspection.dump", "lc3jit.inspection.dump_text"} <= loaded


def test_paths_read_without_pydantic_keep_typers_checks(tmp_path: Path) -> None:
    result = lc3jit("debug", "--input", str(tmp_path), str(EXAMPLES / "hello.obj"))
    assert result.returncode == 2
    assert f"Invalid value for '--input': file '{tmp_path}' is a directory." in result.stderr


#: What a plain `lc3jit run` must not import (its start-up is at most twice bare
#: Python's): the CLI library, the API's calls and the grading behind them, the translator,
#: and the standard library's costly machinery (typing, dataclasses with inspect, re, enum
#: and `signal`, which makes enums of its numbers; `contextlib` with `functools` and
#: `collections`, and `threading`, which Python 3.15's own start does not import; and
#: the shared libraries a run that reads no terminal has no use for).
NOT_FOR_A_PLAIN_RUN = (
    "re",
    "enum",
    "signal",
    "contextlib",
    "functools",
    "collections",
    "threading",
    "termios",
    "select",
    "math",
    "bisect",
    "typer",
    "typing",
    "dataclasses",
    "inspect",
    "bytecode",
    "lc3jit.api",
    "lc3jit.cli",
    "lc3jit.translator",
    "lc3jit.simulator.calling",
    "lc3jit.grading.coverage",
    "lc3jit.grading.observe",
    "lc3jit.grading.calls",
    "lc3jit_runtime.dispatch",
    "lc3jit_runtime.code_helpers",
    "lc3jit_runtime.compiled",
)


def not_for_a_plain_run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> set[str]:
    """What `lc3jit ARGS` imported of NOT_FOR_A_PLAIN_RUN, beyond what this Python's own
    start imports (a site hook may import typing); the program must have ended with HALT."""
    bare = subprocess.run(
        [sys.executable, "-c", "import sys; print(sorted(sys.modules))"], capture_output=True, text=True
    )
    result = lc3jit(*args, code=LOADED, cwd=cwd, env=env)
    assert result.stdout.endswith("HALT\n")
    loaded = set(eval(result.stderr.strip().splitlines()[-1])) - set(eval(bare.stdout))
    return {m for m in loaded if any(m == name or m.startswith(f"{name}.") for name in NOT_FOR_A_PLAIN_RUN)}


def test_a_plain_run_imports_only_what_it_runs_with(tmp_path: Path) -> None:
    assert not_for_a_plain_run("run", str(EXAMPLES / "hello.obj"), cwd=tmp_path) == set()


def test_a_run_that_finds_its_translations_in_the_cache_loads_them_without_the_translator(
    tmp_path: Path,
) -> None:
    """A tiered run switching after 100 instructions; the second loads what the first saved."""
    args = ("run", str(EXAMPLES / "sieve.obj"), "--translate-after", "100")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}  # not ./lc3jit: `python -c` imports from .
    assert "lc3jit.translator.regions" in not_for_a_plain_run(*args, cwd=tmp_path, env=env)
    assert not_for_a_plain_run(*args, cwd=tmp_path, env=env) == {
        "lc3jit.translator",
        "lc3jit.translator.cache",
        "lc3jit_runtime.compiled",
        "lc3jit_runtime.dispatch",
        "lc3jit_runtime.code_helpers",
    }


def test_the_cli_uses_only_typers_public_modules() -> None:
    """No module of lc3jit imports a private module of typer (`typer._coercion`, ...): a typer
    release may change those at will."""
    private = re.compile(r"^\s*(from|import)\s+typer\._", re.MULTILINE)
    root = Path(__file__).parent.parent / "lc3jit"
    assert [p.name for p in root.rglob("*.py") if private.search(p.read_text())] == []
