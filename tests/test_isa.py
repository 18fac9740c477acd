"""The ISA table against Appendix A: opcodes, field positions, sign extension, round trips."""

from __future__ import annotations

import pytest

from lc3jit_runtime import contract
from lc3jit_runtime.code_helpers import CODE_TABLE_RANGE, code_table
from lc3jit_runtime.interp import HANDLERS
from lc3jit_runtime.isa import (
    COND,
    FORMS,
    FORMS_BY_NAME,
    MEMORY_WORDS,
    READ_REGISTER_FIELDS,
    REGISTER_FIELDS,
    RET,
    Instruction,
    decode,
    form_of,
    to_signed,
)

#: Appendix A, Figure A.2: the opcode (bits 15:12) of every form.
MANUAL_OPCODES = {
    "ADD": 0b0001,
    "ADDI": 0b0001,
    "AND": 0b0101,
    "ANDI": 0b0101,
    "NOT": 0b1001,
    "BR": 0b0000,
    "JMP": 0b1100,
    "JSR": 0b0100,
    "JSRR": 0b0100,
    "LD": 0b0010,
    "LDI": 0b1010,
    "LDR": 0b0110,
    "LEA": 0b1110,
    "ST": 0b0011,
    "STI": 0b1011,
    "STR": 0b0111,
    "TRAP": 0b1111,
    "RTI": 0b1000,
    "RESERVED": 0b1101,
}


def test_table_has_the_manuals_opcodes() -> None:
    assert {form.name: form.opcode for form in FORMS} == MANUAL_OPCODES


def test_every_form_has_exactly_one_interpreter_handler() -> None:
    assert set(HANDLERS) == set(MANUAL_OPCODES)


def test_every_word_selects_exactly_one_form() -> None:
    """The mode bits (11 of JSR, 5 of ADD/AND) split an opcode; nothing else may."""
    for word in range(0x10000):
        matches = [form for form in FORMS if word & form.select_mask == form.select_bits]
        assert matches == [form_of(word)], f"x{word:04X}"


def test_encode_of_decode_gives_back_every_strict_word() -> None:
    """A word is strict exactly when re-encoding its fields gives the same word."""
    for word in range(0x10000):
        ins = decode(word)
        fields = {f.name: getattr(ins, f.name) for f in ins.form.fields}
        assert (ins.form.encode(**fields) == word) == ins.strict, f"x{word:04X}"


def test_decode_gives_every_word_the_record_its_forms_fields_make() -> None:
    """decode's own bit extraction agrees with Field.extract and the checked constructor."""
    for word in range(0x10000):
        form = form_of(word)
        operands = {f.name: f.extract(word) for f in form.fields}
        strict = word & form.strict_mask == form.strict_bits
        assert decode(word, 0x3000) == Instruction(0x3000, word, form, strict, **operands), f"x{word:04X}"


@pytest.mark.parametrize(
    ("word", "form", "fields"),
    [
        (0x1283, "ADD", {"dr": 1, "sr1": 2, "sr2": 3}),  # ADD R1, R2, R3
        (0x1EBF, "ADDI", {"dr": 7, "sr1": 2, "imm5": -1}),  # ADD R7, R2, #-1
        (0x5A20, "ANDI", {"dr": 5, "sr1": 0, "imm5": 0}),  # AND R5, R0, #0
        (0x967F, "NOT", {"dr": 3, "sr": 1}),
        (0x0A05, "BR", {"nzp": 0b101, "pcoffset9": 5}),  # BRnp #5
        (0xC1C0, "JMP", {"baser": 7}),  # RET
        (0x4FFF, "JSR", {"pcoffset11": -1}),
        (0x41C0, "JSRR", {"baser": 7}),
        (0x6C7E, "LDR", {"dr": 6, "baser": 1, "offset6": -2}),
        (0xE1FF, "LEA", {"dr": 0, "pcoffset9": -1}),
        (0xF025, "TRAP", {"trapvect8": 0x25}),  # HALT
        (0x8000, "RTI", {}),
        (0xD000, "RESERVED", {}),
    ],
)
def test_known_words_decode_as_the_manual_says(word: int, form: str, fields: dict[str, int]) -> None:
    ins = decode(word)
    assert ins.form.name == form
    assert {f.name: getattr(ins, f.name) for f in ins.form.fields} == fields
    assert FORMS_BY_NAME[form].encode(**fields) == word


