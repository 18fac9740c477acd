"""Every form the emitter writes, run on this Python; and what happens on a Python it does not know.

Bad bytecode crashes the interpreter rather than raising, so each operation of the
emitter is executed here on each supported version (CI runs this file on 3.11 to 3.15),
including under sys.monitoring, which rewrites the code it watches.
"""

from __future__ import annotations

import dis
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import FunctionType, SimpleNamespace

import pytest
from typer.testing import CliRunner

import lc3jit.translator
from lc3jit.cli import app
from lc3jit.translator.codegen import emitter
from lc3jit.translator.codegen.emitter import BinaryOp, Compare, Emitter, Instr, Label, borrowable_loads

from .conftest import engine_options

EXAMPLES = Path(__file__).parent.parent / "examples"


def function(build: Callable[[Emitter], None], *argnames: str, **globals_: object) -> FunctionType:
    """A function whose code `build` emits (every local it uses is assigned first)."""
    e = Emitter("generated", 1)
    build(e)
    return FunctionType(e.to_code(argnames), dict(globals_))


def test_this_python_is_spoken() -> None:
    """CI runs on every spoken version; a version CI runs on must be spoken."""
    assert emitter.speaks_this_python()
    assert sys.version_info[:2] in emitter.SPOKEN


@pytest.mark.parametrize("value", [0, 1, 255, 256, 0xFFFF, -1, None, (1, 2), "x"])
def test_constants_come_back_as_they_went_in(value: object) -> None:
    def build(e: Emitter) -> None:
        e.const(value)
        e.return_top()

    assert function(build)() == value


@pytest.mark.parametrize("value", [0, 7, 300, None])
def test_return_const(value: object) -> None:
    assert function(lambda e: e.return_const(value))() == value


def test_subscripts_read_and_write_lists() -> None:
    def build(e: Emitter) -> None:
        e.load("v")  # value, container, index -> container[index] = value
        e.load("m")
        e.const(2)
        e.store_subscript()
        e.load("m")
        e.const(2)
        e.subscript()
        e.load("m")
        e.const(0)
        e.subscript()
        e.binary(BinaryOp.ADD)
        e.return_top()

    memory = [40, 0, 0]
    assert function(build, "m", "v")(memory, 2) == 42
    assert memory == [40, 0, 2]


def test_locals_dup_swap_pop_and_binary_ops() -> None:
    def build(e: Emitter) -> None:
        e.load("a")
        e.dup()
        e.binary(BinaryOp.MULTIPLY)  # a*a
        e.load("b")
        e.swap()
        e.binary(BinaryOp.SUBTRACT)  # b - a*a
        e.store("x")
        e.const(99)
        e.pop()
        e.load("x")
        e.const(0xFFFF)
        e.binary(BinaryOp.AND)
        e.return_top()

    assert function(build, "a", "b")(3, 10) == 1
    assert function(build, "a", "b")(3, 5) == 0xFFFC


@pytest.mark.parametrize(("a", "b"), [(1, 2), (2, 2), (3, 2)])
def test_compare_leaves_a_bool(a: int, b: int) -> None:
    def build(e: Emitter) -> None:
        e.load("a")
        e.load("b")
        e.compare(Compare.LT)
        e.return_top()

    result = function(build, "a", "b")(a, b)
    assert type(result) is bool
    assert result == (a < b)


@pytest.mark.parametrize("is_bool", [True, False])
@pytest.mark.parametrize("when", [True, False])
@pytest.mark.parametrize("value", [0, 1, 2, 0x8000])
def test_forward_conditional_jumps(value: int, when: bool, is_bool: bool) -> None:
    """An int that is not a bool takes the right way too (3.13+ need TO_BOOL for it)."""

    def build(e: Emitter) -> None:
        taken = Label()
        e.load("v")
        if is_bool:
            e.const(0)
            e.compare(Compare.NE)
        e.jump_if(taken, when, is_bool)
        e.return_const("on")
        e.place(taken)
        e.return_const("jumped")

    expected = "jumped" if bool(value) == when else "on"
    assert function(build, "v")(value) == expected


@pytest.mark.parametrize("value", [None, 0, 1, False, ()])
def test_a_jump_if_none_jumps_for_none_alone(value: object) -> None:
    """Falsy values are not None: only None jumps (a budget step's table holds 0)."""

    def build(e: Emitter) -> None:
        taken = Label()
        e.load("v")
        e.jump_if_none(taken)
        e.return_const("on")
        e.place(taken)
        e.return_const("jumped")

    assert function(build, "v")(value) == ("jumped" if value is None else "on")


