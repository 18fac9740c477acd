"""The one place that knows how CPython 3.11 to 3.15 differ in bytecode.

The code generator speaks in small operations (load a local, call a helper, jump if
false); this module turns each into the instructions of the running Python:
- calls: 3.11 pushes NULL, the callable, the arguments, then PRECALL and CALL; 3.12
  drops PRECALL; 3.13+ push the callable before the NULL (LOAD_GLOBAL's flag does
  both orders for us);
- conditional jumps: 3.11 has POP_JUMP_FORWARD_IF_* / POP_JUMP_BACKWARD_IF_*, 3.12+
  has only forward POP_JUMP_IF_*; 3.11 specialises a COMPARE_OP only where its jump
  comes right after it, so a far one is split there (COMPARE_NEEDS_SHORT_JUMP); 3.13+
  run a conditional jump behind an EXTENDED_ARG slower than a short one over a far
  JUMP_FORWARD, so every far one is split (SPLITS_FAR_JUMPS; on 3.12 it does not pay); 3.13+
  also need an exact bool (TO_BOOL) where the value is not already one, or an int
  silently takes the wrong branch; 3.14+ follow each conditional jump with NOT_TAKEN,
  as CPython's compiler does, so that sys.monitoring (coverage, debuggers) sees both
  ways out of a branch;
- subscripts: BINARY_SUBSCR until 3.13, BINARY_OP with the subscript operator from 3.14;
- constants: RETURN_CONST only in 3.12 and 3.13; 3.14+ load small ints with
  LOAD_SMALL_INT (no lookup in co_consts);
- locals: 3.13+ have superinstructions for two loads or stores in a row
  (LOAD_FAST_LOAD_FAST, STORE_FAST_LOAD_FAST, STORE_FAST_STORE_FAST), one dispatch
  instead of two; 3.14+ push borrowed references (LOAD_FAST_BORROW, no reference count
  paid) where the value is used up before its local can change, unless pairing it
  saves a dispatch (`FUSED`). `to_code` rewrites the code into these forms, as CPython's
  own compiler does, after the code generator has written it in the plain ones.
Bad bytecode crashes the interpreter instead of raising, so every form here is tested
on every version (tests/test_emitter.py), and a Python not in SPOKEN gets no
translated code at all: `speaks_this_python` (in the package's __init__) is what the engines ask first.
"""

from __future__ import annotations

import enum
import opcode
from collections.abc import Sequence
from itertools import compress, pairwise, repeat
from operator import is_not
from types import CodeType
from typing import Any, NamedTuple

from lc3jit.translator import PY, SPOKEN, speaks_this_python, unknown_python
from lc3jit.translator.codegen.assembler import Instr, Item, Label, chosen_assemble

HAS_PRECALL = PY == (3, 11)
HAS_RETURN_CONST = (3, 12) <= PY <= (3, 13)
NEEDS_TO_BOOL = PY >= (3, 13)
DIRECTIONAL_JUMPS = PY == (3, 11)
SUBSCRIPT_IS_BINARY_OP = PY >= (3, 14)
HAS_NOT_TAKEN = PY >= (3, 14)
HAS_LOAD_SMALL_INT = PY >= (3, 14)
HAS_SUPERINSTRUCTIONS = PY >= (3, 13)
HAS_BORROWED_LOADS = PY >= (3, 14)
#: 3.11 specialises COMPARE_OP (to a compare-and-jump) only where its conditional jump
#: comes right after it: a far one goes over a short test (the assembler's
#: `short_after_compare`) rather than behind an EXTENDED_ARG.
COMPARE_NEEDS_SHORT_JUMP = PY == (3, 11)
#: 3.13+ run a conditional jump that needs an EXTENDED_ARG for more machine instructions
#: than the opposite short test over an unconditional far jump (the assembler's
#: `split_far`): every far conditional jump is split so. On 3.12 it saves next to nothing,
#: less than it costs the translation (measured: docs/python-versions.md).
SPLITS_FAR_JUMPS = PY >= (3, 13)
#: A count and budget check written as one subscript of a table and a test for None
#: (regions.codegen.budget's `step`) rather than a subtraction and a compare: measured
#: cheaper on every Python spoken, 3.11 to 3.15 (examples/bench/budget_step.py,
#: docs/benchmarks.md). A Python where it is not would set this False.
TABLED_BUDGET_STEPS = True

#: The deepest the value stack of generated code gets, with room to spare: a helper
#: call with three arguments (five slots with NULL and the callable) is the deepest.
STACK_BOUND = 10

