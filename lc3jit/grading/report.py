"""What a grading run found, as data first (one record per test, one per submission), then
as Gradescope's results.json, a CSV and JSON of a class's scores, and an HTML page.

Gradescope's format (its "Autograder Specifications", output format): a top-level object
with `score` (the total; optional when every test has one), `execution_time` (seconds),
`output` (text for the whole submission), `visibility` and `stdout_visibility` (one of
"hidden", "after_due_date", "after_published", "visible"), and `tests`, each with
`score`, `max_score`, `status` ("passed" or "failed"), `name`, `number`, `output` and
`visibility`.
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
#: Lines of the assembler's messages shown for a submission (its first errors).
FIRST_ERRORS = 16
#: Tests the class overview lists as the most failed.
MOST_FAILED = 5
#: What a submission that does not assemble (or load) reads before the assembler's messages.
NOT_LOADED = (
    "Your program could not be assembled or loaded, so no test ran it: fix the first error below "
    "and submit again."
)


def first_errors(problem: str) -> str:
    """The assembler's messages, cut to their first FIRST_ERRORS lines."""
    lines = problem.splitlines()
    more = f"\n... ({len(lines) - FIRST_ERRORS} more lines)" if len(lines) > FIRST_ERRORS else ""
    return "\n".join(lines[:FIRST_ERRORS]) + more


def not_loaded(problem: str) -> str:
    """A test's one line when the program could not be loaded (the messages come once, per submission)."""
    first = problem.splitlines()[0]
    return f"the program could not be loaded ({first}); its messages are shown once, for the whole submission"


@dataclass
class Check:
    """A soft check of a test: its message, its points, and whether it held."""

    message: str
    points: float
    passed: bool


@dataclass
class TestRecord:
    """One test of one submission."""

    name: str
    passed: bool
    score: float
    max_score: float
    message: str = ""  # the failure, as reported (one line or a few)
    explanation: str = ""  # the same in plain words, with the lines that never ran
    unran: list[tuple[int, str]] = field(default_factory=list)  # (line, text) of the student's source
    checks: list[Check] = field(default_factory=list)
    visibility: str = "visible"
    ran: bool = True  # False: the program could not be loaded, so the test did not run it

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TestRecord:
        """The record back from its JSON (as it crosses pytest-xdist and the class grader's pipes)."""
        return cls(
            **{
                **data,
                "unran": [(int(n), str(text)) for n, text in data["unran"]],
                "checks": [Check(**check) for check in data["checks"]],
            }
        )

    def as_dict(self) -> dict[str, Any]:
        """The record as JSON takes it (dataclasses.asdict's result, without its deep copies:
        every test of a class makes one)."""
        return {
            **vars(self),
            "unran": [list(u) for u in self.unran],
            "checks": [vars(c) for c in self.checks],
        }

    @property
    def output(self) -> str:
        """What a student reads for this test."""
        if self.passed and all(c.passed for c in self.checks):
            return ""
        parts = [self.message] if self.message else []
        if self.explanation:
            parts.append(self.explanation)
        if self.unran:
            parts.append("Lines of yours that never ran in this test:\n" + unran_text(self.unran))
        return "\n\n".join(parts)


@dataclass
class SubmissionRecord:
    """One submission: its tests, or why none could run."""

    program: str
    tests: list[TestRecord] = field(default_factory=list)
    problem: str = ""  # the assembler's messages, or how the grader lost it (crash)
    seconds: float = 0.0

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests), 6)

    def relative_to(self, folder: str) -> SubmissionRecord:
        """The record with the folder's path taken out of its name and every text (what the
        grader's machine is called is none of a reader's business)."""
        prefix = folder.rstrip("/\\") + "/"

        def cut(text: str) -> str:
            return text.replace(prefix, "")

        tests = [replace(t, message=cut(t.message), explanation=cut(t.explanation)) for t in self.tests]
        return SubmissionRecord(cut(self.program), tests, cut(self.problem), self.seconds)

    @property
    def max_score(self) -> float:
        return round(sum(t.max_score for t in self.tests), 6)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SubmissionRecord:
        tests = [TestRecord.from_dict(t) for t in data["tests"]]
        return cls(str(data["program"]), tests, str(data["problem"]), float(data["seconds"]))

    def as_dict(self) -> dict[str, object]:
        return {
            "program": self.program,
            "score": self.score,
            "max_score": self.max_score,
            "problem": self.problem,
            "seconds": round(self.seconds, 3),
            "tests": [t.as_dict() for t in self.tests],
        }


