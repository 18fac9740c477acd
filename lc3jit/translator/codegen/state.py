"""What a block compiler holds while it emits: the registers' locals and their bounds, the codes.

The rules of the compiler's docstring that are about values live here: registers in
fast locals, written back only where changed; the codes lazy, a register standing for
them until it changes; 16-bit wraps only where a value is read as a word, chosen by the
bounds tracked. The compiler's other parts (memory, slow_paths, exits) and the form
emitters work on this state; regions keep one across their blocks
(regions.codegen.across_blocks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from lc3jit.translator.blocks import Block
from lc3jit.translator.codegen.bounds import FULL, LOOSE, WRAP
from lc3jit.translator.codegen.emitter import BinaryOp, Compare, Emitter, Label, recorded
from lc3jit_runtime import contract
from lc3jit_runtime.isa import WORD_MASK

if TYPE_CHECKING:
    from lc3jit.translator.codegen.exits import Exits
    from lc3jit.translator.codegen.memory import MemoryAccess

#: The lists and tuples generated code indexes on its hot paths: memory, the write map,
#: and the branch tables.
TABLES = (contract.MEMORY, contract.WRITE_MAP, contract.POSITIVE, contract.NEGATIVE, contract.ZERO)
#: The locals that hold the registers, by register: one string each (formatting a name
#: anew each time, and hashing it again when it is numbered, cost 2% of translating).
LOCALS = tuple(f"r{r}" for r in range(8))

#: The straight-line parts of `BlockState.wrap`, made once (it wraps some thousand times
#: in 4k words): is the value on the stack above a word (below 0), then 2^16 less (more);
#: its low 16 bits.
_ABOVE_A_WORD = recorded(("dup",), ("const", WORD_MASK), ("compare", Compare.GT))
_LESS_A_WRAP = recorded(("const", WRAP), ("binary", BinaryOp.SUBTRACT))
_BELOW_ZERO = recorded(("dup",), ("const", 0), ("compare", Compare.LT))
_PLUS_A_WRAP = recorded(("const", WRAP), ("binary", BinaryOp.ADD))
_LOW_WORD = recorded(("const", WORD_MASK), ("binary", BinaryOp.AND))


class BlockState:
    """The registers, their bounds and the codes of the block being emitted: the value the
    compiler's parts (memory access, slow paths, exits) and the form emitters share."""

    #: The parts that emit from this state, set by the compiler that assembles them: the
    #: form emitters reach loads, stores and the ways out through these.
    exits: Exits
    memory: MemoryAccess

    def __init__(self, block: Block, edition: int, access_control: bool = False) -> None:
        self.block = block
        self.edition = edition
        self.access_control = access_control
        self.checked_loads = False  # may the current block run in user mode under access control?
        self.e = Emitter(f"block_x{block.start:04X}", block.start)
        self.loaded: set[int] = set()  # registers read before written: loaded at entry
        self.written: set[int] = set()
        self.cc_local = False  # has `cc` been assigned in this block?
        self.cc_alias: int | None = None  # the register whose value set the codes, if kept
        self.exited = False  # has the code so far ended with a way out?
        self.index = 0  # of the instruction being emitted, in its block
        self.cc_dead = False  # are the codes it sets overwritten before they are seen?
        self.exact: list[bool] = []  # for each instruction: must its result be a word at once?
        self.unread: list[bool] = []  # for each instruction: is its result read only as codes?
        self.ranges: dict[int, tuple[int, int]] = {}  # register -> bounds of its local's value
        #: (address, dr, sr, k): the ADD at address left dr's local = sr's + k exactly (a BR
        #: right after it then bounds sr too: forms.source_bounds)
        self.last_sum: tuple[int, int, int, int] | None = None

    def current_block(self) -> Block:
        """The block being emitted."""
        return self.block

    # Registers and codes.
    def reg(self, r: int) -> str:
        """The local that holds register r here (loaded at entry if read before written)."""
        if r not in self.written:
            self.loaded.add(r)
        return LOCALS[r]

    def push_reg(self, r: int) -> None:
        self.e.load(self.reg(r))

    def set_reg(self, r: int, sets_cc: bool) -> None:
        """Pop the value on the stack into register r; when it sets codes that are seen,
        r stands for them (`cc_alias`) until r changes or something leaves."""
        if sets_cc:
            self.cc_alias = None if self.cc_dead else r
        elif self.cc_alias == r:
            self.settle_cc()
        self.e.store(LOCALS[r])
        self.written.add(r)

    def settle_cc(self) -> None:
        """Copy the register that stands for the codes into `cc`, which holds a word."""
        if self.cc_alias is not None:
            self.e.load(LOCALS[self.cc_alias])
            self.wrap(*self.range_of(self.cc_alias))
            self.e.store("cc")
            self.cc_local = True
            self.cc_alias = None

    def cc_range(self) -> tuple[int, int]:
        """The bounds of the value push_cc pushes (`cc` and `m.ccv` hold words)."""
        return FULL if self.cc_alias is None else self.range_of(self.cc_alias)

    def push_cc(self) -> None:
        if self.cc_alias is not None:
            self.e.load(LOCALS[self.cc_alias])
        elif self.cc_local:
            self.e.load("cc")
        else:
            self.e.global_(contract.MACHINE)
            self.e.load_attr(contract.CODES)

    def sync(self) -> None:
        """Before a runtime helper that may stop the machine or leave the block."""
        self.write_back()

    def write_back(self) -> None:
        """Make R and m.ccv what the interpreter would have at this point: words, wrapped
        here (on the way out only) where the locals hold sums not wrapped yet."""
        self.write_registers(self.written, self.cc_alias is not None or self.cc_local)

    def write_registers(self, registers: Iterable[int], codes: bool) -> None:
        """R[r] = rN for each of `registers`, and m.ccv when `codes`, as words."""
        e = self.e
        for r in sorted(registers):
            e.load(LOCALS[r])
            self.wrap(*self.range_of(r))
            e.global_(contract.REGISTERS)
            e.const(r)
            e.store_subscript()
        if codes:
            self.push_cc()
            self.wrap(*self.cc_range())
            e.global_(contract.MACHINE)
            e.store_attr(contract.CODES)

    # Arithmetic: register-to-register results may stay unwrapped (see exact_results).
    def range_of(self, r: int) -> tuple[int, int]:
        return self.ranges.get(r, FULL)

    def is_word(self, r: int) -> bool:
        lo, hi = self.range_of(r)
        return lo >= 0 and hi <= WORD_MASK

    def result(self, r: int, sets_cc: bool, bounds: tuple[int, int] = FULL) -> None:
        """Pop a value within bounds into register r, wrapped to 16 bits where it must be.

        The codes it sets need no wrap: a branch tests an unwrapped value with a table
        (POSITIVE: runtime.code_helpers), and `cc`, `R` and `m.ccv` get words where they are set."""
        lo, hi = bounds
        if self.exact[self.index] or not -LOOSE < lo <= hi < LOOSE:
            bounds = self.wrap(lo, hi)
        self.set_reg(r, sets_cc)  # which settles codes r stood for, at r's old bounds
        self.ranges[r] = bounds

    def wrap(self, lo: int, hi: int) -> tuple[int, int]:
        """Wrap the value on the stack, within lo..hi, to 16 bits: by one compare and one
        subtraction or addition where the bounds allow (CPython specialises those), by `&`
        (which it does not) only where they do not. Returns the bounds after."""
        if lo >= 0 and hi <= WORD_MASK:
            return lo, hi
        e, done = self.e, Label()
        if lo >= 0 and hi <= WORD_MASK + WRAP:
            e.extend(_ABOVE_A_WORD)
            e.jump_if_false(done)
            e.extend(_LESS_A_WRAP)
        elif lo >= -WRAP and hi <= WORD_MASK:
            e.extend(_BELOW_ZERO)
            e.jump_if_false(done)
            e.extend(_PLUS_A_WRAP)
        else:
            e.extend(_LOW_WORD)
        e.place(done)
        return FULL

    def wrap_register(self, r: int) -> None:
        """Make register r's local a 16-bit word (for `&` of two unwrapped values)."""
        self.push_reg(r)
        self.ranges[r] = self.wrap(*self.range_of(r))
        self.e.store(self.reg(r))

    def push_table(self, name: str) -> None:
        """Push a list or tuple read on hot paths: TABLES name them."""
        self.e.global_(name)

    def call(self, helper: contract.Helper, *args: int | str | Callable[[], None]) -> None:
        """Call a runtime helper (runtime.contract) with its arguments: constant ints, locals
        (by name), or code that pushes one."""
        if len(args) != helper.arity:
            raise ValueError(f"{helper.name} takes {helper.arity} arguments, not {len(args)}")
        e = self.e
        e.begin_call(helper.name)
        for arg in args:
            if isinstance(arg, str):
                e.load(arg)
            elif isinstance(arg, int):
                e.const(arg)
            else:
                arg()
        e.end_call(helper.arity)


def load_registers(e: Emitter, registers: Iterable[int]) -> None:
    """rN = R[N] for each register: the locals generated code keeps them in."""
    for r in sorted(registers):
        e.global_(contract.REGISTERS)
        e.const(r)
        e.subscript()
        e.store(LOCALS[r])
