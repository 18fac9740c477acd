"""Pass 1: the directives, the .ORIG blocks and where each line's words go.

Data (.BLKW, .STRINGZ) gets its words now; an instruction or a .FILL gets a placeholder
and waits for pass 2 (lc3jit/toolchain/asm/encoder.py), when every label is known.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lc3jit.toolchain.asm.diagnostics import Reporter
from lc3jit.toolchain.asm.hints import bare_decimal
from lc3jit.toolchain.asm.spellings import SPELLINGS
from lc3jit.toolchain.asm.symbols import SymbolTable
from lc3jit.toolchain.asm.syntax import Statement, odd_escape, split, unescape
from lc3jit.toolchain.numbers import parse_number
from lc3jit_runtime.isa import MEMORY_WORDS, WORD_MASK
from lc3jit_runtime.loader import SourceLine


@dataclass
class Block:
    """The words of one .ORIG block as pass 1 lays them out and pass 2 fills them in."""

    origin: int
    line: int
    errors_before: int  # errors reported before the block opened
    words: list[int] = field(default_factory=list)
    pending: list[tuple[int, Statement]] = field(default_factory=list)  # (index, statement) for pass 2
    source: dict[int, SourceLine] = field(default_factory=dict)
    symbols: dict[str, int] = field(default_factory=dict)
    code: set[int] = field(default_factory=set)
    overflowed: bool = False  # a line ran past xFFFF: reported there, the block is dropped

    @property
    def location(self) -> int:
        return self.origin + len(self.words)


class Layout:
    """Pass 1 over one source: its blocks, with their labels defined in the symbol table."""

    def __init__(
        self, lines: list[str], path: str, encoding: str, reporter: Reporter, symbols: SymbolTable
    ) -> None:
        self.lines = lines
        self.path = path
        self.encoding = encoding  # strings are written back in the bytes they came in
        self.reporter = reporter
        self.symbols = symbols
        self.blocks: list[Block] = []
        self.block: Block | None = None
        self.orphan_reported = False  # "no .ORIG" is said once, not for every line

    def run(self) -> list[Block]:
        """Split each line, define labels, lay out words; operands wait for pass 2."""
        report, warn = self.reporter.report, self.reporter.warn
        after_end = warned = False
        for number, text in enumerate(self.lines, 1):
            statement, problems = split(number, text)
            if after_end and not statement.is_orig:
                if not warned and (statement.op or statement.label or problems):
                    warn(statement, 1, "text after .END is ignored")
                    warned = True
                continue
            for column, message in problems:
                report(statement, column, message)
            after_end = self.lay_out(statement)
            warned = warned and after_end
        if self.block is not None:
            last = max((n for n, text in enumerate(self.lines, 1) if text.strip()), default=1)
            warn(Statement(last, self.lines[last - 1]), 1, f"no .END for the .ORIG on line {self.block.line}")
            self.close_block()
        if not self.blocks and not self.reporter.error_count():
            found = "no words" if self.reporter.diagnostics else "no .ORIG directive"
            report(Statement(1, self.lines[0]), 1, f"{found}: nothing to assemble")
        return self.blocks

    def lay_out(self, statement: Statement) -> bool:
        """Pass 1 for one line; True when it is an .END."""
        op = statement.op.text.upper() if statement.op else None
        if op == ".ORIG":
            self.open_block(statement)
        elif self.block is None:
            first = statement.label or statement.op
            if first is not None and not self.orphan_reported:
                self.reporter.report(statement, first.column, "no .ORIG before this line")
            self.orphan_reported = self.orphan_reported or first is not None
            return False
        if statement.label is not None:
            address = self.block.location & WORD_MASK
            if (name := self.symbols.define(statement, address)) is not None:
                self.block.symbols[name] = address
        if op == ".END":
            if statement.operands:
                self.reporter.report(statement, statement.operands[0].column, ".END takes no operands")
            self.close_block()
            return True
        if op is not None and op != ".ORIG":
            self.reserve(statement, op)
        return False

    def open_block(self, statement: Statement) -> None:
        if self.block is not None:
            message = f"no .END for the .ORIG on line {self.block.line}"
            self.reporter.warn(statement, statement.op.column, message)
            self.close_block()
        origin = self.single_number(statement, 0, WORD_MASK)
        if origin is not None:
            bare_decimal(self.reporter, statement, statement.operands[0])
        self.block = Block(0 if origin is None else origin, statement.number, self.reporter.error_count())
        self.orphan_reported = False

    def close_block(self) -> None:
        block, self.block = self.block, None
        if not block.words:  # lc3as and others take it: nothing to load
            if self.reporter.error_count() == block.errors_before:  # else the errors are why
                where = Statement(block.line, self.lines[block.line - 1])
                self.reporter.warn(where, 1, ".ORIG block with no words")
        elif not block.overflowed:
            self.blocks.append(block)

    def reserve(self, statement: Statement, op: str) -> None:
        """Give the line its words: known now for data, placeholders for instructions."""
        block = self.block
        if op == ".BLKW":
            count = self.single_number(statement, 0, WORD_MASK)
            if count == 0:  # lc3as takes it and writes nothing: so do we, but say so
                self.reporter.warn(statement, statement.operands[0].column, ".BLKW 0 reserves no words")
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
            message = f"unknown instruction or directive {statement.op.text}"
            self.reporter.report(statement, statement.op.column, message)

    def place(self, statement: Statement, words: list[int]) -> None:
        block = self.block
        if block.overflowed:
            return
        if block.location + len(words) > MEMORY_WORDS:
            message = f"the block from x{block.origin:04X} runs past xFFFF"
            self.reporter.report(statement, statement.op.column, message)
            block.overflowed = True
            return
        where = SourceLine(self.path, statement.number, statement.text)
        for offset in range(len(words)):
            block.source[block.location + offset] = where
        block.words.extend(words)

    def check_count(self, statement: Statement, op: str) -> bool:
        wanted = 1 if op == ".FILL" else len(SPELLINGS[op][0].operands)
        got = len(statement.operands)
        if got == wanted:
            return True
        column = statement.operands[wanted].column if got > wanted else statement.op.column
        plural = "" if wanted == 1 else "s"
        self.reporter.report(
            statement, column, f"{statement.op.text} takes {wanted} operand{plural}, found {got}"
        )
        return False

    def single_number(self, statement: Statement, low: int, high: int) -> int | None:
        """The one numeric operand of a directive, checked against [low, high]."""
        name = statement.op.text
        if len(statement.operands) != 1:
            self.reporter.report(statement, statement.op.column, f"{name} takes one number")
            return None
        token = statement.operands[0]
        value = parse_number(token.text) if token.kind == "word" else None
        if value is None:
            self.reporter.report(statement, token.column, f"{name} takes a number, found {token.text}")
        elif not low <= value <= high:
            message = f"{token.text} is out of range for {name} ({low} to {high})"
            self.reporter.report(statement, token.column, message)
            value = None
        return value

    def string(self, statement: Statement) -> list[int]:
        """The words of a .STRINGZ: one byte of the string each, and a zero."""
        if len(statement.operands) != 1 or statement.operands[0].kind != "string":
            self.reporter.report(statement, statement.op.column, ".STRINGZ takes one quoted string")
            return []
        token = statement.operands[0]
        if len(token.text) < 2 or not token.text.endswith('"') or odd_escape(token.text):
            self.reporter.report(statement, token.column, "unterminated string")
            return []
        text = unescape(token, lambda column, message: self.reporter.warn(statement, column, message))
        return [*text.encode(self.encoding, "surrogatepass"), 0]
