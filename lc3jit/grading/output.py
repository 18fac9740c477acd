"""Comparing a program's output with what a test expects, as LC3Tools' grader does (exact,
contains, case and whitespace ignored), with messages that show both."""

from __future__ import annotations

import difflib

#: Output longer than this is shown cut, around the first difference.
SHOWN = 200
#: Lines of the diff shown at most.
DIFF_LINES = 12


def normalized(text: str, ignore_case: bool = False, ignore_whitespace: bool = False) -> str:
    if ignore_case:
        text = text.casefold()
    if ignore_whitespace:
        text = "".join(text.split())
    return text


def matches(output: str, expected: str, ignore_case: bool = False, ignore_whitespace: bool = False) -> bool:
    return normalized(output, ignore_case, ignore_whitespace) == normalized(
        expected, ignore_case, ignore_whitespace
    )


def contains(output: str, expected: str, ignore_case: bool = False, ignore_whitespace: bool = False) -> bool:
    return normalized(expected, ignore_case, ignore_whitespace) in normalized(
        output, ignore_case, ignore_whitespace
    )


def similarity(output: str, expected: str) -> float:
    """0..1, how alike two texts are (LC3Tools' checkSimilarity)."""
    return difflib.SequenceMatcher(None, output, expected).ratio()


def shown(text: str, around: int = 0) -> str:
    """repr of text, cut to SHOWN characters around position `around`."""
    if len(text) <= SHOWN:
        return repr(text)
    start = max(0, min(around - SHOWN // 2, len(text) - SHOWN))
    cut = repr(text[start : start + SHOWN])
    return ("..." if start else "") + cut + ("..." if start + SHOWN < len(text) else "")


def check(
    output: str, expected: str, contains_only: bool, ignore_case: bool, ignore_whitespace: bool, where: str
) -> None:
    """Raise AssertionError with expected / got / where unless the output fits."""
    __tracebackhide__ = True
    test = contains if contains_only else matches
    if test(output, expected, ignore_case, ignore_whitespace):
        return
    first = next(
        (i for i, (a, b) in enumerate(zip(output, expected, strict=False)) if a != b),
        min(len(output), len(expected)),
    )
    ways = [w for w, on in (("ignoring case", ignore_case), ("ignoring whitespace", ignore_whitespace)) if on]
    want = "output containing" if contains_only else "output"
    changes = "" if contains_only else diff(expected, output)
    raise AssertionError(
        f"expected {want} {shown(expected, first)}{' (' + ', '.join(ways) + ')' if ways else ''}\n"
        f"got {shown(output, first)}\n"
        f"{changes}"
        f"the program's last instruction was {where}"
    )


def diff(expected: str, output: str) -> str:
    """The lines that differ, - expected and + printed (each as repr, so spaces and line ends
    show), at most DIFF_LINES of them, with a line ending; empty when the text is one line."""
    old, new = expected.splitlines(keepends=True), output.splitlines(keepends=True)
    if len(old) <= 1 and len(new) <= 1:
        return ""
    lines = [f"{line[0]} {line[2:]!r}" for line in difflib.ndiff(old, new) if line[:1] in "-+"]
    more = f"\n  ... {len(lines) - DIFF_LINES} more" if len(lines) > DIFF_LINES else ""
    return "\n".join(lines[:DIFF_LINES]) + more + "\n"
