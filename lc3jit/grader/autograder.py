"""Gradescope's autograder, packaged: `lc3jit grade --gradescope-autograder OUT.zip TESTS`.

The zip holds what Gradescope's "Autograder Specifications" ask for at its root:
- `setup.sh`, run once as root when Gradescope builds the image: makes a virtual
  environment in /autograder/lc3jit-venv, installs this very lc3jit into it (from the
  source carried in the zip, so no package index needs to have this version) with pytest
  and the tests' requirements.txt if they have one;
- `run_autograder`, run for each submission (Gradescope copies it to /autograder): grades
  the one LC-3 program in /autograder/submission with the tests and writes
  /autograder/results/results.json (this module's `main`);
- `tests/`: the tests and the files beside them; `lc3jit-autograder.json`: which tests and
  which pytest options.

`LC3JIT_AUTOGRADER_ROOT` stands in for /autograder (a test runs the package in a folder of
its own). Whatever a submission holds (no program, several, a link out of the folder, a
program that crashes pytest), results.json is written, with one line saying what went wrong.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import zipfile
from pathlib import Path

import lc3jit

#: The variable that stands in for /autograder.
ROOT_VARIABLE = "LC3JIT_AUTOGRADER_ROOT"
#: The package's settings, beside the tests in /autograder/source.
CONFIG = "lc3jit-autograder.json"
#: The files a submission's program may be.
PROGRAMS = (".asm", ".obj", ".hex", ".bin")
#: Files of a tests folder left out of the zip.
SKIPPED = ("__pycache__", ".pytest_cache", ".git")
#: The files beside a single test file that belong with it.
BESIDE = ("conftest.py", "pytest.ini", "requirements.txt")

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image: lc3jit {version}
# (from the source in this zip), pytest, and the tests' requirements in a virtual environment.
# Choose a base image with Python 3.11 or later (Ubuntu 24.04 has 3.12).
set -euo pipefail
cd "$(dirname "$0")"
ROOT="${{{variable}:-/autograder}}"
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    apt-get install -y python3.11 python3.11-venv
    PYTHON=python3.11
else
    PYTHON=python3
fi
if ! "$PYTHON" -m venv "$ROOT/lc3jit-venv"; then
    apt-get install -y python3-venv
    "$PYTHON" -m venv "$ROOT/lc3jit-venv"
fi
"$ROOT/lc3jit-venv/bin/pip" install --upgrade pip
"$ROOT/lc3jit-venv/bin/pip" install {install} "pytest>=8"
if [ -f tests/requirements.txt ]; then
    "$ROOT/lc3jit-venv/bin/pip" install -r tests/requirements.txt
fi
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission: grades the LC-3 program in /autograder/submission
# with the tests in /autograder/source/tests; writes /autograder/results/results.json.
ROOT="${{{variable}:-/autograder}}"
PYTHON="$ROOT/lc3jit-venv/bin/python"
[ -x "$PYTHON" ] || PYTHON=python3
exec "$PYTHON" -m lc3jit.grader.autograder "$ROOT"
"""


def source_folder() -> Path | None:
    """The source tree this lc3jit runs from (an editable or source install), or None."""
    top = Path(lc3jit.__file__).resolve().parent.parent
    pyproject = top / "pyproject.toml"
    if pyproject.is_file() and 'name = "lc3jit"' in pyproject.read_text() and (top / "runtime").is_dir():
        return top
    return None


def _files(folder: Path) -> list[Path]:
    """The files of a folder worth packaging (no caches, no links), sorted."""
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and not path.is_symlink()
        and not set(path.relative_to(folder).parts) & set(SKIPPED)
        and path.suffix != ".pyc"
    )


def build(tests: Path, out: Path, options: list[str]) -> list[str]:
    """Write the autograder zip to out; the names it holds."""
    folder = tests if tests.is_dir() else tests.parent
    chosen = _files(folder) if tests.is_dir() else [folder / n for n in (tests.name, *BESIDE)]
    entries = {f"tests/{p.relative_to(folder).as_posix()}": p for p in chosen if p.is_file()}
    source = source_folder()
    if source is not None:
        for part in ("lc3jit", "runtime"):
            for path in _files(source / part):
                entries[f"lc3jit-source/{path.relative_to(source).as_posix()}"] = path
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            entries[f"lc3jit-source/{name}"] = source / name
        install = "./lc3jit-source"
    else:
        install = shlex.quote(f"lc3jit=={lc3jit.__version__}")
    target = "tests" if tests.is_dir() else f"tests/{tests.name}"
    config = {"lc3jit": lc3jit.__version__, "tests": target, "options": options}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        _script(
            archive,
            "setup.sh",
            SETUP.format(version=lc3jit.__version__, variable=ROOT_VARIABLE, install=install),
        )
        _script(archive, "run_autograder", RUN.format(variable=ROOT_VARIABLE))
        archive.writestr(CONFIG, json.dumps(config, indent=1) + "\n")
        for name, path in entries.items():
            archive.write(path, name)
    return ["setup.sh", "run_autograder", CONFIG, *entries]


def _script(archive: zipfile.ZipFile, name: str, text: str) -> None:
    """A script in the zip, executable once extracted."""
    info = zipfile.ZipInfo(name)
    info.external_attr = 0o100755 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, text)


def find_program(submission: Path) -> tuple[Path | None, str]:
    """The one LC-3 program of a submission folder, or None and why not."""
    if not submission.is_dir():
        return None, "no submission folder: nothing was submitted"
    real = submission.resolve()
    found = [
        p
        for p in sorted(submission.rglob("*"))
        if p.suffix.lower() in PROGRAMS and p.is_file() and p.resolve().is_relative_to(real)
    ]
    names = ", ".join(p.relative_to(submission).as_posix() for p in found)
    if not found:
        return None, f"no LC-3 program in the submission: submit one file ending in {', '.join(PROGRAMS)}"
    if len(found) > 1:
        return None, f"more than one LC-3 program in the submission ({names}): submit only the one to grade"
    return found[0], ""


def failed(output: str) -> dict[str, object]:
    """results.json for a submission no test could run: zero points, the reason."""
    return {
        "score": 0.0,
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [],
    }


def main(root: Path) -> int:
    """Grade root/submission with root/source's tests; write root/results/results.json."""
    results = root / "results" / "results.json"
    results.parent.mkdir(parents=True, exist_ok=True)
    config = json.loads((root / "source" / CONFIG).read_text())
    program, problem = find_program(root / "submission")
    if program is None:
        results.write_text(json.dumps(failed(problem), indent=1) + "\n")
        return 0
    import pytest

    results.unlink(missing_ok=True)
    tests = root / "source" / str(config["tests"])
    arguments = [str(tests), "-p", "no:cacheprovider", "-q", "--lc3-program", str(program)]
    arguments += ["--lc3-gradescope", str(results), "--lc3-relative-to", str(root / "submission")]
    os.chdir(tests if tests.is_dir() else tests.parent)
    code = pytest.main([*arguments, *map(str, config["options"])])
    if not results.is_file():
        message = (
            f"the autograder could not run its tests (pytest's exit code {int(code)}): tell your course staff"
        )
        results.write_text(json.dumps(failed(message), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get(ROOT_VARIABLE, "/autograder"))))
