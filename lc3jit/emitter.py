"""The one place that knows how CPython 3.11 to 3.15 differ in bytecode.

The code generator speaks in small operations (load a local, call a helper, jump if
false); this module turns each into the instructions of the running Python:
- calls: 3.11 pushes NULL, the callable, the arguments, then PRECALL and CALL; 3.12
  drops PRECALL; 3.13+ push the callable before the NULL (LOAD_GLOBAL's flag does
  both orders for us);
- conditional jumps: 3.11 has POP_JUMP_FORWARD_IF_* / POP_JUMP_BACKWARD_IF_*, 3.12+
  has only forward POP_JUMP_IF_*; 3.13+ also need an exact bool (TO_BOOL) where the
  value is not already one, or an int silently takes the wrong branch; 3.14+ follow
  each conditional jump with NOT_TAKEN, as CPython's compiler does, so that
  sys.monitoring (coverage, debuggers) sees both ways out of a branch;
- subscripts: BINARY_SUBSCR until 3.13, BINARY_OP with the subscript operator from 3.14;
- constants: RETURN_CONST only in 3.12 and 3.13; 3.14+ load small ints with
  LOAD_SMALL_INT (no lookup in co_consts);
- locals: 3.14+ could push borrowed references (LOAD_FAST_BORROW), but only CPython's
  own flow analysis knows when that is safe; a borrowed reference that outlives its
  local is a use after free, so this module always pushes owned ones (LOAD_FAST).
Bad bytecode crashes the interpreter instead of raising, so every form here is tested
on every version (tests/test_emitter.py), and a Python not in SPOKEN gets no
translated code at all: `speaks_this_python` is what the engines ask first.
"""

from __future__ import annotations

import sys
from types import CodeType

from bytecode import BinaryOp, Bytecode, Compare, Instr, Label

PY = sys.version_info[:2]
#: The Pythons whose bytecode this module writes, each tested in CI.
SPOKEN = ((3, 11), (3, 12), (3, 13), (3, 14), (3, 15))
HAS_PRECALL = PY == (3, 11)
HAS_RETURN_CONST = (3, 12) <= PY <= (3, 13)
NEEDS_TO_BOOL = PY >= (3, 13)
DIRECTIONAL_JUMPS = PY == (3, 11)
SUBSCRIPT_IS_BINARY_OP = PY >= (3, 14)
HAS_NOT_TAKEN = PY >= (3, 14)
HAS_LOAD_SMALL_INT = PY >= (3, 14)

#: The deepest the value stack of generated code gets, with room to spare: a helper
#: call with three arguments (five slots with NULL and the callable) is the deepest.
STACK_BOUND = 10

#: An instruction without argument (None is an argument: LOAD_CONST None).
NO_ARG = object()

__all__ = ["ENDS", "BinaryOp", "Compare", "Emitter", "Instr", "Label", "speaks_this_python"]


def speaks_this_python() -> bool:
    """Whether the running Python is one whose bytecode this module knows.

    On any other (a 3.16 one day) the code generated could crash the process, so the
    engines run on the interpreter instead.
    """
    return PY in SPOKEN


