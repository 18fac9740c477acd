"""The device page (xFE00-xFFFF) and the console behind it: what the machine's loads and
stores of the device registers do, and how a run is asked to end from outside.

The keyboard is read at the console's pace: a KBSR poll takes the next key if one is
waiting and latches it (`kbd_latch`) until KBDR, GETC or IN reads it, so a program that
polls and then reads sees one key, and scripted input runs the same way every time. Every
key an OS echoes is a KBSR poll, a KBDR read and a DDR store; from a region: a poll is
READ (runtime.contract: `read_device`, which takes a key the console read ahead itself,
else calls `Console.next_key`), a KBDR read while KBSR[14] is clear is the region's own
(the latch and KBDR are attributes it names: regions.device_access), and a DDR store is
DISPLAY, one call into the console (`put`).

The machine holds at most 30 attributes (tests/test_machine.py): past that CPython
(3.11-3.13 at least) stops sharing the keys of its instances' dicts, and every attribute
generated code reads or writes (`m.kbsr_ie`, `m.psr_mode`, ...) becomes a dict lookup
(one attribute more: 13% more machine instructions a key an OS echoes).

`Devices` is the `Machine`'s (runtime.machine) half that talks to the console; it holds no
state of its own: the machine's constructor makes the fields declared here.
"""

from __future__ import annotations

from .console import Console
from .errors import Ended, Halted, InputExhausted, Leave, Stop, StopRequested
from .isa import WORD_MASK
from .outcome import Outcome, output_limit, output_lost

KBSR, KBDR, DSR, DDR, PSR_ADDR, MCR = 0xFE00, 0xFE02, 0xFE04, 0xFE06, 0xFFFC, 0xFFFE
IO_BASE = 0xFE00

KBSR_READY = 0x8000
DISPLAY_STATUS = KBSR_READY  # what DSR reads: the display is always ready
KBSR_IE = 0x4000
MCR_CLOCK = 0x8000

#: With scripted input used up, a KBSR read finds no key and reads 0. The program is
#: evidently waiting for a key, and the run ends (exit 5), at the read that is the
#: WAITING_POLLS-th in a row to find no key with nothing written to the display since.
WAITING_POLLS = 10_000
#: Under an OS, on a terminal, a KBSR read from system space (the OS's GETC and IN)
#: that finds no key sleeps up to this many seconds for one, instead of spinning.
OS_KEY_WAIT = 0.05


