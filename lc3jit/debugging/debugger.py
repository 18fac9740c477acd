"""The debugger behind `lc3jit debug`: its commands, and the prompt that reads them.

A front over the debugging session (session.py), as the debug adapter is another: a command
line is parsed here and done by the session (running, breakpoints and watches, going back
through backward.py and reverse.py); inspecting.py shows registers, memory, source lines and
stops. docs/debugger.md describes the session's API.
"""

from __future__ import annotations

import contextlib
import re
from types import ModuleType
from typing import TextIO

from lc3jit.debugging.expressions import ExpressionError, evaluate
from lc3jit.debugging.inspecting import Inspecting
from lc3jit.debugging.stops import BREAKPOINT, ENDED, CommandError
from lc3jit.debugging.watches import KINDS, REGISTER
from lc3jit_runtime.isa import WORD_MASK

__all__ = ["ENDED", "CommandError", "Debugger", "interact"]

_COMMAND = {kind: command for command, kind in KINDS.items()}


#: The commands, in the order `help` lists them; each is done by its method cmd_NAME.
COMMANDS = (
    "break",
    "tbreak",
    "delete",
    "watch",
    "rwatch",
    "awatch",
    "display",
    "step",
    "next",
    "finish",
    "until",
    "continue",
    "print",
    "reverse-step",
    "reverse-next",
    "reverse-finish",
    "reverse-continue",
    "regs",
    "info",
    "mem",
    "list",
    "set",
    "run",
    "restart",
    "help",
)
ALIASES = {
    "b": "break",
    "d": "delete",
    "s": "step",
    "n": "next",
    "c": "continue",
    "p": "print",
    "r": "run",
    "back": "reverse-step",
    "rs": "reverse-step",
    "rn": "reverse-next",
    "rc": "reverse-continue",
    "i": "info",
    "x": "mem",
}


