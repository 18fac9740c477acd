"""Hostile sources: the assembler's report stays bounded and its work linear in the input.

Once, a line of 16,000 commas took 7 s and 1.45 GB (every error echoed
its whole line), a 5 MB file passed 6.5 GB, and a decimal literal of 5,000 digits was a
Python traceback. Bounds are asserted on sizes and counts (tracemalloc), never on time.
"""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lc3jit.api import Simulator
from lc3jit.cli import app
from lc3jit.toolchain.asm import ECHO_WIDTH, SHOWN, AssemblyError, assemble

#: Longer than any line the assembler writes about a source: a message and its place.
MAX_LINE = 2 * ECHO_WIDTH


def report(source: str) -> AssemblyError:
    with pytest.raises(AssemblyError) as info:
        assemble(source, "bad.asm")
    return info.value


def peak_bytes(work: Callable[[], object]) -> int:
    """The most memory Python held at once while doing work (its result dropped)."""
    tracemalloc.start()
    try:
        try:
            work()
        except AssemblyError as e:
            str(e)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_label_then_16000_commas_is_one_short_error() -> None:
    error = report(".ORIG x3000\nL " + "," * 16_000 + "\n.END\n")
    assert error.count == 1
    text = str(error)
    assert "more than 16 words and commas on one line" in text
    assert max(map(len, text.splitlines())) <= MAX_LINE


