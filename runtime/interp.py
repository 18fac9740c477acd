"""The reference interpreter: the oracle every translation is checked against.

Each instruction form of the ISA table has one `execute_*` handler, registered by the
table's name. A handler reads like Appendix A, but it runs in two steps: given the
decoded instruction it binds the operands once and returns a small `step` function that
does the work. Steps are cached by address (pre-decoding), so a loop decodes each word
once; a store into a decoded word drops its step through the write map.

Checks that only full-system machines need are bound at decode time, so host-trap runs
never pay for them: with access control, loads get a checking variant and words outside
x3000-xFDFF a fetch check (stores are checked by the write map). Interrupts are looked
for before each instruction only while KBSR[14] is set; setting it leaves the fast loop.
"""

from __future__ import annotations

from .errors import Breakpoint, Leave, Stop, StopRequested
from .isa import COND, MEMORY_WORDS, NOOP_WORDS, WORD_MASK, Instruction, decode
from .machine import ILLEGAL_OPCODE, IO_BASE, WATCH_DECODED, Machine, Spans, user_address
from .outcome import STEP_LIMIT, UNLIMITED, Outcome
from .traps import trap

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable

    #: One instruction, bound to its operands: called with its own address, returns the next PC.
    Step = Callable[[int], int]
    Handler = Callable[[Machine, Instruction], Step]

HANDLERS: dict[str, Handler] = {}


def handler(name: str) -> Callable[[Handler], Handler]:
    def register(function: Handler) -> Handler:
        HANDLERS[name] = function
        return function

    return register


def _reader(m: Machine, at: int) -> Callable[[int], int]:
    """Memory as a load instruction sees it: device registers live at xFE00 and up."""
    if m.access_control:
        load_checked = m.load_checked
        return lambda address: load_checked(address, at)
    mem, load_io = m.mem, m.load_io

    def read(address: int) -> int:
        return load_io(address, at) if address >= IO_BASE else mem[address]

    return read


def _writer(m: Machine, at: int) -> Callable[[int, int], None]:
    """Memory as a store instruction sees it: watched words take the slow path."""
    mem, watch, store_slow = m.mem, m.watch, m.store_slow

    def write(address: int, value: int) -> None:
        if watch[address]:
            store_slow(address, value, at)
        else:
            mem[address] = value

    return write


@handler("ADD")
def execute_add(m: Machine, ins: Instruction) -> Step:
    """DR = SR1 + SR2; setcc."""
    reg, dr, sr1, sr2, next_pc = m.reg, ins.dr, ins.sr1, ins.sr2, ins.next_pc

    def add(_: int) -> int:
        m.ccv = reg[dr] = (reg[sr1] + reg[sr2]) & WORD_MASK
        return next_pc

    return add


@handler("ADDI")
def execute_addi(m: Machine, ins: Instruction) -> Step:
    """DR = SR1 + SEXT(imm5); setcc."""
    reg, dr, sr1, imm, next_pc = m.reg, ins.dr, ins.sr1, ins.imm5 & WORD_MASK, ins.next_pc

    def addi(_: int) -> int:
        m.ccv = reg[dr] = (reg[sr1] + imm) & WORD_MASK
        return next_pc

    return addi


@handler("AND")
def execute_and(m: Machine, ins: Instruction) -> Step:
    """DR = SR1 AND SR2; setcc."""
    reg, dr, sr1, sr2, next_pc = m.reg, ins.dr, ins.sr1, ins.sr2, ins.next_pc

    def and_(_: int) -> int:
        m.ccv = reg[dr] = reg[sr1] & reg[sr2]
        return next_pc

    return and_


@handler("ANDI")
def execute_andi(m: Machine, ins: Instruction) -> Step:
    """DR = SR1 AND SEXT(imm5); setcc."""
    reg, dr, sr1, imm, next_pc = m.reg, ins.dr, ins.sr1, ins.imm5 & WORD_MASK, ins.next_pc

    def andi(_: int) -> int:
        m.ccv = reg[dr] = reg[sr1] & imm
        return next_pc

    return andi


@handler("NOT")
def execute_not(m: Machine, ins: Instruction) -> Step:
    """DR = NOT(SR); setcc."""
    reg, dr, sr, next_pc = m.reg, ins.dr, ins.sr, ins.next_pc

    def not_(_: int) -> int:
        m.ccv = reg[dr] = reg[sr] ^ WORD_MASK
        return next_pc

    return not_


@handler("BR")
def execute_br(m: Machine, ins: Instruction) -> Step:
    """if ((n AND N) OR (z AND Z) OR (p AND P)) PC = PC + SEXT(PCoffset9)."""
    nzp, target, next_pc = ins.nzp, ins.target, ins.next_pc

    def br(_: int) -> int:
        return target if COND[m.ccv] & nzp else next_pc

    return br


