"""Reverse execution for the debugger: checkpoints of the machine, and replay from them.

The engines run forward only, and translated code keeps registers in locals for a whole
region, so no instruction-by-instruction undo log can be had at translated speed. Instead
the debugger takes a checkpoint of the whole machine every CHECKPOINT_EVERY instructions
as it runs (the engine is asked to stop there, exactly, as `--max-steps` stops it), and
going back to instruction N restores the last checkpoint at or before N and runs forward
again, on the same engine, to N. A run is deterministic given what the keyboard answered,
so the console is recorded (`RecordedConsole`): a replay gets each answer at the point of
execution it was given at (not by the order an engine happens to ask), and output already
on the screen is not written again.

What a checkpoint costs: the registers and the machine's other state (a few dozen words),
and the memory words changed since the checkpoint before it; the memory of the oldest
checkpoint is kept whole (512 KiB as a list), and so is the latest (to diff against).
Checkpoints older than `limit` instructions before the furthest point reached are
dropped, the oldest one's changes folded into its successor. docs/debugging.md gives the
memory measured over 10^6 instructions.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field

from lc3jit_runtime.console import Console
from lc3jit_runtime.machine import Machine

#: Instructions between two checkpoints: going back replays at most this many (a few ms
#: translated), and a checkpoint (about 0.3 ms: a copy and a diff of memory) is paid once
#: per this many instructions run.
CHECKPOINT_EVERY = 1 << 18
#: How far back the history reaches by default, in instructions (`--history N`).
DEFAULT_LIMIT = 10_000_000
#: The machine's state besides memory and registers, as a checkpoint keeps it.
FIELDS = (
    "pc",
    "icount",
    "ccv",
    "psr_mode",
    "saved_ssp",
    "saved_usp",
    "kbsr_ie",
    "kbd_latch",
    "kbdr",
    "empty_polls",
    "written_at_poll",
    "mcr",
)
#: Words compared at once when diffing memory (list slices compare at C speed).
CHUNK = 256


def changed_words(old: list[int], new: list[int]) -> dict[int, int]:
    """The words of new that differ from old, by address."""
    changes: dict[int, int] = {}
    for start in range(0, len(new), CHUNK):
        if old[start : start + CHUNK] != new[start : start + CHUNK]:
            for address in range(start, start + CHUNK):
                if old[address] != new[address]:
                    changes[address] = new[address]
    return changes


#: How the machine asks for a key between instructions, for a keyboard interrupt
#: (`Devices.key_waiting`: `next_key()`, no argument), as against an instruction's own
#: question (a KBSR poll, GETC or IN: the wait always given).
_BETWEEN = float("nan")


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer the keyboard gave, as the log keeps it: to an instruction's question, a
    key or none ("key"); to an interrupt's check, the key it took ("interrupt"); asked
    whether the input has ended, yes ("ended") or no ("going")."""

    kind: str
    key: int | None = None


INPUT_ENDED, INPUT_GOING = Answer("ended"), Answer("going")
NO_KEY = Answer("key")  # shared: a poll loop waiting for a key logs one a poll


