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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import CodeType, FunctionType, MappingProxyType

from lc3jit.translator.blocks import Block
from lc3jit.translator.emitter import BinaryOp, Compare, Emitter, Label
from lc3jit_runtime import contract
from lc3jit_runtime.dispatch import CODE_TABLE_RANGE
from lc3jit_runtime.isa import READ_REGISTER_FIELDS, WORD_MASK, Instruction
from lc3jit_runtime.machine import IO_BASE, PSR_USER, USER_BASE, user_address

SIGN = 0x8000
WRAP = WORD_MASK + 1
FULL = (0, WORD_MASK)  # the bounds of a word
#: Unwrapped values stay within +-LOOSE, small enough for CPython's one-digit ints.
LOOSE = 1 << 29
ALL_REGISTERS = range(8)
EMPTY: Mapping[int, tuple[int, int]] = MappingProxyType({})
#: The bounds of a base address regions use without wrapping it first (a sum of two
#: words, a pointer just decremented): the write map's guards reach that far both ways,
#: and a load outside 0..xFFFF takes its slow path, which wraps the address and tries
#: again (runtime.machine.GUARD_WORDS).
ADDRESS_BOUNDS = (-WRAP, 2 * WRAP - 1)
OFFSET6_REACH = 32

#: A branch test on the value v that set the codes: a comparison, the name of a global
#: table of bools to index with v (runtime.dispatch: right for v not wrapped yet too), or
#: None for v's own truth.
Test = tuple[Compare, int] | str | None

#: For each nzp mask of BR: its test on a word and the truth that takes the branch, then
#: the same with a table, for a value not wrapped to 16 bits. BRnzp and BR with nzp = 000
#: need no test.
BRANCH_TESTS: dict[int, tuple[Test, bool, str, bool]] = {
    0b100: ((Compare.GE, SIGN), True, contract.NEGATIVE, True),  # n: bit 15 set
    0b011: ((Compare.GE, SIGN), False, contract.NEGATIVE, False),  # zp: not n
    0b010: (None, False, contract.ZERO, True),  # z: v is 0
    0b101: (None, True, contract.ZERO, False),  # np: not z
    0b001: (contract.POSITIVE, True, contract.POSITIVE, True),  # p: 0 < v < x8000
    0b110: (contract.POSITIVE, False, contract.POSITIVE, False),  # nz: not p
}

#: The same on a value between -x8000 and x7FFF, whose codes are its sign's.
SIGNED_TESTS: dict[int, tuple[Test, bool]] = {
    0b100: ((Compare.LT, 0), True),
    0b011: ((Compare.LT, 0), False),
    0b001: ((Compare.GT, 0), True),
    0b110: ((Compare.GT, 0), False),
}

#: The words that set codes each nzp mask takes, where they make one interval: a branch
#: on a word tells the ways out of it these bounds.
CODES_INTERVAL = {
    0b100: (SIGN, WORD_MASK),
    0b010: (0, 0),
    0b001: (1, SIGN - 1),
    0b011: (0, SIGN - 1),
    0b101: (1, WORD_MASK),
}


#: The lists and tuples generated code indexes on its hot paths: memory, the write map,
#: and the branch tables.
TABLES = (contract.MEMORY, contract.WRITE_MAP, contract.POSITIVE, contract.NEGATIVE, contract.ZERO)

#: Forms that touch nothing but registers: nothing outside the block can see their codes.
REGISTER_ONLY = frozenset({"ADD", "ADDI", "AND", "ANDI", "NOT", "LEA"})


