"""The block finder: which words are code, and where basic blocks begin and end.

It follows control flow from the entry points and never decodes a word it did not
reach as code, so data stays data (and stores into it stay on the fast path). Labels
from a `.sym` file split blocks but are not entry points: a data label is as likely as
a code label, and translating data would make every store into it look like
self-modifying code. Targets known only at run time (JMP, JSRR, RET, RTI) are found
when the program gets there, and translated then.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from lc3jit_runtime.isa import DECODED_KEPT, RET, WORD_MASK, Flow, Instruction, decode
from lc3jit_runtime.record import fillable

#: The most instructions one block holds; longer straight-line code is chained.
MAX_BLOCK = 64

HALT_VECTOR = 0x25

#: x0000 (BR with no condition: a no-op) is far more often .FILL 0, .BLKW or memory
#: nothing was loaded into. Static discovery stops there; if the program really runs
#: such words, they are found then, like any target known only at run time.
UNLIKELY_CODE = 0x0000


class Exit(enum.Enum):
    """Why a block ends: the epilogue of its code switches on this."""

    FALLTHROUGH = "fallthrough"  # the next word is a leader
    LIMIT = "limit"  # MAX_BLOCK reached
    BRANCH = "branch"
    CALL = "call"
    JUMP = "jump"
    RETURN = "return"  # JMP R7
    TRAP = "trap"
    RTI = "rti"
    INVALID = "invalid"

    #: By identity, as every member is the one object of its value: Enum's own hash (of
    #: its name) is a call in Python, some thousands a translation (`exit in CALLS`).
    __hash__ = object.__hash__


class Kind(enum.StrEnum):
    """How control goes from a block to a successor (a string in dumps and their JSON)."""

    TAKEN = "taken"  # a branch taken
    FALLTHROUGH = "fallthrough"  # on to the next word
    CALL = "call"  # JSR, JSRR
    RETURN = "return"  # to the word after a call: from RET, or a call's own return point
    INDIRECT = "indirect"  # JMP or RTI: known only at run time


#: The members that code run for every block or successor compares with, as globals: on
#: 3.11 reading one off its class (`Exit.TRAP`) is a call of EnumType's attribute hook,
#: some 0.1 us, and choosing and analysing the regions of 4k words of branchy code read
#: 80,000 of them (4% of translating).
EXIT_CALL, EXIT_JUMP, EXIT_TRAP = Exit.CALL, Exit.JUMP, Exit.TRAP
EXIT_RTI, EXIT_RETURN = Exit.RTI, Exit.RETURN
KIND_FALLTHROUGH, KIND_CALL = Kind.FALLTHROUGH, Kind.CALL


@dataclass(frozen=True, slots=True)
class Successor:
    """Where control may go after a block, and how."""

    kind: Kind
    address: int | None  # None when known only at run time


@dataclass(frozen=True, slots=True)
class Block:
    start: int
    instructions: tuple[Instruction, ...]
    exit: Exit
    #: Where control goes next, known when the block is made: every analysis and the code
    #: generator ask, many times a block.
    successors: tuple[Successor, ...] = field(init=False, repr=False, compare=False)
    #: Its number of instructions, its last one and that one's address: fields rather than
    #: properties, asked for some ten thousand times in translating 4k words (a property
    #: is a call each).
    length: int = field(init=False, repr=False, compare=False)
    last: Instruction = field(init=False, repr=False, compare=False)
    end: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, value in zip(_DERIVED, _derived(self.instructions, self.exit), strict=True):
            object.__setattr__(self, name, value)


#: Block's fields worked out from its instructions and exit, in `_derived`'s order.
_DERIVED = ("successors", "length", "last", "end")


def _derived(instructions: tuple[Instruction, ...], exit: Exit) -> tuple[object, ...]:
    """A block's successors, length, last instruction and that one's address."""
    last = instructions[-1]
    return _successors(last, exit), len(instructions), last, last.address


def _made(start: int, instructions: tuple[Instruction, ...], exit: Exit) -> Block:
    """Block(start, instructions, exit), for the finder's hot path: filled by plain stores
    (`fillable`: 15k -> 6k machine instructions a block, 898 blocks at 4k synthetic)."""
    block = _new(_Making)
    block.start = start
    block.instructions = instructions
    block.exit = exit
    block.successors, block.length, block.last, block.end = _derived(instructions, exit)
    block.__class__ = Block
    return block


_new = object.__new__
_Making = fillable(Block)


def block_words(block: Block) -> Iterable[int]:
    """The addresses of the block's words (a range, unless it wraps past xFFFF)."""
    end = block.start + len(block.instructions)
    return range(block.start, end) if end <= WORD_MASK + 1 else [ins.address for ins in block.instructions]


def _successors(ins: Instruction, exit: Exit) -> tuple[Successor, ...]:
    """Where a block that ends in ins, by way of exit, goes next: worked out once for each
    (find_blocks asks at every control transfer it follows, then the block it ends asks
    again, and the next translation of the same code asks for the same)."""
    key = (ins.address, ins.word, exit)
    found = _SUCCESSORS.get(key)
    if found is None:
        if len(_SUCCESSORS) >= DECODED_KEPT:  # random words: keep it bounded, as decode does
            _SUCCESSORS.clear()
        found = _SUCCESSORS[key] = _successors_of(ins, exit)
    return found


