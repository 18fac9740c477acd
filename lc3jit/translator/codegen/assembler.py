"""The code object from the emitter's instructions: opcodes, jumps, line table, in one pass or two.

`bytecode`'s `to_code` does this for any code a Python compiler could write, checking
every instruction as it goes: 70% of the time translating a region took (1.3 s of 2 s
for a 16k-word program). The code generator writes a few dozen instruction forms, whose
arguments the emitter already put in the running Python's shape, so assembling them is
a table lookup per instruction. What this writes is byte for byte what `bytecode` writes
from the same instructions (tests/test_assembler.py checks every region and block of the
games and of random programs on each Python), so dumps, goldens and the .pyc files are
unchanged; `bytecode` stays the reference, no longer on the translation path (importing
it cost 25-50 ms a process).

No Python version is named here: opcode numbers and inline cache sizes come from the
running Python's `opcode` module, and every argument that differs between versions
(the flag bits of LOAD_GLOBAL and LOAD_ATTR, COMPARE_OP's encoding) is decided by the
emitter.
"""

from __future__ import annotations

import opcode
import os
from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import accumulate, compress, count, islice, repeat
from operator import add, and_, getitem, gt, is_, itemgetter, lshift, mul, or_, rshift, sub
from types import CodeType
from typing import Any, NamedTuple

OPCODES: dict[str, int] = dict(opcode.opmap)
_CACHE_TABLE = opcode._inline_cache_entries  # type: ignore[attr-defined]
#: Inline cache entries after each instruction: by opcode until 3.12 (whose pseudo-opcodes,
#: numbered past the table, have none), by name from 3.13.
CACHES: dict[str, int] = {
    name: _CACHE_TABLE.get(name, 0)
    if hasattr(_CACHE_TABLE, "get")
    else (_CACHE_TABLE[number] if number < len(_CACHE_TABLE) else 0)
    for name, number in OPCODES.items()
}
EXTENDED_ARG, COMPARE_OP = OPCODES["EXTENDED_ARG"], OPCODES["COMPARE_OP"]

#: Zero bytes for that many cache entries.
_ZEROS = [bytes(2 * n) for n in range(1 + max(CACHES.values()))]

CONSTANT_OPS = frozenset({"LOAD_CONST", "RETURN_CONST"})
LOCAL_OPS = frozenset({"LOAD_FAST", "STORE_FAST", "LOAD_FAST_BORROW"})
PAIRED_LOCAL_OPS = frozenset(
    {
        "LOAD_FAST_LOAD_FAST",
        "STORE_FAST_LOAD_FAST",
        "STORE_FAST_STORE_FAST",
        "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
    }
)
NAME_OPS = frozenset({"LOAD_GLOBAL", "LOAD_ATTR", "STORE_ATTR"})
_CONSTANT, _LOCAL, _NAME, _PAIR = "constant", "local", "name", "pair"
#: How an instruction's argument is numbered; the others' are a Label, an int or None (0).
ARG_KINDS = {
    **dict.fromkeys(CONSTANT_OPS, _CONSTANT),
    **dict.fromkeys(LOCAL_OPS, _LOCAL),
    **dict.fromkeys(NAME_OPS, _NAME),
    **dict.fromkeys(PAIRED_LOCAL_OPS, _PAIR),
}

#: Per instruction name: its opcode and how its argument is numbered (see ARG_KINDS).
_NUMBERED: dict[str, tuple[int, str | None]] = {
    name: (number, ARG_KINDS.get(name)) for name, number in OPCODES.items()
}
#: By opcode: inline cache entries, whether a jump's offset counts backward.
_CACHES_BY_NUMBER = [0] * 256
_BACKWARD = [False] * 256
for _name, _number in OPCODES.items():
    if _number < 256:
        _CACHES_BY_NUMBER[_number], _BACKWARD[_number] = CACHES[_name], "BACKWARD" in _name


