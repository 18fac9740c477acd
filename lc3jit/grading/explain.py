"""Why a test failed, in plain words, and which of the student's lines never ran in it.

Coverage is the words that ran (lc3jit.grading.coverage: the interpreter's marks, which a
translated engine built for coverage keeps exact). The lines worth showing are those the
program could have reached from what ran (the block finder follows the flow from there)
and did not: the branch never taken, the loop body never entered, the code after a loop
that never ended.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from lc3jit.toolchain.asm import SPELLINGS
from lc3jit.translator.blocks import find_blocks
from lc3jit_runtime.loader import SourceLine
from lc3jit_runtime.machine import IO_BASE, WATCH_DECODED, Machine

#: Lines shown at most per test.
MAX_LINES = 12

_PLAIN = {
    "StepLimitError": "The program was still running when its instruction limit ran out: most likely "
    "a loop whose exit condition never comes true (the message says which instructions it kept running).",
    "TimeLimitError": "The program ran longer than the test allows: most likely a loop that never ends "
    "(the message says which instructions it kept running).",
    "OutputLimitError": "The program printed far more than the test expects: most likely output inside "
    "a loop that never ends.",
    "MachineFaultError": "The machine met a word it cannot run: the program jumped into data or empty memory "
    "(a wrong address in JMP or RET, or running past HALT), or used a TRAP vector that does not exist.",
    "InputEndedError": "The program waited for more keys than the test typed: it reads input the test "
    "did not expect it to read.",
    "StrictError": "The program read a memory word that nothing had written: a variable never initialised, "
    "or an address computed wrongly.",
    "LabelError": "The tests find your code by the label the assignment names: give the subroutine (or "
    "the data) exactly that label (case does not matter).",
}

#: A call that did not return, by how it ended (the message of CallResult.not_returned).
_NOT_RETURNED = {
    "it halted": "A subroutine goes back to its caller with RET; HALT stops the whole machine, so the "
    "caller never gets its result. End the subroutine with RET (HALT belongs to the main program).",
    "holds no code": "The program ran off the end of its code into memory that holds none: an RET (or a "
    "HALT) is missing, or a jump or RET went to a wrong address (was R7 overwritten by a JSR or a TRAP?).",
    "looping": "The subroutine never came back: it kept going round the loop the message names, most likely "
    "because its exit condition never comes true.",
    "": "The subroutine did not come back with RET: it lost its return address in R7 (save R7 before "
    "calling another subroutine or a TRAP), or it never reaches its RET.",
}


def explain(kind: str, message: str) -> str:
    """A sentence or two for a failure of this exception kind and message: the real problem,
    in the student's terms."""
    if " did not return: " in message:
        return next(text for words, text in _NOT_RETURNED.items() if words in message)
    if kind in _PLAIN:
        return _PLAIN[kind]
    if " changed R" in message:
        return (
            "A register the subroutine must keep came back changed: save it on entry and restore it "
            "before RET."
        )
    if "left R6" in message or "restore R5" in message:
        return "The stack was not left as the calling convention wants: count the pushes and the pops."
    if message.startswith("expected output") or "output containing" in message:
        return (
            "The program's output differs from what the test expected: the lines marked - are "
            "expected, those marked + printed."
        )
    if " returned " in message:
        return "The subroutine returned, but not the value the test expected."
    return "A check of the test did not hold: compare what was expected with what came back."


def is_instruction(text: str) -> bool:
    """Does this source line hold an instruction (not a directive, a label alone, a comment)?"""
    words = text.split(";", 1)[0].replace(",", " ").split()
    return any(w.upper().rstrip(":") in SPELLINGS for w in words[:2])


def unran(machines: Iterable[Machine], source: dict[int, SourceLine]) -> list[tuple[int, str]]:
    """The instruction lines (number, text) of .asm source that the flow from what ran could
    reach and that ran in none of the machines, by line number, at most MAX_LINES."""
    ran: set[int] = set()
    reach: set[int] = set()
    for machine in machines:
        watch = machine.watch  # only the words with source lines: a few, not all of memory
        done = {a for a in source if a < IO_BASE and watch[a] & WATCH_DECODED}
        if not done:
            continue
        ran |= done
        for block in find_blocks(machine.mem, sorted(done)).values():
            reach.update(i.address for i in block.instructions)
    lines: dict[int, str] = {}
    for address in sorted(reach - ran):
        line = source.get(address)
        if line is not None and Path(line.path).suffix.lower() == ".asm" and is_instruction(line.text):
            lines.setdefault(line.line, line.text.rstrip())
    return sorted(lines.items())[:MAX_LINES]
