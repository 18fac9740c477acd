"""Fuzzing every loader with mutated files: one-line errors, bounded work, bounded memory.

Each format starts from a good file (an example, an LC3Tools sample, a compiled program)
that hypothesis mutates: bits flipped, bytes changed, spans deleted, duplicated hundreds
of times, lengths made huge, the file cut short. Loading it must give images or a
LoadError/AssemblyError whose first line names the file (a damaged `.sym` beside a good
`.obj`: a warning and no labels), never another exception. Work is counted, not timed:
Python calls (sys.setprofile) grow at most linearly with the input, and so does the most
memory held at once (tracemalloc). The default run tries a few dozen files a format; with
`--slow` about a thousand.
"""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lc3jit.cli import app
from lc3jit.session import load_images
from lc3jit.toolchain.asm import AssemblyError
from lc3jit_runtime.compiled import read_compiled
from lc3jit_runtime.errors import LoadError

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
#: Calls a loader may make per byte of input, and for any input at all: a line of 4 bytes
#: may be a label alone, which the assembler holds against every mnemonic (GETS: GETC?).
CALLS_PER_BYTE, CALLS_AT_ALL = 500, 60_000
#: Bytes it may hold at once per byte of input (a label of one letter a line defines a
#: symbol every 2 bytes), and for any input at all.
MEMORY_PER_BYTE, MEMORY_AT_ALL = 200, 4_000_000
#: A fraction of the profile's examples for each format: several formats share the budget.
EXAMPLES_EACH = max(20, settings().max_examples // 4)


def grouped_bin(words: list[int]) -> str:
    """A .bin as LC3Tools' samples write it: digits grouped by field, comments after."""
    return "".join(
        f"{w >> 12:04b} {w >> 9 & 7:03b} {w >> 6 & 7:03b} {w & 0x3F:06b} ; x{w:04X}\n" for w in words
    )


def seeds(folder: Path) -> dict[str, bytes]:
    """A good file of each format, by the name it is loaded as."""
    hello = (EXAMPLES / "hello.obj").read_bytes()
    words = [hello[i] << 8 | hello[i + 1] for i in range(0, len(hello), 2)]
    compiled = folder / "hello.pyc"
    result = CliRunner().invoke(app, ["compile", str(EXAMPLES / "hello.asm"), "-o", str(compiled)])
    assert result.exit_code == 0, result.output
    return {
        "prog.obj": hello,
        "prog.hex": (EXAMPLES / "add.hex").read_bytes(),
        "prog.bin": grouped_bin(words).encode(),
        "prog.sym": (EXAMPLES / "hello.sym").read_bytes(),
        "prog.asm": (EXAMPLES / "fib.asm").read_bytes(),
        "lc3tools.obj": (Path(__file__).parent / "programs" / "lc3tools" / "fib.obj").read_bytes(),
        "prog.pyc": compiled.read_bytes(),
    }


@pytest.fixture(scope="module")
def good_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return seeds(tmp_path_factory.mktemp("seeds"))


@st.composite
def mutations(draw: st.DrawFn, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["flip", "byte", "delete", "insert", "repeat", "length", "cut"]))
        if kind == "flip" and at < len(data):
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "byte" and at < len(data):
            data[at] = draw(st.sampled_from([0, 1, 0x0A, 0x22, 0x2C, 0x3B, 0x7F, 0x80, 0xFF]))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "repeat":  # a span many times over: long lines, many words, many errors
            span = bytes(data[at : at + draw(st.integers(1, 32))])
            data[at:at] = span * draw(st.integers(1, 2_000))
        elif kind == "length":  # a count or a length made huge (LC3Tools' 32-bit line lengths)
            data[at : at + 4] = draw(st.sampled_from([b"\xff\xff\xff\x7f", b"\xff\xff\xff\xff", b"\0\0\1\0"]))
        elif kind == "cut":
            del data[at:]
    return bytes(data)


def load(path: Path, kind: str, warnings: list[str]) -> object:
    """What `lc3jit run` does first with the file: its images, or the compiled program."""
    if kind == "prog.pyc":
        return read_compiled(path)
    if kind == "prog.sym":  # a .sym is loaded beside its .obj
        return load_images([path.with_suffix(".obj")], warnings.append)
    return load_images([path], warnings.append)


def measured(work: Callable[[], object]) -> tuple[object, int, int]:
    """What work returned (or raised), the Python calls it made, the most memory it held."""
    calls = 0

    def count(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        calls += 1

    tracemalloc.start()
    sys.setprofile(count)
    try:
        outcome: object = work()
    except (LoadError, AssemblyError) as e:
        outcome = e
    finally:
        sys.setprofile(None)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return outcome, calls, peak


@pytest.mark.parametrize(
    "kind", ["prog.obj", "prog.hex", "prog.bin", "prog.sym", "prog.asm", "lc3tools.obj", "prog.pyc"]
)
def test_mutated_files_load_or_fail_in_one_line_within_bounds(
    kind: str, good_files: dict[str, bytes], tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    seed = good_files[kind]

    @settings(max_examples=EXAMPLES_EACH, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=mutations(seed))
    def check(data: bytes) -> None:
        path = folder / kind
        if kind == "prog.sym":
            path.with_suffix(".obj").write_bytes(good_files["prog.obj"])
        path.write_bytes(data)
        warnings: list[str] = []
        outcome, calls, peak = measured(lambda: load(path, kind, warnings))
        assert calls <= CALLS_PER_BYTE * len(data) + CALLS_AT_ALL, (len(data), calls)
        assert peak <= MEMORY_PER_BYTE * len(data) + MEMORY_AT_ALL, (len(data), peak)
        if isinstance(outcome, LoadError):
            assert "\n" not in str(outcome)
            assert str(outcome).startswith(f"{path}: ")
        elif isinstance(outcome, AssemblyError):
            first, *rest = str(outcome).splitlines()
            assert first.startswith(f"{path}: ") and first.endswith(("error", "errors"))
            assert len(rest) <= 3 * 2 * 30 + 1  # the errors and warnings shown, each in 3 lines
        if kind == "prog.sym":
            assert not isinstance(outcome, Exception)  # a bad .sym never stops the program
        for warning in warnings:
            assert len(warning) < 1_000

    check()


def test_a_mutated_compiled_file_is_one_line_from_lc3jit_run(
    good_files: dict[str, bytes], tmp_path: Path
) -> None:
    """The .pyc fuzzing above loads as `lc3jit run` does; here is what the user sees of it."""
    path = tmp_path / "hello.pyc"
    data = bytearray(good_files["prog.pyc"])
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    result = CliRunner().invoke(app, ["run", str(path)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"lc3jit: {path}: corrupt")  # 19a may word it otherwise
    assert result.stderr.count("\n") == 1
