"""Driving lc3jit's web page in Chromium (tests/browser.py): a built site served on
loopback, a page opened from a link, a run waited for and its figures read. Shared by
tests/test_web.py and examples/bench/web_page.py."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

from lc3jit.web.serve import make_server
from lc3jit.web.site import build_site
from tests.browser import Browser

ROOT = Path(__file__).resolve().parent.parent
#: The Pyodide of the page's npm packages (`npm ci --prefix lc3jit/web/page`).
NPM_PYODIDE = ROOT / "lc3jit" / "web" / "page" / "node_modules" / "pyodide"
READY = "document.body.dataset.ready === 'yes' || document.body.dataset.state === 'error'"


@contextlib.contextmanager
def served_site(site: Path, beside: dict[str, Path], snapshot: bool = True) -> Iterator[str]:
    """The site built with the npm Pyodide into site (with its memory snapshot unless told
    not), with more files beside the page (their names in the site: the files), served on
    127.0.0.1: the page's URL."""
    build_site(site, str(NPM_PYODIDE), snapshot)
    for name, source in beside.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, site / name)
    server = make_server(site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def temporary_site(beside: dict[str, Path], snapshot: bool = True) -> Iterator[str]:
    with (
        tempfile.TemporaryDirectory(prefix="lc3jit-site-") as folder,
        served_site(Path(folder), beside, snapshot) as url,
    ):
        yield url


def link(page_url: str, **query: str) -> str:
    return f"{page_url}?{urlencode(query)}"


def open_page(page: Browser, url: str) -> float:
    """Open the page and wait until Pyodide and lc3jit are loaded: the seconds it took."""
    began = time.monotonic()
    page.open(url, READY)
    return time.monotonic() - began


def settle(page: Browser, states: tuple[str, ...] = ("ended", "error")) -> str:
    """Wait until the page's machine is in one of states; which one."""
    page.wait(f"{list(states)}.includes(document.body.dataset.state)")
    return page.evaluate("document.body.dataset.state")


def run_speed(page: Browser, page_url: str, program: str, engine: str) -> float:
    """A program (a path in the site) run to its end on an engine: the MIPS the page shows."""
    open_page(page, link(page_url, program=program, engine=engine, run="1"))
    if settle(page) != "ended":
        raise RuntimeError(f"{program} on {engine}: {page.evaluate('document.body.dataset.state')}")
    return float(page.evaluate("Number(document.querySelector('#speed').dataset.mips)"))
