"""The grading side of the API: calling conventions, call results and their messages, watching
calls and memory, strict mode, seeded fill, runs until input, output checks, limits; and
`lc3jit grade` over a class with submissions that break in every way."""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import tracemalloc
from pathlib import Path

import pytest

from lc3jit.api import LabelError, OutputLimitError, Simulator, StrictError, TimeLimitError
from lc3jit.grader.grade import grade_class, start_method
from lc3jit.session import ENGINES
from lc3jit.translator.shared import SharedTranslations

from .conftest import recycling

EXAMPLES = Path(__file__).parent.parent / "examples" / "grading"
FACTORIAL = EXAMPLES / "factorial"

engines = pytest.mark.parametrize("engine", sorted(ENGINES))


def factorial(program: str, engine: str = "regions") -> Simulator:
    sim = Simulator(FACTORIAL / program, engine=engine)
    sim.declare("FACT", ["n"], stack=True)
    sim.declare("MULT", ["a", "b"], stack=True)
    return sim


@engines
def test_stack_convention_call_and_its_result(engine: str) -> None:
    sim = factorial("solution.asm", engine)
    call = sim.call_subroutine("FACT", 5, sp=0xE000)
    assert (call.returned, call.value, call.ok) == (True, 120, True)
    assert call.after[6] == 0xE000 - 2  # on the return value, above the one argument
    assert sim.memory[0xE000 - 1] == 5 and sim.memory[0xE000 - 2] == 120
    call.check(120)


@engines
def test_broken_conventions_are_named_with_expected_and_got(engine: str) -> None:
    sim = factorial("buggy.asm", engine)
    with pytest.raises(AssertionError, match=r"^FACT\(0\) returned 0 \(x0000\), expected 1 \(x0001\)$"):
        sim.call_subroutine("FACT", 0).check_value(1)
    call = sim.call_subroutine("FACT", 3)
    assert call.changed() == {1: (call.before[1], 2)}
    with pytest.raises(AssertionError, match=r"FACT\(3\) changed R1: .* before the call, 2 \(x0002\) after"):
        call.check_preserved()


def test_register_convention_declared_with_registers_and_result() -> None:
    sim = Simulator(source=".ORIG x3000\nSUB NOT R2, R2\nADD R2, R2, #1\nADD R3, R1, R2\nRET\n.END")
    sim.declare("SUB", {1: "a", 2: "b"}, result=3)
    call = sim.call_subroutine("SUB", 9, 4)
    assert call.value == 5 and call.changed() == {2: (4, 0xFFFC)}
    assert sim.call("SUB", 9, 4) == 5


def test_a_call_that_never_returns_says_where_the_program_was() -> None:
    sim = Simulator(source=".ORIG x3000\nHALT\nSPIN ADD R0, R0, #1\nBR SPIN\n.END", max_steps=500)
    call = sim.call_subroutine("SPIN")
    assert not call.returned and call.value is None
    message = "SPIN() did not return: it was still running after 500 instructions, at x300"
    with pytest.raises(AssertionError, match="^" + re.escape(message)):
        call.check_returned()
    assert "(<source>:" in call.not_returned()
    assert "; it is looping between x3001 <SPIN> and x3002 <SPIN+1> (lines 3-4)" in call.not_returned()


def test_a_call_that_halts_names_the_halt_not_the_word_after_it() -> None:
    sim = Simulator(source=".ORIG x3000\nHALT\nSUB ADD R0, R0, #1\nHALT\nNEXT ADD R1, R1, #1\nRET\n.END")
    call = sim.call_subroutine("SUB")
    assert (
        call.not_returned()
        == "SUB() did not return: it halted at x3002 <SUB+1> (<source>:4: HALT), instead of RET"
    )
    with pytest.raises(AssertionError) as error:
        sim.check_output("42")
    assert str(error.value).endswith("the program's last instruction was x3002 <SUB+1> (<source>:4: HALT)")


