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
