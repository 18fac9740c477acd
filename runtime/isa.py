"""The LC-3 instruction set as data: the one place that knows where the bits are.

Every reader (interpreter, block finder, code generator, assembler, disassembler) decodes
and encodes through this table instead of writing its own shifts and masks. A row is
written as in Patt & Patel, Appendix A: fixed bits, then fields named as in the manual.
Bits in parentheses are "should be" bits, as in the ARM manuals: the assembler writes
them, the disassembler insists on them, and the machine ignores them when it executes.
"""

from __future__ import annotations

from .record import Choice, Record, fillable

WORD_MASK = 0xFFFF
SIGN_BIT = 0x8000
#: The memory's extent: addresses are x0000 up to (not including) MEMORY_WORDS.
MEMORY_WORDS = 0x10000

#: Width and signedness of each field, by its name in the manual.
FIELD_WIDTHS: dict[str, tuple[int, bool]] = {
    "dr": (3, False),
    "sr": (3, False),
    "sr1": (3, False),
    "sr2": (3, False),
    "baser": (3, False),
    "nzp": (3, False),
    "imm5": (5, True),
    "offset6": (6, True),
    "pcoffset9": (9, True),
    "pcoffset11": (11, True),
    "trapvect8": (8, False),
}

#: The fields that are PC-relative offsets: their target is PC + 1 + offset.
PC_RELATIVE = frozenset({"pcoffset9", "pcoffset11"})
#: The fields that name a register: the one an instruction writes (dr) and those it reads.
REGISTER_FIELDS = ("dr", "sr", "sr1", "sr2", "baser")
READ_REGISTER_FIELDS = REGISTER_FIELDS[1:]


class Flow(Choice):
    """How an instruction passes control on; every kind but NEXT ends a basic block."""

    NEXT = "next"  # falls through to the following word
    BRANCH = "branch"  # BR: taken target or fall-through
    JUMP = "jump"  # JMP/RET: to a register
    CALL = "call"  # JSR/JSRR: R7 = return address
    TRAP = "trap"  # TRAP: through the trap vector table, or the host
    RTI = "rti"  # RTI: pops PC and PSR
    INVALID = "invalid"  # the reserved opcode: an illegal-opcode exception


class Field(Record, fields=("name", "lo", "width", "signed")):
    """A named bit field of an instruction word."""

    name: str
    lo: int
    width: int
    signed: bool

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1

    def extract(self, word: int) -> int:
        value = (word >> self.lo) & self.mask
        if self.signed and value >> (self.width - 1):
            value -= 1 << self.width
        return value

    def fits(self, value: int) -> bool:
        if self.signed:
            return -(1 << (self.width - 1)) <= value < (1 << (self.width - 1))
        return 0 <= value <= self.mask

    def insert(self, value: int) -> int:
        """Place value (already range-checked by the caller) into the field's bits."""
        return (value & self.mask) << self.lo


class Form(
    Record,
    fields=(
        "name",
        "mnemonic",
        "pattern",
        "flow",
        "sets_cc",
        "fields",
        "select_mask",
        "select_bits",
        "strict_mask",
        "strict_bits",
    ),
    defaults={"flow": Flow.NEXT, "sets_cc": frozenset({2, 3})},
    derived=("fields", "select_mask", "select_bits", "strict_mask", "strict_bits"),
):
    """One row of the table: an instruction form and what the machine does with it."""

    name: str  # unique key of handlers and emitters, e.g. "ADDI"
    mnemonic: str  # what the assembler and disassembler write, e.g. "ADD"
    pattern: str  # e.g. "0001 dr sr1 1 imm5"
    flow: Flow  # default NEXT
    sets_cc: frozenset[int]  # editions in which it sets N, Z, P (default 2 and 3)
    fields: tuple[Field, ...]  # derived from the pattern, as are the four below
    select_mask: int  # bits that choose this form when executing
    select_bits: int
    strict_mask: int  # as above, plus the "should be" bits
    strict_bits: int

    def __post_init__(self) -> None:
        fields: list[Field] = []
        select_mask = select_bits = strict_mask = strict_bits = 0
        pos = 16
        for token in self.pattern.split():
            should_be = token.startswith("(")
            bits = token.strip("()")
            if bits in FIELD_WIDTHS:
                width, signed = FIELD_WIDTHS[bits]
                pos -= width
                fields.append(Field(bits, pos, width, signed))
                continue
            pos -= len(bits)
            mask, value = ((1 << len(bits)) - 1) << pos, int(bits, 2) << pos
            strict_mask, strict_bits = strict_mask | mask, strict_bits | value
            if not should_be:
                select_mask, select_bits = select_mask | mask, select_bits | value
        if pos != 0:
            raise ValueError(f"pattern of {self.name} is not 16 bits: {self.pattern!r}")
        object.__setattr__(self, "fields", tuple(fields))
        object.__setattr__(self, "select_mask", select_mask)
        object.__setattr__(self, "select_bits", select_bits)
        object.__setattr__(self, "strict_mask", strict_mask)
        object.__setattr__(self, "strict_bits", strict_bits)

    @property
    def opcode(self) -> int:
        return self.select_bits >> 12

    @property
    def ends_block(self) -> bool:
        return self.flow is not Flow.NEXT

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"{self.name} has no field {name}")

    def encode(self, **operands: int) -> int:
        """The canonical word for this form; every field must be given and in range."""
        word = self.strict_bits
        for f in self.fields:
            value = operands[f.name]
            if not f.fits(value):
                raise ValueError(f"{f.name} = {value} does not fit {self.name}")
            word |= f.insert(value)
        return word