def split_jump_names(name: str) -> tuple[str, str]:
    """The conditional jump `name` in two (see `assemble`'s `short_after_compare` and
    `split_far`): the opposite test, forward over the second, and the unconditional jump
    the same way (reference.py splits so on `bytecode`'s layout)."""
    skip = name.replace("BACKWARD", "FORWARD").rsplit("_", 1)[0] + (
        "_FALSE" if name.endswith("TRUE") else "_TRUE"
    )
    return skip, "JUMP_BACKWARD" if "BACKWARD" in name else "JUMP_FORWARD"


#: The conditional jumps that split when far.
SPLITTABLE = frozenset(
    name for name in OPCODES if name.startswith("POP_JUMP") and name.endswith(("_IF_TRUE", "_IF_FALSE"))
)
#: By conditional jump's opcode: the opposite short test and the far jump it is split into.
_SPLIT = {OPCODES[name]: tuple(map(OPCODES.__getitem__, split_jump_names(name))) for name in SPLITTABLE}
#: By conditional jump's opcode: the code units its split adds to it once far (the short
#: test, and the far jump's caches for its own).
_SPLIT_GROWTH = {
    number: 1 + _CACHES_BY_NUMBER[skip] + _CACHES_BY_NUMBER[far] - _CACHES_BY_NUMBER[number]
    for number, (skip, far) in _SPLIT.items()
}


#: A code object to copy the fields `assemble` does not set from (those `bytecode` leaves
#: at their defaults: no flags, file "<string>", qualified name "<module>").
_TEMPLATE = compile("", "<string>", "exec", dont_inherit=True)


class Label:
    """Where a jump lands: placed once among the instructions."""

    __slots__ = ()


class Instr(NamedTuple):
    """One instruction: its name and its argument (a constant, a local's or a global's
    name, a Label, or an int already in the running Python's encoding).

    The emitter appends plain tuples (an `Item`): building a NamedTuple is a Python call,
    0.1 us more for each of the ~10 bytecodes of an LC-3 word, a twentieth of
    translating. So readers index an item rather than name its fields."""

    name: str
    arg: object = None


#: An instruction as the emitter writes it: (name, argument), or an Instr; a constant's
#: (LOAD_CONST, RETURN_CONST) with the constant's type third. An item is its own key in
#: `assemble`: the type keeps True (or 1.0) from sharing the bytes of the constant 1.
Item = tuple[Any, ...]


def _size(arg: int) -> int:
    """Code units of an instruction with this argument, its EXTENDED_ARG prefixes counted."""
    return 1 if arg < 0x100 else 2 if arg < 0x10000 else 3 if arg < 0x1000000 else 4


def _varint(value: int, out: bytearray) -> None:
    """The line table's unsigned numbers: 6 bits a byte, lowest first, bit 6 for more."""
    while True:
        if value >= 0x40:
            out.append(0x40 | (value & 0x3F))
            value >>= 6
        else:
            out.append(value)
            return


def _line_entries(delta: int, units: int) -> bytes:
    """Location entries (form 13: a line, no columns) for `units` code units on the line
    `delta` after the one before: the first entry (up to 8 units) carries the delta, the
    others 0. Made from its parts: a fresh process meets a few thousand pairs, some of
    hundreds of units (a region's code out of line), made 8 units at a time a tenth of
    assembling."""
    key = delta << 16 | units
    if (found := _LINE_ENTRIES.get(key)) is not None:
        return found
    if units <= 0:
        return b""
    if (delta_bytes := _LINE_DELTAS.get(delta)) is None:
        varint = bytearray()
        _varint((-delta << 1) | 1 if delta < 0 else delta << 1, varint)
        delta_bytes = bytes(varint)
        if len(_LINE_DELTAS) < _ENCODED_KEPT:
            _LINE_DELTAS[delta] = delta_bytes
    rest = b""  # the entries after the first: as many of 8 units as there are, then the last
    if units > 8:
        full, last = divmod(units - 9, 8)
        rest = _EIGHT_MORE * full + bytes((_LINE_ENTRY | last, 0))
    found = bytes((_LINE_ENTRY | (min(units, 8) - 1),)) + delta_bytes + rest
    if len(_LINE_ENTRIES) < _ENCODED_KEPT and units < 1 << 16:  # the key holds units in 16 bits
        _LINE_ENTRIES[key] = found
    return found