BinaryOp = enum.IntEnum(  # type: ignore[misc]
    "BinaryOp",
    {name[3:]: number for number, (name, _) in enumerate(opcode._nb_ops)},  # type: ignore[attr-defined]
)
BinaryOp.__doc__ = "BINARY_OP's argument: NB_ADD is BinaryOp.ADD (SUBSCR from 3.14)."


class Compare(enum.IntEnum):
    """COMPARE_OP's operators, numbered as `opcode.cmp_op`; `Emitter.compare` encodes them."""

    LT = 0
    LE = 1
    EQ = 2
    NE = 3
    GT = 4
    GE = 5


#: COMPARE_OP's low bits from 3.12 (the specialiser's mask of the outcomes that are true).
_COMPARE_MASKS = {
    Compare.LT: 2,
    Compare.LE: 2 + 8,
    Compare.EQ: 8,
    Compare.NE: 1 + 2 + 4,
    Compare.GT: 4,
    Compare.GE: 4 + 8,
}


#: The conditional jump forward, and (3.11) backward, taken on each truth.
_FORWARD = "FORWARD_" if DIRECTIONAL_JUMPS else ""
_FORWARD_IF = {when: f"POP_JUMP_{_FORWARD}IF_{str(when).upper()}" for when in (True, False)}
_BACKWARD_IF = {when: f"POP_JUMP_BACKWARD_IF_{str(when).upper()}" for when in (True, False)}
_FORWARD_IF_NONE = f"POP_JUMP_{_FORWARD}IF_NONE"


def _compare_arg(op: Compare) -> int:
    """COMPARE_OP's argument: the operator (3.11), above 4 bits of mask (3.12), or 5 (3.13+)."""
    if PY == (3, 11):
        return int(op)
    return _COMPARE_MASKS[op] + (op << (4 if PY == (3, 12) else 5))


COMPARE_ARGS = {op: _compare_arg(op) for op in Compare}


__all__ = [
    "ENDS",
    "SPOKEN",
    "BinaryOp",
    "Compare",
    "Emitter",
    "Instr",
    "Label",
    "recorded",
    "speaks_this_python",
    "unknown_python",
]