def summing_loop(close: Callable[[Emitter, Label], None]) -> FunctionType:
    """f(n) = n + (n-1) + ... + 1: a loop over n, which `close` closes with a jump back to
    its label while n (left on the stack) is not 0."""

    def build(e: Emitter) -> None:
        top = Label()
        e.const(0)
        e.store("total")
        e.place(top)
        e.load("total")
        e.load("n")
        e.binary(BinaryOp.ADD)
        e.store("total")
        e.load("n")
        e.const(1)
        e.binary(BinaryOp.SUBTRACT)
        e.dup()
        e.store("n")
        close(e, top)
        e.load("total")
        e.return_top()

    return function(build, "n")


def close_on_int(e: Emitter, top: Label) -> None:
    e.jump_if_true(top, is_bool=False)


def close_on_bool(e: Emitter, top: Label) -> None:
    e.const(0)
    e.compare(Compare.EQ)
    e.jump_if_false(top)


@pytest.mark.parametrize("close", [close_on_int, close_on_bool])
def test_backward_conditional_jumps_loop(close: Callable[[Emitter, Label], None]) -> None:
    assert summing_loop(close)(10) == 55


def test_unconditional_jumps_both_ways_and_tidy() -> None:
    def build(e: Emitter) -> None:
        top, out, middle = Label(), Label(), Label()
        e.const(0)
        e.store("i")
        e.place(top)
        e.load("i")
        e.const(3)
        e.compare(Compare.GE)
        e.jump_if_true(out)
        e.load("i")
        e.const(1)
        e.binary(BinaryOp.ADD)
        e.store("i")
        e.jump_forward(middle)  # a jump to the next instruction: tidy drops it
        e.place(middle)
        e.jump(top)
        e.place(out)
        e.load("i")
        e.return_top()

    f = function(build)
    assert f() == 3
    names = [instruction.opname for instruction in __import__("dis").get_instructions(f)]
    assert "JUMP_FORWARD" not in names


def test_a_recorded_run_appends_what_its_calls_write() -> None:
    """Emitter.extend of a run `recorded` once is the code the same calls write, dropped
    with the rest where no way reaches it; a jump or a return cannot be recorded."""
    calls = (("load", "x"), ("const", 3), ("binary", BinaryOp.ADD))
    by_calls, by_record = Emitter("run", 1), Emitter("run", 1)
    for name, *args in calls:
        getattr(by_calls, name)(*args)
    by_record.extend(emitter.recorded(*calls))
    assert by_record.code == by_calls.code
    for e in (by_calls, by_record):
        e.return_top()
    for name, *args in calls:
        getattr(by_calls, name)(*args)
    by_record.extend(emitter.recorded(*calls))
    assert by_record.code == by_calls.code
    assert by_record.code[-1] == ("RETURN_VALUE", None)
    for unrecordable in [("return_top",), ("jump", Label())]:
        with pytest.raises(ValueError, match="straight on"):
            emitter.recorded(unrecordable)


@pytest.mark.parametrize("argc", [0, 1, 2, 3])
def test_calls_to_globals(argc: int) -> None:
    def build(e: Emitter) -> None:
        e.begin_call("helper")
        for i in range(argc):
            e.const(i + 1)
        e.end_call(argc)
        e.return_top()

    assert function(build, helper=lambda *args: ("called", args))() == ("called", tuple(range(1, argc + 1)))


def test_attributes_and_globals() -> None:
    def build(e: Emitter) -> None:
        e.load("v")
        e.global_("state")
        e.store_attr("pc")
        e.global_("state")
        e.load_attr("pc")
        e.return_top()

    state = SimpleNamespace(pc=0)
    assert function(build, "v", state=state)(0x3005) == 0x3005
    assert state.pc == 0x3005


def branch_events(function: FunctionType, *arguments: object) -> tuple[list[object], list[tuple[int, int]]]:
    """What `function` returns for each argument in turn, and the (from, to) offsets of every
    branch sys.monitoring (3.12+) reports in its code meanwhile, as coverage tools and
    debuggers see them."""
    mon = sys.monitoring
    events = mon.events
    # 3.14 split BRANCH into BRANCH_LEFT (on) and BRANCH_RIGHT (jumped).
    kinds = (events.BRANCH_LEFT, events.BRANCH_RIGHT) if hasattr(events, "BRANCH_LEFT") else (events.BRANCH,)
    seen: list[tuple[int, int]] = []
    tool = mon.DEBUGGER_ID
    mon.use_tool_id(tool, "lc3jit-test")
    try:
        for kind in kinds:
            mon.register_callback(tool, kind, lambda code, src, dest: seen.append((src, dest)))
        mon.set_local_events(tool, function.__code__, sum(kinds))
        results = [function(argument) for argument in arguments]
    finally:
        mon.set_local_events(tool, function.__code__, 0)
        mon.free_tool_id(tool)
    return results, seen