#: A location entry's first byte but its code units: form 13 (a line, no columns).
_LINE_ENTRY = 0x80 | (13 << 3)
#: The line table's entries by (line delta, code units): a few hundred pairs come again
#: and again (an LC-3 instruction is a few code units, a line or two after the last).
_LINE_ENTRIES: dict[int, bytes] = {}
#: A line delta's bytes (a signed varint).
_LINE_DELTAS: dict[int, bytes] = {}
#: An entry of 8 code units on the same line.
_EIGHT_MORE = bytes((_LINE_ENTRY | 7, 0))


def assemble(
    items: Sequence[Item | Label | int],
    argnames: Sequence[str],
    name: str,
    first_line: int,
    stacksize: int,
    paired: Sequence[str] = (),
    short_after_compare: bool = False,
    split_far: bool = False,
) -> CodeType:
    """The code object of `items`, parameters `argnames`.

    Numbering as `bytecode` numbers: constants, globals and locals by first use, the
    parameters first, then `paired` (3.13+: the locals of paired instructions, in the
    order they pair, since only the first 16 may pair; the emitter numbered them when it
    paired them, so no pass over the code looks for them again), then the others. Jumps
    start short and grow an EXTENDED_ARG where their offset needs one, until nothing moves.

    With `short_after_compare` (3.11, whose COMPARE_OP is specialised only when the very
    next instruction is its conditional jump, never an EXTENDED_ARG), a conditional jump
    after a COMPARE_OP that needs an EXTENDED_ARG becomes the opposite test jumping over
    an unconditional jump there instead: `bytecode` would write the EXTENDED_ARG, so this
    (and `split_far`) is where the code differs from what it writes.

    With `split_far` (the Pythons where a conditional jump behind an EXTENDED_ARG costs
    more than two jumps, see the emitter's SPLITS_FAR_JUMPS), every conditional jump that
    needs one is split so, whatever comes before it. Where the jump is followed by its
    NOT_TAKEN (3.14+), the NOT_TAKEN moves to follow the short test, the conditional jump
    now, as CPython's compiler lays out its own split (a backward conditional jump): a
    NOT_TAKEN always comes right after a conditional jump, never where a jump lands, so
    sys.monitoring sees each way out of the test once.
    """
    consts: dict[tuple[type, object], int] = {}
    names: dict[str, int] = {}
    local: dict[str, int] = {n: i for i, n in enumerate((*argnames, *paired))}
    # per instruction: its bytes (a jump's once its offset is known); per run of one line:
    # the line, the index of its first instruction and the jumps before it
    units: list[bytes] = []
    run_lines, run_starts, run_jumps = [first_line], [0], [0]
    at: dict[Label, int] = {}
    jumps_before: dict[Label, int] = {}  # per label: the jumps before it
    jumps: list[tuple[int, int, Label, bool]] = []  # index, opcode, target, split if far
    append, encoded, get = units.append, _encoded, _ENCODED.get
    #: This code object's bytes of each instruction met so far: once its argument is
    #: numbered, the same instruction assembles the same way.
    written: dict[Item, bytes] = {}
    written_get = written.get
    for item in items:
        if (found := written_get(item)) is not None:  # most instructions: nothing more
            append(found)
            continue
        if type(item) is Label:
            at[item], jumps_before[item] = len(units), len(jumps)
            continue
        if type(item) is int:  # the line from here on
            if run_lines and run_starts[-1] == len(units):  # the line before has no instruction
                del run_lines[-1], run_starts[-1], run_jumps[-1]
            if not run_lines or item != run_lines[-1]:
                run_lines.append(item)
                run_starts.append(len(units))
                run_jumps.append(len(jumps))
            continue
        op, arg = item[0], item[1]
        number, kind = _NUMBERED[op]
        if kind is None:
            if type(arg) is Label:
                split = number in _SPLIT and (
                    split_far or (short_after_compare and units and units[-1][0] == COMPARE_OP)
                )
                jumps.append((len(units), number, arg, split))
                append(_SHORT_JUMP[number])  # its size while short, its bytes once resolved
                continue
            if arg is None:
                arg = 0
        elif kind is _LOCAL:
            arg = local.setdefault(arg, len(local))
        elif kind is _CONSTANT:
            arg = consts.setdefault((type(arg), arg), len(consts))
        elif kind is _NAME:
            if type(arg) is tuple:
                arg = (names.setdefault(arg[1], len(names)) << 1) | arg[0]
            else:
                arg = names.setdefault(arg, len(names))
        else:
            first, second = arg
            arg = (local.setdefault(first, len(local)) << 4) | local.setdefault(second, len(local))
        append(written.setdefault(item, get(arg << 8 | number) or encoded(number, arg)))
    starts = [0, *accumulate(map(len, units))]  # in bytes, every jump short
    run_starts.append(len(units))
    begins = list(map(starts.__getitem__, run_starts))  # in bytes
    if jumps:
        grew = _resolve_jumps(units, starts, jumps, at, jumps_before)
        # each run's start moves by what the jumps before it grew (in code units)
        run_jumps.append(len(jumps))
        begins = list(map(add, begins, map(lshift, itemgetter(*run_jumps)(grew), repeat(1))))
    # Each run's entries, by its line's delta and its code units (looked up in C, made in
    # Python only the first time a pair comes).
    units_on_line = list(map(rshift, map(sub, islice(begins, 1, None), begins), repeat(1)))
    deltas = list(map(sub, run_lines, [first_line, *run_lines]))
    entries = list(map(_LINE_ENTRIES.get, map(or_, map(lshift, deltas, repeat(16)), units_on_line)))
    for k in compress(count(), map(is_, entries, repeat(None))):
        entries[k] = _line_entries(deltas[k], units_on_line[k])
    return _TEMPLATE.replace(
        co_argcount=len(argnames),
        co_nlocals=len(local),
        co_stacksize=stacksize,
        co_code=b"".join(units),
        co_consts=tuple(map(_SECOND, consts)),  # each key is (type, value)
        co_names=tuple(names),
        co_varnames=tuple(local),
        co_name=name,
        co_firstlineno=first_line,
        co_linetable=b"".join(entries),
    )