class BlockCompiler:
    """Compiles one block; the emit_* functions below drive it, one per ISA form."""

    #: Slow paths go on in the block (regions: they leave it). So a store into the PSR,
    #: which sets the codes, needs them in `cc` before it, where its slow path can reload
    #: them; and a load or store through a register proves nothing about its address.
    SLOW_PATHS_LEAVE = False

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
        e = self.e
        for r in sorted(self.written):
            e.load(f"r{r}")
            self.wrap(*self.range_of(r))
            e.global_(contract.REGISTERS)
            e.const(r)
            e.store_subscript()
        if self.cc_alias is not None or self.cc_local:
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
        (runtime.dispatch.POSITIVE), and `cc`, `R` and `m.ccv` get words where they are set."""
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
            self.slow_load(lambda: self.e.const(address), at)
        else:
            self.push_table(contract.MEMORY)
            self.e.const(address)
            self.e.subscript()

    def load_computed_address(self, local: str, bounds: tuple[int, int], at: int) -> None:
        """Push mem[local]: local is an address within bounds, not yet wrapped (see
        ADDRESS_BOUNDS)."""
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
        self.slow_path(
            slow,
            lambda: self.slow_access(local, bounds, retry, lambda: self.slow_load(lambda: e.load(local), at)),
        )

    def store(
        self, address: int | str, push_value: Callable[[], None], at: int, bounds: tuple[int, int] = FULL
    ) -> None:
        """mem[address] = value; address a constant or a local within bounds, not yet
        wrapped (see ADDRESS_BOUNDS)."""
        e, slow, retry = self.e, Label(), Label()

        def push_address() -> None:
            e.load(address) if isinstance(address, str) else e.const(address)

        def slow_store() -> None:
            self.slow_store(push_address, push_value, at)

        if not self.SLOW_PATHS_LEAVE:
            self.settle_cc()
        if self.may_retry(bounds):
            e.place(retry)
        self.push_table(contract.WRITE_MAP)
        push_address()
        e.subscript()
        e.jump_if_true(slow, is_bool=False)
        push_value()
        self.push_table(contract.MEMORY)
        push_address()
        e.store_subscript()
        if isinstance(address, str):
            self.slow_path(slow, lambda: self.slow_access(address, bounds, retry, slow_store))
        else:
            self.slow_path(slow, slow_store)

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

    # Slow paths, entered with an empty stack (regions override these).
    def slow_load(self, push_address: Callable[[], None], at: int) -> None:
        """Push what the machine reads at an address >= xFE00 or not yet wrapped."""
        e = self.e

        def wrapped_address() -> None:
            push_address()
            e.const(WORD_MASK)
            e.binary(BinaryOp.AND)

        self.sync()
        self.call(contract.LOAD, wrapped_address, at)

    def slow_store(self, push_address: Callable[[], None], push_value: Callable[[], None], at: int) -> None:
        """A store into a watched word: a device, code, or an address not yet wrapped."""
        e = self.e
        self.sync()
        self.call(contract.STORE, push_address, push_value, at)
        e.pop()
        if self.cc_local:  # a store into the PSR (xFFFC) sets the codes
            e.global_(contract.MACHINE)
            e.load_attr(contract.CODES)
            e.store("cc")

    def address_checked(self, baser: int, offset: int) -> None:
        """After the fast path of a load or store at BaseR + offset, which only addresses
        below xFE00 take (the write map watches every word from there on), BaseR's bounds
        say so: an increment of a pointer just used then needs no wrap. (Not where the
        address was wrapped and tried again: BaseR itself was not, unless offset is 0.)"""
        lo, hi = self.range_of(baser)
        if self.SLOW_PATHS_LEAVE and (0 <= lo + offset <= hi + offset <= WORD_MASK or not offset):
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
        dead = self.dead_codes(block)
        self.exact = self.exact_results(block)
        self.unread = self.unread_results(block)
        self.ranges = self.entry_ranges(block)
        self.cc_alias = self.entry_alias(block)
        for index, ins in enumerate(block.instructions):
            self.index = index
            self.cc_dead = dead[index]
            self.e.line = ins.address
            entered = index == 0 or user_address(block.instructions[index - 1].address)
            if self.access_control and entered and not user_address(ins.address):
                self.fetch_check(ins.address)
            EMITTERS[ins.form.name](self, ins)
        if not self.exited:
            self.exit_to(block.last.next_pc)

    def dead_codes(self, block: Block) -> list[bool]:
        """For each instruction: are the codes it sets set again before anything sees them?

        Only register-to-register instructions lie between two such setters: a load,
        a store or a check may leave the block, which then writes the codes back.
        """
        dead, overwritten = [], False
        for ins in reversed(block.instructions):
            dead.append(overwritten)
            if ins.form.name not in REGISTER_ONLY or self.access_control:
                overwritten = False
            elif ins.sets_cc(self.edition):
                overwritten = True
        return dead[::-1]

    def entry_ranges(self, block: Block) -> dict[int, tuple[int, int]]:
        """The bounds of the registers' locals where the block starts: words, from R."""
        return {}

    def word_reads(self, ins: Instruction) -> set[int]:
        """The registers an instruction that is not register-to-register reads as words: a
        value stored, a jump's target, a base address (regions: see ADDRESS_BOUNDS)."""
        fields = (
            (ins.sr,) if self.SLOW_PATHS_LEAVE and ins.form.name in ("LDR", "STR") else (ins.sr, ins.baser)
        )
        return {r for r in fields if r is not None}

    def unread_results(self, block: Block) -> list[bool]:
        """For each instruction: is the value it writes read by nothing after it (in the
        block, or where `wanted_after` says), the codes it sets aside?"""
        unread, live = [], set(self.wanted_after(block))
        for ins in reversed(block.instructions):
            unread.append(ins.dr is not None and ins.dr not in live)
            live = (live - register_writes(ins)) | register_reads(ins)
        return unread[::-1]

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
        """For each instruction: must the value it writes be a 16-bit word at once?

        Register-to-register arithmetic is right modulo 2^16 whatever the size of its
        operands, so a sum can stay unwrapped while only such instructions (and branches,
        through tables) read it. It is wrapped where something reads it as a word (an
        address, a value stored, a jump's target) or after the block where
        `wanted_after` says so, and never if it is overwritten first: 5x computed as
        x + x, twice, then + x, wraps once. A way out (a slow path, an exit, a helper)
        wraps the values it writes back, out of the way of the fast path. Under access
        control every instruction that is not register-to-register still wants every
        register as a word.
        """
        exact, wanted = [], set(self.wanted_after(block))  # registers read as words later on
        for ins in reversed(block.instructions):
            if ins.form.name in REGISTER_ONLY and not self.access_control:
                exact.append(ins.dr in wanted)
                wanted.discard(ins.dr)
            elif self.access_control:
                exact.append(True)
                wanted = set(ALL_REGISTERS)
            else:
                exact.append(True)
                wanted.discard(ins.dr)
                wanted |= self.word_reads(ins)
        return exact[::-1]

    def fetch_check(self, at: int) -> None:
        """In user mode, the word at `at` may not be fetched: `FETCH` takes the exception."""
        e, allowed = self.e, Label()
        e.global_(contract.MACHINE)
        e.load_attr(contract.PRIVILEGE)
        e.const(PSR_USER)
        e.compare(Compare.GE)
        e.jump_if_false(allowed)
        self.sync()
        self.call(contract.FETCH, at)
        e.pop()
        e.place(allowed)

    def compile(self) -> CodeType:
        self.emit_block(self.block)
        prologue = Emitter("prologue", self.block.start)
        load_registers(prologue, self.loaded)
        self.e.code[1:1] = prologue.code[1:]  # after RESUME
        return self.e.to_code(("pc",))