class Emitter:
    """Builds one code object; every instruction carries the current LC-3 address as its line."""

    def __init__(self, name: str, first_line: int) -> None:
        self.code = Bytecode()
        self.code.name = name
        self.code.first_lineno = first_line
        self.line = first_line
        self._placed: set[int] = set()  # ids of the labels already in the code
        self.emit("RESUME", 0)

    def emit(self, name: str, arg: object = NO_ARG) -> None:
        if arg is NO_ARG:
            self.code.append(Instr(name, lineno=self.line))
        else:
            self.code.append(Instr(name, arg, lineno=self.line))

    def place(self, label: Label) -> None:
        self._placed.add(id(label))
        self.code.append(label)

    # Values.
    def const(self, value: object) -> None:
        if HAS_LOAD_SMALL_INT and type(value) is int and 0 <= value < 256:
            self.emit("LOAD_SMALL_INT", value)
        else:
            self.emit("LOAD_CONST", value)

    def load(self, local: str) -> None:
        self.emit("LOAD_FAST", local)

    def store(self, local: str) -> None:
        self.emit("STORE_FAST", local)

    def dup(self) -> None:
        self.emit("COPY", 1)

    def swap(self) -> None:
        self.emit("SWAP", 2)

    def pop(self) -> None:
        self.emit("POP_TOP")

    def global_(self, name: str) -> None:
        self.emit("LOAD_GLOBAL", (False, name))

    def binary(self, op: BinaryOp) -> None:
        self.emit("BINARY_OP", op)

    def compare(self, op: Compare) -> None:
        """Leaves an exact bool on every version."""
        self.emit("COMPARE_OP", op)

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
    def _truth(self, is_bool: bool) -> None:
        if NEEDS_TO_BOOL and not is_bool:
            self.emit("TO_BOOL")

    def jump_if(self, label: Label, when: bool, is_bool: bool = True) -> None:
        """Pop the top of the stack and jump to label when its truth is `when`.

        A label already placed is a loop: 3.11 jumps back in one instruction; 3.12+ jump
        forward over a JUMP_BACKWARD on the opposite truth.
        """
        self._truth(is_bool)
        sense = "TRUE" if when else "FALSE"
        if id(label) not in self._placed:
            self.emit(f"POP_JUMP_FORWARD_IF_{sense}" if DIRECTIONAL_JUMPS else f"POP_JUMP_IF_{sense}", label)
            self._not_taken()
        elif DIRECTIONAL_JUMPS:
            self.emit(f"POP_JUMP_BACKWARD_IF_{sense}", label)
        else:
            stay = Label()
            self.emit(f"POP_JUMP_IF_{'FALSE' if when else 'TRUE'}", stay)
            self._not_taken()
            self.emit("JUMP_BACKWARD", label)
            self.place(stay)

    def _not_taken(self) -> None:
        """Mark the way on after a conditional jump (3.14+), where the compiler marks it."""
        if HAS_NOT_TAKEN:
            self.emit("NOT_TAKEN")

    def jump_if_false(self, label: Label, is_bool: bool = True) -> None:
        self.jump_if(label, False, is_bool)

    def jump_if_true(self, label: Label, is_bool: bool = True) -> None:
        self.jump_if(label, True, is_bool)

    def jump_forward(self, label: Label) -> None:
        self.emit("JUMP_FORWARD", label)

    def jump(self, label: Label) -> None:
        """Jump to label, backward if it is already placed (a loop), forward if not."""
        self.emit("JUMP_BACKWARD" if id(label) in self._placed else "JUMP_FORWARD", label)

    def return_top(self) -> None:
        self.emit("RETURN_VALUE")

    def return_const(self, value: object) -> None:
        if HAS_RETURN_CONST:
            self.emit("RETURN_CONST", value)
        else:
            self.const(value)
            self.return_top()

    def tidy(self) -> None:
        """Drop jumps to the very next instruction and code no jump reaches.

        The code generator ends every block with a jump to its successor, often the
        next block; a JUMP_FORWARD 0 still costs a dispatch each time it runs.
        """
        items = list(self.code)
        kept: list[Instr | Label] = []
        reachable = True
        for i, item in enumerate(items):
            if isinstance(item, Label):
                kept.append(item)
                reachable = True
                continue
            if not reachable:
                continue
            if item.name in JUMPS and id(item.arg) in _labels_at(items, i + 1):
                continue
            kept.append(item)
            reachable = item.name not in ENDS
        self.code[:] = kept

    def to_code(self, argnames: tuple[str, ...]) -> CodeType:
        """The code object: `argnames` are its parameters, every other local is assigned first.

        The stack size is not computed (the slowest part of `to_code`, 2-3x) but bounded:
        generated code never holds more than STACK_BOUND values, which
        tests/test_codegen.py checks against `bytecode`'s own computation.
        """
        self.tidy()
        self.code.argcount = len(argnames)
        self.code.argnames = list(argnames)
        return self.code.to_code(stacksize=STACK_BOUND, compute_exception_stack_depths=False)


JUMPS = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD"})
ENDS = JUMPS | {"RETURN_VALUE", "RETURN_CONST"}


def _labels_at(items: list[Instr | Label], start: int) -> set[int]:
    """The ids of the labels placed together at items[start]: where a jump there lands."""
    found = set()
    for item in items[start:]:
        if not isinstance(item, Label):
            break
        found.add(id(item))
    return found