#: The bytes of each instruction written so far, by its argument and opcode (`arg << 8 |
#: opcode`): a region uses a few hundred different ones, each many times over.
_ENCODED: dict[int, bytes] = {}
#: The most kept: a bound however varied the code.
_ENCODED_KEPT = 1 << 16


def _encoded(number: int, arg: int) -> bytes:
    """An instruction's bytes: its EXTENDED_ARG prefixes, itself, zeros for its caches."""
    key = arg << 8 | number
    if (found := _ENCODED.get(key)) is not None:
        return found
    if arg < 0x100:  # most: no prefix (each new one is a miss in a fresh process)
        found = bytes((number, arg)) + _ZEROS[_CACHES_BY_NUMBER[number]]
    else:
        out = bytearray()
        for shift in (24, 16, 8)[4 - _size(arg) :]:
            out += bytes((EXTENDED_ARG, (arg >> shift) & 0xFF))
        out += bytes((number, arg & 0xFF)) + _ZEROS[_CACHES_BY_NUMBER[number]]
        found = bytes(out)
    if len(_ENCODED) < _ENCODED_KEPT:
        _ENCODED[key] = found
    return found


#: The largest offset in code units of a jump with that many EXTENDED_ARGs: bisect_left of
#: an offset is the EXTENDED_ARGs its jump needs.
_EXTENDED = (0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF)


def _extended_args(offsets: list[int]) -> list[int]:
    """The EXTENDED_ARGs a jump with each offset (in code units) needs: one or none below
    0x10000 (one compare a jump, cheaper than bisecting)."""
    if max(offsets, default=0) <= 0xFFFF:
        return list(map(gt, offsets, repeat(0xFF)))
    return list(map(bisect_left, repeat(_EXTENDED), offsets))


