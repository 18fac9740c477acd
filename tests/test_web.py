"""`lc3jit web`: the worker's machine (in CPython, as Pyodide runs it), the site, its server,
the committed bundle, and the page itself in headless Chromium with the npm Pyodide.

The browser tests share one built site, one server and one Chromium (session and module
fixtures): loading Pyodide costs seconds. They need Chromium and the page's npm packages
(`npm ci --prefix lc3jit/web/page`); without them they skip and say why, except under
CI=true, where they fail.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from lc3jit.api import Simulator
from lc3jit.web.machine import MAX_SOURCE, MAX_TYPED, PageMachine, diagnostics, load
from lc3jit.web.serve import make_server
from lc3jit.web.site import PYODIDE_CDN, PYODIDE_FILES, SNAPSHOT, STATIC, SiteError, build_site
from tests.browser import Browser, find_chromium, png_colours
from tests.web_page import NPM_PYODIDE, link, open_page, run_speed, served_site, settle

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PAGE = ROOT / "lc3jit" / "web" / "page"
LOOP = ".ORIG x3000\nLOOP BRnzp LOOP\n.END\n"
BAD = ".ORIG x3000\nADD R1, R9\n.END\n"
COLOURS = (  # a program that writes in colours: terminal escapes (the assembler reads \e as ESC)
    ".ORIG x3000\nLEA R0, TEXT\nPUTS\nHALT\n"
    'TEXT .STRINGZ "\\e[31mred\\e[0m and \\e[1;32mgreen\\e[0m\\n"\n.END\n'
)
FRAME = "document.getElementById('translation-frame').contentDocument"


def unavailable(why: str) -> None:
    """Skip, or under CI (where these tests must run) fail."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why}, and CI=true says the web tests must run")
    pytest.skip(why)


# The worker's machine, in CPython.
def until_settled(machine: PageMachine, count: int = 100_000) -> dict[str, object]:
    """Slices until the run is not running any more, as the worker goes."""
    output = ""
    for _ in range(1000):
        report = machine.run(count)
        output += str(report["output"])
        if report["state"] != "running":
            return {**report, "output": output}
    raise AssertionError("still running")


def test_keys_typed_while_the_program_waits_reach_it() -> None:
    machine, error = load([str(EXAMPLES / "echo.asm")])
    assert machine is not None and error == ""
    report = until_settled(machine)
    assert (report["state"], report["output"]) == ("waiting", "Type a line: ")
    machine.type_keys("hi")
    report = until_settled(machine)
    assert (report["state"], report["output"]) == ("waiting", "hi")
    machine.type_keys("\n")
    report = until_settled(machine)
    assert report["state"] == "ended" and report["output"] == "\nHALT\n"
    expected = Simulator(EXAMPLES / "echo.asm", keys="hi\n")
    expected.run()
    assert report["instructions"] == expected.instructions
    assert "halted" in str(report["said"])


def test_steps_back_and_forward_as_the_debugger() -> None:
    machine, _ = load([str(EXAMPLES / "fib.asm")])
    assert machine is not None
    for _ in range(3):
        report = machine.step()
    assert report["instructions"] == 3 and report["state"] == "stopped"
    assert report["file"] == "fib.asm" and report["line"] > 0
    back = machine.back()
    assert back["instructions"] == 2
    assert any(line.startswith("=>") for line in back["source"])  # type: ignore[attr-defined]
    assert "PC=" in back["registers"][-1]  # type: ignore[index]
    assert machine.step()["registers"] == report["registers"]


def test_breakpoints_by_line_stop_where_break_stops() -> None:
    machine, _ = load([str(EXAMPLES / "fib.asm")])
    assert machine is not None
    # line 8 is JSR PRINT_DEC; 19 is blank, before PRINT_DEC's first instruction on line 22;
    # no instruction comes after line 999
    assert machine.set_breakpoints([8, 19, 999])["breakpoints"] == [8, 22]
    stops = []
    while (report := until_settled(machine))["state"] == "stopped" and len(stops) < 4:
        assert "Breakpoint at" in str(report["said"])
        stops.append((report["line"], report["output"]))
    assert stops == [(8, ""), (22, ""), (8, "0\n"), (22, "")]
    assert machine.set_breakpoints([])["breakpoints"] == []
    report = until_settled(machine)
    expected = Simulator(EXAMPLES / "fib.asm")
    expected.run()
    assert report["state"] == "ended" and report["instructions"] == expected.instructions


