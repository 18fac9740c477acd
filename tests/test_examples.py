"""The example programs: their committed .obj/.sym are current, they run, and they round-trip."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lc3jit.cli import app
from lc3jit.toolchain.asm import assemble, assemble_file, obj_bytes, output_paths, sym_text
from lc3jit.toolchain.disasm import write_listing
from lc3jit_runtime.loader import load_image_file

EXAMPLES = Path(__file__).parent.parent / "examples"
PROMPT = "Enter a character: "
FIB = "".join(
    f"{n}\n" for n in (0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181)
)
PRIMES = "2 3 5 7 11 13 17 19 23 29 31 37 41 43 47 53 59 61 67 71 73 79 83 89 97 \n"

#: name, keys typed, what the program writes before HALT
RUNS = [
    ("hello", b"", "Hello, World!\n"),
    ("echo", b"echo me\nnot this", "Type a line: echo me\n"),
    ("add", b"34", f"{PROMPT}3{PROMPT}4\nThe sum is 7\n"),
    ("add", b"99", f"{PROMPT}9{PROMPT}9\nThe sum is 18\n"),
    ("fib", b"", FIB),
    ("sieve", b"", PRIMES),
    ("strings", b"", "Hi, PUTSP!\n" + "HELLO, LC-3 STRINGS;\tDONE.\n" * 2),
    ("subroutines", b"", "42 = 6 * 7\n100 / 7 = 14 remainder 2\n"),
    ("halt", b"", ""),
]
SOURCES = sorted(EXAMPLES.glob("*.asm"))


def test_every_example_is_here() -> None:
    assert {s.stem for s in SOURCES} == {name for name, _, _ in RUNS}


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_committed_obj_and_sym_are_current(source: Path) -> None:
    assembly = assemble_file(source)
    assert not assembly.warnings
    paths = output_paths(source.with_suffix(".obj"), len(assembly.images))
    for image, path in zip(assembly.images, paths, strict=True):
        assert path.read_bytes() == obj_bytes(image), f"{path} is stale: run lc3jit asm {source}"
        assert path.with_suffix(".sym").read_text() == sym_text(image.symbols)


@pytest.mark.parametrize(("name", "keys", "output"), RUNS)
def test_example_halts_with_its_output(name: str, keys: bytes, output: str) -> None:
    source = EXAMPLES / f"{name}.asm"
    objs = output_paths(source.with_suffix(".obj"), len(assemble_file(source).images))
    for programs in ([source], objs):
        result = CliRunner().invoke(
            app, ["run", "--engine", "interp", *map(str, programs)], input=keys, catch_exceptions=False
        )
        assert (result.exit_code, result.stdout) == (0, output + "HALT\n")


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_disassembly_of_the_obj_reassembles_to_the_same_words(source: Path) -> None:
    assembly = assemble_file(source)
    for path in output_paths(source.with_suffix(".obj"), len(assembly.images)):
        image = load_image_file(path)
        text = io.StringIO()
        write_listing(image, text)
        (again,) = assemble(text.getvalue()).images
        assert (again.origin, again.words) == (image.origin, image.words)
        assert again.symbols.keys() <= image.symbols.keys()