def _resolve_jumps(
    units: list[bytes],
    starts: list[int],
    jumps: list[tuple[int, int, Label, bool]],
    at: dict[Label, int],
    jumps_before: dict[Label, int],
) -> list[int]:
    """Write each jump's bytes: its offset in code units from the end of the jump and its
    caches (forward) or back from there (backward), with the EXTENDED_ARGs it needs; a
    jump marked to split, once it needs one, as the opposite short test over the far jump
    (and, where a NOT_TAKEN followed it, that NOT_TAKEN moved to after the short test).
    Returns the code units the jumps before each (and the jump itself) grew by.

    Every jump starts short; each round finds the offsets, and from them the EXTENDED_ARGs
    of every jump, at once, until none changes (offsets only grow, so sizes do too). Only
    jumps change size, so a round needs no walk over every instruction: an offset is the
    one with every jump short plus what the jumps in between grew by. A round is a few
    passes of C over the jumps (map, accumulate, and itemgetter of many indexes, which
    reads a list's items for less than a map does): with a loop in Python per jump that
    grew, this was a third of assembling (4k words: some 5,000 jumps, two thirds far)."""
    where = list(map(_FIRST, jumps))
    numbers = list(map(_SECOND, jumps))
    targets = list(map(_THIRD, jumps))
    target_at = itemgetter(*targets, targets[0])(at)  # (one more: a tuple even for one jump)
    # Offsets count from the end of the jump to the target (forward), or the reverse: with
    # every jump short, then plus what the jumps between grew by (`grew` at one end minus
    # `grew` at the other).
    sign = list(map(_SIGN.__getitem__, numbers))
    after = itemgetter(*where, 0)(starts[1:])  # where each jump ends (a slice: no add a jump)
    short = map(rshift, map(sub, itemgetter(*target_at)(starts), after), repeat(1))
    base = list(map(mul, short, sign))
    before_target = itemgetter(*targets, targets[0])(jumps_before)
    ends = [
        (target, following) if forward > 0 else (following, target)
        for forward, target, following in zip(sign, before_target, count(1))
    ]
    at_high, at_low = itemgetter(*map(_FIRST, ends), 0), itemgetter(*map(_SECOND, ends), 0)
    splits = list(compress(count(), map(_FOURTH, jumps)))
    # per jump split: 1 if its NOT_TAKEN follows it, to move before the far jump (found
    # once it is split: on 3.13+ every conditional jump may split, a few are far)
    moved: dict[int, int] = {}
    growth = [0] * len(jumps)  # code units over the jump's short size
    grew = [0] * (len(jumps) + 1)
    offsets = base
    while True:
        extended = _extended_args(offsets)  # EXTENDED_ARGs of each jump, were it not split
        now = list(extended)
        for j in compress(splits, map(extended.__getitem__, splits)):  # split: far
            if (m := moved.get(j)) is None:
                m = moved[j] = _follows_not_taken(units, where[j])
            # its far jump's offset counts from after the NOT_TAKEN moved
            now[j] = _SPLIT_GROWTH[numbers[j]] + _size(offsets[j] - m) - 1
        if now == growth:  # offsets only grow, so growths do too: this ends
            break
        growth = now
        grew = [0, *accumulate(growth)]
        offsets = list(map(sub, map(add, base, at_high(grew)), at_low(grew)))
    if max(offsets) <= 0xFFFF:  # each jump with its offset's low byte, after EXTENDED_ARG and the high one
        for number in set(numbers) - _BY_LOW_BYTE.keys():
            _BY_LOW_BYTE[number] = _jumps_by_low_byte(number)
        rows = map(_BY_LOW_BYTE.__getitem__, numbers)
        prefixes = map(_EXTENDED_PREFIX.__getitem__, map(rshift, offsets, repeat(8)))
        written = list(map(add, prefixes, map(getitem, rows, map(and_, offsets, repeat(0xFF)))))
    else:
        written = list(map(_encoded, numbers, offsets))
    for j in compress(splits, map(extended.__getitem__, splits)):
        skip, far = _SPLIT[numbers[j]]
        not_taken = _NOT_TAKEN * moved[j]
        over = not_taken + _encoded(far, offsets[j] - moved[j])  # what the short test jumps over
        written[j] = _encoded(skip, len(over) >> 1) + over
        if not_taken:
            units[where[j] + 1] = b""
    for i, encoded in zip(where, written, strict=True):
        units[i] = encoded
    return grew