def test_a_label_the_program_lacks_is_named_with_those_it_has() -> None:
    sim = Simulator(source=".ORIG x3000\nHALT\nARR_MAX RET\nDATA .FILL 1\n.END")
    with pytest.raises(LabelError) as error:
        sim.call_subroutine("ARRAY_MAX", 1)
    assert str(error.value) == "no label ARRAY_MAX in the program; its labels are ARR_MAX, DATA"
    assert isinstance(error.value, KeyError)  # what a caller that looked labels up caught before


@engines
def test_watched_calls_have_arguments_order_nesting_and_values(engine: str) -> None:
    sim = factorial("solution.asm", engine)
    calls = sim.watch_calls()  # the declared subroutines and every label a JSR names
    sim.run()
    assert sim.registers[0] == 120
    assert [(c.name, c.args, c.depth) for c in calls[:3]] == [
        ("FACT", (5,), 0),
        ("FACT", (4,), 1),
        ("FACT", (3,), 2),
    ]
    mults = [(c.args, c.value, c.depth, calls[c.caller].args) for c in calls if c.name == "MULT"]
    assert mults[0] == ((1, 1), 1, 5, (1,)) and mults[-1] == ((5, 24), 120, 1, (5,))
    assert all(c.returned for c in calls)


@engines
def test_watched_memory_reads_and_writes(engine: str) -> None:
    sim = Simulator(EXAMPLES / "solution.asm", engine=engine)
    accesses = sim.watch_memory()
    sim.memory[0x4000] = [1, 9, 4]
    sim.call("ARRAY_MAX", 0x4000, 3)
    assert [accesses.reads[a] for a in range(0x4000, 0x4004)] == [1, 1, 1, 0]
    save_r1 = sim.address("SAVE_R1")
    assert accesses.writes[save_r1] == 1 and accesses.reads[save_r1] == 1
    assert sim.where(accesses.first_reader[0x4001]).startswith("x30")


def test_strict_mode_names_the_word_and_the_instruction() -> None:
    sim = Simulator(EXAMPLES / "solution.asm", strict=True)
    sim.memory[0x4000] = [1, 9]
    with pytest.raises(StrictError) as error:
        sim.call("ARRAY_MAX", 0x4000, 3)  # one word more than the test wrote
    assert str(error.value) == (
        "read of x4002, which nothing wrote by x3012 <NEXT+3> (solution.asm:24: "
        "LDR R3, R2, #0          ; R3 = the candidate)"
    )


def test_seeded_fill_is_the_same_every_time_and_spares_the_program() -> None:
    first, second = (Simulator(EXAMPLES / "solution.asm", seed=7) for _ in range(2))
    assert first.memory[0x4000:0x4100] == second.memory[0x4000:0x4100]
    assert list(first.registers) == list(second.registers)
    assert first.memory[0x3000:0x3004] == list(first.images[0].words[:4])
    assert Simulator(EXAMPLES / "solution.asm", seed=8).memory[0x4000:0x4100] != first.memory[0x4000:0x4100]


@engines
def test_run_until_input_then_key_by_key(engine: str) -> None:
    sim = Simulator(EXAMPLES / "interactive" / "solution.asm", engine=engine)
    assert sim.run_until_input().outcome.reason == "input-exhausted"
    sim.check_output("> ")
    for key, echo in [("b", "B"), ("4", "4")]:
        sim.clear_output()
        sim.give_keys(key)
        sim.run_until_input()
        assert sim.output == echo
    sim.give_keys("\n")
    assert sim.run_until_input().outcome.reason == "halt"


def test_output_helpers() -> None:
    sim = Simulator(source='.ORIG x3000\nLEA R0, T\nPUTS\nHALT\nT .STRINGZ "Sum = 7\\n"\n.END')
    sim.run()
    assert sim.output_is("sum=7halt", ignore_case=True, ignore_whitespace=True)
    assert sim.output_contains("= 7") and not sim.output_is("Sum = 7\n")
    with pytest.raises(AssertionError) as error:
        sim.check_output("Sum = 8", contains=True)
    assert str(error.value).splitlines() == [
        "expected output containing 'Sum = 8'",
        "got 'Sum = 7\\nHALT\\n'",
        "the program's last instruction was x3002 (<source>:4: HALT)",
    ]
    with pytest.raises(AssertionError) as error:
        sim.check_output("Sum = 7\nDONE\n")
    assert str(error.value).splitlines()[2:4] == ["- 'DONE\\n'", "+ 'HALT\\n'"]


