"""A source line as the assembler reads it: tokens, then label, op and operands.

A part with a problem is left out of the statement (with its problem beside it), so that
pass 1 still defines a good label on a bad line and later lines do not report it unknown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice

from lc3jit.toolchain.asm.spellings import LABEL, REGISTER, is_keyword
from lc3jit.toolchain.numbers import parse_number

#: Words and commas read on one line: a statement has at most 7 (a label, an op, three
#: operands and their commas), and the rest of a longer line is one error, not many.
MAX_TOKENS = 16


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "word", "string" or "comma"
    text: str
    column: int  # 1-based


_LEXEME = re.compile(
    r"""(?P<space>[ \t\r\f\v]+) | (?P<comment>;.*) | (?P<comma>,)
      | (?P<string>"(?:[^"\\]|\\.)*\\?"?)
      | (?P<word>[^ \t\r\f\v,;":]+:? | :)""",
    re.VERBOSE,
)


def tokenize(text: str) -> Iterator[Token]:
    """Words, strings (quotes kept, maybe unterminated) and commas; comments dropped."""
    for match in _LEXEME.finditer(text):
        kind = match.lastgroup
        if kind in ("word", "string", "comma"):
            yield Token(kind, match.group(), match.start() + 1)


@dataclass
class Statement:
    """One source line, split: its label, its mnemonic or directive, its operands."""

    number: int
    text: str
    label: Token | None = None
    op: Token | None = None
    operands: list[Token] = field(default_factory=list)

    @property
    def is_orig(self) -> bool:
        return self.op is not None and self.op.text.upper() == ".ORIG"


def kind(token: Token) -> str:
    """What an operand is: a register, or a value (a number or a label)."""
    if token.kind == "word" and REGISTER.fullmatch(token.text):
        return "register"
    return "value"


def split(number: int, text: str) -> tuple[Statement, list[tuple[int, str]]]:
    """A line as label, op and operands, and the (column, message) problems found on the way."""
    statement = Statement(number, text)
    tokens = list(islice(tokenize(text), MAX_TOKENS + 1))
    if len(tokens) > MAX_TOKENS:
        return statement, [(tokens[-1].column, f"more than {MAX_TOKENS} words and commas on one line")]
    problems: list[tuple[int, str]] = []
    first = tokens[0] if tokens else None
    if (
        first is not None
        and first.kind == "word"
        and (first.text.endswith(":") or not is_keyword(first.text))
    ):
        tokens = tokens[1:]
        label_problem = _label_problem(first)
        if label_problem is not None:  # the rest of the line means nothing without it
            return statement, [(first.column, label_problem)]
        statement.label = first
        if tokens and tokens[0].text == ":":
            tokens = tokens[1:]
    if tokens:
        op, tokens = tokens[0], tokens[1:]
        operands, operand_problems = _operands(tokens)
        if op.kind != "word" or not is_keyword(op.text):
            looks_like_operand = kind(op) == "register" or parse_number(op.text) is not None
            if statement.label is first and looks_like_operand:
                # "FOO R1, R2": FOO is the unknown instruction, not a label before R1; the
                # rest says nothing more (no label to define, no operands to check).
                statement.label = None
                return statement, [(first.column, f"unknown instruction or directive {first.text}")]
            problems.append((op.column, f"unknown instruction or directive {op.text}"))
        elif not operand_problems:
            statement.op, statement.operands = op, operands
        problems += operand_problems
    return statement, problems


def _label_problem(token: Token) -> str | None:
    """Why the first word of a line, which is no mnemonic, cannot be a label (or None)."""
    name = token.text.removesuffix(":")
    if REGISTER.fullmatch(name):
        return f"{name} is a register, not a label"
    if parse_number(name) is not None:
        return f"{name} is a number, not a label"
    if name.startswith("."):
        return f"unknown directive {name}"
    if not LABEL.fullmatch(name):
        return f"{token.text} is not an instruction or a label"
    return None


def _operands(tokens: list[Token]) -> tuple[list[Token], list[tuple[int, str]]]:
    """Operands separated by commas (or, as some tools allow, by spaces alone)."""
    operands: list[Token] = []
    problems: list[tuple[int, str]] = []
    after_comma = True
    for token in tokens:
        if token.kind == "comma":
            if after_comma:
                problems.append((token.column, "missing operand before ','"))
            after_comma = True
        else:
            operands.append(token)
            after_comma = False
    if tokens and tokens[-1].kind == "comma":
        problems.append((tokens[-1].column, "missing operand after ','"))
    return operands, problems


_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "e": "\x1b",
    "0": "\0",
}


def odd_escape(text: str) -> bool:
    """Whether the closing quote of a string token is itself escaped."""
    body = text[1:-1]
    return (len(body) - len(body.rstrip("\\"))) % 2 == 1


def unescape(token: Token, warn: Callable[[int, str], None]) -> str:
    """The text of a string token without its quotes, escapes replaced (lc3as's, plus \\0)."""
    out = []
    body = token.text[1:-1]
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\":
            i += 1
            char = body[i]
            if char in _ESCAPES:
                char = _ESCAPES[char]
            elif char not in "\\\"'":
                warn(token.column + i, f"unknown escape \\{char}: taken as {char}")
        out.append(char)
        i += 1
    return "".join(out)
