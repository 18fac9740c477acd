"""The names the assembler reads: every mnemonic (from the ISA table), the directives, and
what makes a word a register or a label."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lc3jit.toolchain.numbers import parse_number
from lc3jit_runtime.isa import ALIASES, FORMS, Field, Flow, Form


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
LABEL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
REGISTER = re.compile(r"[rR]([0-7])")


def is_keyword(name: str) -> bool:
    """A mnemonic or directive: a label by this name needs a colon where it is defined."""
    return name.upper() in SPELLINGS or name.upper() in DIRECTIVES


def is_label(name: str) -> bool:
    """A name the assembler reads as a label where an operand is expected."""
    return bool(LABEL.fullmatch(name)) and REGISTER.fullmatch(name) is None and parse_number(name) is None