@engines
def test_time_and_output_limits_end_a_run(engine: str) -> None:
    loop = '.ORIG x3000\nLOOP BR LOOP\nFLOOD LEA R0, T\nPUTS\nBR FLOOD\nT .STRINGZ "spam"\n.END'
    with pytest.raises(TimeLimitError, match=r"^the time limit \(0.1 s\) ran out at x3000 <LOOP> \("):
        Simulator(source=loop, engine=engine, time_limit=0.1).run()
    sim = Simulator(source=loop, engine=engine, pc="FLOOD", max_output=10)
    with pytest.raises(OutputLimitError, match=r"^the output limit \(10 bytes\) was reached at x300"):
        sim.run()
    assert sim.output == "spamspamsp"


@pytest.mark.parametrize("translate_after", [0, 1000])
@engines
def test_a_closed_simulator_gives_its_memory_back_at_once_and_its_tables_to_the_next(
    engine: str, translate_after: int
) -> None:
    """Its machine and engines hold each other in cycles: without close() their megabytes
    would wait for the garbage collector (turned off here). What it keeps after close (a
    write map and an interpreter's table, some 1.6 MB) the next Simulator takes, so a
    grader's thousand tests hold no more tables than its first (the rest of each waits for
    the collector: some 50 KB)."""
    Simulator(EXAMPLES / "solution.asm", engine=engine).run()  # translations shared from now on
    gc.disable()
    tracemalloc.start()
    running, held = [], []
    try:
        for _ in range(3):
            with Simulator(EXAMPLES / "solution.asm", engine=engine, translate_after=translate_after) as sim:
                assert sim.call("ARRAY_MAX", 0x3100, 3) == sim.machine.reg[0]
                running.append(tracemalloc.get_traced_memory()[0])
            held.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
        gc.enable()
    assert all(r - h > 500_000 for r, h in zip(running, held, strict=True)), f"{running} then {held}"
    assert max(held) < 2_000_000, f"{held} bytes still held"
    assert held[2] - held[0] < 500_000, f"{held} bytes held after each"  # no table more
    with pytest.raises(ValueError, match="closed"):
        sim.run()


@engines
def test_a_graders_simulators_find_memory_as_new_whatever_the_engine(engine: str) -> None:
    """With memory recycled (as under the pytest plugin) and translations shared, each
    Simulator finds memory as loaded, however the ones before wrote it (a seed's fill, the
    grader, the program), and runs alike."""
    loaded = Simulator(EXAMPLES / "solution.asm", engine=engine).machine.mem
    shared, values = SharedTranslations(), []
    with recycling():
        for count, seed in ((300, 1), (5, None), (300, 2)):
            with Simulator(EXAMPLES / "solution.asm", engine=engine, translations=shared, seed=seed) as sim:
                sim.memory[0x4000] = list(range(count))
                values.append(sim.call("ARRAY_MAX", 0x4000, count))
                sim.run()  # the main program's stores too
            fresh = Simulator(EXAMPLES / "solution.asm", engine=engine, translations=shared)
            assert fresh.machine.mem == loaded
            fresh.close()
    assert values == [299, 4, 299]


