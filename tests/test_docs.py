"""The README and docs/ show what lc3jit prints: every `$ command` example runs and prints
what its block says, and the README stays a front door.

A block is an example when its first line starts with `$ `; the lines after it are the
expected stdout. `...` in an expected line matches any text (timings). Sizes of compiled
files depend on the Python's marshal format: they are checked on the Python named in the
note above the block (`<!-- sizes: Python 3.11 -->`), to within a tenth (a change to the
translator moves them a little), elsewhere only their shape.
A block whose listing is one Python's bytecode says so the same way
(`<!-- output: Python 3.11 -->`) and runs only there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.M | re.S)
NOTE = re.compile(r"<!-- (sizes|output): Python (\d+\.\d+) -->\s*$")
SIZE = re.compile(r"\((\d[\d,]*) bytes\)")


@dataclass(frozen=True)
class Example:
    document: str
    command: str
    expected: list[str]
    note: tuple[str, str] | None

    def __str__(self) -> str:
        return f"{self.document}: {self.command[:50]}"


def examples() -> list[Example]:
    found = []
    for document in DOCUMENTS:
        text = document.read_text()
        for block in FENCE.finditer(text):
            lines = block.group(1).splitlines()
            if not lines or not lines[0].startswith("$ "):
                continue
            before = text[: block.start()].rstrip().splitlines()
            note = NOTE.search(before[-1]) if before else None
            found.append(
                Example(
                    str(document.relative_to(ROOT)),
                    lines[0][2:],
                    lines[1:],
                    (note.group(1), note.group(2)) if note else None,
                )
            )
    return found


def matches(expected: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None


@pytest.mark.parametrize("example", examples(), ids=str)
def test_example_prints_what_the_docs_show(example: Example, tmp_path: Path) -> None:
    this_python = f"{sys.version_info.major}.{sys.version_info.minor}"
    if example.note and example.note[0] == "output" and example.note[1] != this_python:
        pytest.skip(f"the listing is Python {example.note[1]}'s bytecode")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    bin_dir = str(Path(sys.executable).parent)
    environment = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    result = subprocess.run(
        ["bash", "-c", example.command],
        cwd=tmp_path,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    actual = result.stdout.splitlines()
    expected = example.expected
    if example.note and example.note[0] == "sizes":
        sizes = [[int(size.replace(",", "")) for size in SIZE.findall(line)] for line in (*actual, *expected)]
        if example.note[1] == this_python:
            for got, want in zip(sizes[: len(actual)], sizes[len(actual) :], strict=False):
                assert all(abs(g - w) <= w / 10 for g, w in zip(got, want, strict=True)), (got, want)
        actual = [SIZE.sub("(N bytes)", line) for line in actual]
        expected = [SIZE.sub("(N bytes)", line) for line in expected]
    assert len(actual) == len(expected), result.stdout + result.stderr
    for want, got in zip(expected, actual, strict=True):
        assert matches(want, got), f"expected {want!r}, got {got!r}\n{result.stderr}"


def test_there_are_examples_in_the_readme_and_the_docs() -> None:
    documents = {example.document for example in examples()}
    assert "README.md" in documents
    assert {"docs/cli.md", "docs/compiling.md", "docs/debugger.md"} <= documents


def test_readme_is_a_front_door() -> None:
    """At most about 200 lines, opening with the two commands that work on a fresh machine
    (the second is the test command .ci/run runs, exactly)."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    commands = FENCE.search(readme)
    assert commands is not None and commands.start() < 20
    assert commands.group(1).splitlines() == [
        "pip install . && lc3jit run examples/2048.obj",
        'pip install -e ".[test]" && python -m pytest',
    ]
    assert 'pip install -e ".[test]" && python -m pytest' in (ROOT / ".ci" / "run").read_text()


def test_links_between_documents_lead_somewhere() -> None:
    """Every relative link of the README, the CHANGELOG and docs/ names a file that exists."""
    for document in [*DOCUMENTS, ROOT / "CHANGELOG.md"]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", document.read_text()):
            path = (document.parent / target).resolve()
            assert path.exists(), f"{document.name}: {target}"