@pytest.mark.skipif(not hasattr(sys, "monitoring"), reason="sys.monitoring is new in 3.12")
def test_branches_under_sys_monitoring() -> None:
    """Coverage tools and debuggers (3.12+) watch branches by rewriting the code; both ways
    out of every generated branch are seen, and the code still computes the same."""
    f = summing_loop(close_on_int)
    results, seen = branch_events(f, 10)
    assert results == [55]
    assert len(set(seen)) == 2  # the loop's jump back and its way out, each seen
    assert f(4) == 10


def _loads_borrowed(*items: Instr | Label) -> list[str]:
    """The locals whose loads among items may be borrowed."""
    return [items[i].arg for i in borrowable_loads(items).borrowed]  # type: ignore[union-attr]


@pytest.mark.skipif(not emitter.HAS_BORROWED_LOADS, reason="borrowed loads are new in 3.14")
def test_borrowed_loads_only_where_the_value_is_used_up_before_its_local_changes() -> None:
    """A borrowed reference outliving its local's object is a use after free (3.14+)."""
    add = Instr("BINARY_OP", BinaryOp.ADD)
    assert _loads_borrowed(Instr("LOAD_FAST", "a"), Instr("LOAD_FAST", "b"), add, Instr("POP_TOP")) == [
        "a",
        "b",
    ]
    # Kept in another local: owned, as CPython compiles `y = x`.
    assert _loads_borrowed(Instr("LOAD_FAST", "x"), Instr("STORE_FAST", "y")) == []
    # Its own local stored while the value waits on the stack: owned.
    assert (
        _loads_borrowed(
            Instr("LOAD_FAST", "a"), Instr("LOAD_FAST", "b"), Instr("STORE_FAST", "a"), Instr("RETURN_VALUE")
        )
        == []
    )
    # Another local stored meanwhile does not matter.
    assert _loads_borrowed(
        Instr("LOAD_FAST", "a"), Instr("LOAD_FAST", "b"), Instr("STORE_FAST", "c"), Instr("RETURN_VALUE")
    ) == ["a"]
    # Still on the stack at a label, or duplicated: owned.
    assert _loads_borrowed(Instr("LOAD_FAST", "a"), Label(), Instr("RETURN_VALUE")) == []
    assert _loads_borrowed(Instr("LOAD_FAST", "a"), Instr("COPY", 1), add, Instr("RETURN_VALUE")) == []
    # Swapped under another value: `a` is what STORE_FAST keeps, so it stays owned.
    assert (
        _loads_borrowed(
            Instr("LOAD_FAST", "a"),
            Instr("LOAD_CONST", 1),
            Instr("SWAP", 2),
            Instr("STORE_FAST", "y"),
            Instr("POP_TOP"),
        )
        == []
    )
    # Under a conditional jump's operand, the value lives on past the jump: owned.
    target = Label()
    assert _loads_borrowed(
        Instr("LOAD_FAST", "a"),
        Instr("LOAD_FAST", "b"),
        Instr("POP_JUMP_IF_TRUE", target),
        Instr("RETURN_VALUE"),
        target,
        Instr("RETURN_VALUE"),
    ) == ["b"]