def test_a_class_is_graded_whatever_its_submissions_do(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_twice.py").write_text(
        textwrap.dedent(
            """
            import os
            import pytest

            @pytest.mark.points(2)
            def test_twice(lc3):
                sim = lc3()
                if "crash" in str(sim.images[0].name):
                    os._exit(9)
                assert sim.call("TWICE", 21) == 42

            def test_halts(lc3):
                lc3().run()
            """
        )
    )
    programs = {
        "good": "TWICE ADD R0, R0, R0\nRET\nHALT",
        "wrong": "TWICE ADD R0, R0, #1\nRET\nHALT",
        "broken": "TWICE ADD R0, R0, R9\nRET",
        "loops": "TWICE BR TWICE\nHALT",
        "floods": "TWICE OUT\nBR TWICE",
        "crash": "TWICE RET\nHALT",
    }
    submissions = []
    for name, body in programs.items():
        path = tmp_path / f"{name}.asm"
        path.write_text(
            f".ORIG x3000\nBR START\n{body}\nSTART HALT\n.END\n".replace("HALT\n.END", "HALT\n.END")
        )
        submissions.append(path)
    out = tmp_path / "grades"
    options = ["--lc3-max-steps", "100000", "--lc3-max-output", "100", "--lc3-coverage"]
    records = grade_class(tests, submissions, out, jobs=2, options=options)
    scores = {Path(r.program).stem: (r.score, r.max_score) for r in records}
    assert scores == {
        "good": (3, 3),
        "wrong": (1, 3),
        "broken": (0, 3),
        "loops": (1, 3),
        "floods": (1, 3),
        "crash": (0, 3),
    }
    rows = (out / "scores.csv").read_text().splitlines()
    assert rows[0] == "submission,score,max_score,problem,test_twice,test_halts"
    assert rows[1] == "good.asm,3,3,,2.0,1.0"  # named within the submissions' folder
    graded = {
        Path(s["program"]).stem: s for s in json.loads((out / "scores.json").read_text())["submissions"]
    }
    assert graded["broken"]["problem"].startswith(
        "broken.asm: 1 error\nbroken.asm:3:19: error: expected a number, found R9"
    )
    assert graded["crash"]["problem"] == "the submission crashed its grader (exit 9)"
    [loops] = [t for t in graded["loops"]["tests"] if not t["passed"]]
    assert (
        loops["message"]
        == "StepLimitError: step limit reached at x3001 <TWICE> (loops.asm:3: TWICE BR TWICE); it is looping "
        "between x3001 <TWICE> and x3001 <TWICE>: 1 instructions, none of them left in the next 20,000"
    )
    assert "wrong.asm" in (out / "scores.html").read_text()


COURSE_TESTS = """
import logging

import pytest


@pytest.mark.points(2)
def test_twice(lc3, verify):
    sim = lc3()
    verify.equal(sim.call("TWICE", 21), 42, "21 twice")
    verify.equal(sim.call("TWICE", 0), 0, "0 twice")


def test_prints(lc3, capsys):
    print("twice 1 is", lc3().call("TWICE", 1))
    assert capsys.readouterr().out == "twice 1 is 2\\n"


def test_logs(lc3, caplog):
    logging.getLogger("course").warning("twice 2 is %d", lc3().call("TWICE", 2))
    assert caplog.messages == ["twice 2 is 4"]


@pytest.mark.visibility("hidden")
def test_halts(lc3):
    lc3().run()
"""


