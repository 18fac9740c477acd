"""`lc3jit dump --html` and `lc3jit bench --plot/--html`: the pages as a browser shows them.

The browser tests open the pages from file URLs in headless Chromium (tests/browser.py)
and read the rendered DOM: every block and edge drawn, a click showing a block's bytecode,
hovering linking bytecode and LC-3 lines both ways, no console error, a screenshot that is
not blank. Without Chromium they skip, saying so.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from lc3jit.cli import app
from lc3jit.inspection import layout
from lc3jit.inspection.bench import EngineTimes, Observation, ProgramBench, write_table
from lc3jit.inspection.chart import chart_svg
from lc3jit.inspection.dump import inspect_program
from lc3jit.inspection.page import bench_page, render
from lc3jit.session import boot, load_images
from lc3jit_runtime.capture import CapturedConsole
from tests.browser import Browser, file_url, find_chromium, png_colours

EXAMPLES = Path(__file__).parent.parent / "examples"
STRINGS = EXAMPLES / "bench" / "strings.asm"  # regions, a JSRR through a table (targets guessed), .asm source
STEPS = "20000"


def lc3jit(*args: object) -> Result:
    return CliRunner().invoke(app, [str(arg) for arg in args], catch_exceptions=False)


def expected_graph(
    document: dict, predicted: dict[int, list[int]]
) -> tuple[set[str], set[tuple[str, str, str]]]:
    """From the JSON dump: the blocks, and every exit with a known target (TRAP's as "trap")."""
    blocks = {b["start_hex"] for b in document["blocks"]}
    edges = {
        (b["start_hex"], s["address_hex"], "trap" if b["exit"] == "trap" else s["kind"])
        for b in document["blocks"]
        for s in b["successors"]
        if s["address"] is not None
    }
    for b in document["blocks"]:
        edges |= {(b["start_hex"], f"x{t:04X}", "indirect") for t in predicted.get(b["end"], ())}
    return blocks, edges


@pytest.fixture(scope="module")
def dump_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict[int, list[int]]]:
    folder = tmp_path_factory.mktemp("page")
    page = folder / "strings.html"
    result = lc3jit("dump", STRINGS, "--run", "--max-steps", STEPS, "--html", page)
    assert result.exit_code == 0, result.stderr
    document = json.loads(lc3jit("dump", STRINGS, "--run", "--max-steps", STEPS, "--format", "json").stdout)
    images = load_images([STRINGS])
    dump = inspect_program(
        boot(images, CapturedConsole()), images, str(STRINGS), "regions", run=True, max_steps=20000
    )
    return page, document, {site: list(targets) for site, targets in dump.predicted.items()}


def bench_results() -> list[ProgramBench]:
    """Two programs, three engines and a floor, with times made up: a chart of known shape."""

    def reference(instructions: int) -> Observation:
        return Observation(b"", {"instructions": instructions}, ())

    return [
        ProgramBench(
            "sieve.asm",
            reference(2_000_000),
            [
                EngineTimes("interp", [0.40], [0.0001]),
                EngineTimes("blocks", [0.10], [0.03]),
                EngineTimes("regions", [0.05], [0.02]),
                EngineTimes("python", [0.03]),
            ],
        ),
        ProgramBench(
            "hello.asm",
            reference(300),
            [
                EngineTimes("interp", [0.004], [0.0001]),
                EngineTimes("blocks", [0.002], [0.010]),
                EngineTimes("regions", [0.001], [0.020]),
            ],
        ),
    ]


def test_page_is_self_contained_and_has_every_block(dump_page: tuple[Path, dict, dict]) -> None:
    page, document, predicted = dump_page
    text = page.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", text)  # nothing fetched: works offline
    assert "<link" not in text and "@import" not in text and "url(http" not in text
    blocks, edges = expected_graph(document, predicted)
    assert any(kind == "indirect" for _, _, kind in edges)  # the JSRR's guessed targets
    for block in blocks:
        assert f'data-block="{block}"' in text
    for tail, head, kind in edges:
        assert f'data-from="{tail}" data-to="{head}" data-kind="{kind}"' in text


def test_without_graphviz_the_built_in_layout_draws_the_same_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_dot(*_: object) -> layout.Layout:
        raise OSError("dot not found")

    monkeypatch.setattr(layout, "dot_layout", no_dot)
    images = load_images([STRINGS])
    dump = inspect_program(boot(images, CapturedConsole()), images, str(STRINGS), "regions")
    text = render(dump)
    assert "built-in (Graphviz not installed)" in text
    blocks, _ = expected_graph(json.loads(lc3jit("dump", STRINGS, "--format", "json").stdout), {})
    assert set(re.findall(r'data-block="(x[0-9A-F]{4})"', text)) == blocks


