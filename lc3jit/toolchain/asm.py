"""A two-pass assembler for the union of the LC-3 dialects that real programs are written in.

It accepts what lc3as accepts and gives the same words for it, plus what other tools and
textbook examples add (see "Assembler dialect to accept" in the semantics doc): labels
with a colon, `0x` hex, several `.ORIG` blocks in one file. Instructions are encoded only
through the ISA table. Every problem is collected as a `Diagnostic`, so that one run
reports all of them; any error ends in one `AssemblyError`, whatever the input.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from lc3jit.toolchain.numbers import parse_number
from lc3jit_runtime.errors import LC3Error, LoadError
from lc3jit_runtime.isa import (
    ALIASES,
    FORMS,
    MEMORY_WORDS,
    PC_RELATIVE,
    REGISTER_FIELDS,
    WORD_MASK,
    Field,
    Flow,
    Form,
)
from lc3jit_runtime.loader import MAX_TEXT_BYTES, Image, SourceLine, read_bytes

#: Errors (and, apart, warnings) reported in full; the rest are counted ("and 12 more
#: errors"), so that a hostile source (a comma 16,000 times on a line) costs linear time
#: and memory, not one echoed line per error.
SHOWN = 30
#: The most characters of a source line echoed under a message, around its column.
ECHO_WIDTH = 100
#: Words and commas read on one line: a statement has at most 7 (a label, an op, three
#: operands and their commas), and the rest of a longer line is one error, not many.
MAX_TOKENS = 16
#: Words quoted in a message are cut to this length.
_QUOTED = 40
_LONG_WORD = re.compile(rf"\S{{{_QUOTED + 1},}}")


def _clip_words(message: str) -> str:
    """A message with each word longer than _QUOTED cut short (a token of 5,000 digits)."""
    return _LONG_WORD.sub(lambda m: m[0][: _QUOTED - 3] + "...", message)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """An error or warning at a place in the source, shown as compilers show them."""

    path: str
    line: int
    column: int
    message: str
    text: str  # the source line, for the caret display
    severity: str = "error"

    def __str__(self) -> str:
        text, column = self.text, self.column
        if len(text) > ECHO_WIDTH:  # a window around the column, marked where it is cut
            start = max(0, min(column - 1 - ECHO_WIDTH // 2, len(text) - ECHO_WIDTH))
            head = "..." if start else ""
            tail = "..." if start + ECHO_WIDTH < len(text) else ""
            text, column = head + text[start : start + ECHO_WIDTH] + tail, column - start + len(head)
        # Keep the line's tabs under the caret so that it lines up in a terminal.
        pad = "".join(c if c == "\t" else " " for c in text[: column - 1])
        head = f"{self.path}:{self.line}:{self.column}: {self.severity}: {self.message}"
        return f"{head}\n{text}\n{pad}^"


def _more(count: int, severity: str) -> str:
    return f"and {count} more {severity}{'s' if count > 1 else ''}"


class AssemblyError(LC3Error):
    """The source has errors: the first SHOWN of them in source order, each with its place,
    and how many more there are (`count` is all of them). The warnings of the same source
    are kept beside them (`warnings`, the first SHOWN) and shown in their place: a warning
    is often why the error happened (a bare `3000` read as decimal)."""

    def __init__(
        self,
        diagnostics: list[Diagnostic],
        warnings: list[Diagnostic] | tuple[()] = (),
        count: int | None = None,
    ) -> None:
        count = len(diagnostics) if count is None else count
        summary = f"{diagnostics[0].path}: {count} error{'s' if count > 1 else ''}"
        shown = sorted([*diagnostics, *warnings], key=lambda d: (d.line, d.column))
        more = [_more(count - len(diagnostics), "error")] if count > len(diagnostics) else []
        # One line first, as every lc3jit error has, then the details it summarises.
        super().__init__("\n".join([summary, *map(str, shown), *more]))
        self.diagnostics = tuple(diagnostics)
        self.warnings = tuple(warnings)
        self.count = count


@dataclass(frozen=True, slots=True)
class Spelling:
    """A mnemonic the assembler reads, and the form and fixed fields it stands for."""

    mnemonic: str
    form: Form
    fixed: tuple[tuple[str, int], ...] = ()

    @property
    def operands(self) -> tuple[Field, ...]:
        """The fields written as operands, in the order they are written."""
        fixed = {name for name, _ in self.fixed}
        return tuple(f for f in self.form.fields if f.name not in fixed)


def _spellings() -> dict[str, tuple[Spelling, ...]]:
    """Every mnemonic, upper-cased: the table's forms, then its aliases in their place.

    An alias with a form's own name replaces it (BR is BRnzp, not BR with an nzp operand),
    and the reserved opcode has no mnemonic at all.
    """
    table: dict[str, list[Spelling]] = {}
    for form in FORMS:
        if form.flow is not Flow.INVALID:
            table.setdefault(form.mnemonic.upper(), []).append(Spelling(form.mnemonic, form))
    for alias in ALIASES:
        table.pop(alias.mnemonic.upper(), None)  # keep the table's order: BRnzp before BR
        table[alias.mnemonic.upper()] = [Spelling(alias.mnemonic, alias.form, alias.fixed)]
    return {name: tuple(rows) for name, rows in table.items()}


SPELLINGS = _spellings()
DIRECTIVES = frozenset({".ORIG", ".END", ".FILL", ".BLKW", ".STRINGZ"})
_LABEL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_REGISTER = re.compile(r"[rR]([0-7])")


def is_keyword(name: str) -> bool:
    """A mnemonic or directive: a label by this name needs a colon where it is defined."""
    return name.upper() in SPELLINGS or name.upper() in DIRECTIVES


def is_label(name: str) -> bool:
    """A name the assembler reads as a label where an operand is expected."""
    return bool(_LABEL.fullmatch(name)) and _REGISTER.fullmatch(name) is None and parse_number(name) is None


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


@dataclass
class _Statement:
    """One source line, split: its label, its mnemonic or directive, its operands."""

    number: int
    text: str
    label: Token | None = None
    op: Token | None = None
    operands: list[Token] = field(default_factory=list)


@dataclass
class _Block:
    """The words of one .ORIG block as pass 1 lays them out and pass 2 fills them in."""

    origin: int
    line: int
    errors_before: int  # errors reported before the block opened
    words: list[int] = field(default_factory=list)
    pending: list[tuple[int, _Statement]] = field(default_factory=list)  # (index, statement) for pass 2
    source: dict[int, SourceLine] = field(default_factory=dict)
    symbols: dict[str, int] = field(default_factory=dict)
    code: set[int] = field(default_factory=set)
    overflowed: bool = False  # a line ran past xFFFF: reported there, the block is dropped

    @property
    def location(self) -> int:
        return self.origin + len(self.words)


@dataclass(frozen=True)
class Assembly:
    """What a source file gives: one image per .ORIG block, and which words are code."""

    images: tuple[Image, ...]
    code: frozenset[int]  # addresses of instructions, as opposed to .FILL/.BLKW/.STRINGZ words
    warnings: tuple[Diagnostic, ...]  # the first SHOWN
    more_warnings: int = 0  # not shown

    def warning_texts(self) -> list[str]:
        """The warnings as the assembler writes them, the count of those not shown last."""
        more = (
            [f"{self.warnings[0].path}: {_more(self.more_warnings, 'warning')}"] if self.more_warnings else []
        )
        return [*map(str, self.warnings), *more]


def _first_shown(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The first SHOWN errors and the first SHOWN warnings, in source order."""
    kept: list[Diagnostic] = []
    counts = {"error": 0, "warning": 0}
    for d in sorted(diagnostics, key=lambda d: (d.line, d.column)):
        counts[d.severity] += 1
        if counts[d.severity] <= SHOWN:
            kept.append(d)
    return kept