def unran_text(lines: list[tuple[int, str]]) -> str:
    return "\n".join(f"  line {number}: {text.strip()}" for number, text in lines)


def gradescope(submission: SubmissionRecord, visibility: str = "visible") -> dict[str, object]:
    """Gradescope's results.json for one submission."""
    tests = [
        {
            "name": test.name,
            "number": str(number),
            "score": test.score,
            "max_score": test.max_score,
            "status": "passed" if test.passed else "failed",
            "output": test.output,
            "visibility": test.visibility,
        }
        for number, test in enumerate(submission.tests, 1)
    ]
    summary = f"{_points(submission.score)} of {_points(submission.max_score)} points"
    return {
        "score": submission.score,
        "execution_time": round(submission.seconds, 3),
        "output": "\n\n".join(p for p in (*problem_text(submission), summary) if p),
        "visibility": visibility,
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def problem_text(submission: SubmissionRecord) -> tuple[str, ...]:
    """What a submission whose program could not be loaded reads, once: why no test ran,
    then the assembler's first messages (or how the grader lost it)."""
    if not submission.problem:
        return ()
    if any(not t.ran for t in submission.tests):
        return NOT_LOADED, first_errors(submission.problem)
    return (submission.problem,)


def _status(test: TestRecord) -> str:
    return "FAILED" if test.ran else "NOT RUN"


def _points(value: float) -> str:
    return f"{value:g}"


def score_lines(submission: SubmissionRecord) -> list[str]:
    """The score summary pytest prints at the end."""
    width = max((len(t.name) for t in submission.tests), default=4)
    lines = [
        f"{t.name:<{width}}  {_points(t.score):>6} / {_points(t.max_score):<6} {_status(t) * (not t.passed)}"
        for t in submission.tests
    ]
    lines = [line.rstrip() for line in lines]
    lines.append(f"{'total':<{width}}  {_points(submission.score):>6} / {_points(submission.max_score)}")
    return lines


def class_csv(submissions: list[SubmissionRecord]) -> str:
    """One row per submission: its file, total, maximum, problem, then each test's score."""
    names = list(dict.fromkeys(t.name for s in submissions for t in s.tests))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["submission", "score", "max_score", "problem", *names])
    for s in submissions:
        scores = {t.name: t.score for t in s.tests}
        problem = s.problem.splitlines()[0] if s.problem else ""
        writer.writerow(
            [s.program, _points(s.score), _points(s.max_score), problem, *(scores.get(n, "") for n in names)]
        )
    return out.getvalue()


def overview(submissions: list[SubmissionRecord]) -> dict[str, object]:
    """What a class did, at a glance: how many, the distribution of scores (a tenth of the
    maximum a bin), the most failed tests with the explanation most of their failures
    share, and the submissions no test could run (they did not assemble, or were lost)."""
    fractions = [s.score / s.max_score if s.max_score else 0.0 for s in submissions]
    bins = Counter(min(int(f * 10), 10) for f in fractions)
    distribution = [
        {"scores": "100%" if b == 10 else f"{b * 10}-{b * 10 + 9}%", "submissions": bins.get(b, 0)}
        for b in range(11)
    ]
    failures: dict[str, list[TestRecord]] = {}
    for s in submissions:
        for t in s.tests:
            if t.ran and not t.passed:
                failures.setdefault(t.name, []).append(t)
    ranked = sorted(failures.items(), key=lambda item: -len(item[1]))[:MOST_FAILED]
    most_failed = [
        {
            "test": name,
            "failed": len(failed),
            "explanation": Counter(t.explanation for t in failed).most_common(1)[0][0],
        }
        for name, failed in ranked
    ]
    return {
        "submissions": len(submissions),
        "full_marks": sum(f == 1.0 for f in fractions),
        "mean_percent": round(100 * sum(fractions) / len(fractions), 1) if fractions else 0.0,
        "distribution": distribution,
        "most_failed": most_failed,
        "not_run": [
            {"submission": s.program, "problem": s.problem.splitlines()[0] if s.problem else ""}
            for s in submissions
            if s.problem and not any(t.ran for t in s.tests)
        ],
    }


def write_reports(submissions: list[SubmissionRecord], json_path: Path) -> Path:
    """The JSON at json_path (the overview, then every submission) and the HTML page beside
    it (same name, .html); the HTML's path."""
    json_path.write_text(class_json(overview(submissions), [s.as_dict() for s in submissions]))
    html_path = json_path.with_suffix(".html")
    html_path.write_text(page(submissions))
    return html_path


