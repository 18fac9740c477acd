"""`grade`: a whole class graded by pytest, in parallel by submission (lc3jit/grader/grade.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from lc3jit.cli.common import command, fail

GradeOut = Annotated[
    Path, typer.Option("--out", metavar="DIR", help="Folder for scores.csv, scores.json, scores.html.")
]
GradeJobs = Annotated[
    int, typer.Option("--jobs", "-j", min=0, metavar="N", help="Worker processes (0: one per core).")
]
GradeCoverage = Annotated[
    bool, typer.Option(help="Name the lines each failing test never ran (at translated speed).")
]
PytestOptions = Annotated[
    list[str] | None,
    typer.Option(
        "--pytest",
        metavar="ARG",
        help="An argument for pytest, e.g. --pytest=--lc3-time-limit=2; repeatable.",
    ),
]


Autograder = Annotated[
    Path | None,
    typer.Option(
        "--gradescope-autograder",
        metavar="OUT.zip",
        help="Write Gradescope's autograder zip for the tests (setup.sh, run_autograder) instead of grading.",
    ),
]


@command()
def grade(
    tests: Annotated[Path, typer.Argument(help="The pytest tests (file or folder) that grade one program.")],
    submissions: Annotated[
        list[Path] | None, typer.Argument(help="The students' programs (.asm, .obj, ...).")
    ] = None,
    out: GradeOut = Path("grades"),
    jobs: GradeJobs = 0,
    coverage: GradeCoverage = True,
    pytest_options: PytestOptions = None,
    gradescope_autograder: Autograder = None,
) -> None:
    """Grade a whole class: every submission against the tests, in parallel by submission
    (see lc3jit/grader/grade.py); a submission that does not assemble, loops, floods its
    output or crashes costs only its own score. With --gradescope-autograder, write the zip
    that grades each submission on Gradescope instead (see lc3jit/grader/autograder.py)."""
    for path in (tests, *(submissions or [])):
        if not path.exists():
            raise fail(f"{path}: no such file or folder")
    options = [*(["--lc3-coverage"] if coverage else []), *(pytest_options or [])]
    if gradescope_autograder is not None:
        from lc3jit.grader.autograder import build

        try:
            names = build(tests, gradescope_autograder, options)
        except OSError as e:
            raise fail(f"{gradescope_autograder}: {e.strerror or e}") from None
        typer.echo(f"written: {gradescope_autograder} ({len(names)} files): upload it as the autograder")
        return
    if not submissions:
        raise fail("no submissions to grade: give their files after the tests")
    problem = pytest_problem()
    if problem:
        raise fail(problem)
    from lc3jit.grader.grade import grade_class

    try:
        records = grade_class(tests, submissions, out, jobs or os.cpu_count() or 1, options)
    except RuntimeError as e:
        raise fail(str(e)) from None
    scores = ", ".join(f"{Path(r.program).name} {r.score:g}/{r.max_score:g}" for r in records[:5])
    more = f", ... ({len(records)} in all)" if len(records) > 5 else ""
    typer.echo(f"{scores}{more}\nwritten: {out / 'scores.csv'}, {out / 'scores.json'}, {out / 'scores.html'}")


#: The oldest pytest whose pieces a grading worker runs each test with (lc3jit/grader/protocol.py).
GRADE_PYTEST = 9


def pytest_problem() -> str | None:
    """Why `lc3jit grade` cannot grade with the pytest installed, or None."""
    try:
        import pytest
    except ImportError:
        return f"grading needs pytest: pip install 'pytest>={GRADE_PYTEST}'"
    version = pytest.__version__
    major = version.split(".")[0]
    if major.isdigit() and int(major) >= GRADE_PYTEST:
        return None
    upgrade = f"pip install -U 'pytest>={GRADE_PYTEST}'"
    return f"grading a class needs pytest {GRADE_PYTEST} or newer, not {version}: {upgrade}"
