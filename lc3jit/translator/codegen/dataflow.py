"""What a block's instructions read and write: the analyses the code generator runs over one
block (regions run the same, told what the blocks after it read).

Each is a function of the block and what is known after it, apart from emission
(as `bytecode` keeps its stack analysis in cfg.py), so a test can give it a block built
from a few words.
"""

from __future__ import annotations

from collections.abc import Iterable

from lc3jit.translator.blocks import Block
from lc3jit_runtime.isa import READ_REGISTER_FIELDS, Instruction

ALL_REGISTERS = range(8)
#: Forms that touch nothing but registers: nothing outside the block can see their codes.
REGISTER_ONLY = frozenset({"ADD", "ADDI", "AND", "ANDI", "NOT", "LEA"})


#: What each word reads and writes (register_reads, register_writes), by word: the
#: analyses and the code generator ask for every instruction several times (8 times a
#: word, 5% of translating, when worked out each time). The hot loops look here first
#: (`READS.get(word) or register_reads(ins)`: a call only where a word is new or its set
#: empty); 65,536 words at most.
READS: dict[int, frozenset[int]] = {}
WRITES: dict[int, frozenset[int]] = {}


def register_reads(ins: Instruction) -> frozenset[int]:
    """The registers an instruction reads, for liveness: AND R, R, #0 reads none, and a
    TRAP reads R (written back, wrapped, before it), not the locals."""
    found = READS.get(ins.word)
    if found is None:
        if ins.form.name == "ANDI" and not ins.imm5:
            found = frozenset()
        else:
            found = frozenset(r for field in READ_REGISTER_FIELDS if (r := getattr(ins, field)) is not None)
        READS[ins.word] = found
    return found


def register_writes(ins: Instruction) -> frozenset[int]:
    """The registers whose locals an instruction sets: JSR and JSRR set R7, and a TRAP
    that comes back inside the region reloads them all from R."""
    found = WRITES.get(ins.word)
    if found is None:
        name = ins.form.name
        if name == "TRAP":
            found = frozenset(ALL_REGISTERS)
        elif name in ("JSR", "JSRR"):
            found = frozenset({7})
        else:
            found = frozenset() if ins.dr is None else frozenset({ins.dr})
        WRITES[ins.word] = found
    return found


#: By word: the registers it reads and writes (register_reads, register_writes) as bit
#: masks, bit r for register r: the region analyses' fixed points run on ints, with no set
#: made an instruction and a round. Looked up as READS and WRITES are.
MASKS: dict[int, tuple[int, int]] = {}


def register_masks(ins: Instruction) -> tuple[int, int]:
    """register_reads and register_writes as bit masks (see MASKS)."""
    found = MASKS.get(ins.word)
    if found is None:
        found = MASKS[ins.word] = (mask_of(register_reads(ins)), mask_of(register_writes(ins)))
    return found


def mask_of(registers: Iterable[int]) -> int:
    """The bit mask of registers (and of CODES, bit 8: see regions.known)."""
    mask = 0
    for r in registers:
        mask |= 1 << r
    return mask


#: The registers (and CODES) of each bit mask, as a frozenset: made when first asked for.
REGISTERS_OF: dict[int, frozenset[int]] = {}


def registers_of(mask: int) -> frozenset[int]:
    """The registers, and CODES, in a bit mask (see MASKS)."""
    found = REGISTERS_OF.get(mask)
    if found is None:
        found = REGISTERS_OF[mask] = frozenset(r for r in range(mask.bit_length()) if mask >> r & 1)
    return found


def dead_codes(block: Block, edition: int, access_control: bool) -> list[bool]:
    """For each instruction: are the codes it sets set again before anything sees them?

    Only register-to-register instructions lie between two such setters: a load,
    a store or a check may leave the block, which then writes the codes back.
    """
    dead, overwritten = [], False
    for ins in reversed(block.instructions):
        dead.append(overwritten)
        if ins.form.name not in REGISTER_ONLY or access_control:
            overwritten = False
        elif edition in ins.form.sets_cc:  # Instruction.sets_cc, without a call a word
            overwritten = True
    return dead[::-1]


#: By word: the registers it reads as words (see word_reads), as a bit mask, without
#: and with `unwrapped_bases`.
WORD_READS: dict[tuple[int, bool], int] = {}


def word_reads(ins: Instruction, unwrapped_bases: bool) -> int:
    """The registers an instruction that is not register-to-register reads as words, as a
    bit mask: a value stored, a jump's target, a base address (unless bases may be sums
    not wrapped yet: see slow_paths.SlowPaths)."""
    key = (ins.word, unwrapped_bases)
    found = WORD_READS.get(key)
    if found is None:
        base = () if unwrapped_bases and ins.form.name in ("LDR", "STR") else (ins.baser,)
        found = WORD_READS[key] = mask_of(r for r in (ins.sr, *base) if r is not None)
    return found


def made_words(ins: Instruction) -> int:
    """The registers whose locals an instruction leaves holding words where its fast path
    goes on, as a bit mask, where bases may be sums not wrapped yet: the base of an LDR or
    STR at offset 0, which only addresses below xFE00 take (memory.MemoryAccess
    address_checked). `ADD R6, R6, #-1` then `STR R7, R6, #0`, a push, needs no wrap."""
    return 1 << ins.baser if ins.form.name in ("LDR", "STR") and not ins.offset6 else 0


#: Every register, as a bit mask.
ALL_MASK = mask_of(ALL_REGISTERS)


def exact_results(block: Block, wanted_after: int, access_control: bool, unwrapped_bases: bool) -> list[bool]:
    """For each instruction: must the value it writes be a 16-bit word at once?

    Register-to-register arithmetic is right modulo 2^16 whatever the size of its
    operands, so a sum can stay unwrapped while only such instructions (and branches,
    through tables) read it. It is wrapped where something reads it as a word (an
    address, a value stored, a jump's target) or after the block where `wanted_after`
    (a bit mask) says so, and never if it is overwritten first: 5x computed as x + x,
    twice, then + x, wraps once. A way out (a slow path, an exit, a helper) wraps the
    values it writes back, out of the way of the fast path. Under access control every
    instruction that is not register-to-register still wants every register as a word.
    With `unwrapped_bases`, an access at a base register leaves it a word (made_words).
    """
    exact, wanted = [], wanted_after  # registers read as words later on
    for ins in reversed(block.instructions):
        dr = ins.dr
        if ins.form.name in REGISTER_ONLY and not access_control:
            exact.append(bool(wanted >> dr & 1))
            wanted &= ~(1 << dr)
        elif access_control:
            exact.append(True)
            wanted = ALL_MASK
        else:
            exact.append(True)
            if dr is not None:
                wanted &= ~(1 << dr)
            if unwrapped_bases:
                wanted &= ~made_words(ins)
            wanted |= WORD_READS.get((ins.word, unwrapped_bases)) or word_reads(ins, unwrapped_bases)
    return exact[::-1]


def unread_results(block: Block, wanted_after: int) -> list[bool]:
    """For each instruction: is the value it writes read by nothing after it (in the block,
    or after it where `wanted_after`, a bit mask, says), the codes it sets aside?"""
    unread, live, get = [], wanted_after, MASKS.get
    for ins in reversed(block.instructions):
        dr = ins.dr
        unread.append(dr is not None and not live >> dr & 1)
        reads, writes = get(ins.word) or register_masks(ins)
        live = (live & ~writes) | reads
    return unread[::-1]
