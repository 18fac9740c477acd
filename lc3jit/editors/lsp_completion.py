"""What the language server offers to complete, from where the cursor is on its line.

At a line's start (or after its label): mnemonics, trap aliases and directives. Past a
mnemonic, what its operand there takes, read from the instruction's encoding: a register
where the field is one (DR, SR, SR1, SR2, BaseR: `LEA R1, ` wants a label, `ADD R1, ` a
register), the file's labels where it is a PC offset (BR, JSR, LD, LDI, LEA, ST, STI) or
the operand of a `.FILL`, and nothing where it is a number (imm5, offset6, a trap vector)
or the instruction takes no more operands.
"""

from __future__ import annotations

from enum import Enum

from lc3jit.toolchain.asm import SPELLINGS, is_keyword, tokenize

REGISTER_FIELDS = frozenset({"dr", "sr", "sr1", "sr2", "baser"})
LABEL_FIELDS = frozenset({"pcoffset9", "pcoffset11"})


class Wanted(Enum):
    """What the cursor's place takes."""

    OPCODE = "opcode"  # a mnemonic or a directive
    REGISTER = "register"
    LABEL = "label"


def _operands(mnemonic: str) -> list[set[Wanted]]:
    """For each operand of a mnemonic (every form it spells), what it may be."""
    if mnemonic == ".FILL":
        return [{Wanted.LABEL}]
    kinds: list[set[Wanted]] = []
    for spelling in SPELLINGS.get(mnemonic, ()):
        fixed = {name for name, _ in spelling.fixed}
        fields = [f.name for f in spelling.form.fields if f.name not in fixed and f.name != "nzp"]
        for index, name in enumerate(fields):
            while len(kinds) <= index:
                kinds.append(set())
            if name in REGISTER_FIELDS:
                kinds[index].add(Wanted.REGISTER)
            elif name in LABEL_FIELDS:
                kinds[index].add(Wanted.LABEL)
    return kinds


OPERANDS = {mnemonic: _operands(mnemonic) for mnemonic in (*SPELLINGS, ".FILL")}


def wanted(before: str) -> set[Wanted]:
    """What completes the text of a line before the cursor (comments have no completion)."""
    if ";" in before:
        return set()
    words = [t for t in tokenize(before) if t.kind in ("word", "string")]
    ends_word = bool(before) and not before[-1].isspace() and before[-1] != ","
    done = words[:-1] if ends_word else words  # the words complete before the cursor's
    if done and not is_keyword(done[0].text):  # a label first
        done = done[1:]
    if not done:
        return {Wanted.OPCODE}
    mnemonic = done[0].text.upper()
    index = len(done) - 1
    kinds = OPERANDS.get(mnemonic, [])
    return kinds[index] if index < len(kinds) else set()
