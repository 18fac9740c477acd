"""The machine model (runtime/machine.py) every engine shares, driven directly: the PSR and
its codes, the device registers, the write map that routes stores, access control under
an OS, and the supervisor stack that TRAP, exceptions, interrupts and RTI use."""

from __future__ import annotations

import io
from functools import reduce
from operator import or_

import pytest

import lc3jit_runtime.machine as machine_module
from lc3jit_runtime.console import Console
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.errors import Halted, Leave, MachineFault
from lc3jit_runtime.machine import (
    DDR,
    DSR,
    INITIAL_SSP,
    IO_BASE,
    KBDR,
    KBSR,
    MAX_NOOP_RUN,
    MCR,
    PSR_ADDR,
    SUPERVISOR_STORE_SLOW,
    WATCH_DECODED,
    WATCH_DEVICE,
    WATCH_GUARD,
    WATCH_IO,
    WATCH_OBSERVED,
    WATCH_PROTECTED,
    WATCH_TRANSLATED,
    WATCH_UNWRITTEN,
    Machine,
    fresh_write_map,
    unwritten_write_map,
)
from lc3jit_runtime.outcome import Outcome

from .conftest import recycling

N, Z, P = 0b100, 0b010, 0b001
AT = 0x3000  # the instruction doing the access, as the engines pass it


def machine(edition: int = 3, full_system: bool = False, keys: bytes = b"") -> tuple[Machine, io.BytesIO]:
    display = io.BytesIO()
    return Machine(Console(io.BytesIO(keys), display), edition, full_system), display


def test_only_the_two_editions_exist() -> None:
    with pytest.raises(ValueError, match="edition must be 2 or 3"):
        machine(edition=4)


def test_a_machine_starts_in_supervisor_mode_with_z_and_the_stack_at_x3000() -> None:
    m, _ = machine()
    assert (m.psr, m.cond, m.user_mode, m.saved_ssp) == (0x0002, Z, False, INITIAL_SSP)


@pytest.mark.parametrize(("psr", "cond"), [(0x8001, P), (0x8404, N), (0x0302, Z), (0x8000, Z)])
def test_the_psr_holds_privilege_priority_and_exactly_one_code(psr: int, cond: int) -> None:
    m, _ = machine()
    m.psr = psr
    assert m.cond == cond and m.user_mode == bool(psr & 0x8000)
    assert m.psr == psr & 0x8700 | cond  # no code set reads as Z, as in LC3Tools


def test_the_psr_is_a_device_register_in_the_3rd_edition_only() -> None:
    third, _ = machine(3)
    third.psr = 0x0401
    assert third.load(PSR_ADDR, AT) == 0x0401
    with pytest.raises(Leave):  # privilege and priority changed: the engines look again
        third.store(PSR_ADDR, 0x0004, AT)
    assert third.cond == N
    second, _ = machine(2)
    second.store(PSR_ADDR, 0x1234, AT)
    assert second.load(PSR_ADDR, AT) == 0x1234 and second.cond == Z


def test_kbsr_shows_a_waiting_key_and_kbdr_reading_it_clears_the_ready_bit() -> None:
    m, _ = machine(keys=b"ab")
    assert m.load(KBSR, AT) == 0x8000
    assert m.load(KBSR, AT) == 0x8000  # polling twice does not use up the key
    assert m.load(KBDR, AT) == ord("a")
    assert m.load(KBSR, AT) == 0x8000  # b
    assert m.load(KBDR, AT) == ord("b")
    assert m.load(KBSR, AT) == 0
    assert m.load(KBDR, AT) == ord("b")  # the last key, read again


def test_kbsr_interrupt_enable_is_the_only_writable_bit() -> None:
    m, _ = machine()
    with pytest.raises(Leave):  # interrupts enabled: the engines look for them from now on
        m.store(KBSR, 0xFFFF, AT)
    assert m.load(KBSR, AT) == 0x4000


def test_the_display_is_always_ready_and_ddr_writes_the_low_byte() -> None:
    m, display = machine()
    assert m.load(DSR, AT) == 0x8000
    m.store(DDR, 0x1241, AT)
    m.console.flush()
    assert display.getvalue() == b"A" and m.load(DDR, AT) == 0


def test_stores_to_kbdr_and_dsr_are_ignored() -> None:
    m, _ = machine(keys=b"k")
    m.store(KBDR, 0x55, AT)
    m.store(DSR, 0, AT)
    assert (m.load(DSR, AT), m.load(KBSR, AT), m.load(KBDR, AT)) == (0x8000, 0x8000, ord("k"))