def test_built_in_layout_keeps_nodes_apart_and_inside_their_clusters() -> None:
    nodes = [layout.Node(f"n{i}", "a" if i < 5 else "b") for i in range(9)] + [layout.Node("loose")]
    edges = [layout.Edge(f"n{i}", f"n{i + 1}") for i in range(8)] + [
        layout.Edge("n4", "n0"),  # a back edge
        layout.Edge("n2", "n2"),  # a block looping on itself
        layout.Edge("n1", "n3"),
        layout.Edge("loose", "n6"),
    ]
    found = layout.layered_layout(nodes, edges, ["a", "b"])
    assert len(found.paths) == len(edges)
    boxes = {
        name: (x - layout.NODE_WIDTH / 2, y - layout.NODE_HEIGHT / 2)
        for name, (x, y) in found.centres.items()
    }
    names = sorted(boxes)
    for i, one in enumerate(names):
        for other in names[i + 1 :]:
            (x1, y1), (x2, y2) = boxes[one], boxes[other]
            assert abs(x1 - x2) >= layout.NODE_WIDTH or abs(y1 - y2) >= layout.NODE_HEIGHT, (one, other)
    for node in nodes:
        x, y = boxes[node.name]
        assert (
            x >= 0
            and x + layout.NODE_WIDTH <= found.width
            and y >= 0
            and y + layout.NODE_HEIGHT <= found.height
        )
        if node.cluster:
            cx, cy, cw, ch = found.clusters[node.cluster]
            assert (
                cx <= x and x + layout.NODE_WIDTH <= cx + cw and cy <= y and y + layout.NODE_HEIGHT <= cy + ch
            )
    assert found.centres["n1"][1] < found.centres["n2"][1] < found.centres["n3"][1]  # layers follow the flow


def test_graphviz_layout_reads_back_every_node_edge_and_cluster() -> None:
    if shutil.which("dot") is None or importlib.util.find_spec("graphviz") is None:
        pytest.skip("Graphviz layout: `dot` or the graphviz package not installed (pip install lc3jit[html])")
    nodes = [layout.Node("x3000", "r"), layout.Node("x3001", "r"), layout.Node("x4000")]
    edges = [layout.Edge("x3000", "x3001"), layout.Edge("x3001", "x3000"), layout.Edge("x3001", "x4000")]
    found = layout.lay_out(nodes, edges, ["r"])
    assert found.engine == "dot"
    assert set(found.centres) == {"x3000", "x3001", "x4000"} and len(found.paths) == 3
    assert all(path.startswith("M") and " C" in path for path in found.paths)
    x, y, w, h = found.clusters["r"]
    for name in ("x3000", "x3001"):
        cx, cy = found.centres[name]
        assert x < cx < x + w and y < cy < y + h
    assert not (x < found.centres["x4000"][0] < x + w and y < found.centres["x4000"][1] < y + h)
    assert found.centres["x3000"][1] < found.centres["x3001"][1]  # y grows downwards, as in SVG


def test_chart_has_a_bar_for_every_program_and_engine_and_the_floor_apart() -> None:
    svg = chart_svg(bench_results())
    bars = re.findall(
        r'<g class="bar" data-program="([^"]+)" data-engine="([^"]+)" data-speedup="([\d.]+)"', svg
    )
    assert [(p, e) for p, e, _ in bars] == [
        ("sieve.asm", "interp"),
        ("sieve.asm", "blocks"),
        ("sieve.asm", "regions"),
        ("hello.asm", "interp"),
        ("hello.asm", "blocks"),
        ("hello.asm", "regions"),
    ]
    assert [float(s) for _, _, s in bars] == [1.0, 4.0, 8.0, 1.0, 2.0, 4.0]
    assert svg.count('<g class="floor"') == 1 and "floor 13.3x" in svg
    assert svg.count("translation &gt; run") == 2  # hello.asm: 10 ms and 20 ms to translate, 2 and 1 to run


def test_table_totals_and_says_when_translation_costs_more_than_the_run() -> None:
    out = io_table(bench_results())
    header = next(line for line in out.splitlines() if "engine" in line)
    assert "total s" in header
    assert re.search(r"│ regions │ +2,000,000 │ +0\.050000 │.*│ +20\.000 │ +0\.0700 │", out)
    assert "* hello.asm blocks: translating (10.0 ms) costs more than the run (2.0 ms)" in out
    assert "* hello.asm regions: translating (20.0 ms) costs more than the run (1.0 ms)" in out
    assert "sieve.asm regions: translating" not in out


def io_table(benches: list[ProgramBench]) -> str:
    import io

    out = io.StringIO()
    write_table(benches, out, color=False)
    return out.getvalue()