def _follows_not_taken(units: list[bytes], at: int) -> int:
    """1 if the instruction after the jump at `at` is a NOT_TAKEN (3.14+), else 0."""
    return int(_NOT_TAKEN != b"" and at + 1 < len(units) and units[at + 1] == _NOT_TAKEN)


_FIRST, _SECOND, _THIRD, _FOURTH = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3)
#: NOT_TAKEN's bytes (3.14+; none before).
_NOT_TAKEN = _encoded(OPCODES["NOT_TAKEN"], 0) if "NOT_TAKEN" in OPCODES else b""
#: By opcode: the direction a jump's offset counts (1 forward, -1 backward).
_SIGN = [-1 if backward else 1 for backward in _BACKWARD]
#: A short jump's bytes, by its number of inline cache entries.
_SHORT_BYTES = [2 * (1 + n) for n in range(len(_ZEROS))]
#: By opcode: as many bytes as a short jump takes, a jump's place until it is resolved.
_SHORT_JUMP = [bytes(_SHORT_BYTES[n]) for n in _CACHES_BY_NUMBER]
#: An EXTENDED_ARG with each high byte, none for 0.
_EXTENDED_PREFIX = [b"", *(bytes((EXTENDED_ARG, high)) for high in range(1, 0x100))]
#: By jump opcode: its bytes with each argument below 256 (made the first time it jumps).
_BY_LOW_BYTE: dict[int, list[bytes]] = {}


def _jumps_by_low_byte(number: int) -> list[bytes]:
    """The jump `number`'s bytes with each argument below 256, so that the jumps of a
    code object are looked up in C rather than each made in Python: a big program's
    offsets differ (16k words: 15,000 of 20,000 jumps were a call to `_encoded`)."""
    zeros = _ZEROS[_CACHES_BY_NUMBER[number]]
    return [bytes((number, low)) + zeros for low in range(0x100)]


#: The assemblers a user may choose, the default first: this module's `assemble`, or the
#: `bytecode` library's (reference.py: 6-7 times the CPU, the reference it is checked against).
ASSEMBLERS = ("fast", "bytecode")
#: The environment variable naming the assembler of a process.
VARIABLE = "LC3JIT_ASSEMBLER"
#: The assembler chosen for this process (`use_assembler`); None: the environment's.
_chosen: list[str | None] = [None]


def check_assembler(name: str) -> str:
    if name not in ASSEMBLERS:
        raise ValueError(f"no assembler {name!r}; choose from {', '.join(ASSEMBLERS)}")
    return name


def chosen_assembler() -> str:
    """The assembler code objects are written with: the one chosen, else LC3JIT_ASSEMBLER's,
    else the fast one."""
    return _chosen[0] or check_assembler(os.environ.get(VARIABLE) or ASSEMBLERS[0])


def use_assembler(name: str | None) -> str | None:
    """Write code objects with `name` from now on (None: as the environment says); returns
    the choice it replaces, for the caller to put back."""
    previous = _chosen[0]
    _chosen[0] = None if name is None else check_assembler(name)
    return previous


def chosen_assemble() -> Callable[..., CodeType]:
    """The chosen assembler's function, with `assemble`'s parameters: `bytecode`'s is
    imported (and `bytecode` with it) only once chosen."""
    if chosen_assembler() == "bytecode":
        from lc3jit.translator.codegen import reference

        return reference.assemble_with_bytecode
    return assemble