class _Assembler:
    """The state of one run over one source: diagnostics, symbols, blocks."""

    def __init__(self, source: str, path: str, encoding: str) -> None:
        self.path = path
        self.encoding = encoding
        self.lines = [line.removesuffix("\r") for line in source.split("\n")]
        self.diagnostics: list[Diagnostic] = []  # the first SHOWN of each severity, and some more
        self.counts = {"error": 0, "warning": 0}  # all reported, shown or not
        # Pass 2 reports in source order: the first SHOWN unknown labels are all it may show.
        self.label_hints_left = SHOWN
        self.symbols: dict[str, tuple[str, int, int]] = {}  # upper name -> (name, address, line)
        self.blocks: list[_Block] = []
        self.block: _Block | None = None
        self.orphan_reported = False  # "no .ORIG" is said once, not for every line

    def report(self, statement: _Statement, column: int, message: str, severity: str = "error") -> None:
        message = _clip_words(message)
        diagnostic = Diagnostic(self.path, statement.number, column, message, statement.text, severity)
        self.diagnostics.append(diagnostic)
        self.counts[severity] += 1
        if len(self.diagnostics) > 4 * SHOWN:  # forget what will not be shown: memory stays bounded
            self.diagnostics = _first_shown(self.diagnostics)

    def error_count(self) -> int:
        return self.counts["error"]

    def warn(self, statement: _Statement, column: int, message: str) -> None:
        self.report(statement, column, message, "warning")

    def run(self) -> Assembly:
        self.first_pass()
        for block in self.blocks:
            for index, statement in block.pending:
                self.second_pass(block, index, statement)
        self.diagnostics = _first_shown(self.diagnostics)
        errors = [d for d in self.diagnostics if d.severity == "error"]
        if errors:
            warnings = [d for d in self.diagnostics if d.severity != "error"]
            raise AssemblyError(errors, warnings, self.counts["error"])
        images = tuple(Image(b.origin, tuple(b.words), self.path, b.symbols, b.source) for b in self.blocks)
        code = frozenset(address for b in self.blocks for address in b.code)
        warnings = tuple(self.diagnostics)
        return Assembly(images, code, warnings, self.counts["warning"] - len(warnings))

    def first_pass(self) -> None:
        """Split each line, define labels, lay out words; operands wait for pass 2."""
        after_end = warned = False
        for number, text in enumerate(self.lines, 1):
            statement, problems = _split(number, text)
            if after_end and not _is_orig(statement):
                if not warned and (statement.op or statement.label or problems):
                    self.warn(statement, 1, "text after .END is ignored")
                    warned = True
                continue
            for column, message in problems:
                self.report(statement, column, message)
            after_end = self.lay_out(statement)
            warned = warned and after_end
        if self.block is not None:
            last = max((n for n, text in enumerate(self.lines, 1) if text.strip()), default=1)
            self.warn(
                _Statement(last, self.lines[last - 1]),
                1,
                f"no .END for the .ORIG on line {self.block.line}",
            )
            self.close_block()
        if not self.blocks and not self.error_count():
            found = "no words" if self.diagnostics else "no .ORIG directive"
            self.report(_Statement(1, self.lines[0]), 1, f"{found}: nothing to assemble")

    def lay_out(self, statement: _Statement) -> bool:
        """Pass 1 for one line; True when it is an .END."""
        op = statement.op.text.upper() if statement.op else None
        if op == ".ORIG":
            self.open_block(statement)
        elif self.block is None:
            first = statement.label or statement.op
            if first is not None and not self.orphan_reported:
                self.report(statement, first.column, "no .ORIG before this line")
            self.orphan_reported = self.orphan_reported or first is not None
            return False
        if statement.label is not None:
            self.define(statement)
        if op == ".END":
            if statement.operands:
                self.report(statement, statement.operands[0].column, ".END takes no operands")
            self.close_block()
            return True
        if op is not None and op != ".ORIG":
            self.reserve(statement, op)
        return False

    def open_block(self, statement: _Statement) -> None:
        if self.block is not None:
            self.warn(statement, statement.op.column, f"no .END for the .ORIG on line {self.block.line}")
            self.close_block()
        origin = self.single_number(statement, 0, WORD_MASK)
        if origin is not None:
            self.bare_decimal(statement, statement.operands[0])
        self.block = _Block(0 if origin is None else origin, statement.number, self.error_count())
        self.orphan_reported = False

    def close_block(self) -> None:
        block, self.block = self.block, None
        if not block.words:  # lc3as and others take it: nothing to load
            if self.error_count() == block.errors_before:  # else the errors are why
                self.warn(_Statement(block.line, self.lines[block.line - 1]), 1, ".ORIG block with no words")
        elif not block.overflowed:
            self.blocks.append(block)

    def define(self, statement: _Statement) -> None:
        token = statement.label
        name = token.text.removesuffix(":")
        if name.upper() in self.symbols:
            _, _, line = self.symbols[name.upper()]
            hint = _mnemonic_hint(name)
            hint = f" ({hint})" if hint and statement.op is None else ""
            self.report(statement, token.column, f"label {name} is already defined on line {line}{hint}")
            return
        if statement.op is None and not token.text.endswith(":") and (hint := _mnemonic_hint(name)):
            self.warn(statement, token.column, f"{name} alone on a line is taken as a label ({hint})")
        address = self.block.location & WORD_MASK
        self.symbols[name.upper()] = (name, address, statement.number)
        self.block.symbols[name] = address

    def reserve(self, statement: _Statement, op: str) -> None:
        """Give the line its words: known now for data, placeholders for instructions."""
        block = self.block
        if op == ".BLKW":
            count = self.single_number(statement, 0, WORD_MASK)
            if count == 0:  # lc3as takes it and writes nothing: so do we, but say so
                self.warn(statement, statement.operands[0].column, ".BLKW 0 reserves no words")
            self.place(statement, [0] * (count or 0))
        elif op == ".STRINGZ":
            self.place(statement, self.string(statement))
        elif op == ".FILL" or op in SPELLINGS:
            if self.check_count(statement, op):
                block.pending.append((len(block.words), statement))
                if op != ".FILL":
                    block.code.add(block.location)
            self.place(statement, [0])
        else:
            self.report(
                statement, statement.op.column, f"unknown instruction or directive {statement.op.text}"
            )

    def place(self, statement: _Statement, words: list[int]) -> None:
        block = self.block
        if block.overflowed:
            return
        if block.location + len(words) > MEMORY_WORDS:
            self.report(statement, statement.op.column, f"the block from x{block.origin:04X} runs past xFFFF")
            block.overflowed = True
            return
        where = SourceLine(self.path, statement.number, statement.text)
        for offset in range(len(words)):
            block.source[block.location + offset] = where
        block.words.extend(words)

    def check_count(self, statement: _Statement, op: str) -> bool:
        wanted = 1 if op == ".FILL" else len(SPELLINGS[op][0].operands)
        got = len(statement.operands)
        if got == wanted:
            return True
        column = statement.operands[wanted].column if got > wanted else statement.op.column
        plural = "" if wanted == 1 else "s"
        self.report(statement, column, f"{statement.op.text} takes {wanted} operand{plural}, found {got}")
        return False

    def single_number(self, statement: _Statement, low: int, high: int) -> int | None:
        """The one numeric operand of a directive, checked against [low, high]."""
        name = statement.op.text
        if len(statement.operands) != 1:
            self.report(statement, statement.op.column, f"{name} takes one number")
            return None
        token = statement.operands[0]
        value = parse_number(token.text) if token.kind == "word" else None
        if value is None:
            self.report(statement, token.column, f"{name} takes a number, found {token.text}")
        elif not low <= value <= high:
            self.report(statement, token.column, f"{token.text} is out of range for {name} ({low} to {high})")
            value = None
        return value

    def string(self, statement: _Statement) -> list[int]:
        """The words of a .STRINGZ: one byte of the string each, and a zero."""
        if len(statement.operands) != 1 or statement.operands[0].kind != "string":
            self.report(statement, statement.op.column, ".STRINGZ takes one quoted string")
            return []
        token = statement.operands[0]
        if len(token.text) < 2 or not token.text.endswith('"') or _odd_escape(token.text):
            self.report(statement, token.column, "unterminated string")
            return []
        text = _unescape(token, lambda column, message: self.warn(statement, column, message))
        return [*text.encode(self.encoding, "surrogatepass"), 0]

    def second_pass(self, block: _Block, index: int, statement: _Statement) -> None:
        op = statement.op.text.upper()
        address = (block.origin + index) & WORD_MASK
        if op == ".FILL":
            block.words[index] = self.fill_value(statement)
        else:
            block.words[index] = self.encode(statement, address)

    def fill_value(self, statement: _Statement) -> int:
        token = statement.operands[0]
        value = self.number_or_label(statement, token)
        if value is not None and not -0x8000 <= value <= WORD_MASK:
            self.report(statement, token.column, f"{token.text} does not fit 16 bits (-32768 to 65535)")
        return (value or 0) & WORD_MASK

    def number_or_label(self, statement: _Statement, token: Token) -> int | None:
        if token.kind == "word":
            value = parse_number(token.text)
            if value is not None:
                self.bare_decimal(statement, token)
                return value
            if is_label(token.text):
                return self.address_of(statement, token)
        self.report(statement, token.column, f"expected a number or a label, found {token.text}")
        return None

    def address_of(self, statement: _Statement, token: Token) -> int | None:
        entry = self.symbols.get(token.text.upper())
        if entry is None:
            self.report(statement, token.column, f"unknown label {token.text}{self.label_hint(token.text)}")
            return None
        return entry[1]

    def label_hint(self, name: str) -> str:
        """What an unknown label may have meant: an instruction's name, or a label one or two
        edits away (LOPP for LOOP)."""
        if is_keyword(name):
            upper = name.upper()
            return f": {upper} is an instruction; a label of that name is defined with a colon ({name}:)"
        if self.label_hints_left <= 0:  # each looks at every label: only for errors shown
            return ""
        self.label_hints_left -= 1
        near = _nearest(name, [defined for defined, _, _ in self.symbols.values()])
        return f"; did you mean {near}?" if near else ""

    def encode(self, statement: _Statement, address: int) -> int:
        """The word of an instruction: the spelling whose operand kinds match, encoded."""
        spellings = SPELLINGS[statement.op.text.upper()]
        spelling = _matching(spellings, statement.operands)
        if spelling is None:
            token, expected = _mismatch(spellings, statement.operands)
            self.report(
                statement, token.column, f"{statement.op.text} expects {expected}, found {token.text}"
            )
            return 0
        values = dict(spelling.fixed)
        for operand, token in zip(spelling.operands, statement.operands, strict=True):
            value = self.operand(statement, operand, token, address)
            if value is None:
                return 0
            values[operand.name] = value
        return spelling.form.encode(**values)

    def operand(self, statement: _Statement, operand: Field, token: Token, address: int) -> int | None:
        register = _REGISTER.fullmatch(token.text)
        if register is not None:
            return int(register.group(1))
        value = parse_number(token.text)
        if value is not None:
            self.bare_decimal(statement, token)
            return self.fit(statement, operand, token, value)
        if operand.name not in PC_RELATIVE:
            self.report(statement, token.column, f"expected a number, found {token.text}")
            return None
        if not is_label(token.text):
            self.report(statement, token.column, f"expected a number or a label, found {token.text}")
            return None
        target = self.address_of(statement, token)
        if target is None:
            return None
        offset = target - (address + 1)
        if not operand.fits(offset):
            low, high = _bounds(operand)
            message = f"label {token.text} is {offset} words away; {operand.name} reaches {low} to {high}"
            self.report(statement, token.column, message)
            return None
        return offset

    def bare_decimal(self, statement: _Statement, token: Token) -> None:
        """A number with neither # nor x is read as decimal, as LC3Tools reads it; lc3as and
        the textbook want #, and a student who wrote `.ORIG 3000` meant x3000: say so."""
        if _BARE_DECIMAL.fullmatch(token.text):
            value = parse_number(token.text) or 0  # not int(): 5,000 digits would be a ValueError
            self.warn(
                statement,
                token.column,
                f"{token.text} has no # or x: read as decimal #{value} (x{value & WORD_MASK:04X});"
                f" write #{value} for decimal or x{token.text.lstrip('+')} for hex",
            )

    def fit(self, statement: _Statement, operand: Field, token: Token, value: int) -> int | None:
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
            self.warn(
                statement,
                token.column,
                f"{token.text} does not fit {operand.name} ({low} to {high}); keeping its low "
                f"{operand.width} bits: {kept}",
            )
            return kept
        self.report(
            statement, token.column, f"{token.text} is out of range for {operand.name} ({low} to {high})"
        )
        return None


