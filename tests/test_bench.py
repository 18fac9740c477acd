"""`lc3jit bench`: every engine timed on the same program, and any disagreement caught."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from lc3jit import session
from lc3jit.cli import app
from lc3jit.inspection import bench
from lc3jit.inspection.bench import FORMAT_VERSION
from lc3jit.session import load_images
from lc3jit.toolchain.asm import assemble_file, obj_bytes
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.machine import Machine
from lc3jit_runtime.outcome import Outcome

from .machine_code import HALT, OUT, op, write_hex

EXAMPLES = Path(__file__).parent.parent / "examples"
PROGRAMS = Path(__file__).parent / "programs"
SIEVE = EXAMPLES / "sieve.asm"
SELFMOD = PROGRAMS / "selfmod.asm"


def lc3jit(*args: object) -> Result:
    return CliRunner().invoke(app, [str(arg) for arg in args], catch_exceptions=False)


def bench_json(*args: object) -> dict:
    result = lc3jit("bench", *args, "--repeat", "1", "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_json_reports_every_engine_with_the_same_count(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    assert lc3jit("run", SIEVE, "--state-json", state).exit_code == 0
    document = bench_json(SIEVE, SELFMOD)
    assert document["version"] == FORMAT_VERSION
    assert document["repeat"] == 1
    sieve, selfmod = document["programs"]
    assert sieve["program"] == str(SIEVE)
    assert sieve["instructions"] == json.loads(state.read_text())["instructions"]
    assert sieve["stop_reason"] == "halt"
    assert sieve["output"].endswith("97 \nHALT\n")
    assert selfmod["output"] == "5HALT\n"
    for program in (sieve, selfmod):
        engines = {e["engine"]: e for e in program["engines"]}
        assert list(engines) == list(session.ENGINES)
        assert engines["interp"]["ratio_to_interp"] == 1.0
        for entry in engines.values():
            assert len(entry["seconds"]) == 1
            assert entry["median_seconds"] == entry["seconds"][0] > 0
            assert entry["mips"] > 0
            assert entry["translation_seconds"] >= 0


def test_engines_option_chooses_and_orders(tmp_path: Path) -> None:
    document = bench_json(SELFMOD, "--engines", "blocks")
    (entry,) = document["programs"][0]["engines"]
    assert entry["engine"] == "blocks"
    assert entry["ratio_to_interp"] is None  # no interpreter run to compare with
    assert entry["time_over_floor"] is None  # no floor either


def test_table_in_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SELFMOD.parent)  # a short path, whole in its column wherever the checkout is
    result = lc3jit("bench", SELFMOD.name, "--repeat", "2", "--engines", "interp,blocks")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "Python 3." in lines[0]
    header = next(line for line in lines if "engine" in line)
    for column in ("program", "instructions", "median s", "MIPS", "x interp", "translation ms"):
        assert column in header
    assert "floor" not in header  # no floor ran
    rows = [line for line in lines if line.startswith("│")]
    assert len(rows) == 2
    assert SELFMOD.name in rows[0]
    assert all(" 21 " in row for row in rows)  # instructions
    assert "\x1b[" not in result.stdout
    assert "5HALT" not in result.stdout  # the program's own output stays captured


class Broken:
    """An interpreter that gets one thing wrong after an honest run: a stub engine for bench."""

    name = "broken"

    def __init__(self, machine: Machine, spoil: Callable[[Machine], None]) -> None:
        self.machine = machine
        self.inner = Interpreter(machine)
        self.spoil = spoil

    def run(self, max_steps: int | None = None) -> Outcome:
        outcome = self.inner.run(max_steps)
        self.spoil(self.machine)
        return outcome


def _reg(m: Machine) -> None:
    m.reg[3] ^= 1


def _mem(m: Machine) -> None:
    m.mem[0x4000] = 0x1234


def _out(m: Machine) -> None:
    m.console.write(b"!")


def _count(m: Machine) -> None:
    m.icount += 1


@pytest.mark.parametrize(
    ("spoil", "difference"),
    [
        (_reg, "registers [53, 5, 0, 4706, 0, 0, 0, 0] vs [53, 5, 0, 4707, 0, 0, 0, 0]"),
        (_mem, "memory at 1 addresses, first x4000: x0000 vs x1234"),
        (_out, "output b'5HALT\\n' vs b'5HALT\\n!'"),
        (_count, "instructions 21 vs 22"),
    ],
    ids=["registers", "memory", "output", "count"],
)
def test_a_disagreeing_engine_is_an_error(
    monkeypatch: pytest.MonkeyPatch, spoil: Callable[[Machine], None], difference: str
) -> None:
    monkeypatch.setitem(session.ENGINES, "broken", lambda machine: Broken(machine, spoil))
    result = lc3jit("bench", SELFMOD, "--repeat", "1", "--engines", "interp,blocks,broken")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"lc3jit: {SELFMOD}: engines interp and broken disagree: ")
    assert difference in result.stderr


def _floor(tmp_path: Path, text: str) -> Path:
    """A program printing "A" and a hand-written equivalent printing text."""
    program = write_hex(tmp_path / "a.hex", [op("LD", dr=0, pcoffset9=2), OUT, HALT, ord("A")])
    (tmp_path / "a.py").write_text(f"def run() -> str:\n    return {text!r}\n")
    return program


def test_floor_joins_when_its_output_agrees(tmp_path: Path) -> None:
    document = bench_json(_floor(tmp_path, "A"), "--floor", "--engines", "interp")
    interp, floor = document["programs"][0]["engines"]
    assert floor["engine"] == "python"
    assert floor["translation_seconds"] is None
    assert floor["ratio_to_interp"] == pytest.approx(
        interp["median_seconds"] / floor["median_seconds"], rel=1e-2
    )
    assert interp["time_over_floor"] == pytest.approx(
        interp["median_seconds"] / floor["median_seconds"], rel=1e-2
    )
    assert floor["time_over_floor"] == 1.0


def test_table_with_a_floor_shows_time_over_it(tmp_path: Path) -> None:
    result = lc3jit("bench", _floor(tmp_path, "A"), "--floor", "--engines", "interp", "--repeat", "1")
    assert result.exit_code == 0
    header = next(line for line in result.stdout.splitlines() if "engine" in line)
    assert "time / floor" in header
    floor_row = next(line for line in result.stdout.splitlines() if " python " in line)
    assert " 1.00 " in floor_row


def test_floor_with_another_checksum_is_an_error(tmp_path: Path) -> None:
    program = _floor(tmp_path, "B")
    result = lc3jit("bench", program, "--floor", "--engines", "interp", "--repeat", "1")
    assert result.exit_code == 1
    assert "a.py printed b'B', the program b'AHALT\\n'" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--engines", "interp,nope"], "no engine 'nope'"), (["--repeat", "0"], "--repeat")],
)
def test_usage_errors(args: list[str], message: str) -> None:
    result = lc3jit("bench", SELFMOD, *args)
    assert result.exit_code == 2
    assert message in result.stderr


BENCH = EXAMPLES / "bench"


@pytest.mark.parametrize(
    ("name", "checksum"),
    [("arith", "FB20"), ("sieve", "9DEF"), ("fib", "2511"), ("sort", "B24C"), ("strings", "8470")],
)
def test_benchmark_suite_prints_its_checksum(name: str, checksum: str) -> None:
    """Each benchmark runs millions of instructions to HALT; a Python floor must agree with it."""
    program = BENCH / f"{name}.asm"
    floor = bench.floor_module(program)
    result = bench.bench_program(str(program), load_images([program]), ["blocks"], repeat=1, floor=floor)
    assert result.reference.output == f"{checksum}\nHALT\n".encode()
    assert result.reference.state["stop_reason"] == "halt"
    assert 2_000_000 <= result.instructions <= 10_000_000
    assert [t.engine for t in result.times] == ["blocks", "python"]


@pytest.mark.parametrize(
    ("name", "output", "instructions"),
    [("dispatch", "CFCD\n", 961_761), ("runaway", "ran off the end\n" * 3, 3 * 0x10000 + 1)],
)
def test_benchmarks_without_a_floor_agree_on_every_engine(name: str, output: str, instructions: int) -> None:
    """The indirect calls and the runaway: every engine, the committed .obj current."""
    program = BENCH / f"{name}.asm"
    assert (BENCH / f"{name}.obj").read_bytes() == obj_bytes(assemble_file(program).images[0])
    result = bench.bench_program(str(program), load_images([program]), list(session.ENGINES), repeat=1)
    assert result.reference.output == f"{output}HALT\n".encode()
    assert result.instructions == instructions


def test_overhead_variants_do_the_work_of_the_floor() -> None:
    """examples/bench/overheads.py times variants of one loop: each must mark what the
    floor marks, the multiples of the prime from twice it, so that only the duties added
    differ."""
    spec = importlib.util.spec_from_file_location("overheads", BENCH / "overheads.py")
    assert spec is not None and spec.loader is not None
    overheads = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(overheads)
    multiples = range(2 * overheads.PRIME, overheads.N, overheads.PRIME)
    assert overheads.instructions() == 6 * len(multiples) + 2
    for name, duties in overheads.VARIANTS.items():
        mem = [0] * 0x10000
        assert overheads.run(overheads.variant(duties), mem, [0] * 0x10000, [0]) > 0
        assert [a - overheads.FLAGS for a, word in enumerate(mem) if word] == list(multiples), name


@pytest.mark.parametrize("refills", [1, 3])
def test_the_two_budget_steps_go_round_the_same_times(refills: int) -> None:
    """examples/bench/budget_step.py counts two ways of the same count and check: both go
    round the loop 40 times a refill and end with `n` short by the same count, so only
    the way differs."""
    spec = importlib.util.spec_from_file_location("budget_step", BENCH / "budget_step.py")
    assert spec is not None and spec.loader is not None
    budget_step = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(BENCH))  # it imports command_startup, beside it
    try:
        spec.loader.exec_module(budget_step)
    finally:
        sys.path.remove(str(BENCH))
    assert budget_step.ROUND == 40
    assert budget_step.counted_loop("compare")(refills) == budget_step.counted_loop("table")(refills) == -6


def test_process_mode_times_whole_runs_that_agree() -> None:
    """Each run a process of its own: the same output and state from every engine."""
    runaway = BENCH / "runaway.obj"
    document = bench_json(runaway, EXAMPLES / "halt.obj", "--process", "--engines", "interp,regions")
    assert document["process"] is True
    ran_off, halt = document["programs"]
    assert ran_off["output"] == "ran off the end\n" * 3 + "HALT\n"
    assert ran_off["instructions"] == 3 * 0x10000 + 1
    assert halt["instructions"] == 1
    for program in (ran_off, halt):
        for entry in program["engines"]:
            assert entry["seconds"][0] > 0
            assert entry["translation_seconds"] is None


def test_process_mode_has_no_floor() -> None:
    result = lc3jit("bench", SIEVE, "--process", "--floor")
    assert result.exit_code == 2
    assert "--floor and --process exclude each other" in result.stderr


def test_benchmarks_table_from_bench_json(tmp_path: Path) -> None:
    """examples/bench/benchmarks_table.py turns `bench --json` into a table of docs/benchmarks.md: each
    engine in ns per instruction with its ratio to the interpreter, and regions / floor."""
    spec = importlib.util.spec_from_file_location("benchmarks_table", BENCH / "benchmarks_table.py")
    assert spec is not None and spec.loader is not None
    benchmarks_table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmarks_table)
    document = bench_json(_floor(tmp_path, "A"), "--floor", "--engines", "interp,blocks,regions")
    lines = benchmarks_table.table(document).splitlines()
    assert lines[0] == f"Python {document['python']}:"
    assert lines[2].split(" | ")[3:] == [
        "blocks ns/instr (x interp)",
        "regions ns/instr (x interp)",
        "floor ns/instr (x interp)",
        "regions / floor",
        "regions translation ms |",
    ]
    engines = {e["engine"]: e for e in document["programs"][0]["engines"]}
    cells = lines[4].strip("| ").split(" | ")
    assert cells[:2] == ["a.hex", "3"]
    assert cells[2] == f"{engines['interp']['median_seconds'] / 3 * 1e9:.0f}"
    assert cells[4] == (
        f"{engines['regions']['median_seconds'] / 3 * 1e9:.0f} ({engines['regions']['ratio_to_interp']:.1f})"
    )
    assert cells[6] == f"{engines['regions']['time_over_floor']:.2f}"
    assert lines[5].startswith(f"| geometric mean |  |  | x{engines['blocks']['ratio_to_interp']:.2f} ")


def test_an_engine_with_a_breakpoint_ends_as_the_engine_does() -> None:
    """ENGINE@LOC: under the debugger, continued through each of PRINT_DEC's 20 hits, the run
    must end with the same output, state, memory and count as the others (bench checks)."""
    document = bench_json(EXAMPLES / "fib.asm", "--engines", "interp,regions@PRINT_DEC,blocks@x3004")
    [program] = document["programs"]
    assert [e["engine"] for e in program["engines"]] == ["interp", "regions@PRINT_DEC", "blocks@x3004"]
    assert program["stop_reason"] == "halt"
    assert program["output"].endswith("4181\nHALT\n")
    result = lc3jit("bench", EXAMPLES / "fib.asm", "--engines", "regions@NOWHERE", "--repeat", "1")
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"lc3jit: {EXAMPLES / 'fib.asm'}: no label or address 'NOWHERE' for regions@NOWHERE\n"
    )
    assert lc3jit("bench", EXAMPLES / "fib.asm", "--engines", "fast@NEXT").exit_code == 2


MEASURING_SCRIPTS = sorted(
    path.name for path in BENCH.glob("*.py") if not path.with_suffix(".asm").exists()
)  # the rest are floors, each the transliteration of the .asm beside it


@pytest.mark.parametrize("script", MEASURING_SCRIPTS)
def test_measuring_scripts_answer_help_and_refuse_unknown_options(script: str) -> None:
    """Each script in examples/bench says how to run it, and a mistyped option gets argparse's
    one-line usage error, not a traceback or a long run with the option ignored."""
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=120
    )
    shown = run("--help")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"usage: {script}")
    refused = run("--no-such-option")
    assert refused.returncode == 2
    assert refused.stderr.startswith("usage: ")
    assert f"{script}: error: " in refused.stderr
    assert "Traceback" not in refused.stderr


C_VM = BENCH / "c_vm.py"
#: The tutorial C VM's source (lc3-vm's docs/src/lc3.c), for the tests that compile it.
C_VM_SOURCE = os.environ.get("LC3_VM_SOURCE", "")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not on the PATH")
needs_c_vm = pytest.mark.skipif(
    shutil.which("gcc") is None or not os.path.isfile(C_VM_SOURCE),
    reason="gcc, or the C VM's source (LC3_VM_SOURCE=path of lc3-vm's docs/src/lc3.c), is absent",
)


def c_vm(*args: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(C_VM), *map(str, args), "--python", sys.executable]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


def test_the_c_vm_comparison_refuses_a_source_that_is_not_there(tmp_path: Path) -> None:
    done = c_vm(tmp_path / "lc3.c")
    assert done.returncode == 1
    assert done.stderr == f"c_vm.py: {tmp_path / 'lc3.c'}: No such file or directory\n"


@needs_gcc
def test_the_c_vm_comparison_refuses_a_source_that_does_not_compile(tmp_path: Path) -> None:
    (tmp_path / "lc3.c").write_text("int main(void) { return }\n")
    done = c_vm(tmp_path / "lc3.c")
    assert done.returncode == 1
    assert done.stderr.startswith(f"c_vm.py: {tmp_path / 'lc3.c'} does not compile with gcc -O2: ")
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


@needs_gcc
def test_the_c_vm_comparison_refuses_a_python_that_is_not_there(tmp_path: Path) -> None:
    (tmp_path / "lc3.c").write_text("int main(void) { return 0; }\n")
    command = [sys.executable, str(C_VM), str(tmp_path / "lc3.c"), "--python", str(tmp_path / "python")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert done.stderr == f"c_vm.py: {tmp_path / 'python'}: No such file or directory\n"


@needs_c_vm
def test_the_c_vm_comparison_times_both_on_the_same_work() -> None:
    """The C VM prints what lc3jit prints; the table gives both their time an instruction
    by lc3jit's count, and regions' speed as a fraction of the C VM's."""
    done = c_vm(C_VM_SOURCE, "--rounds", "1", "--programs", "dispatch")
    assert done.returncode == 0, done.stderr
    [row] = [line for line in done.stdout.splitlines() if line.startswith("| dispatch |")]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[1] == "961,761"  # lc3jit's count (test_benchmarks_without_a_floor_agree_on_every_engine)
    c_ns, (regions_ns, fraction) = float(cells[2]), cells[3].rstrip(")").split(" (")
    assert c_ns > 0 and float(fraction) == pytest.approx(c_ns / float(regions_ns), rel=0.02)