def register_reads(ins: Instruction) -> set[int]:
    """The registers an instruction reads, for liveness: AND R, R, #0 reads none, and a
    TRAP reads R (written back, wrapped, before it), not the locals."""
    if ins.form.name == "ANDI" and not ins.imm5:
        return set()
    return {r for field in READ_REGISTER_FIELDS if (r := getattr(ins, field)) is not None}


def register_writes(ins: Instruction) -> set[int]:
    """The registers whose locals an instruction sets: JSR and JSRR set R7, and a TRAP
    that comes back inside the region reloads them all from R."""
    name = ins.form.name
    if name == "TRAP":
        return set(range(8))
    if name in ("JSR", "JSRR"):
        return {7}
    return set() if ins.dr is None else {ins.dr}


def load_registers(e: Emitter, registers: Iterable[int]) -> None:
    """rN = R[N] for each register: the locals generated code keeps them in."""
    for r in sorted(registers):
        e.global_(contract.REGISTERS)
        e.const(r)
        e.subscript()
        e.store(f"r{r}")


Emit = Callable[[BlockCompiler, Instruction], None]
EMITTERS: dict[str, Emit] = {}


def emitter(name: str) -> Callable[[Emit], Emit]:
    def register(function: Emit) -> Emit:
        EMITTERS[name] = function
        return function

    return register


@emitter("ADD")
def emit_add(c: BlockCompiler, ins: Instruction) -> None:
    (lo1, hi1), (lo2, hi2) = c.range_of(ins.sr1), c.range_of(ins.sr2)
    c.push_reg(ins.sr1)
    c.push_reg(ins.sr2)
    c.e.binary(BinaryOp.ADD)
    c.result(ins.dr, True, (lo1 + lo2, hi1 + hi2))