NO_EDITION: frozenset[int] = frozenset()

#: The instruction set, Appendix A, Figure A.2, one row per form.
FORMS: tuple[Form, ...] = (
    Form("ADD", "ADD", "0001 dr sr1 0 (00) sr2"),
    Form("ADDI", "ADD", "0001 dr sr1 1 imm5"),
    Form("AND", "AND", "0101 dr sr1 0 (00) sr2"),
    Form("ANDI", "AND", "0101 dr sr1 1 imm5"),
    Form("NOT", "NOT", "1001 dr sr (111111)"),
    Form("BR", "BR", "0000 nzp pcoffset9", Flow.BRANCH, NO_EDITION),
    Form("JMP", "JMP", "1100 (000) baser (000000)", Flow.JUMP, NO_EDITION),
    Form("JSR", "JSR", "0100 1 pcoffset11", Flow.CALL, NO_EDITION),
    Form("JSRR", "JSRR", "0100 0 (00) baser (000000)", Flow.CALL, NO_EDITION),
    Form("LD", "LD", "0010 dr pcoffset9"),
    Form("LDI", "LDI", "1010 dr pcoffset9"),
    Form("LDR", "LDR", "0110 dr baser offset6"),
    Form("LEA", "LEA", "1110 dr pcoffset9", sets_cc=frozenset({2})),
    Form("ST", "ST", "0011 sr pcoffset9", sets_cc=NO_EDITION),
    Form("STI", "STI", "1011 sr pcoffset9", sets_cc=NO_EDITION),
    Form("STR", "STR", "0111 sr baser offset6", sets_cc=NO_EDITION),
    Form("TRAP", "TRAP", "1111 (0000) trapvect8", Flow.TRAP, NO_EDITION),
    Form("RTI", "RTI", "1000 (000000000000)", Flow.RTI, NO_EDITION),
    Form("RESERVED", ".FILL", "1101 (000000000000)", Flow.INVALID, NO_EDITION),
)

FORMS_BY_NAME: dict[str, Form] = {form.name: form for form in FORMS}


class Alias(Record, fields=("mnemonic", "form", "fixed")):
    """A mnemonic that is another form with some fields fixed (RET is JMP R7)."""

    mnemonic: str
    form: Form
    fixed: tuple[tuple[str, int], ...]

    def spells(self, ins: Instruction) -> bool:
        """Is ins this alias (RET: a JMP whose baser is 7)?"""
        return ins.form is self.form and all(getattr(ins, name) == value for name, value in self.fixed)


#: The trap routines of the standard OS, by vector.
TRAP_NAMES: dict[int, str] = {
    0x20: "GETC",
    0x21: "OUT",
    0x22: "PUTS",
    0x23: "IN",
    0x24: "PUTSP",
    0x25: "HALT",
}