class Debugger(Inspecting):
    """A program under the debugger, driven by command lines (`execute`), printing to out."""

    last_error: str | None = None  # why the last command failed (None: it did not)

    # Commands.
    def execute(self, line: str) -> bool:
        """Do one command line; False after quit. A command that fails says so in one line
        and leaves it in last_error (None when it succeeded)."""
        self.last_error = None
        words = line.split()
        if not words:
            return True
        name = ALIASES.get(words[0].lower(), words[0].lower())
        if "/" in name and name.split("/")[0] in ("x", "mem"):  # gdb's x/8 ADDR
            name, words = "mem", [words[0], *words[1:][:1], name.split("/")[1]]
        if name in ("quit", "q", "exit"):
            return False
        matches = [c for c in COMMANDS if c.startswith(name)]
        if name in COMMANDS:
            matches = [name]
        if len(matches) != 1:
            self._error(f"unknown command {words[0]!r} (help lists them)")
            return True
        try:
            getattr(self, "cmd_" + matches[0].replace("-", "_"))(words[1:])
        except CommandError as e:
            self._error(str(e))
        return True

    def _error(self, message: str) -> None:
        self.last_error = message
        self.say(f"error: {message}")

    def cmd_break(self, args: list[str]) -> None:
        """break [LOC [if COND]]: stop before LOC (a line 12, fib.asm:12, a label, *x3005); alone, list."""
        if not args:
            self.cmd_info(["breakpoints"])
            return
        location, _, condition = " ".join(args).partition(" if ")
        if len(location.split()) != 1 or (_ and not condition.strip()):
            raise CommandError("break LOC, or break LOC if CONDITION (e.g. break LOOP if R2 == 0)")
        address = self.location(location)
        if not self.places.inside(address):
            self.say(f"warning: {self.where(address)} is outside every loaded program: it may never be hit")
        if condition:
            self.conditions[address] = self.condition(condition)
        else:
            self.conditions.pop(address, None)
        if address not in self.breakpoints:
            self.breakpoints.add(address)
            self.set_stop(address, True)
        self.say(f"Breakpoint at {self.where(address)}" + (f" if {condition.strip()}" if condition else ""))

    def cmd_tbreak(self, args: list[str]) -> None:
        """tbreak LOC: a breakpoint deleted when it is hit."""
        self.cmd_break(args)
        self.temporary.add(self.location(" ".join(args).partition(" if ")[0]))

    def cmd_delete(self, args: list[str]) -> None:
        """delete [LOC|R2...]: remove the breakpoint or watch at LOC (R2); alone, remove them all."""
        if not args:
            for target in [*self.breakpoints, *self.watch_list.targets()]:
                self._delete_target(target)
        for text in args:
            register = REGISTER.fullmatch(text)
            if register is not None:
                if int(register[1]) not in self.watch_list.registers:
                    raise CommandError(f"no watch on R{register[1]}")
                self._delete_target(f"R{register[1]}")
                continue
            address = self.address(text)
            if address not in self.breakpoints and address not in self.watches:
                raise CommandError(f"no breakpoint or watch at {self.where(address)}")
            self._delete_target(address)

    def _delete_target(self, target: str | int) -> None:
        if isinstance(target, str):
            self.unwatch(target)
        else:
            self._delete(target)
        self.say(f"Deleted {target if isinstance(target, str) else self.where(target)}")

    def cmd_watch(self, args: list[str], kind: str = "write") -> None:
        """watch LOC|R2: stop after an instruction stores into the word at LOC, or changes R2."""
        if len(args) != 1:
            raise CommandError(
                f"{_COMMAND[kind]} takes one label or address" + (", or a register" * (kind == "write"))
            )
        register = REGISTER.fullmatch(args[0])
        if register is not None and kind != "write":
            raise CommandError(f"a register is watched for changes: watch {args[0]}")
        self.say("Watching " + self.watch(f"R{register[1]}" if register else self.address(args[0]), kind))

    def cmd_rwatch(self, args: list[str]) -> None:
        """rwatch LOC: stop after an instruction reads the word at LOC (LD, LDR, LDI, STI, a pop)."""
        self.cmd_watch(args, "read")

    def cmd_awatch(self, args: list[str]) -> None:
        """awatch LOC: stop after an instruction reads or stores into the word at LOC."""
        self.cmd_watch(args, "access")

    def cmd_step(self, args: list[str]) -> None:
        """step [N]: run one instruction (N), into calls and traps; stops at breakpoints."""
        self.report(self.step(self._count(args)))

    def cmd_next(self, args: list[str]) -> None:
        """next: one instruction, running a JSR, JSRR or TRAP through to its return."""
        self.report(self.next())

    def cmd_finish(self, args: list[str]) -> None:
        """finish: run until the current subroutine (or trap routine) returns."""
        if not self.in_call():
            raise CommandError('"finish" not meaningful in the outermost frame: no routine called this one')
        self.report(self.finish())

    def cmd_print(self, args: list[str]) -> None:
        """print EXPR (p): a value: R2, PC, M[COUNT], COUNT+1, R0 == #-1 (hex, signed, character)."""
        if not args:
            raise CommandError("print takes an expression (e.g. print R2, print M[COUNT])")
        try:
            self.say(evaluate(self.sim, " ".join(args)).describe(self.sim))
        except ExpressionError as e:
            raise CommandError(str(e)) from None

    def cmd_until(self, args: list[str]) -> None:
        """until LOC: run until the PC reaches LOC (or another stop)."""
        if len(args) != 1:
            raise CommandError("until takes one label or address")
        self.report(self.until(self.location(args[0])))

    def cmd_continue(self, args: list[str]) -> None:
        """continue: run at full speed until a breakpoint, a watch, or the end."""
        self.report(self.cont())

    def cmd_reverse_step(self, args: list[str]) -> None:
        """reverse-step [N] (back): back one instruction (N), exactly: registers, memory, output, count."""
        self.report(self.reverse_step(self._count(args)))

    def cmd_reverse_next(self, args: list[str]) -> None:
        """reverse-next: back one instruction, over a whole call when it was the call's return."""
        self.report(self.reverse_next())

    def cmd_reverse_finish(self, args: list[str]) -> None:
        """reverse-finish: back to the call that entered the current subroutine."""
        self.report(self.reverse_finish())

    def cmd_reverse_continue(self, args: list[str]) -> None:
        """reverse-continue: back to the previous breakpoint or watch hit (or the history's start)."""
        self.report(self.reverse_continue())

    def cmd_run(self, args: list[str]) -> None:
        """run: start the program again from the beginning (if it ran) and continue."""
        if self.sim.machine.icount or self.ended is not None:
            self.load()
        at_start = self.sim.pc in self.breakpoints and self._holds(self.sim.pc)
        self.report(BREAKPOINT if at_start else self.cont())

    def cmd_restart(self, args: list[str]) -> None:
        """restart: load the program again, stopped at its first instruction."""
        self.load()
        self.show_pc()

    def cmd_set(self, args: list[str]) -> None:
        """set R3 x10 | set PC LOC | set ADDR VALUE: a register, the PC, or a memory word."""
        if len(args) != 2:
            raise CommandError("set takes a register or address and a value")
        target, value = args[0].upper(), self._value(args[1])
        if target == "PC":
            self.sim.pc = value & WORD_MASK
            self.frames = []
            self.ended = None  # a program that ended may go on from elsewhere
        elif re.fullmatch(r"R[0-7]", target):
            self.sim.registers[int(target[1])] = value
            self.watch_list.resync(self.sim.machine)
        elif re.fullmatch(r"R\d+", target):
            raise CommandError(f"no register {args[0]}: the registers are R0-R7")
        else:
            address = self.address(args[0])
            self.sim.memory[address] = value
            self.watch_list.resync(self.sim.machine)
        if self.history is not None:
            self.history.diverge()
        self.say(f"{args[0]} = x{value & WORD_MASK:04X}")

    def cmd_help(self, args: list[str]) -> None:
        """help: this list."""
        for name in COMMANDS:
            self.say((getattr(self, "cmd_" + name.replace("-", "_")).__doc__ or "").split("\n")[0])
        self.say(
            "quit: leave the debugger.  Abbreviations: b d s n c p r i x back rs rn rc, or any unique prefix."
        )


