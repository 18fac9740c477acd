"""The runtime's side of translated code: the namespace it is bound to (the branch tables
among it) and the slow paths it calls (runtime.contract declares both), and the ways out
they raise.

A part of the Dispatcher (runtime.dispatch), which mixes it in: the helpers read the
machine and write back what translated code left with the dispatcher (`held`).

The namespace's big tables are built, or filled, only when code that names them first
runs (`bind_tables`, called by the dispatcher's entry for it): a branch table costs 0.4-0.85
ms of CPU to build (a megabyte of pointers, page faults included), the exit counts a
quarter of that, where a whole short run from the translation cache should add at most 3
ms: most short programs never branch on a sum not wrapped yet, few regions leave
through JMP, and most of an OS's code loaded from the cache never runs in a short run.
"""

from __future__ import annotations

from . import contract
from .errors import Leave, Stop
from .isa import MEMORY_WORDS, SIGN_BIT, WORD_MASK
from .lean import cache
from .machine import (
    CODES_OF_PSR,
    ILLEGAL_OPCODE,
    IO_BASE,
    KBDR,
    KBSR,
    PSR_ADDR,
    PSR_USER,
    SUPERVISOR_STORE_SLOW,
    WATCH_TRANSLATED,
    Machine,
)
from .traps import trap

#: POSITIVE, NEGATIVE and ZERO, by their names in runtime.contract: where each table of
#: bools indexed by the value is True, within one period (see _periodic). CPython
#: specialises indexing a list or a tuple, and one index costs less than the two
#: comparisons 0 < v < x8000 of BRp. Each table is periodic over 2^17 entries, so that it
#: is right for a sum not wrapped to 16 bits yet: any v from 0 to 2^17 - 1 gives the codes
#: of v mod 2^16. A sum of two words needs no wrap before its branch. (Negative indices
#: would be right too, but CPython's specialised indexing gives up on them.)
_TRUE_WITHIN: dict[str, tuple[int, int]] = {
    contract.POSITIVE: (1, SIGN_BIT),
    contract.NEGATIVE: (SIGN_BIT, 2 * SIGN_BIT),
    contract.ZERO: (0, 1),
}


def _periodic(start: int, stop: int) -> list[bool]:
    """A table True from start to stop (excluded) in each of its two periods of 2^16: a
    list made in one allocation of its final size. The table is built by the first code
    that names it in a process, inside a run (bind_tables): tuples made by `+` and `*`
    touched twice the memory (a megabyte of pointers each, freshly faulted in), 0.9-1.1 ms
    against 0.4-0.85, of a whole `lc3jit run` from the translation cache that takes 35.
    Generated code only ever reads it."""
    period = 2 * SIGN_BIT
    table = [False] * (2 * period)
    true = [True] * (stop - start)
    table[start:stop] = table[period + start : period + stop] = true
    return table


BRANCH_TABLES = frozenset(_TRUE_WITHIN)
NAMES = BRANCH_TABLES | {contract.EXIT_COUNTS}  # what bind_tables binds
#: What a table's name is bound to until code that names it is installed: indexing it
#: fails loudly (IndexError), never a silent wrong branch.
UNBUILT: tuple[bool, ...] = ()
_BUILT: dict[str, list[bool]] = {}  # once a process: every dispatcher shares them


def code_table(name: str) -> list[bool]:
    """The table named `name` in runtime.contract (see _TRUE_WITHIN)."""
    if (table := _BUILT.get(name)) is None:
        table = _BUILT[name] = _periodic(*_TRUE_WITHIN[name])
    return table


@cache
def rti_codes() -> list[int]:
    """RTI_CODES (runtime.contract): one lookup tells an inline RTI whether the PSR popped
    is user mode's at priority 0 and gives its codes, where two compares and a subtraction
    did. A list made in one allocation (some 0.1 ms, once a process, only under access
    control: the only machines whose regions inline RTI)."""
    table = [-1] * MEMORY_WORDS
    table[PSR_USER : PSR_USER + len(CODES_OF_PSR)] = CODES_OF_PSR
    return table