#: A decimal literal: out of a field's range it is an error; hex and binary literals are bit
#: patterns, which keep their low bits (with a warning) as lc3as does.
_DECIMAL = re.compile(r"#?-?[0-9]+")
_BARE_DECIMAL = re.compile(r"[-+]?[0-9]+")
#: How many edits away a known name may be for "did you mean" (one for short names).
NEAR_EDITS = 2


def _edits(a: str, b: str, limit: int) -> int:
    """Levenshtein distance ignoring case (insertions, deletions, substitutions), or limit + 1
    when it is more than limit: only the band of cells within limit of the diagonal is
    computed, so a 5,000-letter name costs 5,000 times the band, not 5,000 times the other."""
    a, b, beyond = a.upper(), b.upper(), limit + 1
    if abs(len(a) - len(b)) > limit:
        return beyond
    previous = {j: j for j in range(min(len(b), limit) + 1)}
    for i, x in enumerate(a, 1):
        current = {0: i} if i <= limit else {}
        for j in range(max(1, i - limit), min(len(b), i + limit) + 1):
            current[j] = min(
                previous.get(j, beyond) + 1,
                current.get(j - 1, beyond) + 1,
                previous.get(j - 1, beyond) + (x != b[j - 1]),
            )
        if min(current.values()) > limit:
            return beyond
        previous = current
    return min(previous.get(len(b), beyond), beyond)


