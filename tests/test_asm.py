"""The assembler: each directive, number form, mnemonic and error, label edge cases, the CLI."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from lc3jit.cli import app
from lc3jit.toolchain.asm import Assembly, AssemblyError, assemble, obj_bytes, sym_text
from lc3jit_runtime.isa import TRAP_NAMES, decode
from lc3jit_runtime.loader import SourceLine, load_image_file, parse_sym


def asm(body: str, origin: str = "x3000") -> Assembly:
    """Assemble body (indented freely) inside one .ORIG block."""
    return assemble(f".ORIG {origin}\n{textwrap.dedent(body)}\n.END\n", "t.asm")


def words(body: str) -> tuple[int, ...]:
    return asm(body).images[0].words


def errors(source: str) -> list[tuple[int, int, str]]:
    """(line, column, message) of each error in a whole source text."""
    with pytest.raises(AssemblyError) as info:
        assemble(textwrap.dedent(source), "t.asm")
    return [(d.line, d.column, d.message) for d in info.value.diagnostics]


def warnings(body: str) -> list[tuple[int, int, str]]:
    return [(d.line, d.column, d.message) for d in asm(body).warnings]


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("ADD R1, R2, R3", 0x1283),
        ("ADD R1, R2, #-1", 0x12BF),
        ("AND R0, R0, #0", 0x5020),
        ("AND R7, R6, R5", 0x5F85),
        ("NOT R3, R4", 0x973F),
        ("JMP R2", 0xC080),
        ("RET", 0xC1C0),
        ("JSRR R3", 0x40C0),
        ("JSR #-2", 0x4FFE),
        ("LD R0, #-1", 0x21FF),
        ("LDI R2, #3", 0xA403),
        ("LDR R1, R2, #-2", 0x62BE),
        ("LEA R5, #255", 0xEAFF),
        ("ST R4, #-256", 0x3900),
        ("STI R6, #0", 0xBC00),
        ("STR R1, R2, #5", 0x7285),
        ("TRAP x25", 0xF025),
        ("TRAP #255", 0xF0FF),
        ("RTI", 0x8000),
        ("BR #0", 0x0E00),
        ("PUTC", 0xF021),
        ("add r1, r2, r3", 0x1283),
        ("Ld R0,#-1", 0x21FF),
        ("ADD R1 R2 R3", 0x1283),
    ],
)
def test_each_instruction_encodes_as_appendix_a(line: str, word: int) -> None:
    assert words(line) == (word,)


@pytest.mark.parametrize(("vector", "name"), sorted(TRAP_NAMES.items()))
def test_trap_aliases(vector: int, name: str) -> None:
    assert words(f"{name}\n{name.lower()}") == (0xF000 | vector,) * 2


@pytest.mark.parametrize(
    ("spelling", "nzp"),
    [("BR", 7), ("BRnzp", 7), ("BRn", 4), ("BRz", 2), ("BRp", 1), ("BRnz", 6), ("BRnp", 5), ("BRzp", 3)],
)
def test_every_br_spelling_sets_its_condition_bits(spelling: str, nzp: int) -> None:
    (word,) = words(f"LOOP {spelling.upper()} LOOP")
    assert decode(word).nzp == nzp
    assert decode(word).pcoffset9 == -1


def test_br_condition_letters_only_in_nzp_order() -> None:
    assert errors(".ORIG x3000\nBRpn #0\n.END") == [(2, 1, "unknown instruction or directive BRpn")]


@pytest.mark.parametrize(
    "literal",
    ["#10", "10", "x0A", "X0a", "0x0A", "#x0A", "b1010", "B1010", "+10", "#+10"],
)
def test_number_forms(literal: str) -> None:
    assert words(f".FILL {literal}") == (10,)


@pytest.mark.parametrize(
    ("literal", "word"), [("#-5", 0xFFFB), ("x-30", 0xFFD0), ("xFFFF", 0xFFFF), ("#-32768", 0x8000)]
)
def test_negative_number_forms(literal: str, word: int) -> None:
    assert words(f".FILL {literal}") == (word,)


def test_orig_sets_the_origin_and_fill_takes_labels() -> None:
    image = asm("HERE .FILL HERE\n.FILL THERE\nTHERE .FILL #0", "x4000").images[0]
    assert (image.origin, image.words) == (0x4000, (0x4000, 0x4002, 0))


def test_blkw_reserves_zero_words_and_labels_count_them() -> None:
    assert words("A .BLKW 3\nB .FILL B") == (0, 0, 0, 0x3003)


def test_stringz_writes_one_word_per_character_and_a_zero() -> None:
    assert words('.STRINGZ "Hi"') == (ord("H"), ord("i"), 0)


def test_stringz_escapes_and_semicolons_inside_strings() -> None:
    text = r'.STRINGZ "a;b\n\t\\\"\e\0" ; a real comment'
    assert words(text) == (*b'a;b\n\t\\"\x1b\0', 0)


def test_stringz_keeps_the_bytes_of_utf8_as_lc3as_does() -> None:
    assert words('.STRINGZ "é"') == (0xC3, 0xA9, 0)


def test_source_that_is_not_utf8_is_read_byte_for_byte() -> None:
    image = assemble(b'.ORIG x3000\n.STRINGZ "\xe9"\n.END\n').images[0]
    assert image.words == (0xE9, 0)


def test_unknown_escape_keeps_the_character_with_a_warning() -> None:
    assert words(r'.STRINGZ "\q"') == (ord("q"), 0)
    assert warnings(r'.STRINGZ "\q"') == [(2, 11, "unknown escape \\q: taken as q")]


def test_labels_with_or_without_colon_alone_or_not_any_case() -> None:
    source = """
        START:  ADD R1, R1, #1
        next    BRnzp start
        ALONE
        LABEL2:
                BR Alone
        """
    assert words(source) == (0x1261, 0x0FFE, 0x0FFF)
    assert asm(source).images[0].symbols == {
        "START": 0x3000,
        "next": 0x3001,
        "ALONE": 0x3002,
        "LABEL2": 0x3002,
    }


@pytest.mark.parametrize(
    "name", ["ADDR", "BRANCH", "LOOP", "INIT", "OUTPUT", "HALTED", "RETURN", "NOTE", "STRING"]
)
def test_labels_that_start_like_a_mnemonic(name: str) -> None:
    assert words(f"{name} ADD R0, R0, #0\nBR {name}") == (0x1020, 0x0FFE)


def test_a_mnemonic_is_a_label_only_with_a_colon() -> None:
    assert words("ADD: ADD R0, R0, #0\nBR ADD") == (0x1020, 0x0FFE)


def test_label_on_orig_and_end_lines() -> None:
    image = assemble("FIRST .ORIG x3000\nHALT\nLAST .END\n").images[0]
    assert image.symbols == {"FIRST": 0x3000, "LAST": 0x3001}


@pytest.mark.parametrize("number", ["#16", "16", "#-17", "#65535"])
def test_a_decimal_immediate_out_of_range_is_an_error(number: str) -> None:
    """A decimal literal is a number: it fits its field or it is wrong (only hex and binary
    literals are bit patterns that keep their low bits)."""
    assert errors(f".ORIG x3000\nADD R1, R1, {number}\n.END\n") == [
        (2, 13, f"{number} is out of range for imm5 (-16 to 15)")
    ]


def test_an_unknown_mnemonic_is_one_error_and_not_a_label() -> None:
    source = ".ORIG x3000\nADDD R1, R1, #1\nADDD R2, R2, #1\nHALT\n.END\n"
    assert errors(source) == [
        (2, 1, "unknown instruction or directive ADDD"),
        (3, 1, "unknown instruction or directive ADDD"),
    ]


def test_blkw_0_reserves_nothing_with_a_warning_as_lc3as_writes_nothing() -> None:
    assert words("A .BLKW 0\nB HALT") == (0xF025,)
    assert warnings("A .BLKW 0\nB HALT") == [(2, 9, ".BLKW 0 reserves no words")]


def test_an_orig_block_with_no_words_is_a_warning_beside_other_blocks() -> None:
    assembly = assemble(".ORIG x4000\n.END\n.ORIG x3000\nHALT\n.END\n")
    assert [(image.origin, image.words) for image in assembly.images] == [(0x3000, (0xF025,))]
    assert [(d.line, d.message) for d in assembly.warnings] == [(1, ".ORIG block with no words")]


def test_out_of_range_hex_immediate_keeps_low_bits_with_a_warning() -> None:
    assert words("AND R1, R1, x001F") == (0x527F,)
    assert warnings("AND R1, R1, x001F") == [
        (2, 13, "x001F does not fit imm5 (-16 to 15); keeping its low 5 bits: -1")
    ]


def test_sixteen_bit_negative_hex_is_negative_as_in_lc3as() -> None:
    assert words("ADD R1, R1, xFFFF") == (0x127F,)
    assert warnings("ADD R1, R1, xFFFF") == []


def test_trap_vector_from_a_16_bit_pattern_keeps_its_low_bits() -> None:
    assert words("TRAP xFFFF") == (0xF0FF,)


def test_text_after_end_is_ignored_with_one_warning() -> None:
    assembly = assemble(".ORIG x3000\nHALT\n.END\nthis is not code\n@@@\n")
    assert assembly.images[0].words == (0xF025,)
    assert [(d.line, d.message) for d in assembly.warnings] == [(4, "text after .END is ignored")]


def test_several_orig_blocks_give_several_images_sharing_labels() -> None:
    source = """
        .ORIG x3000
        LD R0, PTR
        HALT
        PTR .FILL SUB
        .END
        ; between the blocks
        .ORIG x4000
        SUB RET
        .END
        """
    assembly = assemble(textwrap.dedent(source))
    assert [(i.origin, i.words, i.symbols) for i in assembly.images] == [
        (0x3000, (0x2001, 0xF025, 0x4000), {"PTR": 0x3002}),
        (0x4000, (0xC1C0,), {"SUB": 0x4000}),
    ]
    assert assembly.code == {0x3000, 0x3001, 0x4000}


def test_orig_without_end_before_it_is_a_warning() -> None:
    assembly = assemble(".ORIG x3000\nHALT\n.ORIG x4000\nHALT\n")
    assert [i.origin for i in assembly.images] == [0x3000, 0x4000]
    assert [(d.line, d.message) for d in assembly.warnings] == [
        (3, "no .END for the .ORIG on line 1"),
        (4, "no .END for the .ORIG on line 3"),
    ]


def test_source_lines_travel_with_the_image() -> None:
    image = assemble('.ORIG x3000\n  HALT\nS .STRINGZ "a"\n.END\n', "p.asm").images[0]
    assert image.source == {
        0x3000: SourceLine("p.asm", 2, "  HALT"),
        0x3001: SourceLine("p.asm", 3, 'S .STRINGZ "a"'),
        0x3002: SourceLine("p.asm", 3, 'S .STRINGZ "a"'),
    }


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("FOO R1", (2, 1, "unknown instruction or directive FOO")),
        ("LOOP ADDD R1, R1, R1", (2, 6, "unknown instruction or directive ADDD")),
        (".WORD 5", (2, 1, "unknown directive .WORD")),
        ("ADD R1, R8, R1", (2, 9, "ADD expects a register R0-R7, found R8")),
        ("ADD R1, #1, R1", (2, 9, "ADD expects a register R0-R7, found #1")),
        ("JSR R1", (2, 5, "JSR expects a number or a label, found R1")),
        ("ADD R1, R1", (2, 1, "ADD takes 3 operands, found 2")),
        ("HALT R1", (2, 6, "HALT takes 0 operands, found 1")),
        ("ADD R1,, R1, R1", (2, 8, "missing operand before ','")),
        ("ADD R1, R1, R1,", (2, 15, "missing operand after ','")),
        ("ADD R1, R1, #32", (2, 13, "#32 is out of range for imm5 (-16 to 15)")),
        ("LDR R1, R1, #-33", (2, 13, "#-33 is out of range for offset6 (-32 to 31)")),
        ("LD R1, #512", (2, 8, "#512 is out of range for pcoffset9 (-256 to 255)")),
        ("TRAP x100", (2, 6, "x100 is out of range for trapvect8 (0 to 255)")),
        ("ADD R1, R1, LABEL\nLABEL HALT", (2, 13, "expected a number, found LABEL")),
        ("LD R0, NOWHERE", (2, 8, "unknown label NOWHERE")),
        ("LD R0, @x", (2, 8, "expected a number or a label, found @x")),
        (".FILL NOWHERE", (2, 7, "unknown label NOWHERE")),
        (".FILL x10000", (2, 7, "x10000 does not fit 16 bits (-32768 to 65535)")),
        (".BLKW LABEL\nLABEL HALT", (2, 7, ".BLKW takes a number, found LABEL")),
        (".BLKW #-1", (2, 7, "#-1 is out of range for .BLKW (0 to 65535)")),
        ('.STRINGZ "abc', (2, 10, "unterminated string")),
        ('.STRINGZ "abc\\"', (2, 10, "unterminated string")),
        (".STRINGZ abc", (2, 1, ".STRINGZ takes one quoted string")),
        ("R1 HALT", (2, 1, "R1 is a register, not a label")),
        ("x12 HALT", (2, 1, "x12 is a number, not a label")),
        ("A HALT\na HALT", (3, 1, "label a is already defined on line 2")),
        (".END x", (2, 6, ".END takes no operands")),
    ],
)
def test_each_error_names_line_column_and_problem(body: str, error: tuple[int, int, str]) -> None:
    assert errors(f".ORIG x3000\n{body}\n.END\n") == [error]


def test_label_out_of_reach_is_an_error() -> None:
    source = ".ORIG x3000\nBR FAR\n.BLKW #300\nFAR HALT\n.END\n"
    assert errors(source) == [(2, 4, "label FAR is 300 words away; pcoffset9 reaches -256 to 255")]
    assert words("JSR FAR\n.BLKW #300\nFAR HALT")[0] == 0x4800 | 300


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("HALT\n.ORIG x3000\nHALT\n.END", (1, 1, "no .ORIG before this line")),
        ("; only a comment\n", (1, 1, "no .ORIG directive: nothing to assemble")),
        (".ORIG x10000\nHALT\n.END", (1, 7, "x10000 is out of range for .ORIG (0 to 65535)")),
        (".ORIG\nHALT\n.END", (1, 1, ".ORIG takes one number")),
        (".ORIG x3000\n.END", (1, 1, "no words: nothing to assemble")),
        (".ORIG xFFFF\nHALT\nHALT\n.END", (3, 1, "the block from xFFFF runs past xFFFF")),
    ],
)
def test_errors_about_blocks(source: str, error: tuple[int, int, str]) -> None:
    assert errors(source) == [error]


def test_all_errors_are_reported_in_one_run_in_line_order() -> None:
    source = ".ORIG x3000\nFOO R1\nADD R9, R1, R1\nLD R0, NOWHERE\nBAD BAD BAD\n.END\n"
    assert [line for line, _, _ in errors(source)] == [2, 3, 4, 5]


def test_a_bad_line_still_defines_its_label() -> None:
    assert errors(".ORIG x3000\nL ADD R1,,R1\nBR L\n.END\n") == [(2, 10, "missing operand before ','")]


def test_diagnostic_shows_the_line_and_a_caret_under_the_column() -> None:
    with pytest.raises(AssemblyError) as info:
        assemble(".ORIG x3000\n\tADD R1, R1, #99\n.END\n", "p.asm")
    assert str(
        info.value
    ) == "p.asm: 1 error\np.asm:2:14: error: #99 is out of range for imm5 (-16 to 15)\n" + (
        "\tADD R1, R1, #99\n\t            ^"
    )


def test_obj_bytes_are_lc3as_s_format() -> None:
    image = asm('LEA R0, MSG\nPUTS\nHALT\nMSG .STRINGZ "Hi"').images[0]
    assert obj_bytes(image) == bytes.fromhex("3000 E002 F022 F025 0048 0069 0000")


def test_sym_file_is_lc3as_s_layout_and_reads_back(tmp_path: Path) -> None:
    text = sym_text({"START": 0x3000, "A_LONG_LABEL_NAME_HERE": 0x300A})
    assert text == (
        "// Symbol table\n"
        "// Scope level 0:\n"
        "//\tSymbol Name       Page Address\n"
        "//\t----------------  ------------\n"
        "//\tSTART             3000\n"
        "//\tA_LONG_LABEL_NAME_HERE  300A\n"
        "\n"
    )
    (tmp_path / "p.sym").write_text(text)
    assert parse_sym(tmp_path / "p.sym") == {"START": 0x3000, "A_LONG_LABEL_NAME_HERE": 0x300A}


TOKENS = [
    ".ORIG",
    ".END",
    ".FILL",
    ".BLKW",
    ".STRINGZ",
    "x3000",
    "#-1",
    "#99999",
    "b101",
    "0x",
    "ADD",
    "BRnz",
    "BRpn",
    "LD",
    "LDR",
    "TRAP",
    "HALT",
    "RET",
    "R0",
    "R7",
    "R8",
    "LOOP",
    "LOOP:",
    ":",
    ",",
    '"a;b"',
    '"\\',
    '"',
    "\\",
    ";",
    "\t",
    "\n",
    "\r\n",
    " ",
    "xFFFF",
    "\x00",
    "é",
]


def assembles_or_reports(source: str | bytes) -> None:
    """Either images, or an AssemblyError whose every diagnostic points into the source."""
    try:
        assemble(source)
    except AssemblyError as e:
        lines = (source.decode("latin-1") if isinstance(source, bytes) else source).split("\n")
        assert e.diagnostics
        for d in e.diagnostics:
            assert 1 <= d.line <= len(lines)
            assert 1 <= d.column <= len(d.text) + 1


@given(st.binary(max_size=300))
def test_random_bytes_raise_only_assembly_errors(data: bytes) -> None:
    assembles_or_reports(data)


@given(st.lists(st.sampled_from(TOKENS), max_size=60))
def test_random_tokens_raise_only_assembly_errors(tokens: list[str]) -> None:
    assembles_or_reports(" ".join(tokens))


@given(st.text(max_size=200))
def test_random_text_in_a_block_raises_only_assembly_errors(text: str) -> None:
    assembles_or_reports(f".ORIG x3000\n{text}\n.END\n")


def lc3jit(*args: object) -> Result:
    return CliRunner().invoke(app, [str(arg) for arg in args], catch_exceptions=False)


def test_cli_asm_writes_obj_and_sym_beside_the_source(tmp_path: Path) -> None:
    source = tmp_path / "p.asm"
    source.write_text(".ORIG x3000\nSTART HALT\n.END\n")
    result = lc3jit("asm", source)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert (tmp_path / "p.obj").read_bytes() == bytes.fromhex("3000 F025")
    image = load_image_file(tmp_path / "p.obj")
    assert image.symbols == {"START": 0x3000}


def test_cli_asm_output_option_and_one_file_per_block(tmp_path: Path) -> None:
    source = tmp_path / "p.asm"
    source.write_text(".ORIG x3000\nHALT\n.END\n.ORIG x4000\nA RET\n.END\n.ORIG x5000\nB .FILL 7\n.END\n")
    assert lc3jit("asm", source, "-o", tmp_path / "out.obj").exit_code == 0
    assert (tmp_path / "out.obj").read_bytes() == bytes.fromhex("3000 F025")
    assert (tmp_path / "out-1.obj").read_bytes() == bytes.fromhex("4000 C1C0")
    assert (tmp_path / "out-2.obj").read_bytes() == bytes.fromhex("5000 0007")
    assert parse_sym(tmp_path / "out-2.sym") == {"B": 0x5000}
    assert "FILE-1.obj" in " ".join(lc3jit("asm", "--help").stdout.split())


def test_cli_run_reads_the_blocks_back(tmp_path: Path) -> None:
    source = tmp_path / "p.asm"
    source.write_text(
        ".ORIG x3000\nLD R0, SUB\nJSRR R0\nHALT\nSUB .FILL x4000\n.END\n.ORIG x4000\nOUT\nRET\n.END\n"
    )
    assert lc3jit("asm", source).exit_code == 0
    for programs in ([source], [tmp_path / "p.obj", tmp_path / "p-1.obj"]):
        result = lc3jit("run", "--engine", "interp", *programs)
        assert (result.exit_code, result.stdout) == (0, "\0HALT\n")


def test_cli_asm_errors_exit_1_without_traceback_and_write_nothing(tmp_path: Path) -> None:
    source = tmp_path / "p.asm"
    source.write_text(".ORIG x3000\nADD R1, R1, #99\nLD R0, NOWHERE\n.END\n")
    result = lc3jit("asm", source)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == f"lc3jit: {source}: 2 errors"
    assert lines[1] == f"{source}:2:13: error: #99 is out of range for imm5 (-16 to 15)"
    assert lines[4] == f"{source}:3:8: error: unknown label NOWHERE"
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "p.obj").exists()


def test_cli_run_of_a_bad_asm_reports_the_errors(tmp_path: Path) -> None:
    source = tmp_path / "p.asm"
    source.write_text(".ORIG x3000\nFOO R1\n.END\n")
    result = lc3jit("run", source)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[:2] == [
        f"lc3jit: {source}: 1 error",
        f"{source}:2:1: error: unknown instruction or directive FOO",
    ]


def test_cli_asm_prints_warnings_and_succeeds(tmp_path: Path) -> None:
    source = tmp_path / "p.asm"
    source.write_text(".ORIG x3000\nAND R1, R1, x1F\n.END\n")
    result = lc3jit("asm", source)
    assert result.exit_code == 0
    assert result.stderr.startswith(f"{source}:2:13: warning: x1F does not fit imm5")


@pytest.mark.parametrize(
    ("name", "message"),
    [("missing.asm", "No such file or directory"), ("dir", "Is a directory")],
)
def test_cli_asm_unreadable_source_is_one_line(tmp_path: Path, name: str, message: str) -> None:
    (tmp_path / "dir").mkdir()
    result = lc3jit("asm", tmp_path / name)
    assert (result.exit_code, result.stderr) == (1, f"lc3jit: {tmp_path / name}: {message}\n")


def test_cli_asm_unwritable_output_is_one_line(tmp_path: Path) -> None:
    source = tmp_path / "p.asm"
    source.write_text(".ORIG x3000\nHALT\n.END\n")
    result = lc3jit("asm", source, "-o", tmp_path / "no" / "p.obj")
    assert (result.exit_code, result.stderr) == (
        1,
        f"lc3jit: {tmp_path / 'no' / 'p.obj'}: No such file or directory\n",
    )
