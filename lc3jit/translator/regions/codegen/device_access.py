"""A region's loads and stores that leave the fast path: most leave for the interpreter;
the device registers' idioms (LDI and STI, ST to a device or a system word) call the
runtime and come back, so that a loop polling a device and an OS routine saving
registers run inside the region.
"""

from __future__ import annotations

from collections.abc import Callable

from lc3jit.translator.codegen.emitter import Compare, Label
from lc3jit.translator.codegen.slow_paths import Rejoin
from lc3jit.translator.regions.codegen.across_blocks import AcrossBlocks
from lc3jit_runtime import contract
from lc3jit_runtime.isa import WORD_MASK
from lc3jit_runtime.machine import DDR, DISPLAY_STATUS, DSR, KBDR, user_address


class DeviceAccess(Rejoin):
    """The slow paths of a region's loads and stores (the SlowPaths protocol)."""

    settle_codes_before_store = False
    bound_base_after_access = True
    unwrapped_bases = True
    state: AcrossBlocks  # Rejoin's, a region's

    def access_path(self, slow: Label, emit: Callable[[], None], rejoins: bool) -> None:
        """Out of line like any slow path. One that `rejoins` (slow_paths.Rejoin.slow_load: LDI
        and STI, the device registers' idiom, and ST to a device or a system word) calls
        the runtime and comes back, so that a loop polling a device (`LDI R0, KBSR_PTR;
        BRzp`) and an OS routine saving registers run inside the region; the rest leave
        for the interpreter (rare: stores into code, addresses not wrapped yet)."""
        s = self.state
        if not rejoins:
            s.slow_path(slow, emit)
            return
        back = Label()
        s.e.place(back)

        def rejoin() -> None:
            emit()
            s.e.jump(back)

        s.slow_path(slow, rejoin)

    def slow_load(self, push_address: Callable[[], None], at: int, rejoins: bool) -> None:
        """Leave for the interpreter, or (`rejoins`) call the runtime. A load that cannot
        take an access-control exception, which would change R6 and push the codes,
        reads first (READ) and writes the registers back only when the read was stopped."""
        s = self.state
        if not rejoins:
            s.bail(at)
        elif s.checked_loads:
            super().slow_load(push_address, at, rejoins)
        else:
            e, stopped, read, device, other = s.e, Label(), Label(), Label(), Label()
            push_address()  # DSR reads the same always: no call
            e.const(DSR)
            e.compare(Compare.NE)
            e.jump_if_true(device)
            e.const(DISPLAY_STATUS)
            e.jump(read)
            e.place(device)
            self.read_key_data(push_address, other, read)
            e.place(other)
            address = push_address if self.reads_a_word(at) else self.wrapped(push_address)
            s.call(contract.READ, address, at)
            e.dup()
            e.const(0)
            e.compare(Compare.LT)
            e.jump_if_true(stopped)
            e.place(read)
            s.slow_path(stopped, lambda: self.reread(push_address, at, read))

    def read_key_data(self, push_address: Callable[[], None], other: Label, read: Label) -> None:
        """KBDR while KBSR[14] is clear, inline, as the machine reads it (Devices.read_device):
        the key latched by the last poll, taken, else the last one read. Every key an OS
        reads is one, where READ cost a call (a frame and some 25 bytecodes of its own).
        Any other address, or KBSR[14] set (the read leaves: LoadedKey), goes on at `other`."""
        s = self.state
        e, unlatched = s.e, Label()
        push_address()
        e.const(KBDR)
        e.compare(Compare.NE)
        e.jump_if_true(other)
        s.push_table(contract.MACHINE)
        e.load_attr(contract.INTERRUPTS)
        e.jump_if_true(other, is_bool=False)
        s.push_table(contract.MACHINE)
        e.load_attr(contract.KEY_LATCH)
        e.dup()
        e.const(None)
        e.compare(Compare.EQ)
        e.jump_if_true(unlatched)
        e.dup()  # the key: KBDR's now, and the latch empty
        s.push_table(contract.MACHINE)
        e.store_attr(contract.KEY_DATA)
        e.const(None)
        s.push_table(contract.MACHINE)
        e.store_attr(contract.KEY_LATCH)
        e.jump(read)
        e.place(unlatched)
        e.pop()
        s.push_table(contract.MACHINE)
        e.load_attr(contract.KEY_DATA)
        e.jump(read)

    def reads_a_word(self, at: int) -> bool:
        """Is the address of the load at `at` a word as it is? LDI's is (read from memory):
        every device poll of an OS is one, spared a `& 0xFFFF` each."""
        block = self.state.current
        return block.instructions[at - block.start].form.name == "LDI"

    def reread(self, push_address: Callable[[], None], at: int, read: Label) -> None:
        """READ returned -1 (on the stack): the registers back, then REREAD, which raises
        what stopped the read or reads what READ could not; the word goes on at `read`."""
        s = self.state
        s.e.pop()
        s.sync()
        s.call(contract.REREAD, self.wrapped(push_address), at)
        s.e.jump(read)

    def slow_store(
        self, push_address: Callable[[], None], push_value: Callable[[], None], at: int, rejoins: bool
    ) -> None:
        s = self.state
        if not rejoins:
            s.bail(at)
        elif s.access_control and user_address(at):  # may be user mode: STORE checks
            super().slow_store(push_address, push_value, at, rejoins)
        else:
            self.write_display(push_address, push_value, at)

    def write_display(
        self, push_address: Callable[[], None], push_value: Callable[[], None], at: int
    ) -> None:
        """A store that cannot take an exception, to DDR (every OS's OUT, a program writing
        the display itself): DISPLAY, which raises nothing, so nothing is written back
        first; when the run is to end after it, the region leaves at the next instruction.
        Another device or a watched word: STORE, the registers written back."""
        s = self.state
        e, other, written = s.e, Label(), Label()
        push_address()
        e.const(DDR)
        e.compare(Compare.NE)
        e.jump_if_true(other)
        s.call(contract.DISPLAY, push_value)
        e.jump_if_false(written, is_bool=False)
        alias = s.cc_alias
        e.const((at + 1) & WORD_MASK)
        s.leave(s.unpaid() - 1)
        s.cc_alias = alias  # the way out settled the codes on its own path only
        e.place(other)
        super().slow_store(push_address, push_value, at, True)
        e.place(written)
