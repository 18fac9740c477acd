"""What course staff and students read: each kind of failure explained once, in the student's
terms (examples/grading/submissions), the class overview, and Gradescope's autograder
package run end to end with its results.json checked against Gradescope's schema."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lc3jit.grader.grade import grade_class
from lc3jit.grading import explain, report

from .gradescope import check_results_schema

GRADING = Path(__file__).parent.parent / "examples" / "grading"
SUBMISSIONS = GRADING / "submissions"


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, report.SubmissionRecord]]:
    """examples/grading's submissions and its reference solution, graded as a class."""
    folder = tmp_path_factory.mktemp("class")
    programs = [GRADING / "solution.asm", *sorted(SUBMISSIONS.glob("*.asm"))]
    options = ["--cases", "1", "--lc3-max-steps", "20000", "--lc3-coverage"]
    records = grade_class(GRADING / "test_array_max.py", programs, folder / "out", jobs=2, options=options)
    return folder / "out", {Path(r.program).stem: r for r in records}


def failed(record: report.SubmissionRecord) -> list[report.TestRecord]:
    return [t for t in record.tests if not t.passed]


def test_a_missing_label_is_one_line_naming_it_and_the_labels_there_are(graded) -> None:
    _, records = graded
    tests = failed(records["missing_label"])
    assert len(tests) == 10  # the main program (which JSRs its own label) passes
    for test in tests:
        assert test.message == (
            "LabelError: no label ARRAY_MAX in the program; its labels are SAMPLE, ARR_MAX, NEXT, CAND_NEG, "
            "SAME_SIGN, TAKE, DONE, SAVE_R1, SAVE_R2, SAVE_R3, SAVE_R4"
        )
        assert test.explanation == explain.explain("LabelError", test.message)
        assert "KeyError" not in test.output and "Traceback" not in test.output


def test_a_submission_that_does_not_assemble_is_told_once_and_runs_no_test(graded) -> None:
    _, records = graded
    record = records["does_not_assemble"]
    assert record.score == 0 and all(not t.ran and not t.passed for t in record.tests)
    assert {t.message for t in record.tests} == {
        "not run: the program could not be loaded (submissions/does_not_assemble.asm: 2 errors); "
        "its messages are shown once, for the whole submission"
    }
    assert all(t.explanation == "" and not t.unran for t in record.tests)
    results = report.gradescope(record)
    check_results_schema(results)
    output = str(results["output"])
    assert output.startswith(report.NOT_LOADED + "\n\nsubmissions/does_not_assemble.asm: 2 errors\n")
    assert output.count("error: ADD expects a register R0-R7, found R9") == 1
    assert output.count("error: unknown label DOEN; did you mean DONE?") == 1
    assert "at the end" not in output and all("A check of" not in t["output"] for t in results["tests"])


def test_a_subroutine_that_halts_is_told_where_its_halt_is(graded) -> None:
    _, records = graded
    tests = failed(records["halts"])
    assert len(tests) == 10
    for test in tests:
        assert test.message.endswith(
            "did not return: it halted at x3023 <DONE+4> (halts.asm:41: HALT), instead of RET"
        )
        assert test.explanation.startswith("A subroutine goes back to its caller with RET; HALT stops")
        assert "SAVE_R1" not in test.message  # the word after the HALT, another routine's data


def test_a_loop_that_never_ends_is_named_with_the_runaway_diagnosis(graded) -> None:
    _, records = graded
    tests = failed(records["loops"])
    assert len(tests) == 11
    main = next(t for t in tests if t.name.startswith("test_main"))
    assert main.message.startswith("StepLimitError: step limit reached at x30")
    assert "; it is looping between x300F <NEXT> and x301C <SAME_SIGN+3> (lines 21-34)" in main.message
    call = next(t for t in tests if t.name == "test_known_arrays[values1]")
    assert call.message.startswith("ARRAY_MAX(x4000, 4) did not return: it was still running after 20,000")
    assert "; it is looping between" in call.message
    assert call.explanation.startswith("The subroutine never came back: it kept going round the loop")


def test_the_class_report_opens_with_an_overview_and_names_nothing_outside(graded) -> None:
    out, records = graded
    assert records["solution"].score == records["solution"].max_score == 12
    text = (out / "scores.json").read_text()
    data = json.loads(text)
    assert data["submissions"] == [records[Path(s["program"]).stem].as_dict() for s in data["submissions"]]
    lines = {line.rstrip(",") for line in text.splitlines()}  # a test's record a line, for grep
    assert all(f"    {json.dumps(t)}" in lines for s in data["submissions"] for t in s["tests"])
    overview = data["overview"]
    assert overview["submissions"] == 5 and overview["full_marks"] == 1
    assert sum(d["submissions"] for d in overview["distribution"]) == 5
    assert overview["distribution"][10] == {"scores": "100%", "submissions": 1}
    assert overview["not_run"] == [
        {
            "submission": "submissions/does_not_assemble.asm",
            "problem": "submissions/does_not_assemble.asm: 2 errors",
        }
    ]
    top = overview["most_failed"][0]
    assert top["failed"] == 3 and top["test"].startswith(("test_known", "test_random", "test_other"))
    texts = (
        (out / "scores.json").read_text()
        + (out / "scores.csv").read_text()
        + (out / "scores.html").read_text()
    )
    assert str(GRADING) not in texts and "/tmp" not in texts
    page = (out / "scores.html").read_text()
    assert page.index("<h2>Overview</h2>") < page.index("<h2>solution.asm")
    assert "The most failed tests" in page and "not run" in page
    rows = (out / "scores.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in rows[1:]] == [
        "solution.asm",
        "submissions/does_not_assemble.asm",
        "submissions/halts.asm",
        "submissions/loops.asm",
        "submissions/missing_label.asm",
    ]