@needs_c_vm
def test_the_c_vm_comparison_stops_when_the_c_vm_prints_something_else(tmp_path: Path) -> None:
    source = Path(C_VM_SOURCE).read_text()
    assert 'puts("HALT");' in source
    (tmp_path / "lc3.c").write_text(source.replace('puts("HALT");', 'puts("STOP");'))
    done = c_vm(tmp_path / "lc3.c", "--rounds", "1", "--programs", "dispatch")
    assert done.returncode == 1
    assert done.stderr.startswith("c_vm.py: dispatch: the C VM printed b'")
    assert "STOP" in done.stderr and "Traceback" not in done.stderr


def test_translation_phases_add_up_to_the_translation() -> None:
    """`translation_cost.py --phases`: each phase of translating 2048 ahead of its run gets a
    row, none negative, and the rows add up to the total."""
    done = subprocess.run(
        [sys.executable, str(BENCH / "translation_cost.py"), "--phases", "2048", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    rows = {
        cells[0]: float(cells[1])
        for line in done.stdout.splitlines()[3:]
        for cells in [[cell.strip() for cell in line.strip("|").split("|")]]
    }
    phases = ["finding code", "choosing regions", "graph and analyses", "emitting", "assembling", "the rest"]
    assert list(rows) == [*phases, "total"]
    assert rows["total"] > 0
    assert all(rows[phase] >= 0 for phase in phases[:-1])
    assert sum(rows[phase] for phase in phases) == pytest.approx(rows["total"], abs=len(phases))