PROMPT = "(lc3) "


def interact(
    debugger: Debugger, script: TextIO | None, history: str | None = None, keep_going: bool = False
) -> int:
    """Read commands until quit or the end: from a script (each echoed after the prompt, so
    the transcript reads like a session), or typed at the prompt with readline's editing
    and a history kept in `history` across sessions. The exit code: a script stops at its
    first failed command with 1, as gdb -batch does, unless keep_going."""
    debugger.show_pc()
    if script is not None:
        failed = False
        for line in script:
            debugger.say(PROMPT + line.rstrip("\n"))
            if not debugger.execute(line):
                break
            failed = failed or debugger.last_error is not None
            if failed and not keep_going:
                debugger.say("Stopped at the first failed command (--keep-going goes on).")
                return 1
        return 1 if failed else 0
    readline = _readline(history)
    try:
        while True:
            try:
                line = input(PROMPT)
            except EOFError:
                debugger.say()
                return 0
            except KeyboardInterrupt:
                debugger.say()
                continue
            try:
                if not debugger.execute(line):
                    return 0
            except KeyboardInterrupt:  # outside a run (which reports its own): back to the prompt
                debugger.say("Interrupted")
    finally:
        if readline is not None and history is not None:
            with contextlib.suppress(OSError):
                readline.write_history_file(history)


def _readline(history: str | None) -> ModuleType | None:
    """Line editing and history for input(), where the platform has readline."""
    try:
        import readline
    except ImportError:  # pragma: no cover - not on every platform
        return None
    if history is not None:
        with contextlib.suppress(OSError):
            readline.read_history_file(history)
    return readline
