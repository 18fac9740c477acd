"""Loading `.obj`, `.hex`, `.bin` and `.sym` files: every malformed file is one LoadError line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lc3jit.session import boot, load_images
from lc3jit_runtime.console import Console
from lc3jit_runtime.errors import LoadError
from lc3jit_runtime.loader import Image, load_image_file

from .machine_code import HALT, write_hex

EXAMPLES = Path(__file__).parent.parent / "examples"


def obj_bytes(*words: int) -> bytes:
    return b"".join(word.to_bytes(2, "big") for word in words)


def load_error(path: Path) -> str:
    """The one-line message of loading path, which must fail."""
    with pytest.raises(LoadError) as info:
        load_image_file(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    return message.removeprefix(f"{path}: ")


def test_an_obj_is_big_endian_words_after_the_origin(tmp_path: Path) -> None:
    path = tmp_path / "prog.obj"
    path.write_bytes(obj_bytes(0x3000, 0x1234, 0xF025))
    image = load_image_file(path)
    assert (image.origin, image.words, image.name, image.symbols) == (0x3000, (0x1234, 0xF025), str(path), {})


def test_the_games_load_at_x3000() -> None:
    for name in ("2048.obj", "rogue.obj"):
        image = load_image_file(EXAMPLES / name)
        assert image.origin == 0x3000
        assert len(image.words) == ((EXAMPLES / name).stat().st_size - 2) // 2


def test_an_image_may_fill_memory_to_xffff(tmp_path: Path) -> None:
    path = tmp_path / "full.obj"
    path.write_bytes(obj_bytes(0x0000, *[0x0101] * 0x10000))
    assert load_image_file(path).end == 0x10000


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "empty file"),
        (b"\x30", "odd number of bytes (1)"),
        (obj_bytes(0x3000), "no words after the origin"),
        (obj_bytes(0x3000, 0xF025) + b"\xf0", "odd number of bytes (5)"),
        (obj_bytes(0xFFFF, 0x1111, 0x2222), "2 words from xFFFF run past xFFFF"),
        (obj_bytes(0x0001, *[0] * 0x10000), "65536 words from x0001 run past xFFFF"),
        (bytes(2 * 0x10002), "more than 131074 bytes"),
    ],
    ids=["empty", "one-byte", "origin-only", "odd", "past-xffff", "past-xffff-full", "huge"],
)
def test_malformed_obj_files(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "bad.obj"
    path.write_bytes(content)
    assert problem in load_error(path)


def test_a_truncated_game_is_an_odd_length(tmp_path: Path) -> None:
    path = tmp_path / "2048.obj"
    path.write_bytes((EXAMPLES / "2048.obj").read_bytes()[:1001])
    assert load_error(path) == "odd number of bytes (1001): an .obj holds 16-bit words"


def test_a_missing_file(tmp_path: Path) -> None:
    assert load_error(tmp_path / "nothing.obj") == "No such file or directory"


@pytest.mark.parametrize("suffix", [".obj", ".hex", ".bin"])
def test_a_directory(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"dir{suffix}"
    path.mkdir()
    assert load_error(path) == "Is a directory"


def test_hex_text_with_comments_blank_lines_and_prefixes(tmp_path: Path) -> None:
    path = tmp_path / "prog.hex"
    path.write_text("; a program\n\n  x3000 ; origin\n0x1234\nf025\n   \n7 ; one digit\n")
    image = load_image_file(path)
    assert (image.origin, image.words) == (0x3000, (0x1234, 0xF025, 0x0007))


def test_bin_text(tmp_path: Path) -> None:
    path = tmp_path / "prog.bin"
    path.write_text("0011000000000000 ; x3000\n1111000000100101\n")
    image = load_image_file(path)
    assert (image.origin, image.words) == (0x3000, (0xF025,))


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("e.hex", "", "empty file: no words"),
        ("c.hex", "; only a comment\n\n", "empty file: no words"),
        ("o.hex", "3000\n", "no words after the origin"),
        ("d.hex", "3000\n1234\nzz12\n", "line 3: expected a hex word of 1 to 4 digits, found 'zz12'"),
        ("w.hex", "3000\n12345\n", "line 2: expected a hex word of 1 to 4 digits, found '12345'"),
        ("s.hex", "3000\n12 34\n", "line 2: expected a hex word of 1 to 4 digits, found '12 34'"),
        ("p.hex", "FFFF\n1\n2\n", "2 words from xFFFF run past xFFFF"),
        (
            "d.bin",
            "0011000000000000\n0001002000000000\n",
            "line 2: expected 16 binary digits, found '0001002000000000'",
        ),
        (
            "w.bin",
            "0011000000000000\n111100000010010\n",
            "line 2: expected 16 binary digits, found '111100000010010'",
        ),
        ("h.bin", "0011000000000000\nF025\n", "line 2: expected 16 binary digits, found 'F025'"),
    ],
)
def test_malformed_text_files_name_the_line(tmp_path: Path, name: str, text: str, problem: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert load_error(path) == problem


def test_a_text_file_that_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "bin.hex"
    path.write_bytes(b"3000\n\xff\xfe\x00")
    assert load_error(path) == "not a text file (byte 5 is not UTF-8)"


def test_a_huge_hex_file_runs_past_xffff(tmp_path: Path) -> None:
    path = write_hex(tmp_path / "huge.hex", [0] * 70_000, origin=0)
    assert load_error(path) == "70000 words from x0000 run past xFFFF"


@given(content=st.binary(max_size=64))
def test_random_bytes_load_or_fail_with_a_load_error(
    tmp_path_factory: pytest.TempPathFactory, content: bytes
) -> None:
    folder = tmp_path_factory.mktemp("random")
    for suffix in (".obj", ".hex", ".bin"):
        path = folder / f"random{suffix}"
        path.write_bytes(content)
        try:
            image = load_image_file(path)
        except LoadError as e:
            assert "\n" not in str(e)
        else:
            assert image.end <= 0x10000
            assert all(0 <= word <= 0xFFFF for word in image.words)


LC3AS_SYM = """// Symbol table
// Scope level 0:
//\tSymbol Name       Page Address
//\t----------------  ------------
//\tSTART             3000
//\tLOOP              3002
//\tDATA_1            30A0

"""


def test_a_sym_file_beside_an_obj_is_picked_up(tmp_path: Path) -> None:
    path = tmp_path / "prog.obj"
    path.write_bytes(obj_bytes(0x3000, HALT))
    assert load_image_file(path).symbols == {}
    (tmp_path / "prog.sym").write_text(LC3AS_SYM)
    assert load_image_file(path).symbols == {"START": 0x3000, "LOOP": 0x3002, "DATA_1": 0x30A0}


def test_later_images_load_over_earlier_ones_and_the_first_origin_is_the_start(tmp_path: Path) -> None:
    first = write_hex(tmp_path / "a.hex", [0x1111, 0x2222, 0x3333], origin=0x4000)
    second = write_hex(tmp_path / "b.hex", [0x9999], origin=0x4001)
    machine = boot(load_images([first, second]), Console(io.BytesIO(), io.BytesIO()))
    assert machine.mem[0x4000:0x4003] == [0x1111, 0x9999, 0x3333]
    assert machine.pc == 0x4000
    assert boot([Image(0x4000, (1,))], Console(None, io.BytesIO()), pc=0x1234).pc == 0x1234