def test_bench_plot_and_html_from_the_command(tmp_path: Path) -> None:
    svg, page = tmp_path / "chart.svg", tmp_path / "bench.html"
    result = lc3jit("bench", EXAMPLES / "halt.asm", "--repeat", "1", "--plot", svg, "--html", page)
    assert result.exit_code == 0, result.stderr
    assert svg.read_text().startswith("<svg")
    assert svg.read_text().count('<g class="bar"') == 3  # interp, blocks, regions
    assert '<svg id="chart"' in page.read_text()


def test_unwritable_page_is_one_line(tmp_path: Path) -> None:
    result = lc3jit("dump", EXAMPLES / "halt.asm", "--html", tmp_path / "no" / "such.html")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "such.html" in result.stderr


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = find_chromium()
    if executable is None:
        pytest.skip("browser tests: Chromium not found (apt-get install chromium, or set LC3JIT_CHROMIUM)")
    opened = Browser(executable)
    yield opened
    opened.close()


def assert_not_blank(png: bytes) -> None:
    colours = png_colours(png)
    assert len(colours) > 20, f"a screenshot of {len(colours)} colours"


def test_browser_draws_every_block_and_edge_and_clicks_through(
    browser: Browser, dump_page: tuple[Path, dict, dict]
) -> None:
    page, document, predicted = dump_page
    browser.open(file_url(page), "document.body.dataset.ready === 'yes'")
    blocks, edges = expected_graph(document, predicted)
    drawn = browser.evaluate("[...document.querySelectorAll('#graph .node')].map(n => n.dataset.block)")
    assert sorted(drawn) == sorted(blocks)
    drawn_edges = browser.evaluate(
        "[...document.querySelectorAll('#graph .edge')]"
        ".map(e => [e.dataset.from, e.dataset.to, e.dataset.kind])"
    )
    assert {tuple(e) for e in drawn_edges} == edges
    # A click on a block shows its bytecode beside its .asm lines.
    target = next(b for b in document["blocks"] if b["label"] and len(b["listing"]) > 1 and b["bytecode"])
    browser.click(f'.node[data-block="{target["start_hex"]}"]')
    heading = browser.evaluate("document.querySelector('#detail h2').textContent")
    assert heading.startswith(f"block {target['start_hex']}-{target['end_hex']}")
    assert browser.evaluate(
        f"document.querySelector('.node[data-block=\"{target['start_hex']}\"]').classList.contains('selected')"
    )
    shown = browser.evaluate("[...document.querySelectorAll('#bytecode .bc')].map(e => e.textContent)")
    assert len(shown) == len(target["bytecode"]) + len(target["prologue"]) + len(target["epilogue"])
    assert all(
        line["opname"] in text
        for line, text in zip(target["bytecode"], shown[len(target["prologue"]) :], strict=False)
    )
    source = browser.evaluate(
        "[...document.querySelectorAll('#source .src')].map(e => [e.dataset.addr, e.textContent])"
    )
    assert [addr for addr, _ in source] == [line["address_hex"] for line in target["listing"]]
    assert target["label"] in source[0][1]  # the student's own line, label and all
    # Hover on a bytecode line lights its LC-3 line, and hover on an LC-3 line its bytecode.
    second = target["listing"][1]["address_hex"]
    browser.hover(f'#bytecode .bc[data-addr="{second}"]')
    lit = browser.evaluate("[...document.querySelectorAll('#source .src.hl')].map(e => e.dataset.addr)")
    assert lit == [second]
    first = target["listing"][0]["address_hex"]
    browser.hover(f'#source .src[data-addr="{first}"]')
    lit_bytecode = browser.evaluate(
        "[...document.querySelectorAll('#bytecode .bc.hl')].map(e => e.dataset.addr)"
    )
    expected = [line for line in target["bytecode"] if line["address_hex"] == first]
    assert lit_bytecode == [first] * len(expected) and expected
    assert browser.errors() == []
    assert_not_blank(browser.screenshot())


def test_browser_shows_the_bench_chart(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "bench.html"
    page.write_text(bench_page(bench_results()))
    browser.open(file_url(page), "document.body.dataset.ready === 'yes'")
    bars = browser.evaluate(
        "[...document.querySelectorAll('#chart .bar')].map(b => [b.dataset.program, b.dataset.engine,"
        " b.querySelector('rect').getBoundingClientRect().width])"
    )
    assert len(bars) == 6
    width = {(p, e): w for p, e, w in bars}
    assert width[("sieve.asm", "regions")] > width[("sieve.asm", "blocks")] > width[("sieve.asm", "interp")]
    assert browser.evaluate("document.querySelector('#table').textContent").count("│") > 10
    assert browser.errors() == []
    assert_not_blank(browser.screenshot())
