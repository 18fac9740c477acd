"""Pass 2: the words of instructions and .FILLs, now that every label is known.

Instructions are encoded only through the ISA table: a mnemonic's spellings (ADD with a
register or an immediate) are told apart by the kinds of their operands, and each
operand is fitted to its field as lc3as fits it.
"""

from __future__ import annotations

import re

from lc3jit.toolchain.asm.diagnostics import Reporter
from lc3jit.toolchain.asm.hints import bare_decimal
from lc3jit.toolchain.asm.layout import Block
from lc3jit.toolchain.asm.spellings import REGISTER, SPELLINGS, Spelling, is_label
from lc3jit.toolchain.asm.symbols import SymbolTable
from lc3jit.toolchain.asm.syntax import Statement, Token, kind
from lc3jit.toolchain.numbers import parse_number
from lc3jit_runtime.isa import PC_RELATIVE, REGISTER_FIELDS, WORD_MASK, Field

#: A decimal literal: out of a field's range it is an error; hex and binary literals are bit
#: patterns, which keep their low bits (with a warning) as lc3as does.
_DECIMAL = re.compile(r"#?-?[0-9]+")


class Encoder:
    """Fills in the words pass 1 left as placeholders."""

    def __init__(self, reporter: Reporter, symbols: SymbolTable) -> None:
        self.reporter = reporter
        self.symbols = symbols

    def fill(self, block: Block) -> None:
        for index, statement in block.pending:
            address = (block.origin + index) & WORD_MASK
            if statement.op.text.upper() == ".FILL":
                block.words[index] = self.fill_value(statement)
            else:
                block.words[index] = self.encode(statement, address)

    def fill_value(self, statement: Statement) -> int:
        token = statement.operands[0]
        value = self.number_or_label(statement, token)
        if value is not None and not -0x8000 <= value <= WORD_MASK:
            self.reporter.report(
                statement, token.column, f"{token.text} does not fit 16 bits (-32768 to 65535)"
            )
        return (value or 0) & WORD_MASK

    def number_or_label(self, statement: Statement, token: Token) -> int | None:
        if token.kind == "word":
            value = parse_number(token.text)
            if value is not None:
                bare_decimal(self.reporter, statement, token)
                return value
            if is_label(token.text):
                return self.symbols.address_of(statement, token)
        self.reporter.report(statement, token.column, f"expected a number or a label, found {token.text}")
        return None

    def encode(self, statement: Statement, address: int) -> int:
        """The word of an instruction: the spelling whose operand kinds match, encoded."""
        spellings = SPELLINGS[statement.op.text.upper()]
        spelling = _matching(spellings, statement.operands)
        if spelling is None:
            token, expected = _mismatch(spellings, statement.operands)
            message = f"{statement.op.text} expects {expected}, found {token.text}"
            self.reporter.report(statement, token.column, message)
            return 0
        values = dict(spelling.fixed)
        for operand, token in zip(spelling.operands, statement.operands, strict=True):
            value = self.operand(statement, operand, token, address)
            if value is None:
                return 0
            values[operand.name] = value
        return spelling.form.encode(**values)

    def operand(self, statement: Statement, operand: Field, token: Token, address: int) -> int | None:
        register = REGISTER.fullmatch(token.text)
        if register is not None:
            return int(register.group(1))
        value = parse_number(token.text)
        if value is not None:
            bare_decimal(self.reporter, statement, token)
            return self.fit(statement, operand, token, value)
        if operand.name not in PC_RELATIVE:
            self.reporter.report(statement, token.column, f"expected a number, found {token.text}")
            return None
        if not is_label(token.text):
            self.reporter.report(statement, token.column, f"expected a number or a label, found {token.text}")
            return None
        target = self.symbols.address_of(statement, token)
        if target is None:
            return None
        offset = target - (address + 1)
        if not operand.fits(offset):
            low, high = _bounds(operand)
            message = f"label {token.text} is {offset} words away; {operand.name} reaches {low} to {high}"
            self.reporter.report(statement, token.column, message)
            return None
        return offset

    def fit(self, statement: Statement, operand: Field, token: Token, value: int) -> int | None:
        """A literal for a field, as lc3as reads it: a 16-bit pattern with the top bit set is
        negative, and a value that fits only unsigned keeps its low bits (with a warning)."""
        decimal = _DECIMAL.fullmatch(token.text) is not None  # a number, not a bit pattern
        if 0x8000 <= value <= WORD_MASK and not decimal:
            value -= 1 << 16
        if operand.fits(value):
            return value
        low, high = _bounds(operand)
        if not decimal and -(1 << (operand.width - 1)) <= value < 1 << operand.width:
            kept = operand.extract(operand.insert(value))
            self.reporter.warn(
                statement,
                token.column,
                f"{token.text} does not fit {operand.name} ({low} to {high}); keeping its low "
                f"{operand.width} bits: {kept}",
            )
            return kept
        message = f"{token.text} is out of range for {operand.name} ({low} to {high})"
        self.reporter.report(statement, token.column, message)
        return None


def _bounds(operand: Field) -> tuple[int, int]:
    if operand.signed:
        return -(1 << (operand.width - 1)), (1 << (operand.width - 1)) - 1
    return 0, operand.mask


def _wants(operand: Field) -> str:
    return "register" if operand.name in REGISTER_FIELDS else "value"


def _matching(spellings: tuple[Spelling, ...], operands: list[Token]) -> Spelling | None:
    kinds = [kind(token) for token in operands]
    for spelling in spellings:
        if [_wants(f) for f in spelling.operands] == kinds:
            return spelling
    return None


def _mismatch(spellings: tuple[Spelling, ...], operands: list[Token]) -> tuple[Token, str]:
    """Where the operands first fail every spelling, and what would be accepted there.

    The spellings of one mnemonic differ in one position at most (ADD's register or
    immediate), so the first operand whose kind no spelling takes is the culprit.
    """
    accepted = [{_wants(s.operands[position]) for s in spellings} for position in range(len(operands))]
    token, kinds = next((t, w) for t, w in zip(operands, accepted, strict=True) if kind(t) not in w)
    names = " or ".join(
        "a register R0-R7" if wanted == "register" else "a number or a label" for wanted in sorted(kinds)
    )
    return token, names