def test_the_step_limit_applies() -> None:
    limited, _ = load([str(EXAMPLES / "sieve.asm")], max_steps=1000)
    assert limited is not None
    report = until_settled(limited, 300)
    assert report["state"] == "stopped" and report["instructions"] == 1000
    assert "--max-steps 1000" in str(report["said"])


def test_stop_leaves_the_program_where_it_is(tmp_path: Path) -> None:
    program = tmp_path / "loop.asm"
    program.write_text(LOOP)
    machine, _ = load([str(program)])
    assert machine is not None
    assert machine.run(5000)["state"] == "running"
    report = machine.stop()
    assert report["state"] == "stopped" and report["instructions"] == 5000
    assert "LOOP" in str(report["said"])


def test_output_limit_ends_the_run(tmp_path: Path) -> None:
    program = tmp_path / "noisy.asm"
    program.write_text(".ORIG x3000\nLD R0, CH\nLOOP OUT\nBRnzp LOOP\nCH .FILL x41\n.END\n")
    machine, _ = load([str(program)], max_output=100)
    assert machine is not None
    report = until_settled(machine)
    assert report["state"] == "ended" and report["output"] == "A" * 100
    assert "output limit" in str(report["said"])


@pytest.mark.parametrize(
    ("name", "content"), [("bad.obj", b"\x30"), ("bad.asm", BAD.encode()), ("none.obj", None)]
)
def test_bad_programs_get_the_clis_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, content: bytes | None
) -> None:
    if content is not None:
        (tmp_path / name).write_bytes(content)
    monkeypatch.chdir(tmp_path)
    machine, error = load([name])
    cli = subprocess.run(
        [sys.executable, "-m", "lc3jit", "run", name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert machine is None
    assert cli.returncode == 1 and cli.stderr == f"lc3jit: {error}\n"


def test_diagnostics_are_the_assemblers() -> None:
    found = diagnostics(".ORIG x3000\nADD R1, R9\nBRnzp NOWHERE\n.END\n", "p.asm")
    assert [(d["line"], d["severity"]) for d in found] == [(2, "error"), (3, "error")]
    assert str(found[0]["text"]).startswith("p.asm:2:")


def test_typed_keys_and_sources_are_bounded() -> None:
    machine, _ = load([str(EXAMPLES / "echo.asm")])
    assert machine is not None
    machine.type_keys("x" * (MAX_TYPED + 10))
    assert len(machine.console.typed) == MAX_TYPED
    [found] = diagnostics(";" * (MAX_SOURCE + 1), "big.asm")
    assert found["severity"] == "warning" and "at most" in str(found["message"])


# The site and its server.
def test_site_holds_the_page_the_sources_and_the_cdn(tmp_path: Path) -> None:
    assert build_site(tmp_path) == PYODIDE_CDN
    page = (tmp_path / "index.html").read_text()
    assert f'content="{PYODIDE_CDN}"' in page
    assert 'name="snapshot" content=""' in page  # no snapshot without a local Pyodide
    assert not (tmp_path / SNAPSHOT).exists()
    with zipfile.ZipFile(tmp_path / "lc3jit.zip") as archive:
        names = set(archive.namelist())
    assert {"lc3jit/web/machine.py", "lc3jit/api.py", "lc3jit_runtime/lc3os.obj"} <= names
    assert not any(
        n.startswith(("lc3jit/web/static", "lc3jit/web/page")) or "__pycache__" in n for n in names
    )
    assert (tmp_path / "examples" / "2048.obj").read_bytes() == (EXAMPLES / "2048.obj").read_bytes()
    assert build_site(tmp_path / "other", "https://example.org/py") == "https://example.org/py/"


def test_a_folder_that_is_not_pyodide_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SiteError, match="not a Pyodide folder"):
        build_site(tmp_path / "site", str(tmp_path))
    for name in PYODIDE_FILES:
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "package.json").write_text('{"version": "0.27.7"}')
    with pytest.raises(SiteError, match=r"0\.27\.7; the page needs a 314\.x"):
        build_site(tmp_path / "site", str(tmp_path))