@pytest.mark.skipif(not emitter.HAS_BORROWED_LOADS, reason="borrowed loads are new in 3.14")
def test_a_borrowed_load_fuses_as_an_owned_one() -> None:
    """Beside a load that must own its value, or after a store, a load that could borrow
    still fuses (3.14+), owning its value, as CPython's compiler (which pairs before it
    borrows) writes it; and the code computes the same."""

    def build(e: Emitter) -> None:
        e.load("a")  # used up by the add: could borrow
        e.load("b")  # kept in c: owns
        e.store("c")
        e.load("c")  # right after the store
        e.binary(BinaryOp.ADD)
        e.return_top()

    f = function(build, "a", "b")
    assert f(300, 4000) == 4300
    names = [i.opname for i in dis.get_instructions(f.__code__)]
    assert names[1:4] == ["LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "BINARY_OP"]


def test_many_locals_fuse_only_below_sixteen() -> None:
    """Superinstructions (3.13+) hold two locals' numbers in 4 bits each: with 20 locals,
    pairs that involve the later ones must stay apart, and every local keeps its value."""
    names = [f"v{i}" for i in range(20)]

    def build(e: Emitter) -> None:
        for i, name in enumerate(names):
            e.const(i * i)
            e.store(name)
        e.const(0)
        for name in reversed(names):
            e.load(name)
            e.load(names[0])
            e.binary(BinaryOp.SUBTRACT)
            e.binary(BinaryOp.ADD)
        e.return_top()

    assert function(build)() == sum(i * i for i in range(20))


@pytest.mark.skipif(not emitter.HAS_SUPERINSTRUCTIONS, reason="superinstructions are new in 3.13")
@pytest.mark.parametrize(("lines", "fused"), [((), True), ((6,), False), ((6, 5), True)])
def test_two_loads_fuse_only_on_one_line(lines: tuple[int, ...], fused: bool) -> None:
    """Lines between two loads keep them apart unless they come back to the first's line
    (then they go after the pair)."""

    def build(e: Emitter) -> None:
        e.line = 5
        e.load("a")
        for line in lines:
            e.line = line
        e.load("b")
        e.binary(BinaryOp.ADD)
        e.return_top()

    code = function(build, "a", "b").__code__
    assert function(build, "a", "b")(2, 3) == 5
    names = [i.opname for i in dis.get_instructions(code)]
    assert (
        any(
            name.endswith("LOAD_FAST_LOAD_FAST") or name.endswith("BORROW_LOAD_FAST_BORROW") for name in names
        )
        == fused
    )
    assert [line for _, _, line in code.co_lines() if line is not None][-1] == (lines[-1] if lines else 5)


def test_an_unknown_python_runs_on_the_interpreter_with_one_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lc3jit.translator, "PY", (3, 16))
    assert not emitter.speaks_this_python()
    for engine in ("regions", "blocks", "interp"):
        result = CliRunner().invoke(
            app,
            ["run", str(EXAMPLES / "hello.obj"), *engine_options(engine), "--stats"],
            catch_exceptions=False,
        )
        assert result.exit_code == 0
        assert result.stdout.startswith("Hello, World!")
        warnings = [line for line in result.stderr.splitlines() if "does not know" in line]
        assert len(warnings) == (engine != "interp")
        assert "engine interp" in result.stderr


def test_an_unknown_python_benches_dumps_and_compiles_clearly(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(lc3jit.translator, "PY", (3, 16))
    bench = CliRunner().invoke(app, ["bench", str(EXAMPLES / "hello.obj"), "--repeat", "1", "--json"])
    assert bench.exit_code == 0
    assert bench.stderr.count("does not know") == 1
    assert '"interp"' in bench.stdout
    assert '"regions"' not in bench.stdout
    dump = CliRunner().invoke(app, ["dump", str(EXAMPLES / "hello.obj")])
    assert dump.exit_code == 1
    assert dump.stderr.strip().splitlines() == [
        "lc3jit: no translated code to dump: the translator does not know the bytecode of Python "
        "3.16 (it knows 3.11 to 3.15)"
    ]
    compiled = CliRunner().invoke(
        app, ["compile", str(EXAMPLES / "hello.obj"), "-o", str(tmp_path / "h.pyc")]
    )
    assert compiled.exit_code == 1
    assert compiled.stderr.strip().splitlines() == [
        "lc3jit: nothing to compile: the translator does not know the bytecode of Python 3.16"
        " (it knows 3.11 to 3.15)"
    ]
    assert not (tmp_path / "h.pyc").exists()


def test_an_unknown_python_in_a_real_process() -> None:
    """The installed `lc3jit` entry point in its own process with the version faked: one
    warning line, the program's output, exit 0, no traceback."""
    script = (
        "import sys; import lc3jit.translator as e; e.PY = (3, 16); from lc3jit.launch import main; "
        f"sys.argv = ['lc3jit', 'run', {str(EXAMPLES / 'hello.obj')!r}, '--translate-after', '0']; main()"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.startswith(b"Hello, World!")
    assert done.stderr.decode().splitlines() == [
        "lc3jit: the translator does not know the bytecode of Python 3.16 (it knows 3.11 to 3.15);"
        " running on the interpreter"
    ]