def _nearest(name: str, known: list[str], reach: int = NEAR_EDITS) -> str | None:
    """The one known name closest to name within NEAR_EDITS (one edit for names of up to
    three letters, where two would reach almost anything); None if none or a tie."""
    reach, upper = 1 if len(name) <= 3 else reach, name.upper()
    scored = sorted(
        (distance, other)
        for other in known
        if abs(len(other) - len(name)) <= reach  # farther for certain: not worth a call
        and other.upper() != upper
        and (distance := _edits(name, other, reach)) <= reach
    )
    if not scored or (len(scored) > 1 and scored[0][0] == scored[1][0]):
        return None
    return scored[0][1]


@functools.lru_cache(maxsize=1024)  # a source may define or redefine the same names again and again
def _mnemonic_hint(name: str) -> str | None:
    """For a label with no instruction after it: the instruction it is one edit from (GETS
    for GETC), as a misspelt instruction is taken for a label. One edit only: a label on a
    line of its own is common, and must not draw a warning for being short."""
    if is_keyword(name):
        return None
    near = _nearest(name, list(SPELLINGS), 1)  # its keys are upper-case
    return f"{name.upper()} is not an instruction: did you mean {near}?" if near else None


def _odd_escape(text: str) -> bool:
    """Whether the closing quote of a string token is itself escaped."""
    body = text[1:-1]
    return (len(body) - len(body.rstrip("\\"))) % 2 == 1


