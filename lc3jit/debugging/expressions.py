"""Expressions an editor's debugger asks about: `R3`, `M[x4000]`, `LABEL+2`, `R0 == -1`.

The Debug Adapter evaluates them for the debug console, for hovers, for the condition of
a breakpoint and for the value typed into a register or a word, so they speak as the
program does: number literals as the assembler reads them (`x1F`, `#10`, `10`, `b101`),
labels of any case, `R0`-`R7`, `PC`, `PSR`, `M[...]` for a word of memory. Arithmetic
wraps to 16 bits; `<`, `<=`, `>`, `>=` compare signed words (R0 < 0 is a negative R0),
`==` and `!=` compare words (R0 == -1 is R0 = xFFFF).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lc3jit.api import Simulator
from lc3jit.toolchain.numbers import parse_number
from lc3jit_runtime.isa import WORD_MASK, to_signed

_TOKEN = re.compile(r"\s*(==|!=|<=|>=|[-+<>\[\]()]|[#.\w]+)")
_REGISTER = re.compile(r"[rR]([0-7])")
_COMPARE = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: to_signed(a) < to_signed(b),
    "<=": lambda a, b: to_signed(a) <= to_signed(b),
    ">": lambda a, b: to_signed(a) > to_signed(b),
    ">=": lambda a, b: to_signed(a) >= to_signed(b),
}


class ExpressionError(ValueError):
    """An expression that cannot be read or names nothing: the message says which part."""


@dataclass(frozen=True, slots=True)
class Value:
    """A 16-bit value, and what it is: where it may be written, and which word it names."""

    value: int
    kind: str  # "register", "word" (of memory), "address" (a label's), "number", "truth"
    where: str | int | None = None  # the register's name, or the word's address

    def describe(self, sim: Simulator) -> str:
        """As the debug console shows it: hex and signed, the word at an address too."""
        if self.kind == "truth":
            return "true" if self.value else "false"
        text = word_text(self.value)
        if self.kind == "address":
            return f"x{self.value:04X} -> {word_text(sim.machine.mem[self.value])}"
        return text


def word_text(word: int) -> str:
    """x0041 (65 'A'): hex, signed decimal, and the character when it is a printable one."""
    char = f" {chr(word)!r}" if 32 <= word < 127 else ""
    return f"x{word:04X} ({to_signed(word)}{char})"


def evaluate(sim: Simulator, text: str) -> Value:
    """The value of an expression over the machine as it stands."""
    parser = _Parser(sim, text)
    value = parser.comparison()
    if parser.position < len(parser.tokens):
        raise ExpressionError(f"unexpected {parser.tokens[parser.position]!r} in {text!r}")
    return value


def assign(sim: Simulator, target: str, text: str) -> Value:
    """Write the value of `text` into a register (R0-R7, PC) or a word (M[...], a label's word);
    the value written, read back."""
    value = evaluate(sim, text).value
    place = evaluate(sim, target)
    if place.kind == "register" and place.where == "PC":
        sim.pc = value
        return Value(sim.pc, "register", "PC")
    if place.kind == "register" and isinstance(place.where, str) and place.where.startswith("R"):
        index = int(place.where[1])
        sim.registers[index] = value
        return Value(sim.registers[index], "register", place.where)
    if place.kind in ("word", "address"):
        address = place.where if place.kind == "word" else place.value
        assert isinstance(address, int)
        sim.memory[address] = value
        return Value(sim.machine.mem[address], "word", address)
    raise ExpressionError(f"{target!r} cannot be written: name a register, M[address] or a label")


def truth(sim: Simulator, text: str) -> bool:
    """A breakpoint's condition: true when its value is not zero."""
    return evaluate(sim, text).value != 0


class _Parser:
    """Recursive descent over the tokens: comparison := sum [CMP sum]; sum := unary {+|- unary}."""

    def __init__(self, sim: Simulator, text: str) -> None:
        self.sim = sim
        self.text = text
        self.tokens: list[str] = []
        position = 0
        text = text.rstrip()
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None:
                raise ExpressionError(f"cannot read {text[position:].strip()!r} in {self.text!r}")
            self.tokens.append(match.group(1))
            position = match.end()
        self.position = 0

    def peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise ExpressionError(f"{self.text!r} ends too soon")
        self.position += 1
        return token

    def expect(self, token: str) -> None:
        if self.take() != token:
            raise ExpressionError(f"expected {token!r} in {self.text!r}")

    def comparison(self) -> Value:
        left = self.sum()
        operator = self.peek()
        if operator not in _COMPARE:
            return left
        self.position += 1
        right = self.sum()
        return Value(int(_COMPARE[operator](left.value, right.value)), "truth")

    def sum(self) -> Value:
        value = self.unary()
        while self.peek() in ("+", "-"):
            sign = 1 if self.take() == "+" else -1
            right = self.unary()
            total = (value.value + sign * right.value) & WORD_MASK
            # LABEL+2 still names a word; R1+1 is a number.
            value = Value(total, "address" if value.kind == "address" else "number")
        return value

    def unary(self) -> Value:
        if self.peek() == "-":
            self.position += 1
            return Value(-self.unary().value & WORD_MASK, "number")
        return self.atom()

    def atom(self) -> Value:
        token = self.take()
        if token == "(":
            value = self.comparison()
            self.expect(")")
            return Value(value.value, "number" if value.kind != "truth" else "truth")
        machine = self.sim.machine
        if (register := _REGISTER.fullmatch(token)) is not None:
            name = f"R{register.group(1)}"
            return Value(machine.reg[int(register.group(1))], "register", name)
        if token.upper() in ("PC", "PSR"):
            return Value(machine.pc if token.upper() == "PC" else machine.psr, "register", token.upper())
        if token.upper() == "M" and self.peek() == "[":
            self.position += 1
            address = self.comparison().value
            self.expect("]")
            return Value(machine.mem[address], "word", address)
        number = parse_number(token)
        if number is not None:
            if not -0x8000 <= number <= WORD_MASK:
                raise ExpressionError(f"{token} does not fit in 16 bits")
            return Value(number & WORD_MASK, "number")
        try:
            return Value(self.sim.address(token), "address")
        except (KeyError, ValueError):
            raise ExpressionError(f"no register, label or number {token!r}") from None
