"""The machine state every engine shares: memory, registers, PSR, devices, write map.
What the device registers do (the keyboard, the display, MCR) is runtime.devices', the
half of the Machine that talks to the console.

Condition codes are kept lazily, as the 16-bit value that last set them (`ccv`): the
interpreter and translated code alike store the value and test its sign only when a
branch or the PSR needs N, Z, P (architecture doc, "condition codes lazily").

Every store first looks at the write map `watch`, one small int per word (a list, not a
bytearray: CPython specialises indexing a list, 5 ns a store on 3.11): 0 is plain data;
otherwise the word is a device register, has been decoded or translated, or (under an
OS in the 3rd edition) is closed to user mode, and the store takes the slow path, which
checks the privilege and tells the engines what to forget.

Full-system mode (an OS image loaded) turns the host traps off and, in the 3rd edition,
access control on: a user-mode access to x0000-x2FFF or xFE00-xFFFF (load, store or
instruction fetch, as LC3Tools checks them) takes the access-control violation x02.
"""

from __future__ import annotations

from itertools import repeat

from .console import Console
from .devices import (  # noqa: F401 - the device page's names, where the engines and tools find them
    DDR,
    DISPLAY_STATUS,
    DSR,
    IO_BASE,
    KBDR,
    KBSR,
    KBSR_IE,
    KBSR_READY,
    MCR,
    MCR_CLOCK,
    OS_KEY_WAIT,
    PSR_ADDR,
    WAITING_POLLS,
    Devices,
)
from .errors import Leave, MachineFault
from .isa import CC_VALUE, COND, MEMORY_WORDS, NOOP_WORDS, WORD_MASK
from .lean import cache

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    #: Called with (address, executing_instruction_address) after a store into a word that
    #: some engine holds decoded or translated; it may raise to leave translated code.
    CodeWriteHook = Callable[[int, int], None]
    #: Called with (address, value, executing_instruction_address, pushed) after a store into a
    #: word marked WATCH_OBSERVED; `pushed` when TRAP, an exception or an interrupt pushed it
    #: (not a store instruction). It may raise a Stop: the store instruction counts as run.
    StoreObserver = Callable[[int, int, int, bool], None]

#: The codes' word (`ccv`) for each value of the PSR's low 3 bits: no code set, or more
#: than one, reads as Z, as in LC3Tools.
CODES_OF_PSR = tuple(CC_VALUE.get(bits, 0) for bits in range(8))

PSR_USER = 0x8000
PSR_PRIORITY = 0x0700
TRAP_TABLE, EXCEPTION_TABLE = 0x0000, 0x0100
VECTORS = 0x100  # entries in each table
PRIVILEGE_VIOLATION, ILLEGAL_OPCODE, ACCESS_VIOLATION = 0x00, 0x01, 0x02
KEYBOARD_VECTOR, KEYBOARD_PRIORITY = 0x80, 4
INITIAL_SSP = 0x3000
USER_BASE = 0x3000  # user mode may touch x3000-xFDFF only (3rd edition, under an OS)

WATCH_DEVICE = 1  # a device register
WATCH_DECODED = 2  # the interpreter holds a decoded copy
WATCH_TRANSLATED = 4  # a translated block covers it
WATCH_GUARD = 8  # past xFFFF: see below
WATCH_PROTECTED = 16  # closed to user mode: the store checks the privilege
WATCH_OBSERVED = 32  # a debugger or a trace wants to know: `Machine.observer` sees the store
#: Every word from xFE00 on, device or not: a store there takes the slow path (a plain
#: write where no device is), so translated code that stored without it knows the address
#: was below xFE00, as it knows for a load (see codegen.BlockCompiler.address_checked).
WATCH_IO = 64
#: Nothing has stored into the word since its machine was made: set on every word of a
#: machine whose memory serves the next machine when it is closed (see recycle_memory),
#: so that the first store into each word takes the slow path, which records it.
WATCH_UNWRITTEN = 128
WATCH_CODE = WATCH_DECODED | WATCH_TRANSLATED
#: Indexed by a word's write-map flags: may the supervisor not store there inline? Any
#: flag but WATCH_PROTECTED (closed to user mode: plain data to the supervisor, as the
#: OS's saved registers and stack are). A tuple of bools, where `flags & ~WATCH_PROTECTED`
#: is a generic `&` on 3.11-3.13 (some 100 machine instructions; six a key an OS echoes).
SUPERVISOR_STORE_SLOW = tuple(  # every or of the flags, WATCH_UNWRITTEN the highest
    bool(flags & ~WATCH_PROTECTED) for flags in range(2 * WATCH_UNWRITTEN)
)