@emitter("ADDI")
def emit_addi(c: BlockCompiler, ins: Instruction) -> None:
    """A difference that only a branch reads, and that could fall below 0, is computed as
    a sum with 2^16 - k: the same modulo 2^16, and never negative, so the branch tests it
    through a table without a wrap (see branch_test). One read as a number subtracts k:
    its wrap then rarely adds."""
    lo, hi = c.range_of(ins.sr1)
    imm = ins.imm5
    if imm < 0 <= lo < -imm and c.unread[c.index] and not c.exact[c.index]:
        imm += WRAP
    c.push_reg(ins.sr1)
    if imm:
        c.e.const(abs(imm))
        c.e.binary(BinaryOp.ADD if imm > 0 else BinaryOp.SUBTRACT)
    c.result(ins.dr, True, (lo + imm, hi + imm))


@emitter("AND")
def emit_and(c: BlockCompiler, ins: Instruction) -> None:
    """A word and anything is a word (`&` keeps the low 16 bits of a negative int too)."""
    if not c.is_word(ins.sr1) and not c.is_word(ins.sr2):
        c.wrap_register(ins.sr1)
    c.push_reg(ins.sr1)
    c.push_reg(ins.sr2)
    c.e.binary(BinaryOp.AND)
    c.result(ins.dr, True)


@emitter("ANDI")
def emit_andi(c: BlockCompiler, ins: Instruction) -> None:
    mask = ins.imm5 & WORD_MASK
    if mask == 0:  # AND R, R, #0: the usual way to clear a register
        c.e.const(0)
        c.result(ins.dr, True, (0, 0))
    elif mask == WORD_MASK:  # AND R, R, #-1 copies
        c.push_reg(ins.sr1)
        c.result(ins.dr, True, c.range_of(ins.sr1))
    else:
        c.push_reg(ins.sr1)
        c.e.const(mask)
        c.e.binary(BinaryOp.AND)
        c.result(ins.dr, True, (0, mask))


