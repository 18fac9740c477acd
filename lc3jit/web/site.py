"""`lc3jit web build`: the web page as a static site (any static host serves it).

The site is the page's bundle (static/, built from page/ by esbuild and shipped in the
wheel), the examples it offers, lc3jit's own sources as one zip that the page's worker
unpacks into Pyodide (the translator and the runtime use only the standard library;
`bytecode` and `typer` are not needed there), and where Pyodide comes from: its CDN by
default, or a copy of a local Pyodide folder (the npm package `pyodide`) for use offline.

With a local Pyodide and node, the site also holds a memory snapshot (snapshot.mjs):
Pyodide's memory once CPython has started and lc3jit is imported, which the page starts
from instead of doing that again; the page starts without it when it is absent or does
not load.
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import lc3jit
import lc3jit_runtime

STATIC = Path(__file__).with_name("static")
#: The script that makes the memory snapshot (under node), and the snapshot's name in the site.
SNAPSHOT_SCRIPT = Path(__file__).with_name("snapshot.mjs")
SNAPSHOT = "lc3jit.snapshot"
SNAPSHOT_SECONDS = 600  # a bound on node starting Pyodide and importing lc3jit (seconds, usually)
#: The Pyodide the page loads unless told otherwise: CPython 3.14 in WebAssembly.
PYODIDE_VERSION = "314.0.8"
PYODIDE_CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
#: What the page needs of a Pyodide folder (the rest of the npm package is for Node).
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
PYODIDE_MAJOR = PYODIDE_VERSION.split(".")[0]
#: The folders of lc3jit that never run in the page (the bundle's sources, the bundle).
LEFT_OUT = ("web/page", "web/static")


class SiteError(Exception):
    """The site cannot be built as asked: one line for the user."""


def build_site(directory: Path, pyodide: str | None = None, snapshot: bool = True) -> str:
    """Write the site into directory (made if need be; files of the same name replaced),
    and return the Pyodide URL the page loads.

    pyodide: a URL (ending in /) or a local Pyodide folder, which is copied into the site
    as pyodide/; None for Pyodide's CDN. snapshot: with a local Pyodide, make the memory
    snapshot if node is on PATH (False: the page starts CPython each time)."""
    url = PYODIDE_CDN
    source = None
    if pyodide is not None and "://" in pyodide:
        url = pyodide if pyodide.endswith("/") else pyodide + "/"
    elif pyodide is not None:
        source = Path(pyodide)
        _check_pyodide(source)
        url = "pyodide/"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        shutil.copytree(STATIC, directory, dirs_exist_ok=True)
        _write_sources(directory / "lc3jit.zip")
        (directory / SNAPSHOT).unlink(missing_ok=True)
        if source is not None:
            (directory / "pyodide").mkdir(exist_ok=True)
            for name in PYODIDE_FILES:
                shutil.copyfile(source / name, directory / "pyodide" / name)
            if snapshot:
                _make_snapshot(directory)
        page = (STATIC / "index.html").read_text(encoding="utf-8")
        page = page.replace("PYODIDE_URL", html.escape(url))
        page = page.replace("SNAPSHOT_URL", SNAPSHOT if (directory / SNAPSHOT).is_file() else "")
        (directory / "index.html").write_text(page, encoding="utf-8")
    except OSError as error:
        raise SiteError(f"{error.filename or directory}: {error.strerror or error}") from None
    return url


def _make_snapshot(site: Path) -> None:
    """The memory snapshot of the site's own Pyodide, if node makes one; else none (the
    page starts CPython itself, as from a CDN's Pyodide)."""
    node = shutil.which("node")
    if node is None:
        return
    made = site / f"{SNAPSHOT}.part"
    command = [node, str(SNAPSHOT_SCRIPT), str(site / "pyodide"), str(site / "lc3jit.zip"), str(made)]
    try:
        done = subprocess.run(command, capture_output=True, timeout=SNAPSHOT_SECONDS, check=False)
    except (OSError, subprocess.TimeoutExpired):
        done = None
    if done is not None and done.returncode == 0 and made.is_file():
        made.replace(site / SNAPSHOT)
    else:
        made.unlink(missing_ok=True)


def _check_pyodide(folder: Path) -> None:
    """A Pyodide folder the page can load: its files there, and a 314.x (CPython 3.14)."""
    missing = [name for name in PYODIDE_FILES if not (folder / name).is_file()]
    if missing:
        lacking = ", ".join(missing)
        raise SiteError(f"{folder}: not a Pyodide folder (no {lacking}); `npm install pyodide` makes one")
    described = folder / "package.json"
    try:
        version = str(json.loads(described.read_text(encoding="utf-8")).get("version", ""))
    except (OSError, ValueError, AttributeError):
        return  # a folder copied without its package.json: the page checks the version it loads
    if version.split(".")[0] != PYODIDE_MAJOR:
        raise SiteError(f"{folder}: Pyodide {version}; the page needs a {PYODIDE_MAJOR}.x (CPython 3.14)")


def _write_sources(path: Path) -> None:
    """lc3jit and lc3jit_runtime as the page's worker imports them: sources and the OS images."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for package, name in ((lc3jit, "lc3jit"), (lc3jit_runtime, "lc3jit_runtime")):
            root = Path(package.__file__).parent
            for file in sorted(root.rglob("*")):
                relative = file.relative_to(root).as_posix()
                if not file.is_file() or "__pycache__" in relative or relative.startswith(LEFT_OUT):
                    continue
                if file.suffix in (".py", ".obj", ".sym", ".asm") or file.name == "py.typed":
                    archive.write(file, f"{name}/{relative}")
