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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")


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
            "tests": [asdict(t) for t in self.tests],
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
        "output": "\n\n".join(p for p in (submission.problem, summary) if p),
        "visibility": visibility,
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def _points(value: float) -> str:
    return f"{value:g}"


def score_lines(submission: SubmissionRecord) -> list[str]:
    """The score summary pytest prints at the end."""
    width = max((len(t.name) for t in submission.tests), default=4)
    lines = [
        f"{t.name:<{width}}  {_points(t.score):>6} / {_points(t.max_score):<6} {'FAILED' * (not t.passed)}"
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


def write_reports(submissions: list[SubmissionRecord], json_path: Path) -> Path:
    """The JSON at json_path and the HTML page beside it (same name, .html); the HTML's path."""
    json_path.write_text(json.dumps([s.as_dict() for s in submissions], indent=1) + "\n")
    html_path = json_path.with_suffix(".html")
    html_path.write_text(page(submissions))
    return html_path


def page(submissions: list[SubmissionRecord]) -> str:
    """A page a teaching assistant (or the student) reads: per submission, each failing
    test with its message, the explanation and the lines that never ran."""
    e = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>LC-3 grading report</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto}pre{background:#f4f4f4;padding:.5em;"
        "white-space:pre-wrap}.failed{color:#a00}.passed{color:#070}td,th{padding:0 .6em;text-align:left}"
        "</style></head><body><h1>LC-3 grading report</h1>",
    ]
    for s in submissions:
        parts.append(f"<h2>{e(s.program)}: {_points(s.score)} / {_points(s.max_score)}</h2>")
        if s.problem:
            parts.append(f"<pre class='failed'>{e(s.problem)}</pre>")
        parts.append("<table><tr><th>test</th><th>score</th><th></th></tr>")
        for t in s.tests:
            status = "passed" if t.passed else "failed"
            parts.append(
                f"<tr><td>{e(t.name)}</td><td>{_points(t.score)} / {_points(t.max_score)}</td>"
                f"<td class='{status}'>{status}</td></tr>"
            )
        parts.append("</table>")
        for t in s.tests:
            if not t.output:
                continue
            parts.append(f"<h3 class='failed'>{e(t.name)}</h3><pre>{e(t.message)}</pre>")
            if t.explanation:
                parts.append(f"<p>{e(t.explanation)}</p>")
            if t.unran:
                rows = "".join(f"<tr><td>{n}</td><td><code>{e(text)}</code></td></tr>" for n, text in t.unran)
                parts.append(f"<p>Lines that never ran in this test:</p><table>{rows}</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