#: The write map is longer than memory: translated code indexes it with BaseR + offset6
#: before wrapping to 16 bits (BaseR itself may be a sum not wrapped yet, below 2^17),
#: and Python reads an index in -32..-1 from the end. Both land on these guard entries,
#: which are never zero, so such a store takes the slow path, which wraps the address.
#: Memory itself needs no guard: a negative index wraps, a load checks the address.
GUARD_WORDS = MEMORY_WORDS + 32

#: The most no-op words an engine runs as one step (see `Machine.noop_run_end`): it sets
#: up a run in time proportional to its length, wherever control enters it.
MAX_NOOP_RUN = 4096
#: Instructions the translators may translate for one machine, copies counted (a region
#: holds its own copy of the code it reaches), ahead of time and at run time: past it, code
#: stays interpreted. Translating a region costs about 40-60 us an instruction on 3.11
#: (under load), so this bounds what a program (random words, say) can make lc3jit spend
#: translating to a few seconds, and leaves room for all of a program that fills most of
#: memory (a 48k-word one translates about 50k instructions, copies counted); real programs
#: translate far less (2048: about 1,100 instructions). `--translation-budget` sets it.
TRANSLATION_BUDGET = 1 << 16


def user_address(address: int) -> bool:
    """May user mode touch this word when access control is on?"""
    return USER_BASE <= address < IO_BASE


def new_write_map(edition: int, access_control: bool) -> list[int]:
    """The write map of a machine just made. A megabyte of fresh pages costs a process
    about a millisecond of CPU, so it is built without a temporary list as long as itself:
    the guard is appended from `itertools.repeat`. Three temporaries and a copy of a cached
    map had cost a plain run three times what this costs (4.9 -> 1.8 ms on 3.11)."""
    protected = WATCH_PROTECTED if access_control else 0
    watch = [0] * IO_BASE
    if protected:
        watch[:USER_BASE] = [protected] * USER_BASE
    watch += [WATCH_IO | protected] * (MEMORY_WORDS - IO_BASE)
    watch.extend(repeat(WATCH_GUARD, GUARD_WORDS))
    for address in (KBSR, KBDR, DSR, DDR, MCR) + ((PSR_ADDR,) if edition == 3 else ()):
        watch[address] |= WATCH_DEVICE
    return watch


#: A new map to copy, for the machines made after the first of their kind: a copy costs a
#: third of building one once the process has the pages (a grader makes a machine a test).
fresh_write_map = cache(new_write_map)


#: Write maps of closed machines, by edition and access control, for the next machines
#: made: resetting the words a machine marked (Machine.mark) costs far less than copying a
#: fresh map and freeing it (some 200 us of a grader's 550 us test on 3.11). Two of each
#: are kept; a kind with no entry yet has had no machine made.
_SPARE_WRITE_MAPS: dict[tuple[int, bool], list[list[int]]] = {}
SPARE_WRITE_MAPS = 2


def _write_map(edition: int, access_control: bool) -> list[int]:
    """A closed machine's map, or a copy of the fresh one; the first machine of its kind
    (all a plain run makes) builds its own and no map to copy."""
    spares = _SPARE_WRITE_MAPS.get((edition, access_control))
    if spares is None:
        _SPARE_WRITE_MAPS[(edition, access_control)] = []
        return new_write_map(edition, access_control)
    return spares.pop() if spares else fresh_write_map(edition, access_control).copy()


@cache
def unwritten_write_map(edition: int, access_control: bool) -> list[int]:
    """A fresh map with every word of memory WATCH_UNWRITTEN: a recycled memory's (see
    recycle_memory), kept to copy and to reset from."""
    fresh = fresh_write_map(edition, access_control)
    return [flags | WATCH_UNWRITTEN for flags in fresh[:MEMORY_WORDS]] + fresh[MEMORY_WORDS:]