def test_clearing_the_clock_bit_of_mcr_halts_the_machine() -> None:
    m, _ = machine()
    m.store(MCR, 0xFFFF, AT)
    with pytest.raises(Halted):
        m.store(MCR, 0x7FFF, AT)


def test_the_write_map_marks_devices_and_every_word_from_xfe00() -> None:
    m, _ = machine()
    for address in (KBSR, KBDR, DSR, DDR, MCR, PSR_ADDR):
        assert m.watch[address] & WATCH_DEVICE
    assert all(m.watch[address] for address in range(IO_BASE, 0x10000))  # the slow path
    assert not any(m.watch[:IO_BASE])  # plain data below: a store is one list write
    m.store(IO_BASE + 0x10, 7, AT)  # no device there: memory
    assert m.load(IO_BASE + 0x10, AT) == 7


@pytest.mark.parametrize(("edition", "full_system"), [(3, False), (3, True), (2, True)])
def test_the_first_machine_of_a_kind_and_the_next_ones_get_the_same_fresh_write_map(
    edition: int, full_system: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first machine of a kind builds its map (a plain run makes one machine); the next
    ones copy a fresh map kept for them. Either way every word has its flags: closed to
    user mode below x3000 and from xFE00 under an OS in the 3rd edition, the device
    registers, every word from xFE00 on the slow path, and the guard past xFFFF."""
    monkeypatch.setattr(machine_module, "_SPARE_WRITE_MAPS", {})
    monkeypatch.setattr(machine_module, "fresh_write_map", machine_module.cache(machine_module.new_write_map))
    first, second = machine(edition, full_system)[0].watch, machine(edition, full_system)[0].watch
    protected = WATCH_PROTECTED if edition == 3 and full_system else 0
    devices = {KBSR, KBDR, DSR, DDR, MCR} | ({PSR_ADDR} if edition == 3 else set())
    expected = [protected] * 0x3000 + [0] * (IO_BASE - 0x3000)
    expected += [
        WATCH_IO | protected | (WATCH_DEVICE if a in devices else 0) for a in range(IO_BASE, 0x10000)
    ]
    expected += [WATCH_GUARD] * (0x10000 + 32)
    assert first == second == expected
    template = machine_module.fresh_write_map(edition, full_system and edition == 3)
    assert second is not template and first is not template  # each machine marks its own


def test_a_store_into_code_tells_the_engines_once_and_clears_the_mark() -> None:
    m, _ = machine()
    told: list[tuple[int, int]] = []
    m.code_write_hooks.append(lambda address, at: told.append((address, at)))
    m.watch[0x3005] |= WATCH_DECODED
    m.store(0x3005, 1, AT)
    m.store(0x3005, 2, AT)  # no longer held as code: a plain store
    assert told == [(0x3005, AT)] and m.mem[0x3005] == 2 and m.code_writes == 1


def test_loading_words_over_code_drops_it_too() -> None:
    m, _ = machine()
    told: list[int] = []
    m.code_write_hooks.append(lambda address, at: told.append(address))
    m.watch[0x4001] |= WATCH_DECODED
    m.load_words(0x4000, [1, 2, 3])
    assert told == [0x4001] and m.mem[0x4000:0x4003] == [1, 2, 3]


def test_an_observed_word_reports_its_stores_and_whether_they_were_pushes() -> None:
    m, _ = machine()
    seen: list[tuple[int, int, int, bool]] = []
    m.observer = lambda *store: seen.append(store)
    for address in (0x5000, 0x2FFF, 0x2FFE):
        m.watch[address] |= WATCH_OBSERVED
    m.store(0x5000, 9, AT)
    m.mem[0x0025] = 0x0400
    m.reg[6] = INITIAL_SSP
    m.enter_supervisor(0x0025, 0x3001, AT)  # a 3rd-edition TRAP x25 pushes PSR and PC
    assert seen == [(0x5000, 9, AT, False), (0x2FFF, 0x0002, AT, True), (0x2FFE, 0x3001, AT, True)]


def test_a_trap_from_user_mode_swaps_to_the_supervisor_stack_and_rti_swaps_back() -> None:
    m, _ = machine(full_system=True)
    m.mem[0x0021] = 0x0420
    m.psr, m.reg[6] = 0x8001, 0xFD00
    handler = m.enter_supervisor(0x0021, 0x3006, 0x3005)
    assert handler == 0x0420
    assert (m.user_mode, m.reg[6], m.saved_usp) == (False, INITIAL_SSP - 2, 0xFD00)
    assert m.mem[INITIAL_SSP - 1 : INITIAL_SSP - 3 : -1] == [0x8001, 0x3006]  # PSR pushed first, then PC
    m.psr = 0x0004  # the routine changed the codes: RTI gives back the caller's
    assert m.return_from_interrupt(0x0430) == 0x3006
    assert (m.psr, m.reg[6], m.saved_ssp) == (0x8001, 0xFD00, INITIAL_SSP)


def test_an_interrupt_raises_the_priority_to_4_and_is_taken_only_below_it() -> None:
    m, _ = machine(keys=b"k")
    m.mem[0x0180] = 0x1000
    m.reg[6] = 0x2000
    m.kbsr_ie = 0x4000
    m.psr = 0x0402  # priority 4: the keyboard waits
    assert not m.interrupt_pending()
    m.psr = 0x0302
    assert m.interrupt_pending()
    assert m.take_interrupt(0x3010) == 0x1000
    assert (m.psr >> 8 & 7, m.mem[0x1FFE], m.mem[0x1FFF]) == (4, 0x3010, 0x0302)
    assert not m.interrupt_pending()


def test_an_interrupt_or_exception_with_no_handler_is_a_fault() -> None:
    m, _ = machine(keys=b"k")
    with pytest.raises(MachineFault, match="keyboard interrupt with no handler at x0180, at x3010"):
        m.take_interrupt(0x3010)
    with pytest.raises(MachineFault, match="illegal opcode at x3004"):
        m.exception(0x01, 0x3004, "illegal opcode")


def test_rti_in_user_mode_takes_the_privilege_exception() -> None:
    m, _ = machine(full_system=True)
    m.mem[0x0100] = 0x0600
    m.psr, m.reg[6] = 0x8002, 0xFD00
    assert m.return_from_interrupt(0x3004) == 0x0600
    assert m.mem[m.reg[6]] == 0x3005 and not m.user_mode


def test_pushing_onto_a_device_register_is_a_fault_before_anything_changes() -> None:
    m, _ = machine()
    m.mem[0x0030] = 0x4000
    m.reg[6] = 0x0000  # no stack set: PSR and PC would go to xFFFF and xFFFE (MCR)
    with pytest.raises(MachineFault, match="TRAP x30 at x3000 would push PSR and PC onto the device"):
        m.enter_supervisor(0x0030, 0x3001, AT)
    assert (m.reg[6], m.psr, m.mcr) == (0, 0x0002, 0x8000)


def test_access_control_closes_system_space_and_devices_to_user_mode_only() -> None:
    m, _ = machine(full_system=True)
    assert m.watch[0x2FFF] & WATCH_PROTECTED and m.watch[KBSR] & WATCH_PROTECTED
    assert not m.watch[0x3000] & WATCH_PROTECTED and not m.watch[IO_BASE - 1] & WATCH_PROTECTED
    m.mem[0x0102] = 0x0700
    m.mem[0x0200] = 0x1234
    assert m.load_checked(0x0200, AT) == 0x1234  # supervisor mode
    m.psr, m.reg[6] = 0x8002, 0xFD00
    with pytest.raises(Leave) as load:
        m.load_checked(0x0200, AT)
    assert load.value.resume_pc == 0x0700 and m.mem[m.reg[6]] == AT + 1
    m.psr, m.reg[6] = 0x8002, 0xFD00
    with pytest.raises(Leave):
        m.store(KBSR, 0x4000, AT)
    assert m.kbsr_ie == 0  # the store did not happen


def test_no_access_control_without_an_os_or_in_the_2nd_edition() -> None:
    for m, _ in (machine(3), machine(2, full_system=True)):
        assert not m.access_control
        m.psr = 0x8002
        assert not any(m.watch[address] & WATCH_PROTECTED for address in range(0x10000))
        m.store(0x0200, 5, AT)
        assert m.mem[0x0200] == 5


def test_runs_of_no_op_words_end_at_devices_at_the_limit_and_before_protected_words() -> None:
    m, _ = machine()
    assert m.noop_run_end(0x3000) == 0x3000 + MAX_NOOP_RUN
    assert m.noop_run_end(IO_BASE - 3) == IO_BASE
    m.mem[0x3005] = 0x1234
    assert (m.noop_run_end(0x3000), m.noop_run_end(0x3005)) == (0x3005, 0x3005)
    protected, _ = machine(full_system=True)
    assert protected.noop_run_end(0x2000) == 0x2000  # its fetch may be an access violation


def test_the_first_stop_asked_for_wins_and_taking_it_lets_the_machine_go_on() -> None:
    m, _ = machine()
    hooks: list[bool] = []
    m.stop_hooks.append(hooks.append)
    m.request_stop(Outcome(Ending.INTERRUPTED, "first"))
    m.request_stop(Outcome(Ending.TERMINATED, "second"))
    assert m.take_ending() == Outcome(Ending.INTERRUPTED, "first")
    assert m.take_ending() is None and hooks == [True, True, False]


def test_the_snapshot_is_the_architectural_state() -> None:
    m, _ = machine()
    m.reg[3], m.pc, m.psr = 0xBEEF, 0x3004, 0x8004
    assert m.snapshot() == {
        "registers": [0, 0, 0, 0xBEEF, 0, 0, 0, 0],
        "pc": 0x3004,
        "psr": 0x8004,
        "cond": "N",
        "saved_ssp": INITIAL_SSP,
        "saved_usp": 0,
    }


def test_the_supervisors_store_check_covers_every_write_map_flag() -> None:
    """Generated code indexes SUPERVISOR_STORE_SLOW with a word's flags: every flag the
    write map may hold, or'ed, must be an index, and only plain and protected words are
    stored inline."""
    names = vars(machine_module).items()
    flags = [value for name, value in names if name.startswith("WATCH_") and isinstance(value, int)]
    assert reduce(or_, flags) < len(SUPERVISOR_STORE_SLOW)
    assert [index for index, slow in enumerate(SUPERVISOR_STORE_SLOW) if not slow] == [0, WATCH_PROTECTED]


@pytest.mark.parametrize("marks", [3, 300])  # 300: more spans than a machine keeps
def test_a_closed_machines_write_map_serves_the_next_machine_of_its_kind_as_new(
    marks: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grader makes a machine per test: a closed one's memory is emptied at once, and its
    write map (twice as long as memory) goes to the next machine of the same edition and
    access control, with every flag the engines and watches set (Machine.mark) gone."""
    monkeypatch.setattr(machine_module, "_SPARE_WRITE_MAPS", {})
    m, _ = machine(3, full_system=True)
    m.mark(AT, AT + 1, WATCH_DECODED)
    m.mark(AT, AT + 40, WATCH_TRANSLATED)
    m.mark(0, IO_BASE, WATCH_OBSERVED)
    for address in range(marks - 3):
        m.mark(0x4000 + 2 * address, 0x4001 + 2 * address, WATCH_DECODED)
    assert m.watch[AT] == WATCH_DECODED | WATCH_TRANSLATED | WATCH_OBSERVED
    watch = m.watch
    m.close()
    m.close()  # twice: the map is given once
    assert m.mem == []

    again, _ = machine(3, full_system=True)
    assert again.watch is watch
    assert again.watch == fresh_write_map(3, True)
    assert machine(3, full_system=True)[0].watch is not watch
    assert machine(2, full_system=True)[0].watch is not watch


@pytest.mark.parametrize(
    ("written", "recycled"),
    [([(0x4000, 0x4014), (0x3005, 0x3006)], True), ([(0, 0x3000), (0x3100, 0xFE00)], False)],
)
def test_a_closed_machines_memory_serves_the_next_zeroed_unless_most_was_written(
    written: list[tuple[int, int]], recycled: bool
) -> None:
    """While memory is recycled, a closed machine's memory goes to the next machine, zeroed
    where it was loaded or stored into, its marks reset; one written nearly whole (a seed's
    fill) is let go and the next machine's made anew, which costs less than zeroing it."""
    with recycling():
        m, _ = machine()
        memory, watch = m.mem, m.watch
        for start, end in written:
            m.load_words(start, [7] * (end - start))
        m.store(0x5000, 9, AT)  # its first store: the slow path, recorded
        m.store(0x5000, 10, AT)  # then a plain one
        assert m.watch[0x5000] == 0 and m.watch[0x5001] == WATCH_UNWRITTEN
        m.mark(AT, AT + 3, WATCH_DECODED)
        m.close()
        again, _ = machine()
    assert (again.mem is memory, again.watch is watch) == (recycled, True)
    assert again.mem == [0] * 0x10000
    assert again.watch == unwritten_write_map(3, False)
