"""The disassembler: listing records, the text columns, and round trips through the assembler."""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from lc3jit.cli import app
from lc3jit.toolchain.asm import assemble, obj_bytes, write_outputs
from lc3jit.toolchain.disasm import ListingLine, iter_listing, write_listing
from lc3jit_runtime.loader import Image, load_image_file


def listing_text(image: Image, code: frozenset[int] | None = None) -> str:
    out = io.StringIO()
    write_listing(image, out, code)
    return out.getvalue()


def reassembled(image: Image, code: frozenset[int] | None = None) -> tuple[int, ...]:
    (again,) = assemble(listing_text(image, code)).images
    assert again.origin == image.origin
    return again.words


PROGRAM = """
        .ORIG x3000
START   LEA R0, MSG
        PUTS
LOOP    ADD R1, R1, #-1
        BRp LOOP
        JSR FAR
        HALT
MSG     .STRINGZ "Hi"
FAR     RET
        .END
"""


def test_records_name_labels_mnemonics_operands_and_targets() -> None:
    assembly = assemble(PROGRAM)
    records = list(iter_listing(assembly.images[0], assembly.code))
    assert records[:4] == [
        ListingLine(0x3000, 0xE005, "START", "LEA", "R0, MSG", 0x3006, "MSG"),
        ListingLine(0x3001, 0xF022, None, "PUTS", ""),
        ListingLine(0x3002, 0x127F, "LOOP", "ADD", "R1, R1, #-1"),
        ListingLine(0x3003, 0x03FE, None, "BRp", "LOOP", 0x3002, "LOOP"),
    ]
    assert [(r.label, r.mnemonic, r.operands) for r in records[6:]] == [
        ("MSG", ".FILL", "x0048"),
        (None, ".FILL", "x0069"),
        (None, ".FILL", "x0000"),
        ("FAR", "RET", ""),
    ]


def test_golden_listing_text() -> None:
    assembly = assemble(PROGRAM)
    lines = listing_text(assembly.images[0], assembly.code).splitlines()
    assert lines[:3] == [
        "                .ORIG   x3000",
        "START           LEA     R0, MSG         ; x3000 E005  -> MSG",
        "                PUTS                    ; x3001 F022",
    ]
    assert lines[5] == "                JSR     FAR             ; x3004 4804  -> FAR"
    assert lines[-1] == "                .END"


def test_without_a_code_set_every_word_is_an_instruction() -> None:
    image = Image(0x3000, (0x0E48, 0xF025))
    assert [(r.mnemonic, r.operands) for r in iter_listing(image)] == [("BRnzp", "#72"), ("HALT", "")]
    assert [r.mnemonic for r in iter_listing(image, frozenset({0x3001}))] == [".FILL", "HALT"]


def test_words_without_a_spelling_are_fill() -> None:
    # ADD with bit 4 set ("should be" 0), BR with nzp = 000, RET with bit 0 set, the reserved opcode.
    image = Image(0x3000, (0x1290, 0x0005, 0xC1C1, 0xD000))
    assert [(r.mnemonic, r.operands) for r in iter_listing(image)] == [
        (".FILL", "x1290"),
        (".FILL", "x0005"),
        (".FILL", "xC1C1"),
        (".FILL", "xD000"),
    ]


def test_target_outside_the_image_is_an_offset_with_the_label_shown() -> None:
    image = Image(0x3000, (0x0FFE,), symbols={"BEFORE": 0x2FFF})
    (record,) = iter_listing(image)
    assert (record.operands, record.target, record.target_label) == ("#-2", 0x2FFF, "BEFORE")
    assert "-> BEFORE" in listing_text(image)
    assert reassembled(image) == image.words


def test_a_label_that_is_a_mnemonic_is_written_with_a_colon() -> None:
    image = Image(0x3000, (0x0FFF,), symbols={"ADD": 0x3000})
    assert listing_text(image).splitlines()[1].startswith("ADD:")
    assert reassembled(image) == image.words


def test_labels_that_cannot_be_read_back_are_left_out() -> None:
    image = Image(0x3000, (0x0FFF, 0x0FFE), symbols={"x12": 0x3000, "loop": 0x3001, "LOOP": 0x3000})
    assert [r.label for r in iter_listing(image)] == [None, "loop"]
    assert reassembled(image) == image.words


def test_every_word_round_trips_through_text() -> None:
    """All 65,536 words, each at its own address: as an instruction or as .FILL, the same word."""
    image = Image(0, tuple(range(0x10000)))
    assert reassembled(image) == image.words


@st.composite
def images(draw: st.DrawFn) -> Image:
    origin = draw(st.integers(0, 0xFF00))
    words = tuple(draw(st.lists(st.integers(0, 0xFFFF), min_size=1, max_size=0x100)))
    names = draw(st.lists(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True), max_size=10))
    symbols = {name: draw(st.integers(origin - 300, origin + len(words) + 300)) & 0xFFFF for name in names}
    return Image(origin, words, symbols=symbols)