def _bounds(operand: Field) -> tuple[int, int]:
    if operand.signed:
        return -(1 << (operand.width - 1)), (1 << (operand.width - 1)) - 1
    return 0, operand.mask


def _unescape(token: Token, warn: Callable[[int, str], None]) -> str:
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


def _kind(token: Token) -> str:
    if token.kind == "word" and _REGISTER.fullmatch(token.text):
        return "register"
    return "value"


def _wants(operand: Field) -> str:
    return "register" if operand.name in REGISTER_FIELDS else "value"


def _matching(spellings: tuple[Spelling, ...], operands: list[Token]) -> Spelling | None:
    kinds = [_kind(token) for token in operands]
    for spelling in spellings:
        if [_wants(f) for f in spelling.operands] == kinds:
            return spelling
    return None


def _mismatch(spellings: tuple[Spelling, ...], operands: list[Token]) -> tuple[Token, str]:
    """Where the operands first fail every spelling, and what would be accepted there.

    The spellings of one mnemonic differ in one position at most (ADD's register or
    immediate), so the first operand whose kind no spelling takes is the culprit.
    """
    wanted = [{_wants(s.operands[position]) for s in spellings} for position in range(len(operands))]
    token, kinds = next((t, w) for t, w in zip(operands, wanted, strict=True) if _kind(t) not in w)
    names = " or ".join(
        "a register R0-R7" if kind == "register" else "a number or a label" for kind in sorted(kinds)
    )
    return token, names