def test_a_worker_grades_many_submissions_with_one_collection_as_pytest_would_each(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_course.py").write_text(COURSE_TESTS)
    collections = tmp_path / "collections.txt"
    (tests / "conftest.py").write_text(
        f"def pytest_collection_finish(session):\n    open({str(collections)!r}, 'a').write('collected\\n')\n"
    )
    bodies = {
        "good": "TWICE ADD R0, R0, R0\nRET\nHALT",
        "wrong": "TWICE ADD R0, R0, #1\nRET\nHALT",
        "broken": "TWICE ADD R0, R0, R9\nRET",
        "loops": "TWICE BR TWICE",
    }
    folder = tmp_path / "class"
    folder.mkdir()
    submissions = []
    for copy in range(2):
        for name, body in bodies.items():
            path = folder / f"{name}{copy}.asm"
            path.write_text(f".ORIG x3000\nBR START\n{body}\nSTART HALT\n.END\n")
            submissions.append(path)
    options = ["--lc3-max-steps", "20000", "--lc3-coverage"]
    records = grade_class(tests, submissions, tmp_path / "out", jobs=1, options=options)
    assert collections.read_text() == "collected\n"  # one worker, one collection, 8 submissions
    by_name = {r.program: r.as_dict() for r in records}
    assert {name: (r["score"], r["max_score"]) for name, r in by_name.items()} == {
        **{f"good{c}.asm": (5, 5) for c in range(2)},
        **{f"wrong{c}.asm": (2, 5) for c in range(2)},  # 1 + 1 is 2 x 1: test_prints passes
        **{f"broken{c}.asm": (0, 5) for c in range(2)},
        **{f"loops{c}.asm": (1, 5) for c in range(2)},  # test_halts
    }
    for name in bodies:  # pytest alone on each submission (as quiet): the same records, word for word
        report = tmp_path / f"{name}.json"
        result = subprocess.run(
            [sys.executable, "-m", "pytest", str(tests), "-qq", "-p", "no:cacheprovider", "--lc3-program",
             str(folder / f"{name}0.asm"), "--lc3-report", str(report), "--lc3-relative-to", str(folder),
             *options],
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
        )  # fmt: skip
        assert result.returncode in (0, 1), result.stdout + result.stderr
        [alone] = json.loads(report.read_text())["submissions"]
        graded = by_name[f"{name}0.asm"]
        assert (alone["program"], alone["problem"]) == (graded["program"], graded["problem"])
        assert alone["tests"] == graded["tests"]


def test_forked_and_spawned_workers_grade_a_class_alike(tmp_path: Path) -> None:
    """Workers are forked from a process that runs one thread, spawned from one that runs
    more (a fork would copy one of them): the records are the same, word for word."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_course.py").write_text(COURSE_TESTS)
    submissions = []
    for name, body in {"good": "TWICE ADD R0, R0, R0\nRET", "wrong": "TWICE ADD R0, R0, #1\nRET"}.items():
        path = tmp_path / f"{name}.asm"
        path.write_text(f".ORIG x3000\nBR START\n{body}\nSTART HALT\n.END\n")
        submissions.append(path)
    assert start_method() == ("fork" if sys.platform == "linux" else "spawn")
    forked = grade_class(tests, submissions, tmp_path / "forked", jobs=2, options=["--lc3-coverage"])
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert start_method() == "spawn"
        spawned = grade_class(tests, submissions, tmp_path / "spawned", jobs=2, options=["--lc3-coverage"])
    finally:
        release.set()
        other.join()
    assert [r.as_dict() | {"seconds": 0} for r in forked] == [r.as_dict() | {"seconds": 0} for r in spawned]
    assert [r.score for r in forked] == [5, 2]


OUTCOME_TESTS = """
import pytest


@pytest.fixture
def fails_to_set_up():
    raise RuntimeError("no set-up")


@pytest.fixture
def fails_to_tear_down():
    yield
    raise RuntimeError("no tear-down")


def test_explained(lc3):
    assert lc3().call("TWICE", 3) == 6


@pytest.mark.skip(reason="not this term")
def test_skipped(lc3):
    lc3().run()


def test_skipped_as_it_runs(lc3):
    pytest.skip("skipped as it ran")


@pytest.mark.xfail(reason="known", strict=True)
def test_expected_to_fail(lc3):
    assert lc3().call("TWICE", 3) == 7


@pytest.mark.xfail(reason="known")
def test_may_fail(lc3):
    assert lc3().call("TWICE", 3) == 6


def test_set_up_fails(lc3, fails_to_set_up):
    lc3().run()


def test_tears_down_badly(lc3, fails_to_tear_down):
    assert lc3().call("TWICE", 1) == 2


@pytest.fixture
def doubled(times):
    return 2 * times


@pytest.mark.parametrize("times", [3, 4])
def test_parametrized(lc3, times, doubled):
    assert lc3().call("TWICE", times) == doubled
"""

#: Logs the reports that tell something (every call, and any phase that did not pass).
OUTCOME_LOG = """
import json
import os

from lc3jit.grader.pytest_plugin import SETTINGS

CONFIGS = []


def pytest_configure(config):
    CONFIGS.append(config)


def pytest_runtest_logreport(report):
    if report.when == "call" or not report.passed:
        program = CONFIGS[0].stash[SETTINGS].program[0].name
        seen = [report.nodeid, report.when, report.outcome, getattr(report, "wasxfail", None)]
        with open(os.path.join(os.environ["OUTCOME_LOG"], program + ".log"), "a") as log:
            log.write(json.dumps(seen) + "\\n")
"""


def test_a_worker_gives_each_test_the_outcome_plain_pytest_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Skips, xfails (strict or not), fixtures that fail to set up or tear down, parameters
    (and a fixture built on one) and assertion explanations: a worker serving submissions
    one after another reports them as pytest does."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_outcomes.py").write_text(OUTCOME_TESTS)
    (tests / "conftest.py").write_text(OUTCOME_LOG)
    (tests / "sub").mkdir()  # a conftest whose hooks see its folder's tests alone
    (tests / "sub" / "conftest.py").write_text(OUTCOME_LOG.replace("report.nodeid,", '"sub", report.nodeid,'))
    (tests / "sub" / "test_sub.py").write_text(
        "def test_in_sub(lc3):\n    assert lc3().call('TWICE', 1) == 2\n"
    )
    folder = tmp_path / "class"
    folder.mkdir()
    bodies = {"good": "TWICE ADD R0, R0, R0\nRET\nHALT", "wrong": "TWICE ADD R0, R0, #1\nRET\nHALT"}
    for name, body in bodies.items():
        (folder / f"{name}.asm").write_text(f".ORIG x3000\nBR START\n{body}\nSTART HALT\n.END\n")
    graded_logs, alone_logs = tmp_path / "graded", tmp_path / "alone"
    graded_logs.mkdir()
    alone_logs.mkdir()
    monkeypatch.setenv("OUTCOME_LOG", str(graded_logs))
    records = grade_class(tests, [folder / f"{name}.asm" for name in bodies], tmp_path / "out", jobs=1)
    by_name = {r.program: r.as_dict() for r in records}
    explained = next(t for t in by_name["wrong.asm"]["tests"] if t["name"].endswith("test_explained"))
    assert explained["message"].startswith("assert 4 == 6\n +  where 4 = ")
    for name in bodies:
        report = tmp_path / f"{name}.json"
        result = subprocess.run(
            [sys.executable, "-m", "pytest", str(tests), "-qq", "-p", "no:cacheprovider", "--lc3-program",
             str(folder / f"{name}.asm"), "--lc3-report", str(report), "--lc3-relative-to", str(folder)],
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
            env={**os.environ, "OUTCOME_LOG": str(alone_logs)},
        )  # fmt: skip
        assert result.returncode == 1, result.stdout + result.stderr  # the set-up and tear-down errors
        [alone] = json.loads(report.read_text())["submissions"]
        assert alone["tests"] == by_name[f"{name}.asm"]["tests"]
        graded_outcomes = (graded_logs / f"{name}.asm.log").read_text().splitlines()
        assert graded_outcomes == (alone_logs / f"{name}.asm.log").read_text().splitlines()
    outcomes = [json.loads(line) for line in (graded_logs / "good.asm.log").read_text().splitlines()]
    assert outcomes == [
        ["sub", "tests/sub/test_sub.py::test_in_sub", "call", "passed", None],
        ["tests/sub/test_sub.py::test_in_sub", "call", "passed", None],
        ["tests/test_outcomes.py::test_explained", "call", "passed", None],
        ["tests/test_outcomes.py::test_skipped", "setup", "skipped", None],
        ["tests/test_outcomes.py::test_skipped_as_it_runs", "call", "skipped", None],
        ["tests/test_outcomes.py::test_expected_to_fail", "call", "skipped", "known"],
        ["tests/test_outcomes.py::test_may_fail", "call", "passed", "known"],
        ["tests/test_outcomes.py::test_set_up_fails", "setup", "failed", None],
        ["tests/test_outcomes.py::test_tears_down_badly", "call", "passed", None],
        ["tests/test_outcomes.py::test_tears_down_badly", "teardown", "failed", None],
        ["tests/test_outcomes.py::test_parametrized[3]", "call", "passed", None],
        ["tests/test_outcomes.py::test_parametrized[4]", "call", "passed", None],
    ]
    wrong = {t["name"]: t["message"] for t in by_name["wrong.asm"]["tests"]}
    assert wrong["test_parametrized[4]"].startswith("assert 5 == 8\n")


def test_a_seed_fills_the_same_words_however_earlier_machines_changed_theirs() -> None:
    """The words of a seed are made once and shared: a program's stores and a grader's writes
    never reach the next machine filled from the seed."""
    first = Simulator(EXAMPLES / "solution.asm", seed=7)
    expected = ([21222, 62119, 9886, 25875, 42659, 3164, 4747, 53823], [0xDC0C, 0x7AC1, 0x4355, 0xEC4F])
    assert (list(first.registers), first.memory[0x4000:0x4004]) == expected
    first.memory[0x4000] = [1, 2, 3, 4]
    first.registers[0] = 5
    first.call_subroutine("ARRAY_MAX", 0x4000, 4)
    first.close()
    again = Simulator(EXAMPLES / "solution.asm", seed=7)
    assert (list(again.registers), again.memory[0x4000:0x4004]) == expected
    assert (again.memory[0x0000], again.memory[0xFDFF]) == (0x902B, 0xB79A)


LEAK_TESTS = """
import pytest


def loaded(sim):
    words = [0] * 0x10000
    for image in sim.images:
        words[image.origin : image.end] = image.words
    return words


@pytest.mark.parametrize("stride", [1, 2])
def test_writes_everywhere(lc3, stride):
    sim = lc3()
    sim.memory[0x5000] = list(range(1, 300))
    sim.write_string(0x6000, "every word")
    sim.call("SCRIBBLE", 0x7000, 600, stride)  # 600 words, adjacent or not
    sim.call("SCRIBBLE", 0x0100, 3, 1)  # the trap table's and an I/O page's words
    sim.call("SCRIBBLE", 0xFE10, 3, 1)
    lc3(seed=3).call("SCRIBBLE", 0x3100, 5, stride)


def test_a_new_machine_holds_the_program_alone(lc3):
    for _ in range(3):
        sim = lc3()
        assert sim.machine.mem == loaded(sim)
        sim.call("SCRIBBLE", 0x4000, 10, 1)
"""


def test_no_test_finds_what_an_earlier_test_or_submission_wrote(tmp_path: Path) -> None:
    """A closed machine's memory serves the next test's machine, in a worker of `lc3jit grade`
    (whatever submission) as under `pytest`: every word the grader, the seed and the program
    wrote is zero again, as in a new machine."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_leaks.py").write_text(LEAK_TESTS)
    scribble = (  # R1 words from R0, every R2 words
        "SCRIBBLE ADD R1, R1, #0\nBRz DONE\nLOOP STR R1, R0, #0\n"
        "ADD R0, R0, R2\nADD R1, R1, #-1\nBRp LOOP\nDONE RET"
    )
    submissions = []
    for number in range(3):
        path = tmp_path / f"student{number}.asm"
        path.write_text(f".ORIG x3000\nBR START\n{scribble}\nSTART HALT\n.FILL #{number}\n.END\n")
        submissions.append(path)
    records = grade_class(tests, submissions, tmp_path / "out", jobs=1, options=["--lc3-coverage"])
    assert [(r.program, r.score, r.max_score) for r in records] == [
        (f"student{number}.asm", 3, 3) for number in range(3)
    ]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(tests), "-q", "-p", "no:cacheprovider", "--lc3-program",
         str(submissions[0])],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