class RecordedConsole:
    """Stands in for the machine's console while the debugger keeps a history.

    The answers that decide what the program does are logged in order: the key or none
    given to each instruction's question (a KBSR poll, GETC, IN), whether the input had
    ended, and each key an interrupt's check took. Those questions come at the same
    instructions on every engine, however a run is cut into calls, so a replay from a
    checkpoint gets the logged answers at the points of execution they were given at. An
    interrupt's check comes between instructions, as often as the engine looks (before each
    instruction, block or region): a check that found no key is not logged and changes
    nothing, and a replayed check takes a key only where the log has one taken by a check.
    Past the log the real console answers again, once the run is past the furthest point
    recorded (`live`, which the debugger sets for each run); before it the log's end means
    no key yet.

    Output is counted (`position`, what the program has written by now, which
    `bytes_written` reports as the machine expects) and logged from the oldest checkpoint
    to the furthest point reached (`output` is the part up to now); only what goes past
    `shown`, the furthest the screen has seen, is written to the real console. Everything
    else is the real console's.
    """

    _OWN = frozenset(
        {"_console", "answers", "cursor", "answers_base", "position", "shown", "log", "log_base", "live"}
    )

    def __init__(self, console: Console) -> None:
        object.__setattr__(self, "_console", console)
        self.answers: list[Answer] = []
        self.answers_base = 0  # answers dropped with old checkpoints
        self.cursor = 0  # the next answer to give, counted from the start of the run
        self.live = True  # past the furthest point recorded: the real console answers
        self.position = console.bytes_written
        self.shown = self.position
        self.log = bytearray()  # output from log_base on
        self.log_base = self.position

    def __getattr__(self, name: str) -> object:
        return getattr(self._console, name)

    def __setattr__(self, name: str, value: object) -> None:
        if name in self._OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(self._console, name, value)

    def _logged(self) -> Answer | None:
        index = self.cursor - self.answers_base
        return self.answers[index] if index < len(self.answers) else None

    def _give(self, answer: Answer) -> Answer:
        """The answer to the question asked now, logged if it is new."""
        if self.cursor - self.answers_base == len(self.answers):
            self.answers.append(answer)
        self.cursor += 1
        return answer

    def next_key(self, wait: float | None = _BETWEEN) -> int | None:
        logged = self._logged()
        if wait is _BETWEEN:  # an interrupt's check
            if logged is not None and logged.kind == "interrupt":
                return self._give(logged).key
            if logged is not None or not self.live:
                return None
            key = self._console.next_key()
            return None if key is None else self._give(Answer("interrupt", key)).key
        if logged is not None and logged.kind in ("key", "interrupt"):
            return self._give(logged).key
        if logged is not None or not self.live:
            return None
        key = self._console.next_key(wait)
        return self._give(NO_KEY if key is None else Answer("key", key)).key

    @property
    def exhausted(self) -> bool:
        logged = self._logged()
        if logged is not None and logged.kind in ("ended", "going"):
            return self._give(logged) == INPUT_ENDED
        if logged is not None or not self.live:
            return False
        return self._give(INPUT_ENDED if self._console.exhausted else INPUT_GOING) == INPUT_ENDED

    @property
    def bytes_written(self) -> int:
        return self.position

    @property
    def mid_line(self) -> bool:
        return self._console.mid_line

    @mid_line.setter
    def mid_line(self, value: bool) -> None:
        self._console.mid_line = value

    def put(self, value: int) -> bool:
        self.write(bytes((value & 0xFF,)))
        return self._console.stop_requested

    def write(self, data: bytes) -> None:
        start, self.position = self.position, self.position + len(data)
        logged = self.log_base + len(self.log)  # a replay writes what the log has already
        if self.position > logged:
            self.log += data[max(0, logged - start) :]
        if self.position > self.shown:
            self._console.write(bytes(data[max(0, self.shown - start) :]))
            self.shown = self.position

    @property
    def output(self) -> bytes:
        """What the program has written by now, since the oldest checkpoint kept."""
        return bytes(self.log[: self.position - self.log_base])

    def rewind(self, cursor: int, position: int) -> None:
        """To a checkpoint: the answers after cursor are given again, in order, and the
        output after position is written again (to the log and the screen only past them)."""
        self.cursor = cursor
        self.position = position

    def diverge(self) -> None:
        """The user changed the state: what was logged after now is not the future any more.
        Output from here on is shown, even where the screen already has other output."""
        del self.answers[self.cursor - self.answers_base :]
        del self.log[self.position - self.log_base :]
        self.shown = self.position

    def forget_before(self, cursor: int, position: int) -> None:
        """Drop the answers and output older than the oldest checkpoint kept."""
        del self.answers[: cursor - self.answers_base]
        self.answers_base = cursor
        del self.log[: position - self.log_base]
        self.log_base = position


@dataclass
class Checkpoint:
    """The machine at one instruction count: all of its state but memory, and the memory
    words changed since the checkpoint before it (or all of memory, for the oldest)."""

    icount: int
    registers: tuple[int, ...]
    fields: tuple[object, ...]
    cursor: int
    position: int
    changes: dict[int, int] = field(default_factory=dict)


