"""The architecture as a test: the import contracts of pyproject.toml hold (docs/development.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_each_layer_imports_only_those_below_it() -> None:
    """import-linter reads the contracts of pyproject.toml: the layers of lc3jit in order, and
    a runtime that imports nothing of lc3jit. An import upwards names itself here."""
    lint = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True))"
    checked = subprocess.run(
        [sys.executable, "-c", lint], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "0 broken" in checked.stdout


PACKAGE = ROOT / "lc3jit"


def test_no_folder_holds_more_than_twelve_modules() -> None:
    """A folder of more is a flat heap: its parts want packages of their own."""
    crowded = {
        str(folder.relative_to(ROOT)): count
        for folder in [PACKAGE, *PACKAGE.rglob("*")]
        if folder.is_dir() and (count := len(list(folder.glob("*.py")))) > 12
    }
    assert crowded == {}


def test_no_class_has_more_than_two_of_ours_above_it() -> None:
    """Large parts by composition: a class with three of lc3jit's classes above it (a chain,
    or mixins) wants collaborators instead. Protocols do not count."""
    script = """
import importlib, inspect, pkgutil, lc3jit
for info in pkgutil.walk_packages(lc3jit.__path__, "lc3jit."):
    if info.name.endswith("__main__"):
        continue
    module = importlib.import_module(info.name)
    for name, cls in vars(module).items():
        if inspect.isclass(cls) and cls.__module__ == module.__name__:
            ours = [
                base.__qualname__ for base in cls.__mro__[1:]
                if base.__module__.startswith(("lc3jit.", "lc3jit_runtime."))
                and not getattr(base, "_is_protocol", False)
            ]
            if len(ours) > 2:
                print(f"{module.__name__}.{name}: {' > '.join(ours)}")
"""
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert found.returncode == 0, found.stderr
    assert found.stdout == ""


def test_one_places_names_every_address() -> None:
    """One class names places (labels and source lines) for every front."""
    defined = [
        path.relative_to(ROOT)
        for path in PACKAGE.rglob("*.py")
        if "\nclass Places" in path.read_text(encoding="utf-8")
    ]
    assert [str(path) for path in defined] == ["lc3jit/toolchain/places.py"]