@handler("JMP")
def execute_jmp(m: Machine, ins: Instruction) -> Step:
    """PC = BaseR (RET is JMP R7)."""
    reg, baser = m.reg, ins.baser

    def jmp(_: int) -> int:
        return reg[baser]

    return jmp


@handler("JSR")
def execute_jsr(m: Machine, ins: Instruction) -> Step:
    """R7 = PC; PC = PC + SEXT(PCoffset11)."""
    reg, target, next_pc = m.reg, ins.target, ins.next_pc

    def jsr(_: int) -> int:
        reg[7] = next_pc
        return target

    return jsr


@handler("JSRR")
def execute_jsrr(m: Machine, ins: Instruction) -> Step:
    """TEMP = PC; PC = BaseR; R7 = TEMP (so JSRR R7 jumps to the old R7)."""
    reg, baser, next_pc = m.reg, ins.baser, ins.next_pc

    def jsrr(_: int) -> int:
        target = reg[baser]
        reg[7] = next_pc
        return target

    return jsrr


@handler("LD")
def execute_ld(m: Machine, ins: Instruction) -> Step:
    """DR = mem[PC + SEXT(PCoffset9)]; setcc."""
    reg, dr, address, next_pc, read = m.reg, ins.dr, ins.target, ins.next_pc, _reader(m, ins.address)

    def ld(_: int) -> int:
        m.ccv = reg[dr] = read(address)
        return next_pc

    if address < IO_BASE and not m.access_control:  # the common case, without the device check
        mem = m.mem

        def ld(_: int) -> int:
            m.ccv = reg[dr] = mem[address]
            return next_pc

    return ld


@handler("LDI")
def execute_ldi(m: Machine, ins: Instruction) -> Step:
    """DR = mem[mem[PC + SEXT(PCoffset9)]]; setcc."""
    reg, dr, address, next_pc, read = m.reg, ins.dr, ins.target, ins.next_pc, _reader(m, ins.address)

    def ldi(_: int) -> int:
        m.ccv = reg[dr] = read(read(address))
        return next_pc

    return ldi


@handler("LDR")
def execute_ldr(m: Machine, ins: Instruction) -> Step:
    """DR = mem[BaseR + SEXT(offset6)]; setcc."""
    reg, dr, baser, offset, next_pc = m.reg, ins.dr, ins.baser, ins.offset6, ins.next_pc
    mem, read = m.mem, _reader(m, ins.address)

    def ldr(_: int) -> int:
        address = (reg[baser] + offset) & WORD_MASK
        m.ccv = reg[dr] = mem[address] if address < IO_BASE else read(address)
        return next_pc

    def ldr_checked(_: int) -> int:
        m.ccv = reg[dr] = read((reg[baser] + offset) & WORD_MASK)
        return next_pc

    return ldr_checked if m.access_control else ldr


@handler("LEA")
def execute_lea(m: Machine, ins: Instruction) -> Step:
    """DR = PC + SEXT(PCoffset9); setcc in the 2nd edition only."""
    reg, dr, target, next_pc = m.reg, ins.dr, ins.target, ins.next_pc

    def lea(_: int) -> int:
        reg[dr] = target
        return next_pc

    def lea_setcc(_: int) -> int:
        m.ccv = reg[dr] = target
        return next_pc

    return lea_setcc if ins.sets_cc(m.edition) else lea


@handler("ST")
def execute_st(m: Machine, ins: Instruction) -> Step:
    """mem[PC + SEXT(PCoffset9)] = SR."""
    reg, sr, address, next_pc, write = m.reg, ins.sr, ins.target, ins.next_pc, _writer(m, ins.address)

    def st(_: int) -> int:
        write(address, reg[sr])
        return next_pc

    return st


@handler("STI")
def execute_sti(m: Machine, ins: Instruction) -> Step:
    """mem[mem[PC + SEXT(PCoffset9)]] = SR."""
    reg, sr, address, next_pc = m.reg, ins.sr, ins.target, ins.next_pc
    read, write = _reader(m, ins.address), _writer(m, ins.address)

    def sti(_: int) -> int:
        write(read(address), reg[sr])
        return next_pc

    return sti