#: `_successors` by the instruction's address and word, and the block's exit.
_SUCCESSORS: dict[tuple[int, int, Exit], tuple[Successor, ...]] = {}


def _successors_of(ins: Instruction, exit: Exit) -> tuple[Successor, ...]:
    """Where a block that ends in ins, by way of exit, goes next (see _successors)."""
    following = Successor(Kind.FALLTHROUGH, ins.next_pc)
    match exit:
        case Exit.FALLTHROUGH | Exit.LIMIT:
            return (following,)
        case Exit.BRANCH:
            taken = (Successor(Kind.TAKEN, ins.target),) if ins.nzp else ()
            return taken + ((following,) if ins.nzp != 0b111 else ())
        case Exit.CALL:
            return (Successor(Kind.CALL, ins.target), Successor(Kind.RETURN, ins.next_pc))
        case Exit.TRAP:
            return () if ins.trapvect8 == HALT_VECTOR else (following,)
        case Exit.RETURN:
            return (Successor(Kind.RETURN, None),)
        case Exit.JUMP | Exit.RTI:
            return (Successor(Kind.INDIRECT, None),)
    return ()


NEXT = Flow.NEXT
_EXITS = {
    Flow.BRANCH: Exit.BRANCH,
    Flow.CALL: Exit.CALL,
    Flow.JUMP: Exit.JUMP,
    Flow.TRAP: Exit.TRAP,
    Flow.RTI: Exit.RTI,
    Flow.INVALID: Exit.INVALID,
}


def _exit_of(ins: Instruction) -> Exit:
    if ins.form is _JMP and ins.baser == 7:  # RET (isa.RET spells it; this is the hot path)
        return Exit.RETURN
    return _EXITS[ins.form.flow]


_JMP = RET.form


def block_at(
    mem: Sequence[int],
    start: int,
    leaders: Iterable[int] | set[int] = frozenset(),
    decoded: Mapping[int, Instruction] = MappingProxyType({}),
) -> Block:
    """The basic block from start: up to a control transfer, the next leader, or MAX_BLOCK;
    its words decoded already where `decoded` has them."""
    leader_set = leaders if isinstance(leaders, set | frozenset) else set(leaders)
    instructions = []
    append, get = instructions.append, decoded.get
    address = start
    while True:
        ins = get(address) or decode(mem[address], address)
        append(ins)
        # Form.ends_block and Instruction.next_pc inlined (a property call a word each
        # were a tenth of finding blocks), here and in find_blocks.
        if ins.form.flow is not NEXT:
            return _made(start, tuple(instructions), _exit_of(ins))
        address = (address + 1) & WORD_MASK
        if len(instructions) == MAX_BLOCK:
            return _made(start, tuple(instructions), Exit.LIMIT)
        if address in leader_set or address == start:
            return _made(start, tuple(instructions), Exit.FALLTHROUGH)


def find_blocks(
    mem: Sequence[int], entries: Iterable[int], labels: Iterable[int] = (), limit: int | None = None
) -> dict[int, Block]:
    """Every block reachable from the entries, by start address; with `limit`, those of the
    first `limit` or so words reached, nearest to the entries first.

    First the code is found (words reached by following flow, breadth first: find_code),
    then blocks are cut at every leader: an entry, a label on code, a branch or call
    target, the word after a control transfer. A translator working on part of a big
    program asks for the part it will translate: its work is then proportional to that
    part, not to the whole. The blocks at the edge of a limited search run on to their
    natural ends.
    """
    return cut_blocks(mem, *find_code(mem, entries, limit), labels)


def find_code(
    mem: Sequence[int], entries: Iterable[int], limit: int | None = None
) -> tuple[dict[int, Instruction], set[int]]:
    """The words reached from the entries (the first `limit` or so), each decoded, and the
    leaders among them and the words they lead to: the entries, and the targets and next
    words of the control transfers."""
    entry_list = [e & WORD_MASK for e in entries]
    leaders = set(entry_list)
    code: dict[int, Instruction] = {}  # each word reached, decoded once
    work = deque(entry_list)
    while work and (limit is None or len(code) < limit):
        address = work.popleft()
        while address not in code and mem[address] != UNLIKELY_CODE:
            code[address] = ins = decode(mem[address], address)
            if ins.form.flow is NEXT:
                address = (address + 1) & WORD_MASK
                continue
            for successor in _successors(ins, _exit_of(ins)):
                if successor.address is not None:
                    leaders.add(successor.address)
                    work.append(successor.address)
            break
    return code, leaders


def cut_blocks(
    mem: Sequence[int], code: Mapping[int, Instruction], leaders: set[int], labels: Iterable[int] = ()
) -> dict[int, Block]:
    """The code found (find_code) cut into blocks at its leaders and labels, by start."""
    leaders = leaders | (code.keys() & (labels if isinstance(labels, set | frozenset) else set(labels)))
    blocks = {}
    for start in sorted(leaders & code.keys()):
        blocks[start] = block_at(mem, start, leaders, code)
    return blocks