class History:
    """The checkpoints of one machine's run, and the way back to any instruction in them."""

    def __init__(
        self,
        machine: Machine,
        console: RecordedConsole,
        limit: int = DEFAULT_LIMIT,
        every: int = CHECKPOINT_EVERY,
    ) -> None:
        self.machine = machine
        self.console = console
        self.limit = limit
        self.every = every
        self.checkpoints: list[Checkpoint] = []
        self.base: list[int] = []  # memory at the oldest checkpoint
        self.latest: list[int] = []  # memory at the newest checkpoint
        self.frontier = machine.icount  # the furthest instruction count reached
        self.take()

    @property
    def start(self) -> int:
        """The earliest instruction count the history can go back to."""
        return self.checkpoints[0].icount

    def take(self) -> None:
        """A checkpoint of the machine now (which must be past the newest one)."""
        m, console = self.machine, self.console
        memory = m.mem.copy()
        changes = changed_words(self.latest, memory) if self.checkpoints else {}
        if not self.checkpoints:
            self.base = memory
        self.latest = memory
        fields = tuple(getattr(m, name) for name in FIELDS)
        self.checkpoints.append(
            Checkpoint(m.icount, tuple(m.reg), fields, console.cursor, console.position, changes)
        )
        self._trim()

    def _trim(self) -> None:
        while len(self.checkpoints) > 2 and self.frontier - self.checkpoints[1].icount >= self.limit:
            second = self.checkpoints[1]
            for address, value in second.changes.items():
                self.base[address] = value
            second.changes = {}
            del self.checkpoints[0]
            self.console.forget_before(second.cursor, second.position)

    def until_next(self, icount: int) -> int:
        """Instructions from icount to the next checkpoint boundary, or to the furthest
        point reached if that comes first: a replay ends there, and the console goes live."""
        boundary = self.every - icount % self.every
        return min(boundary, self.frontier - icount) if icount < self.frontier else boundary

    def reached(self) -> None:
        """After a forward run: a checkpoint if the machine stands at a boundary past the newest."""
        icount = self.machine.icount
        self.frontier = max(self.frontier, icount)
        if icount % self.every == 0 and icount > self.checkpoints[-1].icount:
            self.take()

    def restore(self, target: int) -> int:
        """Put the machine in the state of the last checkpoint at or before target (which
        must be at or after `start`); the count it stands at. Translations of words this
        changes are dropped, as for any store into code."""
        index = bisect.bisect_right([c.icount for c in self.checkpoints], target) - 1
        checkpoint = self.checkpoints[index]
        memory = self.base.copy()
        for later in self.checkpoints[1 : index + 1]:
            for address, value in later.changes.items():
                memory[address] = value
        m = self.machine
        for address, value in changed_words(m.mem, memory).items():
            m.load_words(address, [value])
        m.reg[:] = checkpoint.registers
        for name, value in zip(FIELDS, checkpoint.fields, strict=True):
            setattr(m, name, value)
        self.console.rewind(checkpoint.cursor, checkpoint.position)
        return checkpoint.icount

    def diverge(self) -> None:
        """The user changed the state (a register, memory, the PC): what was recorded no
        longer leads here, so the history starts again from now."""
        console = self.console
        console.diverge()
        console.forget_before(console.cursor, console.position)
        self.checkpoints.clear()
        self.frontier = self.machine.icount
        self.take()

    def intervals(self, before: int) -> Iterator[tuple[int, int]]:
        """(start, end) of the stretches between checkpoints, newest first, ending at `before`."""
        end = before
        for checkpoint in reversed(self.checkpoints):
            if checkpoint.icount < end:
                yield checkpoint.icount, end
                end = checkpoint.icount

    def memory_bytes(self) -> int:
        """An estimate of what the history holds beyond the machine itself: the two full
        copies of memory (8 bytes a word: list slots; the ints are shared), each
        checkpoint's changes (about 100 bytes a word in a dict), the logged answers and
        the output kept."""
        words = sum(len(c.changes) for c in self.checkpoints)
        return (
            8 * (len(self.base) + len(self.latest))
            + 100 * words
            + 200 * len(self.checkpoints)
            + 8 * len(self.console.answers)  # (a key's answer is 48 bytes more; most are none)
            + len(self.console.log)
        )
