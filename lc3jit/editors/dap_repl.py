"""The debug console's commands: what `lc3jit debug` takes at its prompt, typed where an
editor evaluates expressions (DAP `evaluate` in the "repl" context).

The commands that run the program start it as the editor's buttons do (a `stopped` or
`exited` event follows); those that look answer with their lines. Breakpoints stay the
editor's (its gutter is where they are set); anything else is an expression.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lc3jit.debugging.expressions import evaluate
from lc3jit.debugging.stops import CommandError
from lc3jit.debugging.views import memory_lines, register_lines
from lc3jit.editors.dap_wire import Message
from lc3jit.toolchain.numbers import parse_number
from lc3jit_runtime.outcome import Outcome

if TYPE_CHECKING:
    from lc3jit.debugging.session import Session
    from lc3jit.editors.dap import Adapter

#: The commands that run the program, under each name and abbreviation the prompt takes.
_RUNNING: tuple[tuple[tuple[str, ...], Callable[[Session], Outcome]], ...] = (
    (("continue", "c"), lambda s: s.cont()),
    (("next", "n"), lambda s: s.next()),
    (("step", "s"), lambda s: s.step()),
    (("finish",), lambda s: s.finish()),
    (("reverse-step", "back", "rs"), lambda s: s.reverse_step()),
    (("reverse-next", "rn"), lambda s: s.reverse_next()),
    (("reverse-finish",), lambda s: s.reverse_finish()),
    (("reverse-continue", "rc"), lambda s: s.reverse_continue()),
)
RUNNING = {name: command for names, command in _RUNNING for name in names}
#: Words most shown by `mem` at once.
MEM_MOST = 256


def console_command(adapter: Adapter, line: str) -> Message | None:
    """Do line if it is one of the prompt's commands: the evaluate response's body (the
    lines it shows); None when it is not a command (an expression, then)."""
    words = line.split()
    if not words:
        return None
    name, args = words[0].lower(), words[1:]
    if name in RUNNING and not args:
        command = RUNNING[name]
        session = adapter.dbg
        adapter.start(lambda: command(session))
        return {"result": "", "variablesReference": 0}
    sim = adapter.stopped_machine()
    session = adapter.dbg
    if name in ("regs", "info") and (name == "regs" or args[:1] in (["r"], ["registers"])):
        lines = register_lines(sim, session.where)
    elif name in ("mem", "x") and 1 <= len(args) <= 2:
        count = parse_number(args[1]) if len(args) == 2 else 1
        if count is None or not 1 <= count <= MEM_MOST:
            raise CommandError(f"not a count from 1 to {MEM_MOST}: {args[1]!r}")
        try:
            start = sim.address(args[0])
        except (KeyError, ValueError):
            raise CommandError(f"no label or address {args[0]!r}") from None
        lines = memory_lines(sim, session.labels, start, count)
    elif name in ("print", "p") and args:
        lines = [evaluate(sim, " ".join(args)).describe(sim)]
    else:
        return None
    return {"result": "\n".join(lines), "variablesReference": 0}