def test_a_snapshot_is_there_only_when_node_made_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "pyodide"
    empty.mkdir()
    for name in PYODIDE_FILES:
        (empty / name).write_bytes(b"")
    build_site(tmp_path / "failed", str(empty))  # node, if there is one, fails on it
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # no node
    build_site(tmp_path / "no-node", str(empty))
    for site in (tmp_path / "failed", tmp_path / "no-node"):
        assert 'name="snapshot" content=""' in (site / "index.html").read_text()
        assert sorted(p.name for p in site.glob(f"{SNAPSHOT}*")) == []


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("page")
    (site / "a.wasm").write_bytes(b"\0asm")
    (site / SNAPSHOT).write_bytes(gzip.compress(b"memory"))
    (tmp_path / "secret.txt").write_text("secret")
    (site / "link.txt").symlink_to(tmp_path / "secret.txt")
    server = make_server(site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def fetch(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, "", b""


def served_encoding(url: str, accepted: str) -> tuple[str | None, bytes]:
    """The Content-Encoding a file is sent with, and its content (inflated if gzip)."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": accepted})
    with urllib.request.urlopen(request, timeout=10) as response:
        encoding, body = response.headers["Content-Encoding"], response.read()
    return encoding, gzip.decompress(body) if encoding == "gzip" else body


def test_server_serves_the_site_and_nothing_else(served: str) -> None:
    assert fetch(f"{served}/") == (200, "text/html", b"page")
    assert fetch(f"{served}/a.wasm")[1] == "application/wasm"
    assert served_encoding(f"{served}/{SNAPSHOT}", "gzip, deflate") == ("gzip", b"memory")
    assert served_encoding(f"{served}/{SNAPSHOT}", "identity")[0] is None  # the gzip as it is
    for path in (
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/link.txt",
        "/..%5csecret.txt",
        "/nothing",
        "/?x=1/..",
    ):
        status = fetch(served + path)[0]
        assert status == (200 if path == "/?x=1/.." else 404), path


def test_a_browser_gone_mid_answer_prints_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What the server's thread does with an error while answering (socketserver calls
    handle_error inside the except): a reset connection is the browser's going, not ours."""
    with make_server(tmp_path) as server:
        for error in (ConnectionResetError(104, "reset by peer"), BrokenPipeError(), ValueError("bug")):
            try:
                raise error
            except Exception:
                server.handle_error(None, ("127.0.0.1", 1))
    printed = capsys.readouterr().err
    assert "ValueError: bug" in printed
    assert "ConnectionResetError" not in printed and "BrokenPipeError" not in printed


def test_cli_serves_on_loopback(tmp_path: Path) -> None:
    build_site(tmp_path)
    server = subprocess.Popen(
        [sys.executable, "-m", "lc3jit", "web", "serve", "--port", "0", "--dir", str(tmp_path)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        line = server.stderr.readline()
        assert line.startswith("Serving http://127.0.0.1:"), line
        status, kind, body = fetch(line.split()[1] + "index.html")
        assert (status, kind) == (200, "text/html") and b"lc3jit" in body
    finally:
        server.terminate()
        server.wait(10)


def test_cli_builds_and_refuses_a_bad_site(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from lc3jit.cli import app

    result = CliRunner().invoke(app, ["web", "build", str(tmp_path / "site")])
    assert result.exit_code == 0 and (tmp_path / "site" / "index.html").is_file()
    result = CliRunner().invoke(app, ["web", "serve", "--dir", str(tmp_path)])
    assert result.exit_code == 1 and "no index.html" in result.output


# The committed bundle.
def test_committed_bundle_is_what_the_lockfile_builds(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None or not (PAGE / "node_modules" / "esbuild").is_dir():
        unavailable("the bundle test needs node and `npm ci --prefix lc3jit/web/page`")
    subprocess.run([node, str(PAGE / "build.mjs"), str(tmp_path)], check=True, timeout=120)
    built = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    shipped = sorted(p.relative_to(STATIC) for p in STATIC.rglob("*") if p.is_file())
    assert sorted({*built, Path("index.html")}) == shipped  # the page itself is written by hand
    stale = [str(p) for p in built if (tmp_path / p).read_bytes() != (STATIC / p).read_bytes()]
    assert not stale, f"lc3jit/web/static is not what page/ builds (npm run build): {stale}"


# The page in Chromium.
@pytest.fixture(scope="session")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if os.environ.get("LC3JIT_WEB_PAGE_ONCE"):
        pytest.skip("the page runs Pyodide's Python whatever Python serves it: .ci/run opens it on 3.11 only")
    if not (NPM_PYODIDE / "pyodide.asm.wasm").is_file():
        unavailable("the page tests need the npm Pyodide: `npm ci --prefix lc3jit/web/page`")
    folder = tmp_path_factory.mktemp("web")
    (folder / "colours.asm").write_text(COLOURS)
    beside = {
        "mine/fib.asm": EXAMPLES / "fib.asm",
        "mine/sieve.asm": EXAMPLES / "bench" / "sieve.asm",
        "mine/colours.asm": folder / "colours.asm",
    }
    with served_site(folder / "site", beside) as url:  # .asm files beside the page
        site = folder / "site"
        page = (site / "index.html").read_text()
        # the same page with a snapshot that does not load (not one: a program), and with the
        # snapshot under another name, which the server sends as it is (no Content-Encoding)
        (site / "bad-snapshot.html").write_text(page.replace(f'"{SNAPSHOT}"', '"examples/hello.obj"'))
        shutil.copyfile(site / SNAPSHOT, site / "gzipped.snapshot")
        (site / "gzipped-snapshot.html").write_text(page.replace(f'"{SNAPSHOT}"', '"gzipped.snapshot"'))
        yield url


@pytest.fixture(scope="module")
def page(site_url: str) -> Iterator[Browser]:
    executable = find_chromium()
    if executable is None:
        unavailable("the page tests need Chromium (apt-get install chromium, or set LC3JIT_CHROMIUM)")
    browser = Browser(executable)
    yield browser
    browser.close()


def text(page: Browser, element: str) -> str:
    return page.evaluate(f"document.getElementById('{element}').textContent")


def test_links_run_an_obj_and_an_asm_beside_the_page(page: Browser, site_url: str) -> None:
    open_page(page, link(site_url, program="examples/hello.obj", run="1"))
    assert page.evaluate("document.body.dataset.snapshot") == "true"  # node made the site's
    assert settle(page) == "ended"
    assert text(page, "output") == "Hello, World!\nHALT\n"
    assert "x3000" in text(page, "registers") or "PC=" in text(page, "registers")
    open_page(page, link(site_url, program="mine/fib.asm", run="1"))
    assert settle(page) == "ended"
    expected = Simulator(EXAMPLES / "fib.asm")
    expected.run()
    assert text(page, "output") == expected.output
    assert page.evaluate("document.querySelector('#speed').dataset.engine") == "regions"
    assert page.errors() == []


def test_output_as_text_leaves_the_terminals_escapes_out(page: Browser, site_url: str) -> None:
    open_page(page, link(site_url, program="mine/colours.asm", run="1"))
    assert settle(page) == "ended"
    expected = Simulator(source=COLOURS)
    expected.run()
    assert "\x1b[31mred" in expected.output
    assert text(page, "output") == re.sub(r"\x1b\[[0-9;]*m", "", expected.output)
    assert text(page, "output").startswith("red and green\n")


def test_the_snapshot_gzipped_or_not_loading(page: Browser, site_url: str) -> None:
    """Sent gzipped (by another server than lc3jit's), the page inflates it; a snapshot
    that does not load, the page starts without."""
    for name, started_from_it in (("gzipped-snapshot.html", "true"), ("bad-snapshot.html", "false")):
        open_page(page, link(site_url.replace("index.html", name), program="examples/hello.obj", run="1"))
        assert page.evaluate("document.body.dataset.snapshot") == started_from_it
        assert settle(page) == "ended"
        assert text(page, "output") == "Hello, World!\nHALT\n"
        assert page.errors() == []


def test_keys_play_2048(page: Browser, site_url: str) -> None:
    open_page(page, link(site_url, program="examples/2048.obj", keys="y", run="1"))
    page.wait("document.getElementById('output').textContent.includes('+----')")
    page.click("#terminal")
    boards = []
    for key in "wasd":
        before = len(text(page, "output"))
        page.type(key)
        page.wait(f"document.getElementById('output').textContent.length > {before}")
        page.wait("document.body.dataset.state === 'running' || document.body.dataset.state === 'waiting'")
        boards.append(text(page, "output")[before:])
    assert all("+----" in board for board in boards)
    assert len(set(boards)) > 1  # the moves changed the board
    assert page.errors() == []


def test_step_back_and_the_translation(page: Browser, site_url: str) -> None:
    open_page(page, link(site_url, program="examples/fib.asm"))
    page.wait("!document.getElementById('step').disabled")
    for _ in range(3):
        before = page.evaluate("Number(document.querySelector('#speed').dataset.instructions || 0)")
        page.click("#step")
        page.wait(f"Number(document.querySelector('#speed').dataset.instructions) === {before + 1}")
    page.click("#back")
    page.wait("Number(document.querySelector('#speed').dataset.instructions) === 2")
    assert "=>" in text(page, "source") and "fib.asm" in text(page, "source")
    page.click("#translate")
    page.wait(f"{FRAME}?.querySelectorAll('#graph .node').length > 0")
    blocks = page.evaluate(f"{FRAME}.querySelectorAll('#graph .node').length")
    assert blocks >= 3
    assert page.errors() == []
    assert len(png_colours(page.screenshot())) > 20  # not blank


def click_gutter(page: Browser, line: int, marks: str) -> None:
    """A click in the breakpoints' gutter of the editor's line (1-based), once the editor
    stands still; then wait until the marks are on the lines marks names ("8 22")."""
    where = None
    for _ in range(50):  # the editor scrolls to a stop in an animation frame
        now = page.evaluate(
            "(() => { const g = document.querySelector('.cm-breakpoint-gutter').getBoundingClientRect();"
            f" const r = document.querySelectorAll('.cm-content .cm-line')[{line - 1}]"
            ".getBoundingClientRect(); return [g.x + g.width / 2, r.y + r.height / 2]; })()"
        )
        if now == where:
            break
        where = now
        time.sleep(0.05)
    page.click_at(*where)
    page.wait(f"document.getElementById('editor').dataset.breakpoints === {json.dumps(marks)}")


def test_breakpoints_set_in_the_gutter_stop_the_run(page: Browser, site_url: str) -> None:
    open_page(page, link(site_url, program="examples/fib.asm"))
    page.wait("!document.getElementById('run').disabled")
    click_gutter(page, 8, "8")  # JSR PRINT_DEC, in the loop
    for output in ("", "0\n"):
        page.click("#run")
        assert settle(page, ("stopped", "ended")) == "stopped"
        assert "Breakpoint at" in text(page, "debugger") and "fib.asm:8" in text(page, "debugger")
        assert text(page, "output") == output
    click_gutter(page, 8, "")  # cleared, while the machine is loaded
    click_gutter(page, 19, "22")  # a blank line: the machine moves it to PRINT_DEC's first
    page.click("#run")
    assert settle(page, ("stopped", "ended")) == "stopped"
    assert "fib.asm:22" in text(page, "debugger")
    click_gutter(page, 22, "")
    page.click("#run")
    assert settle(page) == "ended"
    expected = Simulator(EXAMPLES / "fib.asm")
    expected.run()
    assert text(page, "output") == expected.output
    assert page.errors() == []


def test_stop_ends_a_runaway_and_bad_input_is_one_line(page: Browser, site_url: str) -> None:
    open_page(page, f"{site_url}?run=1#name=loop.asm&source={quote(LOOP)}")
    page.wait("Number(document.querySelector('#speed').dataset.instructions) > 100000")
    page.click("#stop")
    assert settle(page, ("stopped",)) == "stopped"
    stopped = text(page, "debugger")
    assert "LOOP" in stopped
    open_page(page, f"{site_url}?run=1#name=bad.asm&source={quote(BAD)}")
    assert settle(page) == "error"
    said = text(page, "debugger")
    assert "bad.asm:2:1: error: ADD takes 3 operands" in said and "Traceback" not in said
    open_page(page, link(site_url, program="examples/none.obj", run="1"))
    assert settle(page) == "error"
    assert text(page, "debugger").strip() == "examples/none.obj: 404 Not Found"
    assert page.errors() == [
        "Failed to load resource: the server responded with a status of 404 (Not Found)"
    ]  # the missing program, and nothing else
    open_page(page, link(site_url, program="examples/hello.obj", sym="examples/none.sym", run="1"))
    assert settle(page) == "ended"  # a program whose symbols are missing still runs
    assert text(page, "output") == "Hello, World!\nHALT\n"
    assert "examples/none.sym: 404 Not Found (running without its labels)" in text(page, "debugger")


def test_the_page_is_ready_soon_and_regions_outrun_the_interpreter(page: Browser, site_url: str) -> None:
    """The figures of docs/web.md (examples/bench/web_page.py measures them with rounds);
    the bounds here are looser, for a busy machine: one run each, in a browser whose own
    processes share the cores, reads sieve's ratio anywhere from 2.7x to 6x (4.4-5.7x in
    Pyodide under node, where nothing else runs)."""
    regions, interp = (
        run_speed(page, site_url, "mine/sieve.asm", engine) for engine in ("regions", "interp")
    )
    assert regions > 2 * interp, f"regions {regions:.2f} MIPS, the interpreter {interp:.2f}"
    assert open_page(page, site_url) < 30