def _condition_letters(nzp: int) -> str:
    """How BR spells a condition: the letters of its set bits, always in n, z, p order."""
    return "".join(letter for bit, letter in zip((0b100, 0b010, 0b001), "nzp", strict=True) if nzp & bit)


#: Mnemonics that fix some fields of a form. Each BR condition is a row (BRnzp before the
#: bare BR, which means the same); nzp = 000 has no spelling: it never branches.
ALIASES: tuple[Alias, ...] = (
    Alias("RET", FORMS_BY_NAME["JMP"], (("baser", 7),)),
    *(Alias(name, FORMS_BY_NAME["TRAP"], (("trapvect8", vector),)) for vector, name in TRAP_NAMES.items()),
    Alias("PUTC", FORMS_BY_NAME["TRAP"], (("trapvect8", 0x21),)),
    *(Alias("BR" + _condition_letters(nzp), FORMS_BY_NAME["BR"], (("nzp", nzp),)) for nzp in range(7, 0, -1)),
    Alias("BR", FORMS_BY_NAME["BR"], (("nzp", 0b111),)),
)
RET = ALIASES[0]


class Instruction(
    Record, fields=("address", "word", "form", "strict", *FIELD_WIDTHS), defaults=dict.fromkeys(FIELD_WIDTHS)
):
    """One decoded word at one address: its form and its fields by their manual names.

    `strict` is False when a "should be" bit is off; the machine runs such a word anyway,
    and the disassembler shows it as data so that reassembling gives the same word.
    The operand fields a form does not have are None.
    """

    address: int
    word: int
    form: Form
    strict: bool
    dr: int | None
    sr: int | None
    sr1: int | None
    sr2: int | None
    baser: int | None
    nzp: int | None
    imm5: int | None
    offset6: int | None
    pcoffset9: int | None
    pcoffset11: int | None
    trapvect8: int | None

    @property
    def next_pc(self) -> int:
        """The incremented PC, which PC-relative offsets count from."""
        return (self.address + 1) & WORD_MASK

    @property
    def target(self) -> int | None:
        """The address a PC-relative operand names, or None for other forms."""
        offset = self.pcoffset9 if self.pcoffset9 is not None else self.pcoffset11
        return None if offset is None else (self.next_pc + offset) & WORD_MASK

    def sets_cc(self, edition: int) -> bool:
        return edition in self.form.sets_cc

    @property
    def is_return(self) -> bool:
        """RET, the return from a subroutine (JMP R7)."""
        return RET.spells(self)


def _build_decode_table() -> tuple[Form, ...]:
    """For each of the 16 opcodes and the two mode bits (11 and 5), the executing form: the
    one among its opcode's forms (every form selects on its opcode's bits) that the probe
    selects, not all 19 tried 64 times (every run imports this table)."""
    forms_of: dict[int, list[Form]] = {}
    for form in FORMS:
        forms_of.setdefault(form.opcode, []).append(form)
    table = []
    for key in range(64):
        opcode, bit11, bit5 = key >> 2, (key >> 1) & 1, key & 1
        probe = opcode << 12 | bit11 << 11 | bit5 << 5
        matches = [f for f in forms_of.get(opcode, ()) if probe & f.select_mask == f.select_bits]
        if len(matches) != 1:
            raise AssertionError(f"opcode {opcode:04b} selects {matches}")
        table.append(matches[0])
    return tuple(table)


_DECODE_TABLE = _build_decode_table()


def _row(word: int) -> int:
    """The word's row of _DECODE_TABLE: its opcode and the two mode bits (11 and 5)."""
    return (word >> 10) & 0b111100 | (word >> 10) & 0b10 | (word >> 5) & 1


def form_of(word: int) -> Form:
    """The form the machine executes for a word (the "should be" bits are ignored)."""
    return _DECODE_TABLE[_row(word)]


def _operand_bits(form: Form) -> tuple[tuple[int, int, int, int], ...]:
    """For each field the form has: (its index in FIELD_WIDTHS, lowest bit, mask, sign bit
    or 0); `decode` extracts with these what `Field.extract` would."""
    index = {name: i for i, name in enumerate(FIELD_WIDTHS)}
    return tuple((index[f.name], f.lo, f.mask, 1 << (f.width - 1) if f.signed else 0) for f in form.fields)


