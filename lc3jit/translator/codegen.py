"""The code generator: one basic block becomes one Python function returning the next PC.

What the generated code looks like, and why (measured in the architecture doc):
- registers live in fast locals `r0`..`r7` inside the block: loaded at entry only if
  read before written, written back to `R` only if written, at every exit;
- condition codes are lazy: the register a setting instruction wrote stands for them
  (a branch tests its value), copied to the local `cc` only when that register changes
  or something may leave; `m.ccv` is written only at exits;
- 16-bit wrap by compare and subtract, not `&`, which CPython does not specialise, and
  only where a value is read as a word: register-to-register arithmetic is right
  modulo 2^16 on unwrapped values, a branch tests an unwrapped sum through a table
  periodic over 2^17 (or by its sign), and bounds tracked through the block (regions:
  across blocks) choose the cheapest wrap (often none);
- addresses and offsets folded at translation time; a constant address is known to
  be a device register or not; a computed one is checked against xFE00;
- stores check the write map `W` and take the slow path `STORE` for watched words,
  which leaves the block (by exception) when the word was translated code;
- every slow path that can stop the machine writes the registers back first;
- with access control (an OS in the 3rd edition), a block reachable in user mode sends
  loads outside x3000-xFDFF to `LOAD`, which checks the privilege, and the first word
  of a block outside x3000-xFDFF checks that it is not fetched in user mode; stores
  need nothing more, as the write map marks the protected words.
Each instruction's bytecode carries its LC-3 address as the line number. Generated
code is built from decoded fields only: constants, never text.

Why one module of over 500 lines: every rule above is kept by the one class that holds
a block's register state while it emits each instruction in turn (one method per LC-3
form, the slow paths beside the fast ones they leave); split by instruction, each part
would have to reach back into that state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import CodeType, FunctionType

from lc3jit.translator.blocks import Block
from lc3jit.translator.bounds import ADDRESS_BOUNDS, EMPTY, FULL, LOOSE, OFFSET6_REACH, WRAP
from lc3jit.translator.dataflow import (
    ALL_REGISTERS,
    dead_codes,
    exact_results,
    unread_results,
)
from lc3jit.translator.emitter import BinaryOp, Compare, Emitter, Label
from lc3jit.translator.forms import EMITTERS
from lc3jit_runtime import contract
from lc3jit_runtime.isa import WORD_MASK, Instruction
from lc3jit_runtime.machine import IO_BASE, PSR_USER, USER_BASE, WATCH_PROTECTED, user_address

#: The lists and tuples generated code indexes on its hot paths: memory, the write map,
#: and the branch tables.
TABLES = (contract.MEMORY, contract.WRITE_MAP, contract.POSITIVE, contract.NEGATIVE, contract.ZERO)


@dataclass(frozen=True, slots=True)
class SlowPaths:
    """What the fast path may assume, by where a slow path goes once done: back into the
    block, after the instruction it stood for (REJOIN: blocks), or out to the dispatcher,
    which interprets that instruction (LEAVE: regions)."""

    #: A store's slow path may write the PSR, which sets the codes: one that rejoins reloads
    #: them from the machine into `cc`, so they must be in `cc` before it.
    settle_codes_before_store: bool
    #: Code after a load or store ran its fast path, which only addresses below xFE00 take:
    #: the base register's bounds may say so (an increment of a pointer just used then
    #: needs no wrap).
    bound_base_after_access: bool
    #: A base address may be a sum not wrapped yet (within ADDRESS_BOUNDS): its slow path
    #: wraps it and tries again, or leaves.
    unwrapped_bases: bool


REJOIN = SlowPaths(settle_codes_before_store=True, bound_base_after_access=False, unwrapped_bases=False)
LEAVE = SlowPaths(settle_codes_before_store=False, bound_base_after_access=True, unwrapped_bases=True)


class BlockCompiler:
    """Compiles one block; the emit_* functions below drive it, one per ISA form."""

    def __init__(
        self, block: Block, edition: int, access_control: bool = False, slow_paths: SlowPaths = REJOIN
    ) -> None:
        self.block = block
        self.slow_paths = slow_paths
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

    # Registers and codes.
    def reg(self, r: int) -> str:
        """The local that holds register r here (loaded at entry if read before written)."""
        if r not in self.written:
            self.loaded.add(r)
        return f"r{r}"

    def push_reg(self, r: int) -> None:
        self.e.load(self.reg(r))

    def set_reg(self, r: int, sets_cc: bool) -> None:
        """Pop the value on the stack into register r; when it sets codes that are seen,
        r stands for them (`cc_alias`) until r changes or something leaves."""
        if sets_cc:
            self.cc_alias = None if self.cc_dead else r
        elif self.cc_alias == r:
            self.settle_cc()
        self.e.store(f"r{r}")
        self.written.add(r)

    def settle_cc(self) -> None:
        """Copy the register that stands for the codes into `cc`, which holds a word."""
        if self.cc_alias is not None:
            self.e.load(f"r{self.cc_alias}")
            self.wrap(*self.range_of(self.cc_alias))
            self.e.store("cc")
            self.cc_local = True
            self.cc_alias = None

    def cc_range(self) -> tuple[int, int]:
        """The bounds of the value push_cc pushes (`cc` and `m.ccv` hold words)."""
        return FULL if self.cc_alias is None else self.range_of(self.cc_alias)

    def push_cc(self) -> None:
        if self.cc_alias is not None:
            self.e.load(f"r{self.cc_alias}")
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
            e.load(f"r{r}")
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
        (POSITIVE: runtime.dispatch.code_tables), and `cc`, `R` and `m.ccv` get words where they are set."""
        lo, hi = bounds
        if self.exact[self.index] or not -LOOSE < lo <= hi < LOOSE:
            bounds = self.wrap(lo, hi)
        self.set_reg(r, sets_cc)  # which settles codes r stood for, at r's old bounds
        self.ranges[r] = bounds

    def wrap(self, lo: int, hi: int) -> tuple[int, int]:
        """Wrap the value on the stack, within lo..hi, to 16 bits: by one compare and one
        subtraction or addition where the bounds allow (CPython specialises those), by `&`
        (which it does not) only where they do not. Returns the bounds after."""
        e, done = self.e, Label()
        if lo >= 0 and hi <= WORD_MASK:
            return lo, hi
        if lo >= 0 and hi <= WORD_MASK + WRAP:
            e.dup()
            e.const(WORD_MASK)
            e.compare(Compare.GT)
            e.jump_if_false(done)
            e.const(WRAP)
            e.binary(BinaryOp.SUBTRACT)
        elif lo >= -WRAP and hi <= WORD_MASK:
            e.dup()
            e.const(0)
            e.compare(Compare.LT)
            e.jump_if_false(done)
            e.const(WRAP)
            e.binary(BinaryOp.ADD)
        else:
            e.const(WORD_MASK)
            e.binary(BinaryOp.AND)
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

    # Memory.
    def load_const_address(self, address: int, at: int) -> None:
        """Push mem[address] for an address known now."""
        if address >= IO_BASE or (self.checked_loads and address < USER_BASE):
            self.slow_load(lambda: self.e.const(address), at, True)
        else:
            self.push_table(contract.MEMORY)
            self.e.const(address)
            self.e.subscript()

    def watched_for_good(self, address: int) -> bool:
        """Is every store to this word a slow path: a device register, or (under access
        control) a word closed to user mode, which the OS's own stores write?"""
        return address >= IO_BASE or (self.access_control and not user_address(address))

    def load_computed_address(
        self, local: str, bounds: tuple[int, int], at: int, rejoins: bool = False
    ) -> None:
        """Push mem[local]: local is an address within bounds, not yet wrapped (see
        ADDRESS_BOUNDS); `rejoins`: see slow_load."""
        e, slow, retry = self.e, Label(), Label()
        if self.may_retry(bounds):
            e.place(retry)
        e.load(local)
        e.const(IO_BASE)
        e.compare(Compare.LT)
        e.jump_if_false(slow)
        if bounds[0] < 0 or self.checked_loads:
            e.load(local)
            e.const(USER_BASE if self.checked_loads else 0)
            e.compare(Compare.GE)
            e.jump_if_false(slow)
        self.push_table(contract.MEMORY)
        e.load(local)
        e.subscript()
        self.access_path(
            slow,
            lambda: self.slow_access(
                local, bounds, retry, lambda: self.slow_load(lambda: e.load(local), at, rejoins)
            ),
            rejoins,
        )

    def store(
        self,
        address: int | str,
        push_value: Callable[[], None],
        at: int,
        bounds: tuple[int, int] = FULL,
        rejoins: bool = False,
    ) -> None:
        """mem[address] = value; address a constant or a local within bounds, not yet
        wrapped (see ADDRESS_BOUNDS); `rejoins`: see slow_load."""
        e, slow, retry = self.e, Label(), Label()

        def push_address() -> None:
            e.load(address) if isinstance(address, str) else e.const(address)

        def slow_store() -> None:
            self.slow_store(push_address, push_value, at, rejoins)

        if self.slow_paths.settle_codes_before_store:
            self.settle_cc()
        if self.may_retry(bounds):
            e.place(retry)
        self.push_table(contract.WRITE_MAP)
        push_address()
        e.subscript()
        if self.access_control and not self.checked_loads:  # the supervisor's: a word closed to
            e.const(~WATCH_PROTECTED)  # user mode is plain data to it (the OS saving registers)
            e.binary(BinaryOp.AND)
        e.jump_if_true(slow, is_bool=False)
        push_value()
        self.push_table(contract.MEMORY)
        push_address()
        e.store_subscript()
        if isinstance(address, str):
            self.access_path(slow, lambda: self.slow_access(address, bounds, retry, slow_store), rejoins)
        else:
            self.access_path(slow, slow_store, rejoins)

    def slow_access(
        self, local: str, bounds: tuple[int, int], retry: Label, slow: Callable[[], None]
    ) -> None:
        """The slow path of a load or store at an address in a local: where the base was a
        sum not wrapped yet (the address may pass a word plus an offset6), an address
        outside 0..xFFFF is wrapped and the access tried again; the rest is `slow`, which
        the few addresses a word plus an offset takes past them also take."""
        if bounds[1] > WORD_MASK + OFFSET6_REACH:
            self.wrap_and_retry(local, Compare.GT, WORD_MASK, BinaryOp.SUBTRACT, retry)
        if bounds[0] < -OFFSET6_REACH:
            self.wrap_and_retry(local, Compare.LT, 0, BinaryOp.ADD, retry)
        slow()

    @staticmethod
    def may_retry(bounds: tuple[int, int]) -> bool:
        """May an access at an address within bounds be wrapped and tried again?"""
        return bounds[1] > WORD_MASK + OFFSET6_REACH or bounds[0] < -OFFSET6_REACH

    def wrap_and_retry(self, local: str, beyond: Compare, limit: int, step: BinaryOp, retry: Label) -> None:
        e, within = self.e, Label()
        e.load(local)
        e.const(limit)
        e.compare(beyond)
        e.jump_if_false(within)
        e.load(local)
        e.const(WRAP)
        e.binary(step)
        e.store(local)
        e.jump(retry)
        e.place(within)

    def slow_path(self, slow: Label, emit: Callable[[], None]) -> None:
        """The code at `slow`, jumped to from the fast path just emitted, which it rejoins."""
        done = Label()
        self.e.jump_forward(done)
        self.e.place(slow)
        emit()
        self.e.place(done)

    def access_path(self, slow: Label, emit: Callable[[], None], rejoins: bool) -> None:
        """The slow path of a load or store (see slow_load): one that rejoins."""
        self.slow_path(slow, emit)

    # Slow paths, entered with an empty stack (regions override these).
    def slow_load(self, push_address: Callable[[], None], at: int, rejoins: bool) -> None:
        """Push what the machine reads at an address >= xFE00 or not yet wrapped.

        `rejoins`: a slow path regions take too, coming back after the runtime's
        access instead of leaving (RegionCompiler.access_path): LDI and STI, whose
        address no register keeps (LDR and STR narrow their base register's bounds
        after the access, which only the fast path makes true: address_checked), and
        ST to a word always watched (`watched_for_good`)."""
        self.sync()
        self.call(contract.LOAD, self.wrapped(push_address), at)

    def wrapped(self, push_address: Callable[[], None]) -> Callable[[], None]:
        """Code that pushes the address push_address pushes, wrapped to 16 bits (a slow
        path's address may be a sum not wrapped yet)."""

        def push_wrapped() -> None:
            push_address()
            self.e.const(WORD_MASK)
            self.e.binary(BinaryOp.AND)

        return push_wrapped

    def slow_store(
        self,
        push_address: Callable[[], None],
        push_value: Callable[[], None],
        at: int,
        rejoins: bool,
    ) -> None:
        """A store into a watched word: a device, code, or an address not yet wrapped
        (`rejoins`: see slow_load)."""
        e = self.e
        self.sync()
        self.call(contract.STORE, push_address, push_value, at)
        e.pop()
        if self.cc_local and self.slow_paths.settle_codes_before_store:  # a store into the PSR sets the codes
            e.global_(contract.MACHINE)
            e.load_attr(contract.CODES)
            e.store("cc")

    def address_checked(self, baser: int, offset: int) -> None:
        """After the fast path of a load or store at BaseR + offset, which only addresses
        below xFE00 take (the write map watches every word from there on), BaseR's bounds
        say so: an increment of a pointer just used then needs no wrap. (Not where the
        address was wrapped and tried again: BaseR itself was not, unless offset is 0.)"""
        lo, hi = self.range_of(baser)
        if self.slow_paths.bound_base_after_access and (
            0 <= lo + offset <= hi + offset <= WORD_MASK or not offset
        ):
            self.ranges[baser] = (max(lo, -offset), min(hi, IO_BASE - 1 - offset))

    def base_plus_offset(self, baser: int, offset: int) -> tuple[str, tuple[int, int]]:
        """BaseR + offset, unwrapped: the local that holds it (BaseR's own for offset 0),
        and its bounds. A BaseR beyond ADDRESS_BOUNDS is wrapped first."""
        lo, hi = self.range_of(baser)
        if not ADDRESS_BOUNDS[0] <= lo <= hi <= ADDRESS_BOUNDS[1]:
            self.wrap_register(baser)
            lo, hi = self.range_of(baser)
        if not offset:
            return self.reg(baser), (lo, hi)
        self.push_reg(baser)
        self.e.const(abs(offset))
        self.e.binary(BinaryOp.ADD if offset > 0 else BinaryOp.SUBTRACT)
        self.e.store("a")
        return "a", (lo + offset, hi + offset)

    # Exits: a block returns the next PC to the dispatcher (regions override these).
    def exit_to(self, pc: int) -> None:
        self.write_back()
        self.e.return_const(pc)
        self.exited = True

    def exit_if(
        self, pc: int, when: bool = True, is_bool: bool = True, facts: Mapping[int, tuple[int, int]] = EMPTY
    ) -> None:
        """Pop a value; when its truth is `when`, go to pc (where `facts` bound registers
        more tightly: regions use them). Code after it runs otherwise."""
        not_taken = Label()
        self.e.jump_if(not_taken, not when, is_bool)
        alias = self.cc_alias
        self.exit_to(pc)
        self.cc_alias = alias  # the way out settled the codes on its own path only
        self.e.place(not_taken)
        self.exited = False

    def exit_with_top(self, ins: Instruction) -> None:
        """Go to the address at the top of the stack (JMP, RET, JSRR)."""
        self.write_back()
        self.e.return_top()
        self.exited = True

    def exit_to_register(self, ins: Instruction) -> None:
        """Go to the address in BaseR (JMP, RET)."""
        self.push_reg(ins.baser)
        self.exit_with_top(ins)

    def exit_through(self, helper: contract.Helper, *args: int) -> None:
        """Go where a runtime helper says (TRAP, RTI, exceptions); it may stop the machine."""
        self.sync()
        self.call(helper, *args)
        self.e.return_top()
        self.exited = True

    def emit_block(self, block: Block) -> None:
        """The instructions of one block, then its way out.

        Under access control the privilege cannot change inside a block (RTI and TRAP
        end it, a store into the PSR leaves it), so a block that starts outside
        x3000-xFDFF runs in supervisor mode or not at all, and loads need no checks.
        """
        self.exited = False
        self.checked_loads = self.access_control and user_address(block.start)
        dead = dead_codes(block, self.edition, self.access_control)
        self.exact = self.exact_results(block)
        self.unread = self.unread_results(block)
        self.ranges = self.entry_ranges(block)
        self.cc_alias = self.entry_alias(block)
        for index, ins in enumerate(block.instructions):
            self.index = index
            self.cc_dead = dead[index]
            self.e.line = ins.address
            entered = index == 0 or user_address(block.instructions[index - 1].address)
            if (
                self.access_control
                and entered
                and not user_address(ins.address)
                and not self.supervisor_at(index)
            ):
                self.fetch_check(ins.address)
            EMITTERS[ins.form.name](self, ins)
        if not self.exited:
            self.exit_to(block.last.next_pc)

    def supervisor_at(self, index: int) -> bool:
        """Is the current block known to run in supervisor mode at instruction `index`
        (no check of the fetch needed)? A block alone knows nothing of how it was entered."""
        return False

    def entry_ranges(self, block: Block) -> dict[int, tuple[int, int]]:
        """The bounds of the registers' locals where the block starts: words, from R."""
        return {}

    def unread_results(self, block: Block) -> list[bool]:
        """For each instruction: is the value it writes read by nothing after it?"""
        return unread_results(block, self.wanted_after(block))

    def entry_alias(self, block: Block) -> int | None:
        """The register that stands for the codes where the block starts: none, they are
        in `cc` or the machine."""
        return None

    def wanted_after(self, block: Block) -> Iterable[int]:
        """The registers whose locals must hold words when the block ends: all, as its
        way out writes them to R (and the codes to m.ccv): a value wrapped where it is
        made serves both. (Regions keep locals across blocks: see there.)"""
        return ALL_REGISTERS

    def exact_results(self, block: Block) -> list[bool]:
        """For each instruction: must the value it writes be a word at once? (dataflow)"""
        return exact_results(
            block, self.wanted_after(block), self.access_control, self.slow_paths.unwrapped_bases
        )

    def fetch_check(self, at: int) -> None:
        """In user mode, the word at `at` may not be fetched: `FETCH` takes the exception."""

        def violation() -> None:
            self.sync()
            self.call(contract.FETCH, at)
            self.e.pop()

        self.in_user_mode(violation)

    def in_user_mode(self, then: Callable[[], None]) -> None:
        """Code that runs what `then` emits when the machine is in user mode (PSR[15] set)."""
        e, allowed = self.e, Label()
        e.global_(contract.MACHINE)
        e.load_attr(contract.PRIVILEGE)
        e.const(PSR_USER)
        e.compare(Compare.GE)
        e.jump_if_false(allowed)
        then()
        e.place(allowed)

    def compile(self) -> CodeType:
        self.emit_block(self.block)
        prologue = Emitter("prologue", self.block.start)
        load_registers(prologue, self.loaded)
        self.e.code[1:1] = prologue.code[1:]  # after RESUME
        return self.e.to_code(("pc",))


def load_registers(e: Emitter, registers: Iterable[int]) -> None:
    """rN = R[N] for each register: the locals generated code keeps them in."""
    for r in sorted(registers):
        e.global_(contract.REGISTERS)
        e.const(r)
        e.subscript()
        e.store(f"r{r}")


def compile_block(block: Block, edition: int, access_control: bool = False) -> CodeType:
    return BlockCompiler(block, edition, access_control).compile()


def make_function(
    code: CodeType, namespace: dict[str, object], defaults: tuple[int, ...] = ()
) -> Callable[[int], int]:
    """Bind generated code to a machine's namespace (see runtime.dispatch)."""
    return FunctionType(code, namespace, code.co_name, defaults or None)  # type: ignore[return-value]
