"""What other toolchains write: LC3Tools' `.obj` and grouped `.bin`; and files that are not
what they should be: a damaged `.sym`, a text file over the size limit, a FIFO.

The LC3Tools samples in tests/programs/lc3tools/ were assembled by LC3Tools itself from
examples/*.asm (see the README there), so that LC3Tools is the oracle of its own format.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lc3jit.api import Simulator
from lc3jit.cli import app
from lc3jit.session import load_images
from lc3jit.toolchain import places as places_module
from lc3jit.toolchain.asm import assemble_file
from lc3jit.toolchain.places import Places
from lc3jit_runtime.errors import LoadError
from lc3jit_runtime.loader import (
    LC3TOOLS_MAGIC,
    LC3TOOLS_VERSION,
    MAX_TEXT_BYTES,
    load_file,
    load_image_file,
)

from .conftest import engine_options

ROOT = Path(__file__).parent.parent
SAMPLES = Path(__file__).parent / "programs" / "lc3tools"
#: Each LC3Tools sample of a program and the source LC3Tools assembled it from. (lc3os.obj is
#: runtime/lc3os.asm as it was: lc3os may change, and LC3Tools is not here to assemble it again.)
SOURCES = {
    SAMPLES / f"{name}.obj": ROOT / "examples" / f"{name}.asm"
    for name in ("hello", "fib", "strings", "subroutines")
}


def entry(word: int, text: str = "", origin: bool = False) -> bytes:
    """One entry of an LC3Tools .obj: the word, the origin flag, the source line."""
    line = text.encode()
    return word.to_bytes(2, "little") + bytes((origin,)) + len(line).to_bytes(4, "little") + line


def lc3tools_obj(*entries: bytes) -> bytes:
    return LC3TOOLS_MAGIC + LC3TOOLS_VERSION + b"".join(entries)


def load_error(path: Path) -> str:
    with pytest.raises(LoadError) as info:
        load_file(path)
    message = str(info.value)
    assert "\n" not in message
    return message.removeprefix(f"{path}: ")


@pytest.mark.parametrize("sample", SOURCES, ids=lambda p: p.name)
def test_an_lc3tools_obj_holds_what_our_assembler_makes_of_the_same_source(sample: Path) -> None:
    ours = assemble_file(SOURCES[sample]).images
    theirs = load_file(sample)
    assert [(i.origin, i.words) for i in theirs] == [(i.origin, i.words) for i in ours]
    for image, our_image in zip(theirs, ours, strict=True):
        assert set(image.source) == set(range(image.origin, image.end))
        # LC3Tools keeps each line without its comment (a .STRINGZ's words get a character each).
        for address, line in image.source.items():
            ours = our_image.source[address].text.split(";")[0].rstrip()
            if ".STRINGZ" not in ours.upper() and ".BLKW" not in ours.upper():
                assert line.text == ours


@pytest.mark.parametrize("sample", SOURCES, ids=lambda p: p.name)
def test_an_lc3tools_obj_runs_exactly_as_ours(sample: Path, engine: str) -> None:
    keys = "7\n"
    theirs = Simulator(sample, engine=engine, keys=keys)
    ours = Simulator(SOURCES[sample], engine=engine, keys=keys)
    for sim in (theirs, ours):
        sim.run(max_steps=1_000_000)
    assert theirs.output == ours.output
    assert theirs.state() == ours.state()
    assert theirs.output


def test_lc3os_assembled_by_lc3tools_is_an_os_image(engine: str) -> None:
    """The 3rd edition's: an image given with --os-image is loaded alone, without the word
    of lc3os-2nd.asm that the 2nd edition puts over it."""
    runs = [
        Simulator(SOURCES[SAMPLES / "fib.obj"], engine=engine, os=system)
        for system in (SAMPLES / "lc3os.obj", True)
    ]
    for sim in runs:
        sim.run(max_steps=1_000_000)
    assert runs[0].output == runs[1].output
    (system,) = load_file(SAMPLES / "lc3os.obj")
    assert system.source[0x0200].text.split()[0] == "OS_START"


def test_an_lc3tools_obj_runs_from_the_cli_and_lists(tmp_path: Path) -> None:
    sample = SAMPLES / "hello.obj"
    result = CliRunner().invoke(app, ["run", str(sample), *engine_options("regions")])
    assert (result.exit_code, result.stdout) == (0, "Hello, World!\nHALT\n")
    listing = CliRunner().invoke(app, ["disasm", str(sample)])
    assert listing.exit_code == 0
    assert [line.split(";")[0].split() for line in listing.stdout.splitlines()[:2]] == [
        [".ORIG", "x3000"],
        ["LEA", "R0,", "#2"],
    ]


def test_several_orig_blocks_are_several_images(tmp_path: Path) -> None:
    path = tmp_path / "two.obj"
    path.write_bytes(
        lc3tools_obj(
            entry(0x3000, ".ORIG x3000", origin=True),
            entry(0xF025, "HALT"),
            entry(0x4000, ".ORIG x4000", origin=True),
            entry(0x0007, ".FILL #7"),
            entry(0x0008, ".FILL #8"),
        )
    )
    images = load_file(path)
    assert [(i.origin, i.words) for i in images] == [(0x3000, (0xF025,)), (0x4000, (7, 8))]
    assert images[1].source[0x4001].text == ".FILL #8"
    with pytest.raises(LoadError, match=r"2 \.ORIG blocks where one image is wanted"):
        load_image_file(path)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (LC3TOOLS_MAGIC, "an LC3Tools .obj of format version none, not 1.1: assemble it again"),
        (LC3TOOLS_MAGIC + b"\x02\x00", "an LC3Tools .obj of format version 2.0, not 1.1: assemble it again"),
        (lc3tools_obj(), "no words: an LC3Tools .obj with no .ORIG block that holds any"),
        (lc3tools_obj(entry(0x3000, origin=True)), "no words: an LC3Tools .obj with no .ORIG block"),
        (lc3tools_obj(entry(0x1234, "ADD")), "corrupt: a word at byte 7 before any origin"),
        (
            lc3tools_obj(entry(0x3000, origin=True))[:-1],
            "truncated: 6 bytes at byte 7 where an entry needs 7",
        ),
        (lc3tools_obj(entry(0x3000, "x", origin=True))[:-1], "truncated: the source line at byte 7 runs 1"),
        (lc3tools_obj(entry(0x3000, origin=True))[:9] + b"\x02" + bytes(4), "has origin flag 2, not 0 or 1"),
        (
            lc3tools_obj(entry(0xFFFF, origin=True), entry(1), entry(2)),
            "the words from xFFFF run past xFFFF",
        ),
        (
            lc3tools_obj(entry(0x3000, origin=True), entry(1)[:3] + b"\xff\xff\xff\x7f"),
            "at byte 14 runs 2147483647 bytes past the end",
        ),
    ],
    ids=[
        "magic-only",
        "version",
        "no-entries",
        "empty-block",
        "no-origin",
        "short-entry",
        "short-line",
        "flag",
        "past-xffff",
        "huge-length",
    ],
)
def test_malformed_lc3tools_objs(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "bad.obj"
    path.write_bytes(content)
    assert problem in load_error(path)


def test_bin_digits_may_be_grouped_by_spaces_as_lc3tools_samples_group_them(tmp_path: Path) -> None:
    path = tmp_path / "grouped.bin"
    path.write_text(
        ";\n; grouped by field\n;\n"
        "0011 0000 0000 0000   ; start at location x3000\n"
        "0101 010 010 1 00000  ; clear R2\n"
        "\t1111\t0000 0010 0101 ; HALT\n"
    )
    image = load_image_file(path)
    assert (image.origin, image.words) == (0x3000, (0x54A0, 0xF025))
    path.write_text("0011 0000 0000 0000\n0101 010 010 1 0000\n")
    assert load_error(path) == "line 2: expected 16 binary digits, found '010101001010000'"


@pytest.fixture
def good_obj(tmp_path: Path) -> Path:
    path = tmp_path / "prog.obj"
    path.write_bytes(b"\x30\x00\xf0\x25")
    return path


@pytest.mark.parametrize(
    ("sym", "problem"),
    [
        (b"\x00\xff\xfe binary", "not a text file (byte 1 is not UTF-8)"),
        (
            b"// Symbol table\n//\tSTART 3000\nSTART 3000\n",
            "line 3: not a symbol table line",
        ),
        (b"/" * (MAX_TEXT_BYTES + 1), f"too large: more than {MAX_TEXT_BYTES:,} bytes"),
    ],
    ids=["binary", "not-a-row", "too-large"],
)
def test_a_damaged_sym_is_a_warning_and_the_program_runs_without_labels(
    good_obj: Path, sym: bytes, problem: str
) -> None:
    sym_path = good_obj.with_suffix(".sym")
    sym_path.write_bytes(sym)
    warnings: list[str] = []
    (image,) = load_images([good_obj], warnings.append)
    assert (image.words, image.symbols) == ((0xF025,), {})
    assert warnings == [f"lc3jit: {sym_path}: {problem}; loading {good_obj} without labels"]
    result = CliRunner().invoke(app, ["run", str(good_obj)])
    assert (result.exit_code, result.stdout) == (0, "HALT\n")
    assert result.stderr == f"lc3jit: {sym_path}: {problem}; loading {good_obj} without labels\n"


def test_a_sym_that_is_a_directory_is_a_warning_too(good_obj: Path) -> None:
    good_obj.with_suffix(".sym").mkdir()
    warnings: list[str] = []
    assert load_images([good_obj], warnings.append)[0].symbols == {}
    sym = good_obj.with_suffix(".sym")
    assert warnings == [f"lc3jit: {sym}: Is a directory; loading {good_obj} without labels"]


@pytest.mark.parametrize("suffix", [".hex", ".bin", ".asm", ".obj"])
def test_a_text_file_over_the_limit_is_too_large_not_cut_short(tmp_path: Path, suffix: str) -> None:
    """It used to be read up to the limit and the rest dropped without a word."""
    path = tmp_path / f"big{suffix}"
    lines = {".hex": "1234\n", ".bin": "0001 0010 0011 0100\n", ".asm": "ADD R1, R1, #1\n", ".obj": "\0\0"}
    line = lines[suffix]
    path.write_text(line * (MAX_TEXT_BYTES // len(line) + 1))
    with pytest.raises(LoadError) as info:
        load_images([path])
    assert str(info.value) == f"{path}: too large: more than {MAX_TEXT_BYTES:,} bytes"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("suffix", [".hex", ".obj", ".asm"])
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"pipe{suffix}"
    os.mkfifo(path)
    with pytest.raises(LoadError) as info:
        load_images([path])
    assert str(info.value) == f"{path}: not a regular file"


def test_the_grader_names_a_place_by_its_lc3tools_source_line() -> None:
    """LC3Tools keeps no line numbers: the file and the line's text say where."""
    images = load_file(SAMPLES / "fib.obj")
    places = Places({"NEXT": 0x3004}, images)
    assert places.describe(0x3005) == "x3005 <NEXT+1> (fib.obj: JSR PRINT_DEC)"


def test_places_of_many_programs_each_name_their_own_labels() -> None:
    """Places of the same symbol table share its labels, never another table's; a class's
    worth of tables is not all kept."""
    for number in range(places_module.KEPT_LABELS + 5):
        places = Places({"LOOP": 0x3000 + number, "END": 0x3100}, [])
        assert places.where(0x3001 + number) == f"x{0x3001 + number:04X} <LOOP+1>"
        assert places.where(0x3100) == "x3100 <END>"
    assert len(places_module._LABELS) <= places_module.KEPT_LABELS