#: By the decode table's row; worked out once a form, not once a row (64 rows, 19 forms).
_OPERAND_BITS_OF = {form.name: _operand_bits(form) for form in FORMS}
_OPERAND_BITS = tuple(_OPERAND_BITS_OF[form.name] for form in _DECODE_TABLE)
#: The operands of a form that has none.
_NO_OPERANDS: list[int | None] = [None] * len(FIELD_WIDTHS)


def decode(word: int, address: int = 0) -> Instruction:
    """The word at the address, decoded; remembered (an Instruction cannot change), since
    the same words are decoded again and again: every machine a grader makes per test
    decodes its program anew, and so do the translators."""
    key = (address, word)
    if (ins := _DECODED.get(key)) is None:
        if len(_DECODED) >= DECODED_KEPT:  # random words: keep it bounded
            _DECODED.clear()
        if (fields := _FIELDS.get(word)) is None:
            fields = _FIELDS[word] = _fields(word)
        ins = _DECODED[key] = _instruction(address, fields)
    return ins


def _fields(word: int) -> tuple[object, ...]:
    """What decode gives any address for the word: the word, its form, strict, operands."""
    row = _row(word)
    form = _DECODE_TABLE[row]
    operands = _NO_OPERANDS.copy()
    for index, lo, mask, sign in _OPERAND_BITS[row]:
        operands[index] = ((word >> lo & mask) ^ sign) - sign
    return (word, form, word & form.strict_mask == form.strict_bits, *operands)


def _instruction(address: int, fields: tuple[object, ...]) -> Instruction:
    """An Instruction from values known good (`_fields`' of its word), without
    `Record.__init__`'s checks: decode makes one a word a translator reads (filled by
    plain stores: `fillable`)."""
    word, form, strict, dr, sr, sr1, sr2, baser, nzp, imm5, offset6, pcoffset9, pcoffset11, trapvect8 = fields
    ins = _new(_Filling)
    ins.address = address
    ins.word = word
    ins.form = form
    ins.strict = strict
    ins.dr = dr
    ins.sr = sr
    ins.sr1 = sr1
    ins.sr2 = sr2
    ins.baser = baser
    ins.nzp = nzp
    ins.imm5 = imm5
    ins.offset6 = offset6
    ins.pcoffset9 = pcoffset9
    ins.pcoffset11 = pcoffset11
    ins.trapvect8 = trapvect8
    ins.__class__ = Instruction
    return ins


_new = object.__new__
_Filling = fillable(Instruction)
_LOCALS = _instruction.__code__.co_varnames  # address, fields, then the fields unpacked
if (_LOCALS[0], *_LOCALS[2 : len(Instruction.FIELDS) + 1]) != Instruction.FIELDS:
    raise AssertionError("_instruction's locals are not Instruction's fields in order")
if not {*Instruction.FIELDS} <= {*_instruction.__code__.co_names}:
    raise AssertionError("_instruction does not store every field of Instruction")

#: How many decoded words `decode` remembers (some 5 MB at most).
DECODED_KEPT = 1 << 14
_DECODED: dict[tuple[int, int], Instruction] = {}
#: By word, `_fields`: a program repeats its words at many addresses (16k words: 673
#: different ones), so each is picked apart once. 65,536 words at most.
_FIELDS: dict[int, tuple[object, ...]] = {}


def to_signed(word: int) -> int:
    return word - (WORD_MASK + 1) if word & SIGN_BIT else word


#: The N, Z, P bits (4, 2, 1) each word sets, for the hot paths of the interpreter: 0 sets
#: Z, a word with the sign bit N, any other P. Built from those three runs rather than
#: word by word, which cost every start-up about 40 ms; a test checks every word.
COND = bytes((0b010,)) + bytes((0b001,)) * (SIGN_BIT - 1) + bytes((0b100,)) * SIGN_BIT

#: Words below this are BR with nzp = 000: they never branch and set nothing, so they do
#: nothing at all. x0000 (memory nothing was loaded into) and ASCII text are such words,
#: and a program that forgot its HALT runs through them; engines run them in bulk.
NOOP_WORDS = 0x0200

#: A 16-bit value that sets each condition code, so that codes can be kept lazily as
#: "the value that last set them" (see the architecture doc).
CC_VALUE = {0b100: SIGN_BIT, 0b010: 0, 0b001: 1}