@emitter("NOT")
def emit_not(c: BlockCompiler, ins: Instruction) -> None:
    """NOT v is xFFFF - v modulo 2^16: from xFFFF plus as many 2^16 as keep it non-negative."""
    lo, hi = c.range_of(ins.sr)
    ones = WORD_MASK + WRAP * max(0, -(-(hi - WORD_MASK) // WRAP))
    c.e.const(ones)
    c.push_reg(ins.sr)
    c.e.binary(BinaryOp.SUBTRACT)
    c.result(ins.dr, True, (ones - hi, ones - lo))


@emitter("BR")
def emit_br(c: BlockCompiler, ins: Instruction) -> None:
    if ins.nzp == 0b111:
        c.exit_to(ins.target)
    elif ins.nzp == 0:
        c.exit_to(ins.next_pc)
    else:
        test, when = branch_test(ins.nzp, c.cc_range())
        if test == "wrap":  # a long chain of sums, beyond the tables
            c.wrap_register(c.cc_alias)  # type: ignore[arg-type]
            test, when = branch_test(ins.nzp, c.cc_range())
        if isinstance(test, str):
            c.push_table(test)
            c.push_cc()
            c.e.subscript()
        else:
            c.push_cc()
            if test is not None:
                c.e.const(test[1])
                c.e.compare(test[0])
        alias = c.cc_alias
        taken, fallen = branch_bounds(ins.nzp, c.cc_range()) if alias is not None else (None, None)
        c.exit_if(ins.target, when, test is not None, {alias: taken} if taken else EMPTY)  # type: ignore[dict-item]
        if fallen:
            c.ranges[alias] = fallen  # type: ignore[index]
        c.exit_to(ins.next_pc)


def branch_bounds(nzp: int, bounds: tuple[int, int]) -> tuple[tuple[int, int] | None, ...]:
    """The bounds of a word that set the codes on each way out of BR (nzp): taken, then
    not; None where the way tells nothing (or the value is not a word yet)."""
    lo, hi = bounds
    if lo < 0 or hi > WORD_MASK:
        return None, None

    def within(mask: int) -> tuple[int, int] | None:
        if mask not in CODES_INTERVAL:
            return None
        low, high = max(lo, CODES_INTERVAL[mask][0]), min(hi, CODES_INTERVAL[mask][1])
        return (low, high) if low <= high else None

    return within(nzp), within(~nzp & 0b111)


def branch_test(nzp: int, bounds: tuple[int, int]) -> tuple[Test, bool]:
    """The test of BR (nzp) on a value within bounds, and the truth that takes the branch:
    on a word, a comparison or its truth; on a sum not wrapped yet, a table, or its truth
    for BRz and BRnp where it cannot reach +-2^16 (there it is 0 only where the word is
    0); "wrap" where neither will do (the value must be wrapped first)."""
    word_test, word_when, table, table_when = BRANCH_TESTS[nzp]
    lo, hi = bounds
    if (lo >= 0 and hi <= WORD_MASK) or (word_test is None and lo > -WRAP and hi < WRAP):
        return word_test, word_when
    if lo >= -SIGN and hi < SIGN:
        return SIGNED_TESTS[nzp]
    if CODE_TABLE_RANGE[0] <= lo and hi <= CODE_TABLE_RANGE[1]:
        return table, table_when
    return "wrap", False


@emitter("JMP")
def emit_jmp(c: BlockCompiler, ins: Instruction) -> None:
    c.exit_to_register(ins)


@emitter("JSR")
def emit_jsr(c: BlockCompiler, ins: Instruction) -> None:
    c.e.const(ins.next_pc)
    c.result(7, False, (ins.next_pc, ins.next_pc))
    c.exit_to(ins.target)


@emitter("JSRR")
def emit_jsrr(c: BlockCompiler, ins: Instruction) -> None:
    c.push_reg(ins.baser)  # read before R7 changes: JSRR R7 jumps to the old R7
    c.e.const(ins.next_pc)
    c.result(7, False, (ins.next_pc, ins.next_pc))
    c.exit_with_top(ins)


@emitter("LD")
def emit_ld(c: BlockCompiler, ins: Instruction) -> None:
    c.load_const_address(ins.target, ins.address)
    c.result(ins.dr, True)


@emitter("LDI")
def emit_ldi(c: BlockCompiler, ins: Instruction) -> None:
    c.load_const_address(ins.target, ins.address)
    c.e.store("a")
    c.load_computed_address("a", FULL, ins.address)
    c.result(ins.dr, True)


@emitter("LDR")
def emit_ldr(c: BlockCompiler, ins: Instruction) -> None:
    address, bounds = c.base_plus_offset(ins.baser, ins.offset6)
    c.load_computed_address(address, bounds, ins.address)
    c.address_checked(ins.baser, ins.offset6)
    c.result(ins.dr, True)


@emitter("LEA")
def emit_lea(c: BlockCompiler, ins: Instruction) -> None:
    c.e.const(ins.target)
    c.result(ins.dr, ins.sets_cc(c.edition), (ins.target, ins.target))


@emitter("ST")
def emit_st(c: BlockCompiler, ins: Instruction) -> None:
    c.store(ins.target, lambda: c.push_reg(ins.sr), ins.address)


@emitter("STI")
def emit_sti(c: BlockCompiler, ins: Instruction) -> None:
    c.load_const_address(ins.target, ins.address)
    c.e.store("a")
    c.store("a", lambda: c.push_reg(ins.sr), ins.address)


@emitter("STR")
def emit_str(c: BlockCompiler, ins: Instruction) -> None:
    address, bounds = c.base_plus_offset(ins.baser, ins.offset6)
    c.store(address, lambda: c.push_reg(ins.sr), ins.address, bounds)
    c.address_checked(ins.baser, ins.offset6)


@emitter("TRAP")
def emit_trap(c: BlockCompiler, ins: Instruction) -> None:
    c.exit_through(contract.TRAP, ins.trapvect8, ins.address)


@emitter("RTI")
def emit_rti(c: BlockCompiler, ins: Instruction) -> None:
    c.exit_through(contract.RTI, ins.address)


@emitter("RESERVED")
def emit_reserved(c: BlockCompiler, ins: Instruction) -> None:
    c.exit_through(contract.ILLEGAL, ins.word, ins.address)


def compile_block(block: Block, edition: int, access_control: bool = False) -> CodeType:
    return BlockCompiler(block, edition, access_control).compile()


def make_function(
    code: CodeType, namespace: dict[str, object], defaults: tuple[int, ...] = ()
) -> Callable[[int], int]:
    """Bind generated code to a machine's namespace (see runtime.dispatch)."""
    return FunctionType(code, namespace, code.co_name, defaults or None)  # type: ignore[return-value]