def test_a_5_mb_file_of_such_lines_gives_a_bounded_report(tmp_path: Path) -> None:
    path = tmp_path / "commas.asm"
    line = "L " + "," * 16_000 + "\n"
    path.write_text(".ORIG x3000\n" + line * (5_000_000 // len(line)) + ".END\n")
    result = CliRunner().invoke(app, ["asm", str(path)])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == f"lc3jit: {path}: {5_000_000 // len(line)} errors"  # one a line
    assert len(lines) <= 3 * SHOWN + 2
    assert max(map(len, lines)) <= MAX_LINE


def test_errors_past_the_first_ones_are_counted_not_shown() -> None:
    lines = 5_000
    error = report(".ORIG x3000\n" + "L ,\n" * lines + ".END\n")
    # Each line: a missing operand; every line after the first also redefines L.
    assert error.count == 2 * lines - 1
    assert len(error.diagnostics) == SHOWN
    text = str(error)
    assert text.splitlines()[0] == f"bad.asm: {2 * lines - 1} errors"
    assert text.splitlines()[-1] == f"and {2 * lines - 1 - SHOWN} more errors"
    assert [d.line for d in error.diagnostics] == sorted(d.line for d in error.diagnostics)
    assert error.diagnostics[0].line == 2


def test_the_first_errors_in_source_order_are_shown_whichever_pass_found_them() -> None:
    # Pass 2 finds the unknown labels on the first lines after pass 1 found the rest.
    source = ".ORIG x3000\n" + "BR NOWHERE\n" * 3 + "L ,\n" * (5 * SHOWN) + ".END\n"
    error = report(source)
    assert [d.message for d in error.diagnostics[:3]] == ["unknown label NOWHERE"] * 3


def test_warnings_past_the_first_ones_are_counted_not_shown(tmp_path: Path) -> None:
    path = tmp_path / "blkw.asm"
    path.write_text(".ORIG x3000\n" + ".BLKW 0\n" * 100 + "HALT\n.END\n")
    result = CliRunner().invoke(app, ["run", str(path), "--engine", "interp"])
    assert result.exit_code == 0
    warnings = [line for line in result.stderr.splitlines() if ": warning: " in line]
    assert len(warnings) == SHOWN
    assert result.stderr.splitlines()[-1] == f"{path}: and {100 - SHOWN} more warnings"


def test_an_echoed_line_is_clipped_around_the_column() -> None:
    line = "ADD R1, R1, R9" + " " * 300 + "; " + "x" * 5_000
    (diagnostic,) = report(f".ORIG x3000\n{line}\n.END\n").diagnostics
    shown = str(diagnostic).splitlines()
    assert shown[0].startswith("bad.asm:2:13: error: ")
    assert shown[1] == line[:ECHO_WIDTH] + "..."
    assert shown[2] == " " * 12 + "^"
    far = report(f".ORIG x3000\n{' ' * 3000}FOO R1, R2\n.END\n").diagnostics[0]
    echo, caret = str(far).splitlines()[1:]
    assert echo.startswith("...") and len(echo) <= ECHO_WIDTH + 6
    assert echo[len(caret) - 1 : len(caret) + 2] == "FOO"


@pytest.mark.parametrize("literal", ["#" + "9" * 5000, "9" * 5000, "#-" + "9" * 5000, "x" + "F" * 5000])
def test_a_literal_of_thousands_of_digits_is_out_of_range(literal: str) -> None:
    (diagnostic,) = report(f".ORIG x3000\nADD R1, R1, {literal}\n.END\n").diagnostics
    assert diagnostic.message.endswith("is out of range for imm5 (-16 to 15)")
    assert len(str(diagnostic).splitlines()[0]) <= MAX_LINE


def test_a_5000_digit_literal_is_one_error_on_the_cli_and_an_assembly_error_in_the_api(
    tmp_path: Path,
) -> None:
    path = tmp_path / "big.asm"
    path.write_text(".ORIG x3000\nADD R1, R1, #" + "9" * 5000 + "\nHALT\n.END\n")
    result = CliRunner().invoke(app, ["run", str(path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.stderr.splitlines()[0] == f"lc3jit: {path}: 1 error"
    assert max(map(len, result.stderr.splitlines())) <= MAX_LINE
    with pytest.raises(AssemblyError):
        Simulator(path)
    with pytest.raises(AssemblyError):
        Simulator(source=".ORIG x3000\n.FILL #" + "9" * 5000 + "\n.END")


@pytest.mark.parametrize(
    "unit",
    [
        "L " + "," * 1000 + "\n",  # a label and commas: the case that once took 7 s
        "L ,\n",  # an error on every line
        "ADD R1, R1, #" + "9" * 200 + "\n",  # long literals
        ".STRINGZ " + '"' + "a" * 200 + "\n",  # unterminated strings
        "\t".join(["FOO"] * 50) + "\n",  # unknown instructions, many words
        "\0\xff" * 100 + "\n",  # bytes that are no text
    ],
)
def test_memory_grows_linearly_with_the_source(unit: str, request: pytest.FixtureRequest) -> None:
    """Twice the source takes at most about twice the memory, and a few times the source's
    own size: no error holds a copy of its line, and the report is bounded. (With --slow,
    up to the 5 MB of the issue; by default 50 KB, which tracemalloc makes slow enough.)"""

    def source(size: int) -> str:
        return ".ORIG x3000\n" + unit * (size // len(unit)) + ".END\n"

    large = 5_000_000 if request.config.getoption("--slow") else 50_000
    small = large // 2
    peak_small = peak_bytes(lambda: assemble(source(small)))
    peak_large = peak_bytes(lambda: assemble(source(large)))
    assert peak_large < 2.5 * peak_small
    assert peak_large < 40 * large


def calls(work: Callable[[], object]) -> int:
    """The Python calls work makes: a count of its work that no machine's speed changes."""
    count = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        count += 1

    sys.setprofile(profile)
    try:
        try:
            work()
        except AssemblyError as e:
            str(e)
    finally:
        sys.setprofile(None)
    return count


@pytest.mark.parametrize(
    "line",
    [
        "LABEL{0} .FILL MISSING{0}\n",  # unknown labels among many: each looks for a near one
        "LABEL{0}{1} .FILL LABEL{1}{0}\n",  # ... among labels of the same length
        "GETZ{0}\n",  # misspelt instructions: each looks for a near one
        "X{1} .FILL " + "Y" * 3000 + "{0}\n",  # long names
    ],
)
def test_work_grows_linearly_with_the_source(line: str) -> None:
    """Hints ("did you mean") compare names: the work stays linear in the source."""

    def source(lines: int) -> str:
        return ".ORIG x3000\n" + "".join(line.format(i, "X" * (i % 7)) for i in range(lines)) + ".END\n"

    small, large = calls(lambda: assemble(source(200))), calls(lambda: assemble(source(400)))
    assert large < 2.3 * small