#: The values the tables above are indexed with.
CODE_TABLE_RANGE = (0, 4 * SIGN_BIT - 1)


TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from .dispatch import Translator


class LeaveBlock(Leave):
    """Raised by a translated store that wrote into translated code."""

    def __init__(self, at: int) -> None:
        super().__init__(at, (at + 1) & WORD_MASK)


class LoadedKey(Leave):
    """Raised by a translated load of KBSR or KBDR while KBSR[14] is set, after the load:
    the read may have made a keyboard interrupt due, which the interpreter takes before
    the next instruction, so translated code leaves for the dispatcher to look. The
    dispatcher finishes the load (`finish`): its register and codes get `value`."""

    def __init__(self, at: int, value: int) -> None:
        super().__init__(at, (at + 1) & WORD_MASK)
        self.value = value

    def finish(self, m: Machine) -> None:
        """DR (bits 11:9 of LD, LDI and LDR alike) = value; setcc."""
        m.ccv = m.reg[(m.mem[self.at] >> 9) & 7] = self.value


class CodeHelpers:
    """The helpers translated code calls, bound into its namespace (`globals`)."""

    machine: Machine
    translator: Translator | None
    region_count: list[int]
    exit_counts: list[int]
    held: Stop | Leave | None  # what READ held back for REREAD
    load_from_code: Callable[[int, int], int]
    globals: dict[str, object]

    def _block_globals(self) -> dict[str, object]:
        """What generated code may name: the machine's state and the slow paths (runtime.contract)."""
        m = self.machine
        return contract.bind(
            {
                contract.REGION_COUNT: self.region_count,
                contract.MEMORY: m.mem,
                contract.WRITE_MAP: m.watch,
                contract.REGISTERS: m.reg,
                contract.MACHINE: m,
                **dict.fromkeys(BRANCH_TABLES, UNBUILT),  # see bind_tables
                contract.RTI_CODES: rti_codes() if m.access_control else UNBUILT,  # inline RTI's only
                contract.SUPERVISOR_SLOW: SUPERVISOR_STORE_SLOW,
                **dict.fromkeys(contract.CHECKED_STACK),  # none checked yet (None)
                contract.EXIT_COUNTS: self.exit_counts,
                contract.LOAD.name: self.load_from_code,
                contract.FETCH.name: m.fetch_violation,
                contract.STORE.name: self.store_from_block,
                contract.TRAP.name: self._trap,
                contract.RTI.name: self._return_from_interrupt,
                contract.ILLEGAL.name: lambda word, at: m.exception(
                    ILLEGAL_OPCODE, at, f"illegal opcode x{word:04X}"
                ),
                contract.INDIRECT.name: self.left_through,
                contract.READ.name: self._read,
                contract.REREAD.name: self._reread,
                contract.DISPLAY.name: m.console.put,
            }
        )

    def _table_names(self, function: Callable[[int], int]) -> Collection[str]:
        """The names the function's code reads; all of NAMES for a function not bound to this
        namespace (a wrapper around generated code)."""
        if getattr(function, "__globals__", None) is self.globals:
            return function.__code__.co_names  # type: ignore[attr-defined, no-any-return]
        return NAMES

    def tables_unbound(self, function: Callable[[int], int]) -> bool:
        """Does the function's code name a big table not built, or not filled, yet?"""
        names, bound = self._table_names(function), self.globals
        unbuilt = any(bound[name] is UNBUILT for name in BRANCH_TABLES.intersection(names))
        return unbuilt or (contract.EXIT_COUNTS in names and not self.exit_counts)

    def bind_tables(self, function: Callable[[int], int]) -> None:
        """Bind the branch tables the function's code names, and fill the exit counts if it
        names them (see the module's docstring)."""
        names, bound = self._table_names(function), self.globals
        for name in BRANCH_TABLES.intersection(names):
            if bound[name] is UNBUILT:
                bound[name] = code_table(name)
        if contract.EXIT_COUNTS in names and not self.exit_counts:
            self.exit_counts.extend([0] * MEMORY_WORDS)

    def _load_from_code(self) -> Callable[[int, int], int]:
        """The LOAD helper: the machine's load (checked under access control); a load of
        the keyboard's registers while KBSR[14] is set leaves (LoadedKey)."""
        m = self.machine
        load = m.load_checked if m.access_control else m.load

        def load_from_code(address: int, at: int) -> int:
            value = load(address, at)
            if m.kbsr_ie and address in (KBSR, KBDR):
                raise LoadedKey(at, value)
            return value

        return load_from_code

    def _read(self, address: int, at: int) -> int:
        """READ (runtime.contract): LOAD with what stops it held back, returning -1; -1
        without reading for the PSR, whose codes the caller has not written back. It is
        called only where a load cannot take an access-control exception, and every OS call
        reads a device or two through it: the load is the machine's, unchecked, inline."""
        m = self.machine
        if address < IO_BASE:
            return m.mem[address]
        if address == PSR_ADDR:
            return -1
        try:
            value = m.load_io(address, at)
        except (Stop, Leave) as held:
            self.held = held
            return -1
        if m.kbsr_ie and address in (KBSR, KBDR):
            self.held = LoadedKey(at, value)
            return -1
        return value

    def _reread(self, address: int, at: int) -> int:
        """REREAD: what READ held back, raised now that the registers are written back;
        or, nothing held, the load READ left (the PSR)."""
        held, self.held = self.held or self.machine.held, None
        self.machine.held = None
        if held is not None:
            raise held
        return self.load_from_code(address, at)

    def bind_os_calls(self) -> None:
        """TRAP (under an OS), RTI and READ straight to the machine while KBSR[14] is clear:
        one call fewer for each of an OS call's two, and for a device read. While it is
        set, through `_trap`, `_return_from_interrupt` and `_read`, which leave for the
        interrupt. Bound when a run begins and after every way out by Leave: KBSR[14] gets
        set only between runs or by a store that leaves (Machine._store_device)."""
        m, bound = self.machine, self.globals
        direct = not m.kbsr_ie
        bound[contract.TRAP.name] = m.trap_through_table if direct and not m.host_traps else self._trap
        bound[contract.RTI.name] = m.return_from_interrupt if direct else self._return_from_interrupt
        bound[contract.READ.name] = m.read_device if direct else self._read
        bound[contract.DISPLAY.name] = m.console.put  # a debugger may have put its console in

    def _trap(self, vector: int, at: int) -> int:
        """TRAP for translated code, which goes on inside where the next PC is its own:
        while KBSR[14] is set it leaves instead (a completed instruction), so the
        dispatcher looks for the interrupt a key read or a lower priority made due."""
        pc = trap(self.machine, vector, at)
        if self.machine.kbsr_ie:
            raise Leave(at, pc)
        return pc

    def _return_from_interrupt(self, at: int) -> int:
        """RTI for translated code: as TRAP (`_trap`)."""
        pc = self.machine.return_from_interrupt(at)
        if self.machine.kbsr_ie:
            raise Leave(at, pc)
        return pc

    def left_through(self, site: int, target: int) -> None:
        """Translated code left through the JMP or JSRR at site for target (every so many
        times: a sample); a translator that learns targets is told."""
        if self.translator is not None:
            self.translator.left_through(self, site, target)  # type: ignore[arg-type]

    def exits_through(self, site: int) -> int:
        """How often regions left through the JMP or JSRR at site (their code counts it)."""
        return self.exit_counts[site] if self.exit_counts else 0

    def store_from_block(self, address: int, value: int, at: int) -> None:
        """The slow path of a translated store; leaves the block if it wrote code."""
        address &= WORD_MASK
        m = self.machine
        if flags := m.watch[address]:  # the machine's store, inline: every OS's OUT comes here
            m.store_slow(address, value, at)
        else:
            m.mem[address] = value
        if flags & WATCH_TRANSLATED:
            raise LeaveBlock(at)
