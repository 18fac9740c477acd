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

The compiler is three layers, each a module: block_state (the registers' locals, their
bounds and the codes), memory_access (loads, stores and their slow paths) and this one
(the exits, and a block's instructions in turn, one emitter per LC-3 form in forms).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import CodeType, FunctionType

from lc3jit.translator.block_state import load_registers
from lc3jit.translator.blocks import Block
from lc3jit.translator.bounds import EMPTY
from lc3jit.translator.dataflow import ALL_MASK, dead_codes, exact_results, unread_results
from lc3jit.translator.emitter import Compare, Emitter, Label
from lc3jit.translator.forms import EMITTERS
from lc3jit.translator.memory_access import MemoryAccess
from lc3jit_runtime import contract
from lc3jit_runtime.isa import Instruction
from lc3jit_runtime.machine import PSR_USER, user_address


class BlockCompiler(MemoryAccess):
    """Compiles one block; the emit_* functions of forms drive it, one per ISA form."""

    # Exits: a block returns the next PC to the dispatcher (regions override these).
    def exit_to(self, pc: int) -> None:
        self.write_back()
        self.e.return_const(pc)
        self.exited = True

    def exit_if(
        self, pc: int, when: bool = True, is_bool: bool = True, facts: Mapping[int, tuple[int, int]] = EMPTY
    ) -> None:
        """Pop a value; when its truth is `when`, go to pc (where `facts` bound registers
        more tightly: regions use them). Code after it runs otherwise."""
        not_taken = Label()
        self.e.jump_if(not_taken, not when, is_bool)
        alias = self.cc_alias
        self.exit_to(pc)
        self.cc_alias = alias  # the way out settled the codes on its own path only
        self.e.place(not_taken)
        self.exited = False

    def exit_with_top(self, ins: Instruction) -> None:
        """Go to the address at the top of the stack (JMP, RET, JSRR)."""
        self.write_back()
        self.e.return_top()
        self.exited = True

    def exit_to_register(self, ins: Instruction) -> None:
        """Go to the address in BaseR (JMP, RET)."""
        self.push_reg(ins.baser)
        self.exit_with_top(ins)

    def exit_through(self, helper: contract.Helper, *args: int) -> None:
        """Go where a runtime helper says (TRAP, RTI, exceptions); it may stop the machine."""
        self.sync()
        self.call(helper, *args)
        self.e.return_top()
        self.exited = True

    def emit_block(self, block: Block) -> None:
        """The instructions of one block, then its way out.

        Under access control the privilege cannot change inside a block (RTI and TRAP
        end it, a store into the PSR leaves it), so a block that starts outside
        x3000-xFDFF runs in supervisor mode or not at all, and loads need no checks.

        The bounds of the registers and where the codes are at the start are the
        compiler's already: words from R and the codes in the machine for a block alone,
        what the ways in told for a region's block (RegionCompiler.emit_region_block).
        """
        self.exited = False
        self.checked_loads = self.access_control and user_address(block.start)
        dead = dead_codes(block, self.edition, self.access_control)
        self.exact = self.exact_results(block)
        self.unread = self.unread_results(block)
        for index, ins in enumerate(block.instructions):
            self.index = index
            self.cc_dead = dead[index]
            self.e.line = ins.address
            if (
                self.access_control
                and (index == 0 or user_address(block.instructions[index - 1].address))  # entered
                and not user_address(ins.address)
                and not self.supervisor_at(index)
            ):
                self.fetch_check(ins.address)
            EMITTERS[ins.form.name](self, ins)
        if not self.exited:
            self.exit_to(block.last.next_pc)

    def supervisor_at(self, index: int) -> bool:
        """Is the current block known to run in supervisor mode at instruction `index`
        (no check of the fetch needed)? A block alone knows nothing of how it was entered."""
        return False

    def unread_results(self, block: Block) -> list[bool]:
        """For each instruction: is the value it writes read by nothing after it?"""
        return unread_results(block, self.wanted_after(block))

    def wanted_after(self, block: Block) -> int:
        """The registers whose locals must hold words when the block ends, as a bit mask
        (dataflow.MASKS): all, as its way out writes them to R (and the codes to m.ccv): a
        value wrapped where it is made serves both. (Regions keep locals across blocks:
        see there.)"""
        return ALL_MASK

    def exact_results(self, block: Block) -> list[bool]:
        """For each instruction: must the value it writes be a word at once? (dataflow)"""
        return exact_results(
            block, self.wanted_after(block), self.access_control, self.slow_paths.unwrapped_bases
        )

    def fetch_check(self, at: int) -> None:
        """In user mode, the word at `at` may not be fetched: `FETCH` takes the exception."""

        def violation() -> None:
            self.sync()
            self.call(contract.FETCH, at)
            self.e.pop()

        self.in_user_mode(violation)

    def in_user_mode(self, then: Callable[[], None]) -> None:
        """Code that runs what `then` emits when the machine is in user mode (PSR[15] set)."""
        e, allowed = self.e, Label()
        e.global_(contract.MACHINE)
        e.load_attr(contract.PRIVILEGE)
        e.const(PSR_USER)
        e.compare(Compare.GE)
        e.jump_if_false(allowed)
        then()
        e.place(allowed)

    def compile(self) -> CodeType:
        self.emit_block(self.block)
        prologue = Emitter("prologue", self.block.start)
        load_registers(prologue, self.loaded)
        self.e.code[1:1] = prologue.code[1:]  # after RESUME
        return self.e.to_code(("pc",))


def compile_block(block: Block, edition: int, access_control: bool = False) -> CodeType:
    return BlockCompiler(block, edition, access_control).compile()


def make_function(
    code: CodeType, namespace: dict[str, object], defaults: tuple[int, ...] = ()
) -> Callable[[int], int]:
    """Bind generated code to a machine's namespace (see runtime.dispatch)."""
    return FunctionType(code, namespace, code.co_name, defaults or None)  # type: ignore[return-value]