def class_json(summary: dict[str, object], submissions: list[dict[str, object]]) -> str:
    """The report's JSON text: the overview, then each submission's fields, one to a line as
    `json.dumps(indent=1)` lays them out, but each test's record on one line of its own, made
    by json's C encoder (its indenting encoder is Python's: 3 ms a submission of 111 tests)."""
    parts = ['{\n "overview": ' + json.dumps(summary, indent=1).replace("\n", "\n ") + ",\n"]
    parts.append(' "submissions": [' + ("\n" if submissions else ""))
    for number, submission in enumerate(submissions):
        fields = []
        for key, value in submission.items():
            if key == "tests" and isinstance(value, list) and value:
                value_text = "[\n" + ",\n".join("    " + json.dumps(t) for t in value) + "\n   ]"
            else:
                value_text = json.dumps(value)
            fields.append(f"   {json.dumps(key)}: {value_text}")
        parts.append(
            "  {\n" + ",\n".join(fields) + "\n  }" + (",\n" if number < len(submissions) - 1 else "\n")
        )
    parts.append((" " if submissions else "") + "]\n}\n")
    return "".join(parts)


def page(submissions: list[SubmissionRecord]) -> str:
    """A page a teaching assistant (or the student) reads: per submission, each failing
    test with its message, the explanation and the lines that never ran."""
    e = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>LC-3 grading report</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto}pre{background:#f4f4f4;padding:.5em;"
        "white-space:pre-wrap}.bar{display:inline-block;height:.8em;background:#58a}.failed{color:#a00}"
        ".passed{color:#070}td,th{padding:0 .6em;text-align:left}"
        "</style></head><body><h1>LC-3 grading report</h1>",
    ]
    if len(submissions) > 1:
        parts.append(overview_html(overview(submissions)))
    for s in submissions:
        parts.append(f"<h2>{e(s.program)}: {_points(s.score)} / {_points(s.max_score)}</h2>")
        if s.problem:
            parts.append(f"<pre class='failed'>{e(chr(10).join(problem_text(s)))}</pre>")
        parts.append("<table><tr><th>test</th><th>score</th><th></th></tr>")
        for t in s.tests:
            status = "not run" if not t.ran else "passed" if t.passed else "failed"
            parts.append(
                f"<tr><td>{e(t.name)}</td><td>{_points(t.score)} / {_points(t.max_score)}</td>"
                f"<td class='{'passed' if t.passed else 'failed'}'>{status}</td></tr>"
            )
        parts.append("</table>")
        for t in s.tests:
            if not t.output or not t.ran:
                continue
            parts.append(f"<h3 class='failed'>{e(t.name)}</h3><pre>{e(t.message)}</pre>")
            if t.explanation:
                parts.append(f"<p>{e(t.explanation)}</p>")
            if t.unran:
                rows = "".join(f"<tr><td>{n}</td><td><code>{e(text)}</code></td></tr>" for n, text in t.unran)
                parts.append(f"<p>Lines that never ran in this test:</p><table>{rows}</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def overview_html(summary: dict[str, Any]) -> str:
    """The class overview as the page's first section."""
    e = html.escape
    most = max((d["submissions"] for d in summary["distribution"]), default=0) or 1
    bars = "".join(
        f"<tr><td>{d['scores']}</td><td>{d['submissions']}</td>"
        f"<td><span class='bar' style='width:{20 * d['submissions'] / most:.1f}em'></span></td></tr>"
        for d in summary["distribution"]
    )
    parts = [
        "<h2>Overview</h2>",
        f"<p>{summary['submissions']} submissions, {summary['full_marks']} with full marks, "
        f"{summary['mean_percent']:g}% on average.</p>",
        f"<table><tr><th>score</th><th>submissions</th><th></th></tr>{bars}</table>",
    ]
    if summary["most_failed"]:
        rows = "".join(
            f"<tr><td>{e(t['test'])}</td><td>{t['failed']}</td><td>{e(t['explanation'])}</td></tr>"
            for t in summary["most_failed"]
        )
        parts.append(
            "<h3>The most failed tests</h3><table><tr><th>test</th><th>failed by</th>"
            f"<th>what most of them have in common</th></tr>{rows}</table>"
        )
    if summary["not_run"]:
        rows = "".join(
            f"<tr><td>{e(n['submission'])}</td><td><code>{e(n['problem'])}</code></td></tr>"
            for n in summary["not_run"]
        )
        parts.append(f"<h3>Not assembled or not loaded: no test ran them</h3><table>{rows}</table>")
    return "\n".join(parts)
