"""Disassembly: words back to assembler text, as records first and as fixed columns second.

`iter_listing` decodes through the ISA table and spells each word with the assembler's own
mnemonic table, so that `lc3jit asm` reads every listing back into the same words: a word
that has no spelling (a "should be" bit off, BR with nzp = 000, the reserved opcode) or
that the caller says is data is written as `.FILL`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TextIO

from lc3jit.toolchain.asm import SPELLINGS, Spelling, is_keyword, is_label
from lc3jit.toolchain.numbers import format_address
from lc3jit_runtime.isa import PC_RELATIVE, Form, Instruction, decode
from lc3jit_runtime.loader import Image


@dataclass(frozen=True, slots=True)
class ListingLine:
    """One word of a listing, as data: what a formatter or a dump lays out in columns."""

    address: int
    word: int
    label: str | None  # the label defined at this address, if any
    mnemonic: str  # e.g. "ADD", "BRnz", ".FILL"
    operands: str  # as the assembler reads them, e.g. "R1, R1, #-1" or "LOOP"
    target: int | None = None  # the address a PC-relative operand names
    target_label: str | None = None  # the label at target, if any


def _by_form() -> dict[Form, tuple[Spelling, ...]]:
    """For each form, its spellings, most fixed fields first (RET before JMP, HALT before TRAP)."""
    table: dict[Form, list[Spelling]] = {}
    for spellings in SPELLINGS.values():
        for spelling in spellings:
            table.setdefault(spelling.form, []).append(spelling)
    return {form: tuple(sorted(rows, key=lambda s: -len(s.fixed))) for form, rows in table.items()}


_SPELLINGS_BY_FORM = _by_form()


def spell(ins: Instruction) -> Spelling | None:
    """The mnemonic that gives back this exact word, or None when only .FILL does."""
    if not ins.strict:
        return None
    for spelling in _SPELLINGS_BY_FORM.get(ins.form, ()):
        if all(getattr(ins, name) == value for name, value in spelling.fixed):
            return spelling
    return None


def labels_by_address(symbols: Mapping[str, int]) -> dict[int, str]:
    """One label per address (the first defined), among those the assembler can read back.

    The assembler ignores case in labels, so of names that differ only in case the first wins.
    """
    labels: dict[int, str] = {}
    seen: set[str] = set()
    for name, address in symbols.items():
        if is_label(name) and name.upper() not in seen and address not in labels:
            labels[address] = name
            seen.add(name.upper())
    return labels


def _operand_text(ins: Instruction, name: str, local: Mapping[int, str]) -> str:
    """An operand as the assembler writes it; a PC-relative one as a label when there is one."""
    value = getattr(ins, name)
    if name in PC_RELATIVE:
        return local.get(ins.target, f"#{value}")
    if name == "trapvect8":
        return f"x{value:02X}"
    if name in ("imm5", "offset6"):
        return f"#{value}"
    return f"R{value}"


def iter_listing(image: Image, code: AbstractSet[int] | None = None) -> Iterator[ListingLine]:
    """The listing of an image's words, with its labels.

    code: the addresses that hold instructions (from the block finder or the assembler);
    every other word is data. None means every word is taken as an instruction.
    A PC-relative operand is written as a label only when the label is inside the image,
    so that the listing assembles on its own; the target columns name any label.
    """
    every = labels_by_address(image.symbols)
    local = {address: name for address, name in every.items() if image.origin <= address < image.end}
    for address, word in enumerate(image.words, image.origin):
        ins = decode(word, address)
        spelling = spell(ins) if code is None or address in code else None
        if spelling is None:
            yield ListingLine(address, word, local.get(address), ".FILL", format_address(word))
            continue
        operands = ", ".join(_operand_text(ins, f.name, local) for f in spelling.operands)
        target = ins.target
        yield ListingLine(
            address, word, local.get(address), spelling.mnemonic, operands, target, every.get(target)
        )


LABEL_WIDTH = 16
MNEMONIC_WIDTH = 8
OPERANDS_WIDTH = 16


def _label_text(label: str | None) -> str:
    """A label as defined in a listing: with a colon when it is also a mnemonic (as lc3as allows)."""
    if label is None:
        return ""
    return f"{label}:" if is_keyword(label) else label


def format_line(line: ListingLine) -> str:
    """Label, mnemonic, operands, then a comment with the address, the word and the target."""
    target = ""
    if line.target is not None:
        target = f"  -> {line.target_label or format_address(line.target)}"
    return (
        f"{_label_text(line.label):<{LABEL_WIDTH - 1}} {line.mnemonic:<{MNEMONIC_WIDTH - 1}} "
        f"{line.operands:<{OPERANDS_WIDTH - 1}} ; {format_address(line.address)} {line.word:04X}{target}"
    )


def _directive(name: str, operand: str = "") -> str:
    return f"{'':<{LABEL_WIDTH - 1}} {name:<{MNEMONIC_WIDTH - 1}} {operand}".rstrip()


def write_listing(image: Image, file: TextIO, code: AbstractSet[int] | None = None) -> None:
    """The whole image as assembler text between .ORIG and .END: `lc3jit asm` reads it back."""
    print(_directive(".ORIG", format_address(image.origin)), file=file)
    write_lines(iter_listing(image, code), file)
    print(_directive(".END"), file=file)


def write_lines(lines: Iterable[ListingLine], file: TextIO) -> None:
    for line in lines:
        print(format_line(line), file=file)


def instruction_text(ins: Instruction, labels: Mapping[int, str]) -> str:
    """One instruction for a trace or the debugger: as a listing spells it, but a PC-relative
    operand names its target (a label, else the address) rather than the offset."""
    spelling = spell(ins)
    if spelling is None:
        return f".FILL {format_address(ins.word)}"
    operands = [
        labels.get(ins.target, format_address(ins.target))
        if f.name in PC_RELATIVE and ins.target is not None
        else _operand_text(ins, f.name, labels)
        for f in spelling.operands
    ]
    return f"{spelling.mnemonic} {', '.join(operands)}".rstrip()