class Devices:
    """Loads and stores of the device registers, and the endings asked for from outside."""

    console: Console
    mem: list[int]
    edition: int
    psr: int
    kbsr_ie: int  # KBSR[14]
    kbd_latch: int | None  # a key seen by a KBSR poll, not yet read
    kbdr: int
    mcr: int
    empty_polls: int  # KBSR reads in a row that found no key, with nothing written since
    written_at_poll: int  # the console's bytes_written at the last of them
    key_wait_below: int  # a poll from below this address waits OS_KEY_WAIT (the OS's routines)
    ending: Outcome | None
    held: Stop | None  # what READ held back for REREAD
    stop_hooks: list  # of Callable[[bool], None]: called with True to stop, False to go on

    def load_io(self, address: int, at: int) -> int:
        """A load from xFE00-xFFFF by the instruction at `at`: device registers read live,
        the rest is memory. A KBSR poll is READ's (`read_device`), raising what it held."""
        if address == KBSR:
            value = self.read_device(KBSR, at)
            if value < 0:
                held, self.held = self.held, None
                raise held  # type: ignore[misc]
            return value
        if address == KBDR:
            if self.kbd_latch is not None:
                self.kbdr, self.kbd_latch = self.kbd_latch, None
            return self.kbdr
        if address == DSR:
            return DISPLAY_STATUS
        if address == DDR:
            return 0
        if address == MCR:
            return self.mcr
        if address == PSR_ADDR and self.edition == 3:
            return self.psr
        return self.mem[address]

    def read_device(self, address: int, at: int) -> int:
        """READ (runtime.contract) while KBSR[14] is clear (Dispatcher.bind_os_calls): a
        load from the device page that cannot take an exception. -1 where the load is to
        be done again once the registers are written back (REREAD): the PSR, whose codes
        are not, and a poll that ends the run (the input used up, a stop while it waits),
        what ends it held in `held`. The keyboard's registers inline: every key an OS
        reads is a KBSR poll (this call alone while the console has keys read ahead,
        else one more into it) and a KBDR read (a region reads it itself while KBSR[14]
        is clear, as here)."""
        if address == KBSR:
            if self.kbd_latch is None:
                console = self.console
                for key in console.ahead if console.plain is console else ():  # next_key's first case
                    self.kbd_latch = key
                    break
                else:
                    try:
                        key = console.next_key(OS_KEY_WAIT if at < self.key_wait_below else 0.0)
                        if key is None:
                            return self._no_key(at)  # may end the run: held too
                    except StopRequested:
                        self.held = self._ended(at)
                        return -1
                    except InputExhausted as stop:
                        self.held = stop
                        return -1
                    self.kbd_latch = key
            self.empty_polls = 0
            return KBSR_READY + self.kbsr_ie  # `|`, but a generic operation on 3.11 (kbsr_ie: 0 or KBSR_IE)
        if address == KBDR:
            if self.kbd_latch is not None:
                self.kbdr, self.kbd_latch = self.kbd_latch, None
            return self.kbdr
        if address == PSR_ADDR:
            return -1
        return self.load_io(address, at)  # DSR, DDR, MCR, memory: nothing there stops a run

    def _no_key(self, at: int) -> int:
        """KBSR with no key: with the input used up, the WAITING_POLLS-th such poll in a row
        with nothing written since ends the run."""
        console = self.console
        if console.exhausted:
            written = console.bytes_written
            self.empty_polls = self.empty_polls + 1 if written == self.written_at_poll else 1
            self.written_at_poll = written
            if self.empty_polls >= WAITING_POLLS:
                raise InputExhausted(at, False, "input ended while the program polls KBSR")
        return self.kbsr_ie

    def key_waiting(self) -> bool:
        """KBSR[15] without reading KBSR (for the interrupt): a key is latched, or one waits."""
        if self.kbd_latch is None:
            self.kbd_latch = self.console.next_key()
        return self.kbd_latch is not None

    def read_key(self, at: int) -> int:
        """The next key for GETC or IN: one a KBSR poll already saw, or wait for one."""
        key, self.kbd_latch = self.kbd_latch, None
        if key is None:
            try:
                key = self.console.next_key(None)
            except StopRequested:
                raise self._ended(at) from None
            if key is None:
                raise InputExhausted(at, False, "input ended while the program waits for a key")
        self.kbdr = key
        return key

    def _store_device(self, address: int, value: int, at: int) -> None:
        """Engines run without looking for interrupts while KBSR[14] is clear: setting it,
        or writing the PSR (privilege, priority), leaves their fast paths after the store."""
        if address == KBSR:
            enabled, self.kbsr_ie = self.kbsr_ie, value & KBSR_IE
            if self.kbsr_ie and not enabled:
                raise Leave(at, (at + 1) & WORD_MASK)
        elif address == DDR:
            if self.console.put(value):  # the output limit, a lost display: the run ends after the store
                raise Leave(at, (at + 1) & WORD_MASK)
        elif address == MCR:
            self.mcr = value
            if not value & MCR_CLOCK:  # the clock stops: the way the OS's HALT routine ends a run
                raise Halted(at, True, "the program cleared the clock enable bit of MCR")
        elif address == PSR_ADDR:
            self.psr = value
            raise Leave(at, (at + 1) & WORD_MASK)
        # KBDR and DSR are read-only: stores to them are ignored, as on LC3Tools.

    def request_stop(self, ending: Outcome) -> None:
        """End the run before the next instruction, exactly, with `ending` (the first
        asked for wins); safe from a signal handler or another thread, as the engines'
        hooks only swap what they call next."""
        if self.ending is None:
            self.ending = ending
        self.console.stop_requested = True
        for hook in self.stop_hooks:
            hook(True)

    def take_ending(self) -> Outcome | None:
        """The ending requested during the run that just ended, cleared: the engines put
        back what they call, and the machine may run on (a debugger after Ctrl-C)."""
        ending, self.ending = self.ending, None
        if ending is not None:
            self.console.stop_requested = False
            for hook in self.stop_hooks:
                hook(False)
        return ending

    def _output_lost(self, error: OSError) -> None:
        self.request_stop(output_lost(error))

    def _output_full(self, limit: int) -> None:
        self.request_stop(output_limit(limit))

    def _ended(self, at: int) -> Ended:
        """The requested ending, taken inside the instruction at `at` that waited for a key."""
        ending = self.ending
        assert ending is not None  # the console gives up a wait only once one is requested
        return Ended(at, ending.ending, ending.message)