def test_a_link_out_of_the_submissions_folder_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    secret = tmp_path / "secret.asm"
    secret.write_text("not for students\n")
    (folder / "sneaky.asm").symlink_to(secret)
    [record] = grade_class(GRADING / "test_array_max.py", [folder / "sneaky.asm"], tmp_path / "out")
    assert record.program == "sneaky.asm" and record.score == 0
    assert record.problem == "a link to a file outside the submissions' folder: not graded"
    assert "not for students" not in (tmp_path / "out" / "scores.json").read_text()


def run_package(root: Path, *submission: Path) -> dict[str, object]:
    """Run the package's run_autograder as Gradescope does, in root (for /autograder), with
    this lc3jit importable (setup.sh's work), and return its results.json."""
    (root / "submission").mkdir()
    for path in submission:
        (root / "submission" / path.name).write_text(path.read_text())
    environment = {**os.environ, "LC3JIT_AUTOGRADER_ROOT": str(root)}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"
    subprocess.run(
        ["bash", str(root / "source" / "run_autograder")],
        cwd=root,
        env=environment,
        check=True,
        capture_output=True,
        timeout=300,
    )
    results = json.loads((root / "results" / "results.json").read_text())
    check_results_schema(results)
    return results


def test_the_gradescope_autograder_package_runs_end_to_end(tmp_path: Path) -> None:
    package = tmp_path / "autograder.zip"
    made = subprocess.run(
        [sys.executable, "-m", "lc3jit", "grade", "--gradescope-autograder", str(package),
         str(GRADING / "test_array_max.py"), "--pytest=--cases=2", "--pytest=--lc3-max-steps=20000"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith(f"written: {package} (")
    with zipfile.ZipFile(package) as archive:
        names = set(archive.namelist())
        assert {"setup.sh", "run_autograder", "lc3jit-autograder.json", "tests/test_array_max.py"} <= names
        assert {
            "tests/conftest.py",
            "lc3jit-source/pyproject.toml",
            "lc3jit-source/runtime/machine.py",
        } <= names
        assert archive.getinfo("run_autograder").external_attr >> 16 & 0o111  # executable once unzipped
        setup = archive.read("setup.sh").decode()
        roots = [tmp_path / "halts", tmp_path / "none"]
        for root in roots:
            archive.extractall(root / "source")
    import lc3jit

    assert f"lc3jit {lc3jit.__version__}" in setup and 'install ./lc3jit-source "pytest>=8"' in setup
    assert subprocess.run(["bash", "-n", str(roots[0] / "source" / "setup.sh")]).returncode == 0

    results = run_package(roots[0], SUBMISSIONS / "halts.asm")
    assert results["score"] == 1 and results["output"] == "1 of 13 points"
    assert results["stdout_visibility"] == "hidden" and results["visibility"] == "visible"
    tests = results["tests"]
    assert isinstance(tests, list) and len(tests) == 12
    assert [t["number"] for t in tests] == [str(n) for n in range(1, 13)]
    first, second = tests[0], tests[1]
    assert (first["name"], first["score"], first["max_score"], first["status"], first["output"]) == (
        "test_main_program_halts_with_the_sample_maximum",
        1,
        1,
        "passed",
        "",
    )
    assert (second["name"], second["score"], second["max_score"], second["status"]) == (
        "test_known_arrays[values0]",
        0,
        1,
        "failed",
    )
    assert second["output"].startswith(
        "ARRAY_MAX(x4000, 1) did not return: it halted at x3023 <DONE+4> (halts.asm:41: HALT), "
        "instead of RET\n\nA subroutine goes back to its caller with RET"
    )
    assert str(roots[0]) not in json.dumps(results)  # the container's paths are no student's business

    empty = run_package(roots[1])
    assert empty["score"] == 0 and empty["tests"] == []
    assert str(empty["output"]).startswith(
        "no LC-3 program in the submission: submit one file ending in .asm"
    )


def test_grade_under_an_older_pytest_says_so_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "pytest.py").write_text('__version__ = "8.4.2"\n')  # what `import pytest` finds
    result = subprocess.run(
        [sys.executable, "-m", "lc3jit", "grade", str(GRADING / "test_array_max.py"),
         str(GRADING / "submissions" / "halts.asm")],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )  # fmt: skip
    assert result.returncode != 0
    assert result.stderr == (
        "lc3jit: grading a class needs pytest 9 or newer, not 8.4.2: pip install -U 'pytest>=9'\n"
    )


def test_grade_says_what_it_lacks_and_what_coverage_costs() -> None:
    missing = subprocess.run(
        [sys.executable, "-m", "lc3jit", "grade", str(GRADING / "test_array_max.py")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert missing.returncode != 0
    assert missing.stderr == "lc3jit: no submissions to grade: give their files after the tests\n"
    usage = subprocess.run(
        [sys.executable, "-m", "lc3jit", "grade", "--help"], capture_output=True, text=True
    )
    text = " ".join(usage.stdout.split())
    assert "(at translated speed)" in text and "interpreter" not in text