@given(images(), st.booleans())
def test_random_images_round_trip(image: Image, some_data: bool) -> None:
    code = frozenset(range(image.origin, image.end, 2)) if some_data else None
    assert reassembled(image, code) == image.words


REGISTER = st.integers(0, 7).map(lambda r: f"R{r}")
LINE = st.one_of(
    st.tuples(st.sampled_from(["ADD", "AND"]), REGISTER, REGISTER, REGISTER).map(
        lambda t: f"{t[0]} {t[1]}, {t[2]}, {t[3]}"
    ),
    st.tuples(st.sampled_from(["ADD", "and"]), REGISTER, REGISTER, st.integers(-16, 15)).map(
        lambda t: f"{t[0]} {t[1]}, {t[2]}, #{t[3]}"
    ),
    st.tuples(REGISTER, REGISTER).map(lambda t: f"NOT {t[0]}, {t[1]}"),
    st.tuples(st.sampled_from(["LDR", "STR"]), REGISTER, REGISTER, st.integers(-32, 31)).map(
        lambda t: (
            f"{t[0]} {t[1]}, {t[2]}, x{t[3] & 0x3F:X}" if t[3] >= 0 else f"{t[0]} {t[1]}, {t[2]}, #{t[3]}"
        )
    ),
    st.tuples(
        st.sampled_from(["LD", "LDI", "LEA", "ST", "STI"]), REGISTER, st.sampled_from(["L0", "L1", "L2"])
    ).map(lambda t: f"{t[0]} {t[1]}, {t[2]}"),
    st.tuples(
        st.sampled_from(["BR", "BRn", "brz", "BRp", "BRnz", "BRzp", "BRnp", "BRnzp", "JSR"]),
        st.sampled_from(["L0", "L1", "L2"]),
    ).map(" ".join),
    st.sampled_from(
        ["RET", "RTI", "HALT", "GETC", "OUT", "PUTS", "IN", "PUTSP", "PUTC", "JMP R3", "JSRR R5"]
    ),
    st.integers(-0x8000, 0xFFFF).map(lambda n: f".FILL #{n}"),
    st.sampled_from([".FILL L1", ".BLKW 3", '.STRINGZ "a;b\\n"', "TRAP x30"]),
)


@given(st.lists(LINE, min_size=3, max_size=40), st.integers(0, 2))
def test_random_programs_round_trip_through_obj_and_back(lines: list[str], at: int) -> None:
    body = list(lines)
    for k in range(3):
        body.insert(min(k * at, len(body)), f"L{k}")
    source = ".ORIG x3000\n" + "\n".join(body) + "\n.END\n"
    (image,) = assemble(source).images
    obj = obj_bytes(image)
    again = Image(
        int.from_bytes(obj[:2], "big"),
        tuple(int.from_bytes(obj[i : i + 2], "big") for i in range(2, len(obj), 2)),
        symbols=image.symbols,
    )
    assert reassembled(again) == image.words


def test_cli_disasm_of_an_obj_uses_its_sym_and_a_range(tmp_path: Path) -> None:
    write_outputs(assemble(PROGRAM), tmp_path / "p.obj")
    result = CliRunner().invoke(app, ["disasm", str(tmp_path / "p.obj"), "--range", "x3002:x3004"])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "                .ORIG   x3002",
        "LOOP            ADD     R1, R1, #-1     ; x3002 127F",
        "                BRp     LOOP            ; x3003 03FE  -> LOOP",
        "                .END",
    ]
    assert load_image_file(tmp_path / "p.obj").symbols["LOOP"] == 0x3002


def test_cli_disasm_of_an_asm_lists_its_data_as_fill(tmp_path: Path) -> None:
    (tmp_path / "p.asm").write_text(PROGRAM)
    result = CliRunner().invoke(app, ["disasm", str(tmp_path / "p.asm"), "--range", "x3006:"])
    assert result.exit_code == 0
    assert [line.split()[:2] for line in result.stdout.splitlines()[1:4]] == [
        ["MSG", ".FILL"],
        [".FILL", "x0069"],
        [".FILL", "x0000"],
    ]


def test_cli_disasm_errors(tmp_path: Path) -> None:
    (tmp_path / "p.asm").write_text(PROGRAM)
    runner = CliRunner()
    empty = runner.invoke(app, ["disasm", str(tmp_path / "p.asm"), "--range", "x4000:x5000"])
    assert (empty.exit_code, empty.stderr) == (1, f"lc3jit: {tmp_path / 'p.asm'}: no words in x4000:x5000\n")
    bad = runner.invoke(app, ["disasm", str(tmp_path / "p.asm"), "--range", "x3000"])
    assert bad.exit_code == 2
    assert "START:STOP" in bad.stderr
    missing = runner.invoke(app, ["disasm", str(tmp_path / "none.obj")])
    assert missing.exit_code == 1
    assert missing.stderr.count("\n") == 1
