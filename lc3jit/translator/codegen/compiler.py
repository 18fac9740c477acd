"""The code generator: one basic block becomes one Python function returning the next PC.

What the generated code looks like, and why (measured in the architecture doc):
- registers live in fast locals `r0`..`r7` inside the block: loaded at entry only if
  read before written, written back to `R` only if written, at every exit;
- condition codes are lazy: the register a setting instruction wrote stands for them
  (a branch tests its value), copied to the local `cc` only when that register changes
  or something may leave; `m.ccv` is written only at exits;
- 16-bit wrap by compare and subtract, not `&`, which CPython does not specialise, and
  only where a value is read as a word: register-to-register arithmetic is right
  modulo 2^16 on unwrapped values, a branch tests an unwrapped sum through a table
  periodic over 2^17 (or by its sign), and bounds tracked through the block (regions:
  across blocks) choose the cheapest wrap (often none);
- addresses and offsets folded at translation time; a constant address is known to
  be a device register or not; a computed one is checked against xFE00;
- stores check the write map `W` and take the slow path `STORE` for watched words,
  which leaves the block (by exception) when the word was translated code;
- every slow path that can stop the machine writes the registers back first;
- with access control (an OS in the 3rd edition), a block reachable in user mode sends
  loads outside x3000-xFDFF to `LOAD`, which checks the privilege, and the first word
  of a block outside x3000-xFDFF checks that it is not fetched in user mode; stores
  need nothing more, as the write map marks the protected words.
Each instruction's bytecode carries its LC-3 address as the line number. Generated
code is built from decoded fields only: constants, never text.

The compiler is parts, each an object of its own module, which BlockCompiler assembles:
the state they share (state: the registers' locals, their bounds, the codes, the
emitter), loads and stores (memory) with their slow paths (slow_paths), and the ways out
(exits). emit_block walks a block's instructions, one emitter per LC-3 form (forms),
each driving the state and the parts it holds; what emit_block asks of the unit the
block is compiled in (a block alone, a region) is a protocol, BlockFacts.
"""

from __future__ import annotations

from collections.abc import Callable
from types import CodeType, FunctionType
from typing import Protocol

from lc3jit.translator.blocks import Block
from lc3jit.translator.codegen.dataflow import ALL_MASK, dead_codes, exact_results, unread_results
from lc3jit.translator.codegen.emitter import Compare, Emitter, Label
from lc3jit.translator.codegen.exits import BlockExits
from lc3jit.translator.codegen.forms import EMITTERS
from lc3jit.translator.codegen.memory import MemoryAccess
from lc3jit.translator.codegen.slow_paths import Rejoin
from lc3jit.translator.codegen.state import BlockState, load_registers
from lc3jit_runtime import contract
from lc3jit_runtime.machine import PSR_USER, user_address


class BlockFacts(Protocol):
    """What emit_block asks of the unit a block is compiled in (a block alone, a region)."""

    def exact_results(self, block: Block) -> list[bool]:
        """For each instruction: must the value it writes be a word at once? (dataflow)"""

    def unread_results(self, block: Block) -> list[bool]:
        """For each instruction: is the value it writes read by nothing after it?"""

    def supervisor_at(self, block: Block, index: int) -> bool:
        """Is the block known to run in supervisor mode at instruction `index` (no check
        of the fetch needed)?"""


def emit_block(s: BlockState, facts: BlockFacts, block: Block) -> None:
    """The instructions of one block, then its way out.

    Under access control the privilege cannot change inside a block (RTI and TRAP
    end it, a store into the PSR leaves it), so a block that starts outside
    x3000-xFDFF runs in supervisor mode or not at all, and loads need no checks.

    The bounds of the registers and where the codes are at the start are the
    state's already: words from R and the codes in the machine for a block alone,
    what the ways in told for a region's block (RegionCompiler.emit_region_block).
    """
    s.exited = False
    s.checked_loads = s.access_control and user_address(block.start)
    dead = dead_codes(block, s.edition, s.access_control)
    s.exact = facts.exact_results(block)
    s.unread = facts.unread_results(block)
    for index, ins in enumerate(block.instructions):
        s.index = index
        s.cc_dead = dead[index]
        s.e.line = ins.address
        if (
            s.access_control
            and (index == 0 or user_address(block.instructions[index - 1].address))  # entered
            and not user_address(ins.address)
            and not facts.supervisor_at(block, index)
        ):
            fetch_check(s, ins.address)
        EMITTERS[ins.form.name](s, ins)
    if not s.exited:
        s.exits.exit_to(block.last.next_pc)


def fetch_check(s: BlockState, at: int) -> None:
    """In user mode, the word at `at` may not be fetched: `FETCH` takes the exception."""

    def violation() -> None:
        s.sync()
        s.call(contract.FETCH, at)
        s.e.pop()

    in_user_mode(s.e, violation)


def in_user_mode(e: Emitter, then: Callable[[], None]) -> None:
    """Code that runs what `then` emits when the machine is in user mode (PSR[15] set)."""
    allowed = Label()
    e.global_(contract.MACHINE)
    e.load_attr(contract.PRIVILEGE)
    e.const(PSR_USER)
    e.compare(Compare.GE)
    e.jump_if_false(allowed)
    then()
    e.place(allowed)


class BlockCompiler:
    """Compiles one block: its state, and the parts that emit from it (loads and stores,
    their slow paths, which rejoin the block, and the ways out), which the emit_*
    functions of forms drive, one per ISA form."""

    def __init__(self, block: Block, edition: int, access_control: bool = False) -> None:
        self.block = block
        self.state = state = BlockState(block, edition, access_control)
        self.slow = Rejoin(state)
        state.memory = MemoryAccess(state, self.slow)
        state.exits = BlockExits(state)

    def supervisor_at(self, block: Block, index: int) -> bool:
        """A block alone knows nothing of how it was entered."""
        return False

    def unread_results(self, block: Block) -> list[bool]:
        """All registers are wanted after the block, as its way out writes them to R (and
        the codes to m.ccv): a value wrapped where it is made serves both."""
        return unread_results(block, ALL_MASK)

    def exact_results(self, block: Block) -> list[bool]:
        s = self.state
        return exact_results(block, ALL_MASK, s.access_control, self.slow.unwrapped_bases)

    def compile(self) -> CodeType:
        e = self.state.e
        emit_block(self.state, self, self.block)
        prologue = Emitter("prologue", self.block.start)
        load_registers(prologue, self.state.loaded)
        e.code[1:1] = prologue.code[1:]  # after RESUME
        return e.to_code(("pc",))


def compile_block(block: Block, edition: int, access_control: bool = False) -> CodeType:
    return BlockCompiler(block, edition, access_control).compile()


def make_function(
    code: CodeType, namespace: dict[str, object], defaults: tuple[int, ...] = ()
) -> Callable[[int], int]:
    """Bind generated code to a machine's namespace (see runtime.dispatch)."""
    return FunctionType(code, namespace, code.co_name, defaults or None)  # type: ignore[return-value]