def test_documents_name_only_files_of_the_repository() -> None:
    """A document a page names (a link, or a `name.md` in its text) is a file of the
    repository: no page sends its reader to documents they cannot see."""
    ours = {
        path.relative_to(ROOT)
        for path in ROOT.rglob("*.md")
        if not any(p.startswith(".") for p in path.parts)
    }
    for document in [*DOCUMENTS, ROOT / "CHANGELOG.md"]:
        text = document.read_text()
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (document.parent / target).resolve().is_relative_to(ROOT), f"{document.name}: {target}"
        for name in re.findall(r"[\w./-]*\w\.md\b", text):
            found = [p for p in ours if p.name == Path(name).name]
            assert found, f"{document.name} names {name}, which is not in the repository"


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the sizes in docs/compiling.md are 3.11's")
def test_compiled_games_are_the_sizes_the_docs_give(tmp_path: Path) -> None:
    """Within a tenth: the docs round, and a translator change may move the sizes a little."""
    compiling = (ROOT / "docs" / "compiling.md").read_text()
    claimed = re.search(r"2048 compiles .* into about (\d+) KB, rogue into about (\d+) KB", compiling)
    assert claimed is not None
    for game, kilobytes in zip(["2048", "rogue"], claimed.groups(), strict=True):
        output = tmp_path / f"{game}.pyc"
        subprocess.run(
            [sys.executable, "-m", "lc3jit", "compile", f"examples/{game}.obj", "-o", str(output)],
            cwd=ROOT,
            check=True,
            capture_output=True,
            timeout=300,
        )
        assert abs(output.stat().st_size / 1000 - int(kilobytes)) <= int(kilobytes) / 10


def _constants() -> list[tuple[str, str]]:
    """(document, text it must contain), each text made from the constant it states."""
    from lc3jit.api import RETURN_ADDRESS
    from lc3jit.grader.pytest_plugin import DEFAULT_MAX_STEPS
    from lc3jit.tiered import TRANSLATE_AFTER
    from lc3jit.translator.cache import MAX_BYTES, PRIVATE_DIRECTORY
    from lc3jit_runtime.console import FLUSH_INTERVAL, FLUSH_SIZE, READ_AHEAD, WAIT_SLICE
    from lc3jit_runtime.dispatch import INTERRUPT_SLICE, RUN_SLICE, TRANSLATION_ALLOWANCE, TRANSLATION_SHARE
    from lc3jit_runtime.machine import MAX_NOOP_RUN, OS_KEY_WAIT, WAITING_POLLS

    def ms(seconds: float) -> str:
        return f"{round(seconds * 1000)} ms"

    return [
        ("docs/cli.md", f"(default {TRANSLATE_AFTER}; `0` translates"),
        ("docs/cli.md", f"after {TRANSLATE_AFTER:,}\ninstructions"),
        ("docs/cli.md", f"at least every 2^{RUN_SLICE.bit_length() - 1}\ninstructions)"),
        ("docs/cli.md", f"gives up within {ms(WAIT_SLICE)}"),
        ("docs/machine.md", f"within {ms(FLUSH_INTERVAL)})"),
        ("docs/machine.md", f"At most {FLUSH_SIZE // 1024} KiB is ever held"),
        ("docs/machine.md", f"for up to {ms(OS_KEY_WAIT)}"),
        ("docs/machine.md", f"at the {WAITING_POLLS:,}th KBSR"),
        ("docs/machine.md", f"are read {READ_AHEAD // 1024} KiB at a time"),
        ("docs/machine.md", f"at most {INTERRUPT_SLICE:,} instructions a call"),
        ("docs/engines.md", f"(after the first {ms(TRANSLATION_ALLOWANCE)})"),
        ("docs/engines.md", f"at most a {'fifth' if TRANSLATION_SHARE == 0.2 else TRANSLATION_SHARE} of"),
        ("docs/engines.md", f"(up to\n{MAX_NOOP_RUN:,} words"),
        ("docs/compiling.md", f"(mode {PRIVATE_DIRECTORY:04o};"),
        ("docs/compiling.md", f"passes {MAX_BYTES >> 20} MB"),
        ("docs/api.md", f"`RETURN_ADDRESS` (x{RETURN_ADDRESS:04X})"),
        ("docs/grading.md", f"| `--lc3-max-steps` (`lc3_max_steps`) | {DEFAULT_MAX_STEPS:,} |"),
    ]


def test_the_numbers_the_docs_state_are_the_codes_constants() -> None:
    for document, text in _constants():
        words = " ".join((ROOT / document).read_text().split())
        assert " ".join(text.split()) in words, f"{document}: {text!r}"
