"""Gradescope's results.json, checked against its "Autograder Specifications" (the output
format): what every test that reads one of lc3jit's asks of it."""

from __future__ import annotations

import pytest

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
FORMATS = ("text", "html", "simple_format", "md", "ansi")


def check_results_schema(results: dict[str, object]) -> None:
    """Gradescope's "Autograder Specifications", output format: every field it documents,
    its type and its allowed values; no field it does not document."""
    top = {
        "score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
        "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard",
    }  # fmt: skip
    assert set(results) <= top, set(results) - top
    tests = results.get("tests", [])
    assert isinstance(tests, list)
    if "score" not in results:  # optional only when every test has one
        assert tests and all("score" in t for t in tests)
    else:
        assert isinstance(results["score"], int | float) and not isinstance(results["score"], bool)
    if "execution_time" in results:
        assert isinstance(results["execution_time"], int | float) and results["execution_time"] >= 0
    for key in ("output",):
        assert isinstance(results.get(key, ""), str)
    for key in ("output_format", "test_output_format", "test_name_format"):
        assert results.get(key, "text") in FORMATS
    for key in ("visibility", "stdout_visibility"):
        assert results.get(key, "visible") in VISIBILITIES
    assert isinstance(results.get("extra_data", {}), dict)
    numbers = set()
    for test in tests:
        assert isinstance(test, dict)
        assert set(test) <= {
            "score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
            "tags", "visibility", "extra_data",
        }  # fmt: skip
        assert isinstance(test["score"], int | float) and isinstance(test["max_score"], int | float)
        assert 0 <= test["score"] <= test["max_score"]
        assert test.get("status", "passed") in ("passed", "failed")
        assert test["status"] == ("passed" if test["score"] == test["max_score"] else "failed")
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["number"], str) and test["number"] not in numbers
        numbers.add(test["number"])
        assert isinstance(test.get("output", ""), str)
        assert test.get("output_format", "text") in FORMATS and test.get("name_format", "text") in FORMATS
        assert isinstance(test.get("tags", []), list)
        assert test.get("visibility", "visible") in VISIBILITIES
    if tests and "score" in results:
        assert results["score"] == pytest.approx(sum(t["score"] for t in tests))  # type: ignore[index]