def _split(number: int, text: str) -> tuple[_Statement, list[tuple[int, str]]]:
    """A line as label, op and operands, and the (column, message) problems found on the way.

    A part with a problem is left out of the statement, so that pass 1 still defines a
    good label on a bad line and later lines do not report it unknown.
    """
    statement = _Statement(number, text)
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
            looks_like_operand = _kind(op) == "register" or parse_number(op.text) is not None
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


def _is_orig(statement: _Statement) -> bool:
    return statement.op is not None and statement.op.text.upper() == ".ORIG"


def _label_problem(token: Token) -> str | None:
    """Why the first word of a line, which is no mnemonic, cannot be a label (or None)."""
    name = token.text.removesuffix(":")
    if _REGISTER.fullmatch(name):
        return f"{name} is a register, not a label"
    if parse_number(name) is not None:
        return f"{name} is a number, not a label"
    if name.startswith("."):
        return f"unknown directive {name}"
    if not _LABEL.fullmatch(name):
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


def _decode_source(data: bytes) -> tuple[str, str]:
    """The text of a source file and the encoding its strings are written back in.

    lc3as copies the bytes of a string into words, so strings are re-encoded the way
    they came; a file that is not UTF-8 is read byte for byte.
    """
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def assemble(source: str | bytes, path: str = "<source>") -> Assembly:
    """Assemble a whole source text; raises AssemblyError with every error found."""
    text, encoding = _decode_source(source) if isinstance(source, bytes) else (source, "utf-8")
    return _Assembler(text, path, encoding).run()