class Emitter:
    """Builds one code object; every instruction carries the current LC-3 address as its line."""

    def __init__(self, name: str, first_line: int) -> None:
        #: Instructions, labels, and each line (an int) where the line changes (`line`).
        self.code: list[Item | Label | int] = []
        #: Code no jump reaches (after a jump or a return, before any label): left out.
        self._dropped: list[Item] = []
        self._keep, self._drop = self.code.append, self._dropped.append
        #: Where an instruction goes: `_keep` while the code is reachable, else `_drop`.
        #: The emitter's one hot call: the instructions append through it, not `emit`.
        self._append = self._keep
        self.name = name
        self.first_line = first_line
        self._line = first_line
        self._placed: set[int] = set()  # ids of the labels already in the code
        #: Tidy as the code comes (see `place`): is the code reachable here (no jump or
        #: return since the last label)? Where not, instructions are dropped.
        self._open = True
        #: The index of the last jump, unless code no jump reaches was dropped after it.
        self._jump_at: int | None = None
        self.emit("RESUME", 0)

    @property
    def line(self) -> int:
        """The LC-3 address the instructions emitted from here on are on."""
        return self._line

    @line.setter
    def line(self, line: int) -> None:
        """Where it changes, the new line goes in the code (kept even where the code is
        dropped): the instructions themselves carry none, so that each is its own key in
        the assembler, which looks it up and appends its bytes, nothing more (it unpacked
        each instruction, compared its line and made a key of it: a fifth of translating)."""
        if line != self._line:
            self._line = line
            self._keep(line)

    def emit(self, name: str, arg: object = None) -> None:
        """Append an instruction (its argument None where it takes none; LOAD_CONST None too)."""
        self._append((name, arg))

    def extend(self, items: Sequence[Item]) -> None:
        """Append straight-line instructions made once by `recorded`: one call, not one an
        instruction, for the sequences the code generator writes again and again."""
        (self.code if self._open else self._dropped).extend(items)

    def _end(self, item: Item) -> None:
        """Append a jump or a return (ENDS), after which no way goes on until a label."""
        if self._open:
            self._keep(item)
            self._open, self._append = False, self._drop
            self._jump_at = len(self.code) - 1 if item[0] in JUMPS else None
        else:
            self._drop(item)

    def place(self, label: Label) -> None:
        """Place label here; a jump to it just before (only labels in between) is dropped.

        The code generator ends every block with a jump to its successor, often the next
        block; a JUMP_FORWARD 0 still costs a dispatch each time it runs. Dropping it, and
        the code after a jump or a return that no label makes reachable, here as the code
        comes is what one pass over the finished code did, for less (6% of translating).
        """
        if self._dropped:  # a jump before code dropped no longer lands on the next instruction
            self._jump_at = None
            self._dropped.clear()
        code, at = self.code, self._jump_at
        if at is not None and code[at][1] is label:  # type: ignore[index]
            last = len(code) - 1
            while last > at and type(code[last]) is not tuple:
                last -= 1
            if last == at:  # only labels and lines after the jump: it lands on the next instruction
                del code[at]
                self._jump_at = None
        self._placed.add(id(label))
        self._keep(label)
        self._open, self._append = True, self._keep

    @property
    def last(self) -> Instr | Label:
        """The last instruction or label emitted, kept or dropped."""
        if self._dropped:
            item = self._dropped[-1]
        else:
            code, last = self.code, len(self.code) - 1
            while type(code[last]) is int:
                last -= 1
            item = code[last]
        return item if type(item) is Label else Instr(item[0], item[1])  # type: ignore[index]

    # Values.
    def const(self, value: object) -> None:
        """A constant's instruction carries its type (see assembler.Item)."""
        kind = type(value)
        if HAS_LOAD_SMALL_INT and kind is int and 0 <= value < 256:  # type: ignore[operator]
            self._append(("LOAD_SMALL_INT", value))
        else:
            self._append(("LOAD_CONST", value, kind))

    def load(self, local: str) -> None:
        self._append(("LOAD_FAST", local))

    def store(self, local: str) -> None:
        self._append(("STORE_FAST", local))

    def dup(self) -> None:
        self._append(("COPY", 1))

    def swap(self) -> None:
        self._append(("SWAP", 2))

    def pop(self) -> None:
        self._append(("POP_TOP", None))

    def global_(self, name: str) -> None:
        self._append(("LOAD_GLOBAL", (False, name)))

    def binary(self, op: BinaryOp) -> None:
        self._append(("BINARY_OP", op))

    def compare(self, op: Compare) -> None:
        """Leaves an exact bool on every version."""
        self._append(("COMPARE_OP", COMPARE_ARGS[op]))

    def subscript(self) -> None:
        """container, index -> container[index]"""
        if SUBSCRIPT_IS_BINARY_OP:
            self.binary(BinaryOp.SUBSCR)
        else:
            self.emit("BINARY_SUBSCR")

    def store_subscript(self) -> None:
        """value, container, index -> (container[index] = value)"""
        self.emit("STORE_SUBSCR")

    def store_attr(self, name: str) -> None:
        """value, owner -> (owner.name = value)"""
        self.emit("STORE_ATTR", name)

    def load_attr(self, name: str) -> None:
        self.emit("LOAD_ATTR", name if PY == (3, 11) else (False, name))

    # Calls: begin_call, then the arguments, then end_call.
    def begin_call(self, name: str) -> None:
        """Push the callable (and NULL) of a call to global `name`; then push its arguments."""
        self.emit("LOAD_GLOBAL", (True, name))

    def end_call(self, argc: int) -> None:
        if HAS_PRECALL:
            self.emit("PRECALL", argc)
        self.emit("CALL", argc)

    # Control flow.
    def jump_if(self, label: Label, when: bool, is_bool: bool = True) -> None:
        """Pop the top of the stack and jump to label when its truth is `when`.

        A label already placed is a loop: 3.11 jumps back in one instruction; 3.12+ jump
        forward over a JUMP_BACKWARD on the opposite truth.
        """
        if NEEDS_TO_BOOL and not is_bool:
            self._append(("TO_BOOL", None))
        if id(label) not in self._placed:
            self._append((_FORWARD_IF[when], label))
            if HAS_NOT_TAKEN:
                self._not_taken()
        elif DIRECTIONAL_JUMPS:
            self._append((_BACKWARD_IF[when], label))
        else:
            stay = Label()
            self._append((_FORWARD_IF[not when], stay))
            self._not_taken()
            self._end(("JUMP_BACKWARD", label))
            self.place(stay)

    def _not_taken(self) -> None:
        """Mark the way on after a conditional jump (3.14+), where the compiler marks it."""
        if HAS_NOT_TAKEN:
            self.emit("NOT_TAKEN")

    def jump_if_none(self, label: Label) -> None:
        """Pop the top of the stack and jump forward to label (not placed yet) when it is None."""
        assert id(label) not in self._placed, "a jump if None goes forward only"
        self._append((_FORWARD_IF_NONE, label))
        self._not_taken()

    def jump_if_false(self, label: Label, is_bool: bool = True) -> None:
        self.jump_if(label, False, is_bool)

    def jump_if_true(self, label: Label, is_bool: bool = True) -> None:
        self.jump_if(label, True, is_bool)

    def jump_forward(self, label: Label) -> None:
        self._end(("JUMP_FORWARD", label))

    def jump(self, label: Label) -> None:
        """Jump to label, backward if it is already placed (a loop), forward if not."""
        self._end(("JUMP_BACKWARD" if id(label) in self._placed else "JUMP_FORWARD", label))

    def return_top(self) -> None:
        self._end(("RETURN_VALUE", None))

    def return_const(self, value: object) -> None:
        if HAS_RETURN_CONST:
            self._end(("RETURN_CONST", value, type(value)))
        else:
            self.const(value)
            self.return_top()

    def to_code(self, argnames: tuple[str, ...]) -> CodeType:
        """The code object: `argnames` are its parameters, every other local is assigned first.

        The stack size is not computed but bounded: generated code never holds more than
        STACK_BOUND values, which tests/test_codegen.py and `lc3jit check` hold against
        `bytecode`'s own computation. The assembler is the one chosen (assembler.py's
        `chosen_assemble`): lc3jit's own, or `bytecode`.
        """
        code = self.code
        paired: tuple[str, ...] = ()  # 3.13+: the locals `_fuse_pairs` numbered
        if HAS_SUPERINSTRUCTIONS:  # and from 3.14 borrowed loads, found in the same pass
            found = borrowable_loads(code) if HAS_BORROWED_LOADS else local_ops(code)
            for i in found.borrowed:
                code[i] = ("LOAD_FAST_BORROW", code[i][1])  # type: ignore[index]
            paired = _fuse_pairs(code, argnames, found)
        return chosen_assemble()(
            code,
            argnames,
            self.name,
            self.first_line,
            STACK_BOUND,
            paired,
            COMPARE_NEEDS_SHORT_JUMP,
            SPLITS_FAR_JUMPS,
        )