@handler("STR")
def execute_str(m: Machine, ins: Instruction) -> Step:
    """mem[BaseR + SEXT(offset6)] = SR."""
    reg, sr, baser, offset, next_pc = m.reg, ins.sr, ins.baser, ins.offset6, ins.next_pc
    mem, watch, write = m.mem, m.watch, _writer(m, ins.address)

    def str_(_: int) -> int:
        address = (reg[baser] + offset) & WORD_MASK
        if watch[address]:
            write(address, reg[sr])
        else:
            mem[address] = reg[sr]
        return next_pc

    return str_


@handler("TRAP")
def execute_trap(m: Machine, ins: Instruction) -> Step:
    """Host routine, or R7/PSR saved and PC = mem[ZEXT(trapvect8)], by edition."""
    vector, at = ins.trapvect8, ins.address
    through_table = m.trap_through_table

    def trap_(_: int) -> int:
        return trap(m, vector, at)

    def os_trap(_: int) -> int:  # under an OS every TRAP goes through the table
        return through_table(vector, at)

    return trap_ if m.host_traps else os_trap


@handler("RTI")
def execute_rti(m: Machine, ins: Instruction) -> Step:
    """PC = pop; PSR = pop (supervisor mode only)."""
    at = ins.address

    def rti(_: int) -> int:
        return m.return_from_interrupt(at)

    return rti


@handler("RESERVED")
def execute_reserved(m: Machine, ins: Instruction) -> Step:
    """Opcode 1101: an illegal-opcode exception."""
    at, message = ins.address, f"illegal opcode x{ins.word:04X}"

    def reserved(_: int) -> int:
        return m.exception(ILLEGAL_OPCODE, at, message)

    return reserved


class Interpreter:
    """Runs a machine one instruction at a time through the cached steps."""

    name = "interp"

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        table = _SPARE_TABLES.pop() if _SPARE_TABLES else StepTable()
        table.interpreter = self
        self._table: StepTable | None = table
        self._miss: Step = table.miss
        self.steps: list[Step] = table.steps
        self.stops: set[int] = set()  # PCs to stop before: a debugger's breakpoints
        self.access_control = machine.access_control  # (fixed when the machine is made)
        # A stop requested before this interpreter was made (one made when first needed, as
        # the dispatcher's is) holds for it as for those its hook reached: it stops at once.
        if machine.ending is not None:
            self._stop(True)
        machine.code_write_hooks.append(self._forget)
        machine.stop_hooks.append(self._stop)

    def set_stop(self, pc: int, on: bool) -> None:
        """Stop before the instruction at pc (a breakpoint), or no longer.

        The step cached for pc raises Breakpoint instead, so the loop pays nothing for
        breakpoints it does not reach; a store into the word keeps the stop.
        """
        if on:
            self.stops.add(pc)
            self.keep(pc, pc + 1, stop_here)
        else:
            self.stops.discard(pc)
            self.keep(pc, pc + 1, self._miss)

    def noop_run_end(self, pc: int) -> int:
        """Machine.noop_run_end, ended before a stop: a run of no-ops never runs past a breakpoint."""
        end = self.machine.noop_run_end(pc)
        if self.stops and end > pc:
            end = min((stop for stop in self.stops if pc < stop < end), default=end)
        return end

    def step_at(self, pc: int) -> Step:
        """The bound step for the word at pc, decoding it if it is not cached.

        A run of no-op words gets one shared step for all its words at once, without
        decoding: a program that runs into empty memory runs at the usual speed.
        """
        step = self.steps[pc]
        if step is self._miss:
            m = self.machine
            word = m.mem[pc]
            if word < NOOP_WORDS and (end := self.noop_run_end(pc)) > pc:
                self.keep(pc, end, _noop)
                m.mark(pc, end, WATCH_DECODED)
                return _noop
            ins = decode(word, pc)
            step = HANDLERS[ins.form.name](m, ins)
            if self.access_control and not user_address(pc):
                step = _fetch_checked(m, step)
            self.keep(pc, pc + 1, step)
            m.mark(pc, pc + 1, WATCH_DECODED)
        return step

    def keep(self, start: int, end: int, step: Step) -> None:
        """Cache step for the words start..end-1: the one way the running thread writes steps.

        A stop requested from another thread (a debugger's pause, a signal) swaps every step
        for the stopper (`_stop`) at any moment, perhaps while this thread decodes a word; a
        step cached after that swap would run on, and a loop of one word never stop. So the
        step goes in first, then the stopper over it if a stop was requested meanwhile: the
        request sets `machine.ending` before it swaps, so one of the two writes comes last.
        """
        if end - start == 1:  # a word decoded: no list made for it
            self.steps[start] = step
        else:
            self.steps[start:end] = [step] * (end - start)
        if (table := self._table) is not None:
            table.written.add(start, end)
        if self.machine.ending is not None:
            self.steps[start:end] = [stop_requested] * (end - start)

    def _forget(self, address: int, at: int) -> None:
        self.keep(address, address + 1, stop_here if address in self.stops else self._miss)

    def detach(self) -> None:
        """No longer follow the machine's code writes and stop requests: another engine
        (with an interpreter of its own) runs it from now on."""
        self.machine.code_write_hooks.remove(self._forget)
        self.machine.stop_hooks.remove(self._stop)

    def _stop(self, on: bool) -> None:
        """A stop was requested: every next step raises StopRequested instead of running;
        or no longer: every word is decoded again when reached, the breakpoints kept."""
        self.steps[:] = [stop_requested if on else self._miss] * len(self.steps)
        if (table := self._table) is not None:
            table.written.add(0, len(self.steps))
        for pc in () if on else self.stops:
            self.steps[pc] = stop_here

    def close(self) -> None:
        """Done for good (its Simulator closed): the table goes to the next interpreter made.

        A table is as long as memory, and making one and freeing it cost some 110 us on
        3.11, a fifth of a grader's short test; only the words this one wrote are made
        fresh again. Nothing may run this interpreter after.
        """
        table, self._table = self._table, None
        self.steps = []  # a run after close fails rather than running another machine's steps
        if table is not None and len(_SPARE_TABLES) < SPARE_TABLES:
            table.fresh()
            _SPARE_TABLES.append(table)

    def run(self, max_steps: int | None = None) -> Outcome:
        """Run until a stop or max_steps instructions; count them in machine.icount.

        Two loops: the fast one while KBSR[14] is clear, and one that looks for a
        keyboard interrupt before each instruction while it is set.
        """
        m, steps = self.machine, self.steps
        limit = UNLIMITED if max_steps is None else max_steps
        pc, done, ran = m.pc, 0, 0
        try:
            while done < limit:
                ran = 0
                try:
                    if m.kbsr_ie:
                        for ran in range(limit - done):  # noqa: B007
                            if not m.kbsr_ie:
                                break
                            if m.interrupt_pending():
                                pc = m.take_interrupt(pc)
                            pc = steps[pc](pc)
                        else:
                            ran = limit - done
                    else:
                        for ran in range(limit - done):  # noqa: B007
                            pc = steps[pc](pc)
                        else:
                            ran = limit - done
                    done += ran
                except Leave as leave:
                    done += ran + 1
                    pc = leave.resume_pc
            return STEP_LIMIT
        except Stop as stop:
            done += ran + stop.completed
            pc = stop.resume_pc
            return Outcome.from_stop(stop)
        except StopRequested:
            done += ran
            assert m.ending is not None
            return m.ending
        finally:
            m.pc = pc
            m.icount += done