def diagnose(source: str, path: str = "<source>") -> tuple[Assembly | None, list[Diagnostic]]:
    """Every error and warning of a source, in order, and its assembly when it has no error:
    what an editor shows as the student types (`assemble` keeps only the errors of a
    source that has some)."""
    assembler = _Assembler(source, path, "utf-8")
    try:
        assembly = assembler.run()
    except AssemblyError:
        assembly = None
    return assembly, list(assembler.diagnostics)


def assemble_file(path: Path) -> Assembly:
    data = read_bytes(path, MAX_TEXT_BYTES)
    if b"\0" in data:
        raise LoadError(path, "a binary file, not assembly text (an .obj? name it so)")
    if not data.strip():
        raise LoadError(path, "an empty file: nothing to assemble (a program starts with .ORIG x3000)")
    return assemble(data, str(path))


def obj_bytes(image: Image) -> bytes:
    """The classic .obj: the origin, then the words, each big-endian."""
    return b"".join(word.to_bytes(2, "big") for word in (image.origin, *image.words))


def sym_text(symbols: dict[str, int]) -> str:
    """lc3as's .sym: its four header lines, one row per label in order of definition."""
    header = (
        "// Symbol table\n"
        "// Scope level 0:\n"
        "//\tSymbol Name       Page Address\n"
        "//\t----------------  ------------\n"
    )
    rows = "".join(f"//\t{name:<16}  {address:04X}\n" for name, address in symbols.items())
    return header + rows + "\n"


def output_paths(obj: Path, count: int) -> list[Path]:
    """Where the blocks go: FILE.obj for the first, then FILE-1.obj, FILE-2.obj, ..."""
    return [obj] + [obj.with_name(f"{obj.stem}-{k}{obj.suffix}") for k in range(1, count)]


def write_outputs(assembly: Assembly, obj: Path) -> list[Path]:
    """Write each block's .obj and .sym; the .obj paths written, in block order."""
    paths = output_paths(obj, len(assembly.images))
    for image, path in zip(assembly.images, paths, strict=True):
        _write(path, obj_bytes(image))
        _write(path.with_suffix(".sym"), sym_text(image.symbols).encode())
    return paths


def _write(path: Path, data: bytes) -> None:
    """Write a file; an OSError names it even when the write, not the open, failed (a full disk)."""
    try:
        path.write_bytes(data)
    except OSError as e:
        raise OSError(e.errno, e.strerror, str(path)) from e