JUMPS = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD"})
ENDS = JUMPS | {"RETURN_VALUE", "RETURN_CONST"}


def recorded(*calls: tuple[Any, ...]) -> tuple[Item, ...]:
    """The instructions the emitter's methods write, for `Emitter.extend`: each call the
    method's name and its arguments, in turn; straight-line code only (no label, line,
    jump or return), in the running Python's forms."""
    scratch = Emitter("recorded", 0)
    for name, *args in calls:
        getattr(scratch, name)(*args)
    items = tuple(scratch.code[1:])  # after RESUME
    if any(type(item) is not tuple or type(item[1]) is Label or item[0] in ENDS for item in items):
        raise ValueError("recorded code must run straight on")
    return items


#: Instructions that use a value only while they run (never keep it in a local): a
#: value loaded for one of them may be a borrowed reference (3.14+). Checked against
#: what CPython's compiler borrows for: operators, subscripts, calls, attribute stores,
#: tests and returns borrow; `y = x` does not.
USES_THEN_DROPS = frozenset(
    {
        "BINARY_OP",
        "COMPARE_OP",
        "STORE_SUBSCR",
        "STORE_ATTR",
        "LOAD_ATTR",
        "CALL",
        "TO_BOOL",
        "POP_JUMP_IF_TRUE",
        "POP_JUMP_IF_FALSE",
        "POP_JUMP_IF_NONE",
        "POP_TOP",
        "RETURN_VALUE",
    }
)


#: Values popped and pushed by the instructions this module writes, on 3.14+ (COPY
#: counted as a push; after a COPY or a SWAP nothing on the stack is borrowable).
STACK_EFFECTS = {
    "BINARY_OP": (2, 1),
    "COMPARE_OP": (2, 1),
    "STORE_SUBSCR": (3, 0),
    "STORE_ATTR": (2, 0),
    "TO_BOOL": (1, 1),
    "POP_JUMP_IF_TRUE": (1, 0),
    "POP_JUMP_IF_FALSE": (1, 0),
    "POP_JUMP_IF_NONE": (1, 0),
    "POP_TOP": (1, 0),
    "RETURN_VALUE": (1, 0),
    "LOAD_CONST": (0, 1),
    "LOAD_SMALL_INT": (0, 1),
    "COPY": (0, 1),
    "SWAP": (0, 0),
    "NOT_TAKEN": (0, 0),
    "RESUME": (0, 0),
    "JUMP_FORWARD": (0, 0),
    "JUMP_BACKWARD": (0, 0),
}