#: While a process recycles machines' memory (recycle_memory), the memories of closed
#: machines with their write maps, by edition and access control, as a new machine's:
#: every word zero, every flag as fresh. None while it does not.
_SPARE_MEMORIES: dict[tuple[int, bool], list[tuple[list[int] | None, list[int]]]] | None = None
SPARE_MEMORIES = 2
#: Words written past which a closed machine's memory is let go and the next made anew:
#: zeroing a word in place costs about twice what making and freeing one does (a seed's
#: fill writes 65,000).
ZERO_AT_MOST = MEMORY_WORDS // 4


def recycle_memory(on: bool) -> None:
    """From now on (on) the memory of a machine made and closed serves a machine made after
    it, or no longer (off; the memories kept are let go). For a process that makes a
    machine after another (a grader makes one a test): making 65,536 words and freeing them
    cost a grader's test a tenth of its CPU, while a test writes a few dozen. Such a
    machine's write map marks every word WATCH_UNWRITTEN, so that the first store into a
    word takes the slow path, which records it (`marked`) and clears the mark; loading
    records what it loads. Closed, the machine zeroes what was recorded and resets its
    flags: the next machine finds memory as a new one's. Every store looks at the write
    map first (the engines' contract), which is what makes the record whole."""
    global _SPARE_MEMORIES
    _SPARE_MEMORIES = {} if on else None


def _memory(edition: int, access_control: bool) -> tuple[list[int], list[int], Spans]:
    """A new machine's memory, write map and record of what it marks and writes (Recorded
    when its memory serves the next machine once it is closed)."""
    if _SPARE_MEMORIES is None:
        return [0] * MEMORY_WORDS, _write_map(edition, access_control), Spans()
    spares = _SPARE_MEMORIES.setdefault((edition, access_control), [])
    if spares:
        kept, watch = spares.pop()
        memory = [0] * MEMORY_WORDS if kept is None else kept
    else:
        memory, watch = [0] * MEMORY_WORDS, unwritten_write_map(edition, access_control).copy()
    return memory, watch, Recorded()


@cache
def _with_flag(flag: int) -> bytes:
    """bytes.translate's table for Machine.mark: each write map's flags with flag set."""
    return bytes(flags | flag for flags in range(256))


class Spans:
    """Where a table as long as memory was written since it was fresh, so that making it
    fresh again (for the next machine) costs what was written, not the whole table: a
    grader's test writes a few dozen spans. Past MAX_SPANS of them, all of it."""

    __slots__ = ("spans",)

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] | None = []

    def add(self, start: int, end: int) -> None:
        spans = self.spans
        if spans is not None:
            if spans and spans[-1][1] == start:  # the words after the last span: one span
                spans[-1] = (spans[-1][0], end)
            elif len(spans) < MAX_SPANS:
                spans.append((start, end))
            else:
                self.spans = None

    def taken(self) -> list[tuple[int, int]]:
        """The spans written (all of memory past MAX_SPANS), forgotten: the table is fresh again."""
        spans, self.spans = self.spans, []
        return [(0, MEMORY_WORDS)] if spans is None else spans

    def wrote(self, start: int, end: int) -> bool:
        """Memory's words start..end-1 were written: nothing to keep for a machine whose
        memory goes when it is closed (see Recorded). Is all of memory written, past
        MAX_SPANS spans?"""
        return False


MAX_SPANS = 256


class Recorded(Spans):
    """A write map's marks, and where memory was written (`words`): a machine's whose memory
    serves the next machine (recycle_memory)."""

    __slots__ = ("words",)

    def __init__(self) -> None:
        super().__init__()
        self.words = Spans()

    def wrote(self, start: int, end: int) -> bool:
        words = self.words
        words.add(start, end)
        return words.spans is None


#: bytes.translate's table: a write map's flags without WATCH_UNWRITTEN.
_WITHOUT_UNWRITTEN = bytes(flags & ~WATCH_UNWRITTEN for flags in range(256))


def spans_of(addresses: Iterable[int]) -> list[tuple[int, int]]:
    """The addresses (in order) as spans (start, end) of consecutive words."""
    spans: list[tuple[int, int]] = []
    for address in addresses:
        if spans and spans[-1][1] == address:
            spans[-1] = (spans[-1][0], address + 1)
        else:
            spans.append((address, address + 1))
    return spans


