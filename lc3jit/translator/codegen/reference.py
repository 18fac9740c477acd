"""The `bytecode` library as the reference assembler, and its listing of a code object.

lc3jit's own assembler (assembler.py) is the default: it writes code objects for a sixth
to a seventh of the CPU `bytecode`'s `to_code` takes. `bytecode` checks every instruction
it assembles, so it is the reference: with `--assembler bytecode`, `Simulator(...,
assembler="bytecode")` or LC3JIT_ASSEMBLER=bytecode, every block and region is built as a
`bytecode.Bytecode` and assembled by it, and `lc3jit check` compares the two, field by
field. Both must write the same bytes on every Python the emitter speaks.

The far-jump split (assembler.assemble's `short_after_compare` and `split_far`) is a layout
decision `bytecode` does not make: here it is made on `bytecode`'s own layout, round by
round. A conditional jump that may split and needs an EXTENDED_ARG once `bytecode` has laid
the code out becomes the opposite short test over an unconditional jump (its NOT_TAKEN,
3.14+, moved after the short test); a jump split stays split (offsets only grow), until a
round splits none more, as the fast assembler resolves its jumps.

`bytecode` is imported only here, by the first code object assembled with it: a plain run
never loads it (25-50 ms a process).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import CodeType

    import bytecode as bytecode_library

    from lc3jit.translator.codegen.assembler import Item, Label


def bytecode_of(
    items: Sequence[Item | Label | int],
    argnames: Sequence[str],
    name: str,
    first_line: int,
    split: frozenset[int] = frozenset(),
) -> tuple[bytecode_library.Bytecode, list[int]]:
    """The emitter's instructions as a `bytecode.Bytecode`, the conditional jumps at the
    indexes `split` split; and, per instruction of it, the index of its item (-1 for those a
    split adds)."""
    import bytecode

    from lc3jit.translator.codegen.assembler import CONSTANT_OPS, Label, split_jump_names
    from lc3jit.translator.codegen.emitter import COMPARE_ARGS

    compares = {COMPARE_ARGS[op]: bytecode.Compare[op.name] for op in COMPARE_ARGS}
    labels: dict[Label, bytecode.Label] = {}
    code = bytecode.Bytecode()
    code.name, code.first_lineno = name, first_line
    code.argcount, code.argnames = len(argnames), list(argnames)
    origins: list[int] = []
    lineno = first_line
    moved = -1  # the NOT_TAKEN moved before a split jump's far jump
    for index, item in enumerate(items):
        if isinstance(item, Label):
            code.append(labels.setdefault(item, bytecode.Label()))
            continue
        if isinstance(item, int):  # the line from here on
            lineno = item
            continue
        if index == moved:
            continue
        op, arg = item[0], item[1]
        if isinstance(arg, Label):
            arg = labels.setdefault(arg, bytecode.Label())
        elif op == "COMPARE_OP":
            arg = compares[arg]
        elif op == "BINARY_OP":
            arg = bytecode.BinaryOp(arg)
        if index in split:
            skip, far = split_jump_names(op)
            over = bytecode.Label()
            code.append(bytecode.Instr(skip, over, lineno=lineno))
            origins.append(index)
            following = items[index + 1] if index + 1 < len(items) else None
            if isinstance(following, tuple) and following[0] == "NOT_TAKEN":
                code.append(bytecode.Instr("NOT_TAKEN", lineno=lineno))
                origins.append(-1)
                moved = index + 1
            code.append(bytecode.Instr(far, arg, lineno=lineno))
            origins.append(-1)
            code.append(over)
            continue
        if arg is None and op not in CONSTANT_OPS:
            code.append(bytecode.Instr(op, lineno=lineno))
        else:
            code.append(bytecode.Instr(op, arg, lineno=lineno))
        origins.append(index)
    return code, origins


def _splittable(items: Sequence[Item | Label | int], short_after_compare: bool, split_far: bool) -> set[int]:
    """The indexes of the conditional jumps split once far: all of them (`split_far`), or
    those right after a COMPARE_OP (`short_after_compare`)."""
    from lc3jit.translator.codegen.assembler import SPLITTABLE, Label

    found: set[int] = set()
    before = ""  # the instruction before, labels and lines aside
    for index, item in enumerate(items):
        if isinstance(item, Label | int):
            continue
        op = item[0]
        far_ok = split_far or (short_after_compare and before == "COMPARE_OP")
        if op in SPLITTABLE and isinstance(item[1], Label) and far_ok:
            found.add(index)
        before = op
    return found


def symbolic_listing(code: CodeType) -> list[str]:
    """The code object as `bytecode` lists it: its instructions numbered, jump targets as
    named labels rather than offsets, each line number where it changes."""
    import contextlib
    import io

    import bytecode

    listing = io.StringIO()
    with contextlib.redirect_stdout(listing):
        bytecode.dump_bytecode(bytecode.Bytecode.from_code(code), lineno=True)
    return listing.getvalue().splitlines()


def assemble_with_bytecode(
    items: Sequence[Item | Label | int],
    argnames: Sequence[str],
    name: str,
    first_line: int,
    stacksize: int,
    paired: Sequence[str] = (),
    short_after_compare: bool = False,
    split_far: bool = False,
) -> CodeType:
    """The code object of `items`, assembled by `bytecode` (parameters as assembler.assemble's;
    `paired` is what `bytecode` numbers by first use already)."""
    splittable = _splittable(items, short_after_compare, split_far)
    split: frozenset[int] = frozenset()
    while True:
        code, origins = bytecode_of(items, argnames, name, first_line, split)
        concrete = code.to_concrete_bytecode(compute_exception_stack_depths=False)
        instructions = [instr for instr in concrete if instr.name != "CACHE"]  # its inline caches apart
        far = {
            origin
            for origin, instr in zip(origins, instructions, strict=True)
            if origin in splittable and origin not in split and instr.arg > 0xFF
        }
        if not far:
            return concrete.to_code(stacksize=stacksize, compute_exception_stack_depths=False)
        split |= far