#: What borrowable_loads does at each instruction of STACK_EFFECTS: values popped and
#: pushed, whether it uses them up, whether it scrambles the stack (COPY, SWAP), whether
#: straight-line code ends there (a jump, whose argument is a label, or a return).
_BORROW_STEPS = {
    name: (pops, pushes, name in USES_THEN_DROPS, name in ("COPY", "SWAP"), "JUMP" in name or name in ENDS)
    for name, (pops, pushes) in STACK_EFFECTS.items()
}


def _stack_effect(item: Item) -> tuple[int, int] | None:
    """(values popped, values pushed) by item, or None for an instruction not written here."""
    name, arg = item[0], item[1]
    if name == "CALL":
        return arg + 2, 1
    if name in ("LOAD_GLOBAL", "LOAD_ATTR") and isinstance(arg, tuple):
        with_null = arg[0]
        return (0, 1 + with_null) if name == "LOAD_GLOBAL" else (1, 1 + with_null)
    return STACK_EFFECTS.get(name)


#: The instructions borrowable_loads meets most (by name), each with a branch of its own
#: rather than STACK_EFFECTS' general step: on 3.15 each bytecode run there costs.
_LOAD, _STORE, _PUSH, _NOTHING, _PAIR_TO_ONE = range(5)
_BORROW_ACTIONS = {
    "LOAD_FAST": _LOAD,
    "STORE_FAST": _STORE,
    "LOAD_CONST": _PUSH,
    "LOAD_SMALL_INT": _PUSH,
    "NOT_TAKEN": _NOTHING,
    "RESUME": _NOTHING,
    "BINARY_OP": _PAIR_TO_ONE,
    "COMPARE_OP": _PAIR_TO_ONE,
}


class LocalOps(NamedTuple):
    """What one pass over the code finds for `to_code`'s rewrites (3.13+)."""

    #: The indexes of the LOAD_FASTs that may push a borrowed reference (3.14+).
    borrowed: list[int]
    #: The indexes of every LOAD_FAST and STORE_FAST, in order: all `_fuse_pairs` looks at.
    at: list[int]
    #: The line each of those is on (None: the code object's first).
    lines: list[int | None]


def local_ops(items: Sequence[Item | Label | int]) -> LocalOps:
    """The loads and stores of locals, none borrowed (3.13)."""
    at: list[int] = []
    lines: list[int | None] = []
    line = None
    for i, item in enumerate(items):
        if type(item) is int:
            line = item
        elif type(item) is tuple and item[0] in _LOCAL_OPS:
            at.append(i)
            lines.append(line)
    return LocalOps([], at, lines)


def borrowable_loads(items: Sequence[Item | Label | int]) -> LocalOps:
    """The LOAD_FASTs that may push a borrowed reference (3.14+), and every load and store
    of a local.

    A borrowed reference is valid while its local still holds the object. So a load is
    borrowed only when, in straight-line code (no label or jump in between), its value is
    used up by an instruction of USES_THEN_DROPS, its local is not stored meanwhile, and
    no COPY or SWAP touched it. Anything else, a value still on the stack at a label or a
    jump included, stays an owned reference.
    """
    on_stack: list[int | None] = []  # per value: the index of the LOAD_FAST that pushed it
    borrowed: list[int] = []
    at: list[int] = []
    lines: list[int | None] = []
    push, pop, borrow = on_stack.append, on_stack.pop, borrowed.append
    local_at, line_at, action_of = at.append, lines.append, _BORROW_ACTIONS.get
    line = None
    for i, item in enumerate(items):
        kind = type(item)
        if kind is int:  # a line: straight-line code goes on
            line = item
            continue
        if kind is Label:
            on_stack.clear()
            continue
        name = item[0]  # type: ignore[index]
        action = action_of(name)
        if action is _LOAD:
            push(i)
            local_at(i)
            line_at(line)
            continue
        if action is _PUSH:
            push(None)
            continue
        if action is _PAIR_TO_ONE and len(on_stack) >= 2:
            second, first = pop(), pop()
            if first is not None:
                borrow(first)
            if second is not None:
                borrow(second)
            push(None)
            continue
        if action is _NOTHING:
            continue
        if action is _STORE:
            local_at(i)
            line_at(line)
            if on_stack:
                pop()
                if on_stack:
                    arg = item[1]  # type: ignore[index]
                    on_stack[:] = [None if p is not None and items[p][1] == arg else p for p in on_stack]  # type: ignore[index]
            continue
        step = _BORROW_STEPS.get(name)
        if step is None:
            effect = _stack_effect(item)  # type: ignore[arg-type]
            if effect is None:  # not an instruction this module writes: trust nothing below it
                on_stack.clear()
                continue
            step = (*effect, name in USES_THEN_DROPS, False, type(item[1]) is Label or name in ENDS)  # type: ignore[index]
        pops, pushes, drops, scrambles, ends = step
        if pops:
            used = on_stack[len(on_stack) - pops :]
            del on_stack[len(on_stack) - len(used) :]
            if drops:
                borrowed += [p for p in used if p is not None]
        if ends:
            on_stack.clear()
        elif scrambles:  # which value is where is no longer tracked
            on_stack[:] = [None] * (len(on_stack) + pushes)
        elif pushes:
            on_stack += [None] * pushes
    return LocalOps(borrowed, at, lines)


