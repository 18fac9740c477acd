"""What a student needs to hear when a program does not end with HALT: where it is, where it
left its code, and what it keeps doing. Said of programs whose labels or source lines are
known (an .asm, an .obj with its .sym); a bare image keeps the ending's one line.

`lc3jit run` puts a stop (as a debugger's breakpoint, free for code that never reaches it)
at the first word after each loaded image: a program that forgets its HALT runs off its
end there, through its data and then through memory that nothing loaded (all zeros: a BR
that never branches, so it goes round all of memory and starts again, printing its
"Hello" forever). The first time a run reaches such a word, one warning names the last
instruction of the program before it, and the run goes on as before, without the stops.

Every ending other than HALT (`--max-steps`, a signal, input that ended, a fault) then
says where the PC is (address, label+offset, source line) and, when the program is
going round a loop or through empty memory, which: a copy of the machine runs on a few
thousand instructions in the interpreter to see (the state reported is untouched).
"""

from __future__ import annotations

from lc3jit.session import RunResult
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.loader import loaded_at
from lc3jit_runtime.machine import MEMORY_WORDS, Machine
from lc3jit_runtime.outcome import STEP_LIMIT, Outcome
from lc3jit_runtime.running import start_message_line

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

    from lc3jit.simulator.base import SimulatorBase as Simulator
    from lc3jit.toolchain.places import Places

# A run that ends with HALT only needs the stops (`exits`): the places that name addresses
# and the copy's captured console are imported where something is said.

#: Instructions the copy runs to tell a loop from a computation that is only long.
SAMPLE = 20_000
#: At most this many different addresses in the sample, all inside the program: a loop.
LOOP_WORDS = 64
#: The directives whose words are data: a PC running through them left the code.
DATA = (".FILL", ".BLKW", ".STRINGZ")


def known(sim: Simulator) -> bool:
    """Is the program one whose labels or source lines are known (an .asm, an .obj with its
    .sym)? Only of such a program is there more to say than the ending's one line."""
    return bool(sim.symbols) or any(image.source for image in sim.images)


def exits(sim: Simulator) -> list[int]:
    """The first word after each loaded image that no image loads."""
    ends = {image.end for image in sim.images if image.end < MEMORY_WORDS}
    return sorted(end for end in ends if not loaded_at(sim.images, end))


def run_watched(
    sim: Simulator,
    max_steps: int | None,
    warn: Callable[[str], None],
    prefix: str,
    trace: TextIO | None = None,
    trace_range: tuple[int, int] = (0, MEMORY_WORDS),
) -> RunResult:
    """sim.run, warning once (warn, after prefix) when the PC runs off the end of the program."""
    stops = exits(sim) if trace is None and known(sim) else []
    engine = sim.engine if stops else None
    for address in stops:
        engine.set_stop(address, True)  # type: ignore[union-attr]
    start = sim.machine.icount
    result = sim.run(max_steps, check=False, trace=trace, trace_range=trace_range)
    seconds, setup = result.seconds, result.setup_seconds
    if result.outcome.ending is Ending.BREAKPOINT and sim.pc in stops:
        start_message_line(sim.console)
        warn(f"{prefix}: warning: {left_the_program(sim, sim.pc)}")
        for address in stops:
            engine.set_stop(address, False)  # type: ignore[union-attr]
        left = None if max_steps is None else max_steps - (sim.machine.icount - start)
        result = sim.run(left, check=False)
        result.seconds += seconds
        result.setup_seconds += setup
    return result


def left_the_program(sim: Simulator, exit: int) -> str:
    """The PC reached exit, the word after the program's last: say what it ran before."""
    from lc3jit.toolchain.places import Places

    places = Places(sim.symbols, sim.images)
    last = last_instruction(places, exit)
    text = f"the PC left your program at x{exit:04X} and runs on through memory that holds no code"
    if last is not None:
        text += f"; the last instruction before it is {places.describe(last)}: is a HALT missing after it?"
    return text


def last_instruction(places: Places, exit: int) -> int | None:
    """The last word before exit that an instruction line made (data lines skipped), or
    the word before exit when the source is not known."""
    address = exit - 1
    while places.inside(address) and (line := places.line(address)) is not None:
        words = line.text.split(";")[0].upper().split()
        if not any(word in DATA for word in words):
            return address
        address -= 1
    return exit - 1 if places.line(exit - 1) is None else None


def explain(sim: Simulator, outcome: Outcome) -> list[str]:
    """For an ending other than HALT: where the PC is, and what it keeps doing."""
    if outcome.ending in (Ending.BROKEN_PIPE, Ending.OUTPUT_ERROR) or not outcome.exit_code or not known(sim):
        return []
    from lc3jit.toolchain.places import Places

    places = Places(sim.symbols, sim.images)
    pc = sim.pc
    where = places.describe(pc) + ("" if places.inside(pc) else ", outside your program")
    said = f"x{pc:04X}" in outcome.message  # a fault's message names the PC already
    lines = [] if said else [f"  at {where}"]
    if outcome.ending is Ending.STEP_LIMIT or outcome.ending.by_signal:
        doing = what_it_does(sim.machine, places)
        if doing:
            lines.append(f"  {doing}")
    return lines


def what_it_does(machine: Machine, places: Places) -> str | None:
    """Run a copy of the machine SAMPLE instructions on: a loop, or a run through memory
    that holds no code, or None (a long computation, or it ends soon)."""
    from lc3jit_runtime.capture import CapturedConsole

    copy = Machine(CapturedConsole(b""), machine.edition, full_system=not machine.host_traps)
    copy.mem[:] = machine.mem
    copy.reg[:] = machine.reg
    for name in ("pc", "ccv", "psr_mode", "saved_ssp", "saved_usp", "kbsr_ie", "mcr"):
        setattr(copy, name, getattr(machine, name))
    from collections import Counter  # only for a run that did not end with HALT

    interpreter, seen = Interpreter(copy), Counter[int]()
    for _ in range(SAMPLE):
        seen[copy.pc] += 1
        if interpreter.run(1) is not STEP_LIMIT:
            return None
    outside = [pc for pc in seen if not places.inside(pc)]
    if len(outside) > len(seen) // 2:
        return "it is running through memory that holds no code (a HALT missing, or a jump gone wrong)"
    if len(seen) > LOOP_WORDS:
        return None
    low, high = min(seen), max(seen)
    lines = [places.line(low), places.line(high)]
    where = ""
    if lines[0] is not None and lines[1] is not None and lines[0].path == lines[1].path:
        where = f" (lines {lines[0].line}-{lines[1].line})" if lines[0].line != lines[1].line else ""
    return (
        f"it is looping between {places.where(low)} and {places.where(high)}{where}:"
        f" {len(seen)} instructions, none of them left in the next {SAMPLE:,}"
    )