#: (form, field, width): every field that is sign-extended, at each of its widths.
SIGNED_FIELDS = [
    ("ADDI", "imm5", 5),
    ("LDR", "offset6", 6),
    ("LD", "pcoffset9", 9),
    ("JSR", "pcoffset11", 11),
]


@pytest.mark.parametrize(("form", "name", "width"), SIGNED_FIELDS)
def test_sign_extension_at_each_width(form: str, name: str, width: int) -> None:
    row = FORMS_BY_NAME[form]
    half = 1 << (width - 1)
    for raw, expected in {0: 0, 1: 1, half - 1: half - 1, half: -half, (1 << width) - 1: -1}.items():
        word = row.strict_bits | raw << row.field(name).lo
        assert getattr(decode(word), name) == expected, f"{name} = {raw:0{width}b}"


def test_trapvect8_is_zero_extended() -> None:
    assert decode(0xF0FF).trapvect8 == 0xFF


@pytest.mark.parametrize(("form", "name", "width"), SIGNED_FIELDS)
def test_encode_refuses_offsets_that_do_not_fit(form: str, name: str, width: int) -> None:
    row = FORMS_BY_NAME[form]
    others = {f.name: 0 for f in row.fields if f.name != name}
    for value in (-(1 << (width - 1)) - 1, 1 << (width - 1)):
        with pytest.raises(ValueError, match=name):
            row.encode(**others, **{name: value})


@pytest.mark.parametrize(
    ("address", "word", "target"),
    [
        (0xFFFF, 0x0E00, 0x0000),  # BRnzp #0 at xFFFF: the incremented PC wraps
        (0x0000, 0x0F00, 0xFF01),  # BRnzp #-256 at x0000
        (0xFF00, 0x48FF, 0x0000),  # JSR #255 ... from xFF01 + 255 = x0000
        (0xFE00, 0x4BFF, 0x0200),  # JSR #1023 from xFE01 wraps past xFFFF
    ],
)
def test_pc_relative_targets_wrap_at_xffff(address: int, word: int, target: int) -> None:
    assert decode(word, address).target == target


def cond_of(word: int) -> int:
    """The manual's rule: N if the word is negative, Z if zero, P if positive (4, 2, 1)."""
    value = to_signed(word)
    return 0b100 if value < 0 else 0b010 if value == 0 else 0b001


def test_condition_tables_agree_with_cond_of_on_every_word() -> None:
    assert len(COND) == MEMORY_WORDS
    for word in range(0x10000):
        assert COND[word] == cond_of(word), f"x{word:04X}"


def test_branch_tables_give_the_codes_of_every_value_they_are_indexed_with() -> None:
    """Translated code indexes them with sums not wrapped yet."""
    low, high = CODE_TABLE_RANGE
    assert (low, high) == (0, 0x1FFFF)
    positive, negative, zero = (code_table(n) for n in (contract.POSITIVE, contract.NEGATIVE, contract.ZERO))
    for value in range(low, high + 1):
        codes = cond_of(value & 0xFFFF)
        assert positive[value] is (codes == 0b001), value
        assert negative[value] is (codes == 0b100), value
        assert zero[value] is (codes == 0b010), value


def test_register_fields_are_the_three_bit_fields_that_name_registers() -> None:
    """Every 3-bit field but nzp names one of R0-R7; dr is the one written."""
    three_bits = {f.name for form in FORMS for f in form.fields if f.width == 3}
    assert set(REGISTER_FIELDS) == three_bits - {"nzp"}
    assert set(READ_REGISTER_FIELDS) == set(REGISTER_FIELDS) - {"dr"}


@pytest.mark.parametrize(("word", "is_return"), [(0xC1C0, True), (0xC180, False), (0x41C0, False)])
def test_ret_is_jmp_r7_and_nothing_else(word: int, is_return: bool) -> None:
    """RET is JMP R7 (xC1C0); JMP R6 and JSRR R7 are not returns."""
    assert decode(word).is_return is is_return
    assert (RET.mnemonic, RET.form.name) == ("RET", "JMP")