#: Two instructions in a row that 3.13+ run as one, when both locals are among the first 16.
#: A borrowed load after a store, or beside an owned load, fuses as an owned load (3.14+),
#: as CPython's compiler, which pairs before it borrows, writes it: a dispatch saved is
#: worth more than the reference count a borrowed load saves.
FUSED = {
    ("LOAD_FAST", "LOAD_FAST"): "LOAD_FAST_LOAD_FAST",
    ("LOAD_FAST_BORROW", "LOAD_FAST_BORROW"): "LOAD_FAST_BORROW_LOAD_FAST_BORROW",
    ("LOAD_FAST", "LOAD_FAST_BORROW"): "LOAD_FAST_LOAD_FAST",
    ("LOAD_FAST_BORROW", "LOAD_FAST"): "LOAD_FAST_LOAD_FAST",
    ("STORE_FAST", "LOAD_FAST"): "STORE_FAST_LOAD_FAST",
    ("STORE_FAST", "LOAD_FAST_BORROW"): "STORE_FAST_LOAD_FAST",
    ("STORE_FAST", "STORE_FAST"): "STORE_FAST_STORE_FAST",
}
_LOCAL_OPS = frozenset({"LOAD_FAST", "STORE_FAST"})
#: Stands for the second instruction of a pair fused, until the code is rebuilt without it.
_FUSED_AWAY = ("FUSED AWAY",)


def _fuse_pairs(
    code: list[Item | Label | int], argnames: tuple[str, ...], found: LocalOps
) -> tuple[str, ...]:
    """Fuse pairs of local loads and stores into superinstructions (3.13+), as CPython does.

    A superinstruction packs both locals' numbers into 4 bits each, so only locals
    numbered below 16 may fuse. `bytecode` numbers the parameters first, then the locals
    of superinstructions in order, then the rest; a pair fuses only if that numbering
    keeps both below 16. Returns the locals paired, in that numbering (after the
    parameters), for the assembler to number so. Pairs on one line only (one LC-3
    instruction), so line tables, dumps and tracers still see where every instruction
    starts; a line between the two (which comes back to the first's) goes after the pair.

    `found` holds the index and line of every local load and store (borrowed loads
    included), the only instructions a pair is made of: the pairs are looked for among
    them, not in a pass over all the code (on 3.15 a fifth of translating was the two
    passes).
    """
    number = {name: i for i, name in enumerate(argnames)}
    taken = -1  # the second of the pair fused last
    for (p, q), (line, next_line) in zip(pairwise(found.at), pairwise(found.lines), strict=True):
        if p == taken or line != next_line:
            continue
        if q != p + 1:  # a pair only if just lines come between
            between = p + 1
            while type(code[between]) is int:
                between += 1
            if between != q:
                continue
        waiting, item = code[p], code[q]
        name = FUSED.get((waiting[0], item[0]))  # type: ignore[index]
        if name is None:
            continue
        first, second = waiting[1], item[1]  # type: ignore[index]
        new = (first not in number) + (second not in number and second != first)
        if len(number) + new <= 16:
            number.setdefault(first, len(number))
            number.setdefault(second, len(number))
            code[p], code[q], taken = (name, (first, second)), _FUSED_AWAY, q
    if taken >= 0:
        code[:] = compress(code, map(is_not, code, repeat(_FUSED_AWAY)))
    return tuple(number)[len(argnames) :]
