"""The assembler's hints for a beginner's slips: a misspelt label, a bare number, a misspelt
instruction taken for a label, and warnings kept beside errors."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from lc3jit.cli import app
from lc3jit.toolchain.asm import AssemblyError, assemble


def failure(source: str) -> AssemblyError:
    with pytest.raises(AssemblyError) as info:
        assemble(source, "t.asm")
    return info.value


def test_an_unknown_label_one_or_two_edits_from_a_known_one_asks_did_you_mean() -> None:
    error = failure(".ORIG x3000\nLOOP ADD R1, R1, #1\nBRp LOPP\nBRp LOOOP\nBRp LXYZ\nHALT\n.END\n")
    assert [d.message for d in error.diagnostics] == [
        "unknown label LOPP; did you mean LOOP?",
        "unknown label LOOOP; did you mean LOOP?",
        "unknown label LXYZ",  # three edits: no guess
    ]


def test_a_tie_between_two_labels_guesses_neither() -> None:
    error = failure(".ORIG x3000\nAB HALT\nAC HALT\nBR AD\n.END\n")
    assert error.diagnostics[0].message == "unknown label AD"


def test_an_instruction_name_used_as_a_label_says_so() -> None:
    error = failure(".ORIG x3000\nBR HALT\nHALT\n.END\n")
    assert error.diagnostics[0].message == (
        "unknown label HALT: HALT is an instruction; a label of that name is defined with a colon (HALT:)"
    )


def test_a_misspelt_instruction_alone_on_a_line_is_a_warning_and_twice_an_error_with_the_hint() -> None:
    error = failure(".ORIG x3000\nGETS\nGETS\nHALT\n.END\n")
    hint = "GETS is not an instruction: did you mean GETC?"
    assert [d.message for d in error.diagnostics] == [f"label GETS is already defined on line 2 ({hint})"]
    assert [d.message for d in error.warnings] == [f"GETS alone on a line is taken as a label ({hint})"]
    assert "warning: GETS alone" in str(error)  # shown with the errors, in source order


def test_a_label_on_its_own_line_far_from_any_instruction_draws_no_warning() -> None:
    assert assemble(".ORIG x3000\nLOOP\nDONE\nHALT\n.END\n").warnings == ()


def test_a_bare_decimal_operand_is_a_warning_naming_both_readings() -> None:
    warnings = assemble(".ORIG 3000\nADD R1, R1, 5\n.FILL 10\n.BLKW 2\nHALT\n.END\n").warnings
    assert [(d.line, d.column, d.message) for d in warnings] == [
        (1, 7, "3000 has no # or x: read as decimal #3000 (x0BB8); write #3000 for decimal or x3000 for hex"),
        (2, 13, "5 has no # or x: read as decimal #5 (x0005); write #5 for decimal or x5 for hex"),
        (3, 7, "10 has no # or x: read as decimal #10 (x000A); write #10 for decimal or x10 for hex"),
    ]  # a .BLKW count is a count: decimal, no warning


def test_prefixed_numbers_draw_no_warning() -> None:
    assert assemble(".ORIG x3000\nADD R1, R1, #5\nAND R2, R2, x3\n.FILL #-1\nHALT\n.END\n").warnings == ()


def test_the_cli_prints_warnings_beside_the_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "p.asm"
    source.write_text(".ORIG x3000\nADD R1, R1, 5\nBR NOWHERE\n.END\n")
    result = CliRunner().invoke(app, ["asm", str(source)])
    assert result.exit_code == 1
    assert f"{source}:2:13: warning: 5 has no # or x" in result.stderr
    assert f"{source}:3:4: error: unknown label NOWHERE" in result.stderr
