"""The grading example through pytest itself, as a grader runs it: the reference solution
passes, the buggy one fails the tests it should, alone and spread over two workers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .gradescope import check_results_schema

GRADING = Path(__file__).parent.parent / "examples" / "grading"


def grade(solution: str, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(GRADING),
            "--lc3-program",
            str(GRADING / solution),
            "-p",
            "no:cacheprovider",
            "-rf",
            "--cases",
            "40",
            *options,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=GRADING,
    )


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["alone", "xdist"])
def test_reference_solution_passes(workers: tuple[str, ...]) -> None:
    result = grade("solution.asm", *workers)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "50 passed" in result.stdout


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["alone", "xdist"])
def test_buggy_solution_fails_where_signs_differ(workers: tuple[str, ...]) -> None:
    result = grade("buggy.asm", *workers)
    assert result.returncode == 1, result.stdout + result.stderr
    failed = {
        line.split()[1].split("::")[1] for line in result.stdout.splitlines() if line.startswith("FAILED")
    }
    # [32767, -32768] and [-32768, 32767]; the sample, the small arrays and the registers pass
    assert {"test_known_arrays[values4]", "test_known_arrays[values5]"} <= failed
    assert not failed & {"test_main_program_halts_with_the_sample_maximum", "test_other_registers_are_kept"}
    assert all(
        name.startswith(("test_known_arrays[values4]", "test_known_arrays[values5]", "test_random_array"))
        for name in failed
    )
    # the failures' tracebacks end in the test's own line: lc3jit's frames are hidden
    assert "ARRAY_MAX(x4000, 2) returned -32768 (x8000), expected 32767 (x7FFF)" in result.stdout
    assert "grading/calls.py" not in result.stdout and "simulator/calling.py" not in result.stdout


def test_a_program_that_never_returns_fails_its_test_without_hanging(tmp_path: Path) -> None:
    looping = tmp_path / "loop.asm"
    looping.write_text(".ORIG x3000\nHALT\nARRAY_MAX BR ARRAY_MAX\n.END\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(GRADING / "test_array_max.py"),
            "--lc3-program",
            str(looping),
            "-p",
            "no:cacheprovider",
            "--cases",
            "1",
            "--lc3-max-steps",
            "10000",
            "-k",
            "known_arrays and values0",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=GRADING,
    )
    assert result.returncode == 1
    assert (
        "ARRAY_MAX(x4000, 1) did not return: it was still running after 10,000 instructions, "
        "at x3001 <ARRAY_MAX> (loop.asm:3: ARRAY_MAX BR ARRAY_MAX)"
    ) in result.stdout


def pytest_run(*arguments: str | Path, cwd: Path = GRADING) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *map(str, arguments)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def test_a_submission_that_does_not_assemble_is_reported_once(tmp_path: Path) -> None:
    broken = tmp_path / "broken.asm"
    broken.write_text(".ORIG x3000\nADD R0, R9, #1\nFOO R1\n.END\n")
    result = pytest_run(GRADING / "test_array_max.py", "--lc3-program", broken, "--cases", "2")
    assert result.returncode == 1
    assert result.stdout.count("broken.asm:2:9: error: ADD expects a register R0-R7, found R9") == 1
    assert result.stdout.count("broken.asm:3:1: error: unknown instruction or directive FOO") == 1
    line = f"not run: the program could not be loaded ({broken}: 2 errors); its messages are shown once"
    assert result.stdout.count(line) == 12  # each test fails with that one line, and no traceback
    assert result.stdout.count("NOT RUN") == 12 and "at the end" not in result.stdout
    assert "Traceback" not in result.stdout and "lc3jit/" not in result.stdout


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ((), "ERROR: no program to test: give --lc3-program FILE (or lc3_program in the ini file)"),
        (
            ("--lc3-program", "solution.asm", "--lc3-engine", "bogus"),
            "ERROR: --lc3-engine: no engine 'bogus'",
        ),
        (
            ("--lc3-program", "solution.asm", "--lc3-time-limit", "soon"),
            "ERROR: --lc3-time-limit: not a number",
        ),
    ],
)
def test_usage_errors_stop_pytest_at_the_start(options: tuple[str, ...], message: str) -> None:
    result = pytest_run(GRADING / "test_array_max.py", *options, "--cases", "2")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr
    assert "passed" not in result.stdout and "failed" not in result.stdout


def test_ini_options_stand_for_the_command_line_which_wins(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nlc3_program = loop.asm\nlc3_max_steps = 5000\n"
        "lc3_gradescope = results.json\nlc3_visibility = hidden\n"
    )
    (tmp_path / "loop.asm").write_text(".ORIG x3000\nHALT\nARRAY_MAX BR ARRAY_MAX\n.END\n")
    (tmp_path / "test_loop.py").write_text(
        "def test_returns(lc3):\n    lc3().call_subroutine('ARRAY_MAX', 0x4000, 1).check_returned()\n"
    )
    result = pytest_run("test_loop.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "did not return: it was still running after 5,000 instructions" in result.stdout
    [test] = json.loads((tmp_path / "results.json").read_text())["tests"]
    assert (test["name"], test["visibility"], test["score"]) == ("test_returns", "hidden", 0)
    result = pytest_run("test_loop.py", "--lc3-max-steps", "7000", cwd=tmp_path)
    assert "did not return: it was still running after 7,000 instructions" in result.stdout


def test_gradescope_results_and_report_for_a_buggy_submission(tmp_path: Path) -> None:
    gradescope, report = tmp_path / "results.json", tmp_path / "report.json"
    result = pytest_run(
        GRADING / "test_array_max.py",
        "--lc3-program",
        GRADING / "buggy.asm",
        "--cases",
        "2",
        "--lc3-coverage",
        "--lc3-gradescope",
        gradescope,
        "--lc3-report",
        report,
    )
    assert result.returncode == 1
    assert "total                                                10 / 13" in result.stdout
    results = json.loads(gradescope.read_text())
    check_results_schema(results)
    # what lc3jit always writes, though Gradescope lets some of it out
    assert {"score", "execution_time", "output", "visibility", "stdout_visibility"} <= set(results)
    assert results["tests"] and all({"status", "output", "visibility"} <= set(t) for t in results["tests"])
    by_name = {t["name"]: t for t in results["tests"]}
    kept = by_name["test_other_registers_are_kept"]
    assert (kept["score"], kept["max_score"], kept["status"], kept["output"]) == (2, 2, "passed", "")
    failed = by_name["test_known_arrays[values4]"]
    assert (failed["score"], failed["max_score"], failed["status"]) == (0, 1, "failed")
    assert failed["output"].startswith("ARRAY_MAX(x4000, 2) returned -32768 (x8000), expected 32767 (x7FFF)")
    assert "The subroutine returned, but not the value the test expected." in failed["output"]
    assert results["score"] == 10 and "10 of 13 points" in results["output"]
    [submission] = json.loads(report.read_text())["submissions"]
    assert submission["score"] == 10 and submission["max_score"] == 13
    page = report.with_suffix(".html").read_text()
    assert "test_known_arrays[values4]" in page and "returned -32768 (x8000)" in page


def test_examples_coverage_names_the_lines_a_failing_test_never_ran(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    program = GRADING / "factorial" / "buggy.asm"
    result = pytest_run(
        GRADING / "factorial", "--lc3-program", program, "--lc3-coverage", "--lc3-report", report
    )
    assert result.returncode == 1
    [submission] = json.loads(report.read_text())["submissions"]
    tests = {t["name"]: t for t in submission["tests"]}
    assert tests["test_fact[0]"]["message"] == "FACT(0) returned 0 (x0000), expected 1 (x0001)"
    # FACT(0) never reaches the recursion: its lines are named, with their text
    assert [28, "        STR R1, R6, #0          ; push n - 1"] in tests["test_fact[0]"]["unran"]
    convention = tests["test_fact_keeps_the_convention"]["message"]
    assert convention == "FACT(4) changed R1: 0 (x0000) before the call, 6 (x0006) after"


@pytest.mark.parametrize(
    ("folder", "program", "code", "seen"),
    [
        ("factorial", "solution.asm", 0, "total                                       17 / 17"),
        ("factorial", "buggy.asm", 1, "FACT(0) returned 0 (x0000), expected 1 (x0001)"),
        ("interactive", "solution.asm", 0, "total                                     6 / 6"),
        ("interactive", "buggy.asm", 1, "check failed (0.5 pt): key '7': expected '7', got '\\x17'"),
    ],
)
def test_stack_convention_and_interactive_examples(folder: str, program: str, code: int, seen: str) -> None:
    result = pytest_run(GRADING / folder, "--lc3-program", GRADING / folder / program)
    assert result.returncode == code, result.stdout
    assert seen in result.stdout


def test_time_and_output_limits_fail_their_tests_saying_where(tmp_path: Path) -> None:
    (tmp_path / "test_limits.py").write_text(
        "def test_loops(lc3):\n    lc3().run()\n\ndef test_floods(lc3):\n    lc3(pc='FLOOD').run()\n"
    )
    program = tmp_path / "runaway.asm"
    program.write_text(
        '.ORIG x3000\nLOOP BR LOOP\nFLOOD LEA R0, TEXT\nPUTS\nBR FLOOD\nTEXT .STRINGZ "spam"\n.END\n'
    )
    result = pytest_run(
        "test_limits.py",
        "--lc3-program",
        program,
        "--lc3-time-limit",
        "0.3",
        "--lc3-max-steps",
        str(1 << 60),
        "--lc3-max-output",
        "1000",
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert "TimeLimitError: the time limit (0.3 s) ran out at x3000 <LOOP> (runaway.asm:2: LOOP BR LOOP)" in (
        result.stdout
    )
    assert "OutputLimitError: the output limit (1,000 bytes) was reached at x300" in result.stdout


def test_a_tests_simulators_give_their_memory_back_when_it_ends(tmp_path: Path) -> None:
    """A session of a thousand tests kept every Simulator (2 MB each) to its end; then each
    waited for the garbage collector (turned off here). Its write map and interpreter's
    table go to the next test's Simulator, as the first test's went to the second's."""
    (tmp_path / "test_release.py").write_text(
        "import gc\nimport tracemalloc\nimport weakref\n\nSEEN = []\n\n\n"
        "def test_warm(lc3):\n    lc3().run()\n\n\n"
        "def test_first(lc3):\n    gc.disable()\n    tracemalloc.start()\n"
        "    sim = lc3()\n    sim.run()\n    SEEN.append(weakref.ref(sim))\n\n\n"
        "def test_second():\n    held = tracemalloc.get_traced_memory()[0]\n"
        "    tracemalloc.stop()\n    gc.enable()\n    assert held < 500_000, f'{held:,} bytes held'\n"
        "    gc.collect()\n    assert SEEN[0]() is None, 'still alive'\n"
    )
    result = pytest_run("test_release.py", "--lc3-program", GRADING / "solution.asm", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