class StepTable:
    """An interpreter's steps by address, every word not decoded yet holding `miss`.

    `miss` belongs to the table, not to an interpreter, so a closed interpreter's table can
    serve the next one: only the spans written since it was fresh need `miss` again.
    """

    __slots__ = ("interpreter", "miss", "steps", "written")

    def __init__(self) -> None:
        self.interpreter: Interpreter | None = None
        self.miss: Step = self._decode_and_run
        self.steps: list[Step] = [self.miss] * MEMORY_WORDS
        self.written = Spans()

    def _decode_and_run(self, pc: int) -> int:
        assert self.interpreter is not None  # a table in the spares is never run
        return self.interpreter.step_at(pc)(pc)

    def fresh(self) -> None:
        """Every word back to `miss`, no interpreter: the table as made."""
        self.interpreter = None
        miss, steps = self.miss, self.steps
        for start, end in self.written.taken():
            steps[start:end] = [miss] * (end - start)


#: Tables of closed interpreters, for the next ones made (see Interpreter.close): a
#: Simulator has at most two interpreters (the tiered start's and its engine's fallback).
SPARE_TABLES = 2
_SPARE_TABLES: list[StepTable] = []


def stop_requested(_: int) -> int:
    """What every step and block becomes once a stop is requested (Machine.request_stop)."""
    raise StopRequested


def _noop(pc: int) -> int:
    """A word below isa.NOOP_WORDS: BR that never branches."""
    return (pc + 1) & WORD_MASK


def stop_here(pc: int) -> int:
    """The step at a breakpoint: stop before the instruction, which does not run."""
    raise Breakpoint(pc, False, f"breakpoint at x{pc:04X}")


def _fetch_checked(m: Machine, step: Step) -> Step:
    """A word outside x3000-xFDFF: fetching it in user mode is an access-control violation."""

    def fetch(pc: int) -> int:
        if m.user_mode:
            return m.access_violation(pc, pc)
        return step(pc)

    return fetch