class Machine(Devices):
    """An LC-3: 65,536 words, R0-R7, PC, PSR, the saved stack pointers, the devices."""

    def __init__(self, console: Console, edition: int = 3, full_system: bool = False) -> None:
        if edition not in (2, 3):
            raise ValueError(f"edition must be 2 or 3, not {edition}")
        self.edition = edition
        self.console = console
        self.host_traps = not full_system  # under an OS image every TRAP goes through the table
        self.reg = [0] * 8
        self.pc = 0x3000
        self.icount = 0  # instructions executed, by every engine, exactly
        self.ccv = CC_VALUE[0b010]  # initial codes: Z
        self.psr_mode = 0  # PSR without the codes: privilege and priority (x0002 = host mode)
        self.saved_ssp = INITIAL_SSP
        self.saved_usp = 0
        self.kbsr_ie = 0
        self.kbd_latch = None
        self.kbdr = 0
        self.empty_polls = 0
        self.written_at_poll = 0
        self.key_wait_below = USER_BASE if full_system else 0
        self.mcr = MCR_CLOCK
        # `marked`: where flags changed in the write map (`mark`), and, recycled, where
        # memory was written: what close() resets for the next machine
        self.mem, self.watch, self.marked = _memory(edition, self.access_control)
        self.code_write_hooks: list[CodeWriteHook] = []
        self.code_writes = 0  # stores into words some engine holds decoded or translated
        # An ending asked for from outside the program (a signal, a lost display), and
        # what each engine does to take it before its next instruction.
        self.ending = None
        self.held = None
        self.stop_hooks = []
        console.when_lost = self._output_lost
        console.when_full = self._output_full
        self.observer: StoreObserver | None = None
        # Addresses the program's symbol table names (.sym or the assembler): translators
        # start blocks there. Knowledge about the loaded program, like memory contents.
        self.labels: frozenset[int] = frozenset()
        self.translation_budget = TRANSLATION_BUDGET  # instructions left to translate
        # Where the run began, for translators built after it began (lc3jit's tiered start):
        # they translate from there, not from the PC reached. None: from the PC.
        self.start_pc: int | None = None
        # Under an OS: the user program's first address, where the OS's start-up code enters
        # it (by RTI). Translators root a region there too, as at the start PC: reached only
        # through the OS, it would otherwise wait to get hot and be translated mid-run.
        self.program_entry: int | None = None

    @property
    def access_control(self) -> bool:
        """User mode may touch only x3000-xFDFF: under an OS, in the 3rd edition. Asked when
        code is decoded or bound, never an instruction: derived, so that a machine keeps to
        the 30 attributes whose keys CPython shares (tests/test_full_system.py)."""
        return not self.host_traps and self.edition == 3

    # The PSR, assembled from its parts.
    @property
    def psr(self) -> int:
        return self.psr_mode | COND[self.ccv]

    @psr.setter
    def psr(self, value: int) -> None:
        self.psr_mode = value & (PSR_USER | PSR_PRIORITY)
        self.ccv = CODES_OF_PSR[value & 0b111]

    @property
    def cond(self) -> int:
        return COND[self.ccv]

    @property
    def user_mode(self) -> bool:
        return bool(self.psr_mode & PSR_USER)

    def close(self) -> None:
        """Done for good: memory emptied, the write map given to the next machine made (or,
        while memory is recycled, both: see recycle_memory).

        A machine and its engines hold each other in reference cycles (the write map's
        hooks, steps bound to the machine), so memory would wait for the collector, which
        walks it at every pass until then. Nothing may run or read the machine after.
        """
        memory, self.mem = self.mem, []
        watch, self.watch = self.watch, []
        kind = (self.edition, self.access_control)
        if isinstance(self.marked, Recorded):
            spares = _SPARE_MEMORIES.get(kind) if _SPARE_MEMORIES is not None else None
            if watch and spares is not None and len(spares) < SPARE_MEMORIES:
                fresh = unwritten_write_map(*kind)  # (guards never marked)
                for start, end in self.marked.taken():
                    watch[start:end] = fresh[start:end]
                written = self.marked.words.taken()
                if sum(end - start for start, end in written) > ZERO_AT_MOST:
                    memory.clear()  # (the next machine makes its memory anew)
                    spares.append((None, watch))
                    return
                for start, end in written:
                    memory[start:end] = [0] * (end - start)
                spares.append((memory, watch))
                return
            memory.clear()
            return
        memory.clear()
        spares = _SPARE_WRITE_MAPS.setdefault(kind, [])
        if watch and len(spares) < SPARE_WRITE_MAPS:
            fresh = fresh_write_map(*kind)  # (guards never marked)
            for start, end in self.marked.taken():
                watch[start:end] = fresh[start:end]
            spares.append(watch)

    def mark(self, start: int, end: int, flag: int) -> None:
        """Set flag in the write map's words start..end-1: the one way engines and watches
        set flags (clearing them is theirs to do), so close() knows what to reset."""
        watch = self.watch
        if end - start == 1:
            watch[start] |= flag
        else:  # every word's flags (all below 128) at C speed: a grader's strict mode marks 65,024
            watch[start:end] = bytes(watch[start:end]).translate(_with_flag(flag))
        self.marked.add(start, end)

    def load_words(self, origin: int, words: list[int] | tuple[int, ...]) -> None:
        """Place words in memory from origin, as a loader does (no devices, no hooks)."""
        end = origin + len(words)
        self.mem[origin:end] = words
        self.marked.wrote(origin, end)
        if any(flags & WATCH_CODE for flags in set(self.watch[origin:end])):  # a few flags, at C speed
            for address in range(origin, end):
                if self.watch[address] & WATCH_CODE:
                    self._forget_code(address, address)

    def noop_run_end(self, pc: int) -> int:
        """Where the run of no-op words (isa.NOOP_WORDS) from pc ends: pc itself when the
        word at pc is not one, or when fetching it may need an access-control check.

        Such a run does nothing but count, so it runs straight through: an engine may run
        it as one step. It stops at xFE00 and at MAX_NOOP_RUN words.
        """
        mem = self.mem
        if mem[pc] >= NOOP_WORDS or (self.access_control and not user_address(pc)):
            return pc
        stop = min(pc + MAX_NOOP_RUN, IO_BASE if pc < IO_BASE else MEMORY_WORDS)
        end = pc + 1
        while end + 64 <= stop and max(mem[end : end + 64]) < NOOP_WORDS:  # 64 words at C speed
            end += 64
        while end < stop and mem[end] < NOOP_WORDS:
            end += 1
        return end

    # Memory as instructions see it.
    def load(self, address: int, at: int) -> int:
        return self.load_io(address, at) if address >= IO_BASE else self.mem[address]

    def store(self, address: int, value: int, at: int) -> None:
        if self.watch[address]:
            self.store_slow(address, value, at)
        else:
            self.mem[address] = value

    def load_checked(self, address: int, at: int) -> int:
        """A load with access control: user mode outside x3000-xFDFF takes the exception."""
        if self.psr_mode & PSR_USER and not USER_BASE <= address < IO_BASE:
            raise Leave(at, self.access_violation(address, at))
        return self.load(address, at)

    def store_slow(self, address: int, value: int, at: int, pushed: bool = False) -> None:
        """A store into a device register, a word some engine holds as code, a protected
        word, or a word observed by a debugger or a trace."""
        flags = self.watch[address]
        if flags & WATCH_PROTECTED and self.psr_mode & PSR_USER:
            raise Leave(at, self.access_violation(address, at))
        if flags & WATCH_DEVICE:
            self._store_device(address, value, at)
            return
        self.mem[address] = value
        if flags & WATCH_UNWRITTEN:
            self._first_store(address, flags)
        if flags & WATCH_CODE:
            self._forget_code(address, at)
        if flags & WATCH_OBSERVED and self.observer is not None:
            self.observer(address, value, at, pushed)

    def _first_store(self, address: int, flags: int) -> None:
        """The first store into a word of a recycled memory: recorded for close() (see
        recycle_memory), its mark cleared. Past MAX_SPANS of them, close() zeroes all of
        memory: every mark is cleared at once, and no store need say more."""
        marked, watch = self.marked, self.watch
        if marked.wrote(address, address + 1):
            watch[:MEMORY_WORDS] = bytes(watch[:MEMORY_WORDS]).translate(_WITHOUT_UNWRITTEN)
            marked.add(0, MEMORY_WORDS)
        else:
            watch[address] = flags & ~WATCH_UNWRITTEN
            marked.add(address, address + 1)

    def _forget_code(self, address: int, at: int) -> None:
        self.code_writes += 1
        self.watch[address] &= ~WATCH_CODE
        for hook in self.code_write_hooks:
            hook(address, at)

    # Entering and leaving the supervisor: TRAP (3rd edition), exceptions, interrupts, RTI.
    # Every OS call runs these twice (TRAP in, RTI out), so they read the machine's fields
    # directly rather than through the properties and `load`/`store`.
    def push(self, value: int, at: int) -> None:
        """A push onto the supervisor stack (the privilege is the supervisor's already: a
        word closed to user mode is written plainly)."""
        sp = self.reg[6] = (self.reg[6] - 1) & WORD_MASK
        if self.watch[sp] & ~WATCH_PROTECTED:
            self.store_slow(sp, value, at, pushed=True)
        else:
            self.mem[sp] = value

    def pop(self, at: int) -> int:
        sp = self.reg[6]
        self.reg[6] = (sp + 1) & WORD_MASK
        return self.load_io(sp, at) if sp >= IO_BASE else self.mem[sp]

    def enter_supervisor(
        self, vector_address: int, return_pc: int, at: int, priority: int | None = None
    ) -> int:
        """Push PSR and PC on the supervisor stack and return the handler's address.

        The pushes are stores like any other: onto code (R6 aimed at the program) they
        drop its translations, and the instruction (TRAP, or one taking an exception)
        then leaves translated code, which may be running those very words, as a store
        into code does. An interrupt (`priority`) is taken between instructions, where
        no translated code runs."""
        mode, reg, watch, mem = self.psr_mode, self.reg, self.watch, self.mem
        sp = self.saved_ssp if mode & PSR_USER else reg[6]
        below, under = (sp - 1) & WORD_MASK, (sp - 2) & WORD_MASK
        if (watch[below] | watch[under]) & ~WATCH_PROTECTED:  # a device, code, an observer
            return self._enter_watched(vector_address, return_pc, at, priority, sp)
        if mode & PSR_USER:
            self.saved_usp = reg[6]
        self.psr_mode = mode & PSR_PRIORITY if priority is None else priority << 8
        mem[below] = mode | COND[self.ccv]  # in supervisor mode now: the stack is closed to user mode
        mem[under] = return_pc
        reg[6] = under
        return mem[vector_address]

    def trap_through_table(self, vector: int, at: int) -> int:
        """TRAP to the routine the vector table names (every TRAP under an OS): the 2nd
        edition's sets R7, the 3rd's enters the supervisor. Returns the routine's address.
        Translated code calls it directly while KBSR[14] is clear (Dispatcher.bind_os_calls)."""
        routine = self.mem[TRAP_TABLE + vector]
        if routine == 0:  # no routine: not a run through zeroed memory to x0000
            what = "unknown trap vector" if self.host_traps else "undefined trap"  # as the textbook's OS says
            raise MachineFault(at, False, f"{what} x{vector:02X} at x{at:04X}")
        if self.edition == 2:
            self.reg[7] = (at + 1) & WORD_MASK
            return routine
        return self.enter_supervisor(TRAP_TABLE + vector, (at + 1) & WORD_MASK, at)

    def _enter_watched(
        self, vector_address: int, return_pc: int, at: int, priority: int | None, sp: int
    ) -> int:
        """`enter_supervisor` where a push lands on a watched word: each push a store."""
        watch = self.watch
        if watch[(sp - 1) & WORD_MASK] & WATCH_DEVICE or watch[(sp - 2) & WORD_MASK] & WATCH_DEVICE:
            self._stack_fault(vector_address, at, sp)
        psr = self.psr
        if self.user_mode:
            self.saved_usp = self.reg[6]
            self.reg[6] = sp
        self.psr_mode = self.psr_mode & PSR_PRIORITY if priority is None else priority << 8
        code_writes = self.code_writes
        self.push(psr, at)
        self.push(return_pc, at)
        handler = self.mem[vector_address]
        if self.code_writes != code_writes and priority is None:
            raise Leave(at, handler)
        return handler

    def _stack_fault(self, vector_address: int, at: int, sp: int) -> None:
        """A push of PSR and PC onto a device register is a fault, before anything changes.

        Without an OS the program runs in supervisor mode with R6 = x0000 unless it set
        a stack: a TRAP through a routine it installed (3rd edition) would push its return
        address onto MCR, which stops the clock, and end the run silently as if it halted.
        """
        below = ((sp - 1) & WORD_MASK, (sp - 2) & WORD_MASK)
        address = next(a for a in below if self.watch[a] & WATCH_DEVICE)
        if vector_address < EXCEPTION_TABLE:
            what = f"TRAP x{vector_address:02X}"
        elif vector_address == EXCEPTION_TABLE + KEYBOARD_VECTOR:
            what = "the keyboard interrupt"
        else:
            what = f"the exception through x{vector_address:04X}"
        raise MachineFault(
            at,
            False,
            f"{what} at x{at:04X} would push PSR and PC onto the device register at "
            f"x{address:04X} (the supervisor stack pointer is x{sp:04X}): set R6 to a stack first",
        )

    def exception(self, vector: int, at: int, message: str) -> int:
        """Take exception `vector` through the table, or fault if nothing handles it."""
        if self.mem[EXCEPTION_TABLE + vector] == 0:
            raise MachineFault(at, False, f"{message} at x{at:04X}")
        return self.enter_supervisor(EXCEPTION_TABLE + vector, (at + 1) & WORD_MASK, at)

    def access_violation(self, address: int, at: int) -> int:
        """Take the access-control violation for user mode touching address."""
        message = f"access-control violation: user mode touched x{address:04X}"
        return self.exception(ACCESS_VIOLATION, at, message)

    def fetch_violation(self, at: int) -> None:
        """User mode fetching an instruction at a protected address: take the exception."""
        if self.psr_mode & PSR_USER:
            raise Leave(at, self.access_violation(at, at))

    def interrupt_pending(self) -> bool:
        """KBSR[14] set, a key waiting, and the priority below the keyboard's."""
        below = self.psr_mode & PSR_PRIORITY < KEYBOARD_PRIORITY << 8
        return bool(self.kbsr_ie) and below and self.key_waiting()

    def take_interrupt(self, pc: int) -> int:
        """Enter the keyboard interrupt before the instruction at pc; the handler's address."""
        if self.mem[EXCEPTION_TABLE + KEYBOARD_VECTOR] == 0:
            raise MachineFault(pc, False, f"keyboard interrupt with no handler at x0180, at x{pc:04X}")
        return self.enter_supervisor(EXCEPTION_TABLE + KEYBOARD_VECTOR, pc, pc, KEYBOARD_PRIORITY)

    def return_from_interrupt(self, at: int) -> int:
        """RTI: pop PC and PSR; back to user mode swaps R6 to the user stack."""
        if self.psr_mode & PSR_USER:
            return self.exception(PRIVILEGE_VIOLATION, at, "RTI in user mode")
        reg, mem = self.reg, self.mem
        sp = reg[6]
        if sp < IO_BASE - 1:  # both words memory, not device registers
            pc, psr = mem[sp], mem[sp + 1]
            sp += 2
        else:
            pc = self.pop(at)
            psr = self.pop(at)
            sp = reg[6]
        self.psr_mode = psr & (PSR_USER | PSR_PRIORITY)  # the `psr` setter, inline (twice as fast)
        self.ccv = CODES_OF_PSR[psr & 0b111]
        if psr & PSR_USER:
            self.saved_ssp = sp
            sp = self.saved_usp
        reg[6] = sp
        return pc

    def snapshot(self) -> dict[str, object]:
        """The architectural state, for comparing engines and for --state-json."""
        return {
            "registers": list(self.reg),
            "pc": self.pc,
            "psr": self.psr,
            "cond": "".join(c for c, bit in zip("NZP", (4, 2, 1), strict=True) if self.cond & bit),
            "saved_ssp": self.saved_ssp,
            "saved_usp": self.saved_usp,
        }
