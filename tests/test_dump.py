"""`lc3jit dump`: blocks, disassembly, bytecode and run counts, as text and as JSON."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from lc3jit.cli import app
from lc3jit.inspection.dump import inspect_program
from lc3jit.inspection.dump_json import FORMAT_VERSION
from lc3jit.inspection.dump_text import write_text
from lc3jit.run_options import RunOptions
from lc3jit.session import boot, load_images
from lc3jit_runtime.capture import CapturedConsole

EXAMPLES = Path(__file__).parent.parent / "examples"
PROGRAMS = Path(__file__).parent / "programs"
SIEVE = EXAMPLES / "sieve.asm"
SELFMOD = PROGRAMS / "selfmod.asm"
INDIRECT = PROGRAMS / "indirect.asm"
ANSI = re.compile(r"\x1b\[")


def lc3jit(*args: object) -> Result:
    return CliRunner().invoke(app, [str(arg) for arg in args], catch_exceptions=False)


def dump_json(*args: object) -> dict:
    result = lc3jit("dump", *args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def by_start(document: dict) -> dict[int, dict]:
    return {block["start"]: block for block in document["blocks"]}


def test_the_default_engine_is_the_one_run_uses() -> None:
    assert dump_json(SIEVE)["engine"] == RunOptions(programs=[SIEVE]).engine == "regions"


def test_json_blocks_cover_the_code_and_carry_their_bytecode() -> None:
    document = dump_json(SIEVE, "--engine", "blocks")
    assert document["version"] == FORMAT_VERSION
    assert document["engine"] == "blocks"
    assert document["run"] is None
    blocks = document["blocks"]
    assert [b["start"] for b in blocks] == sorted(b["start"] for b in blocks)
    summary = document["summary"]
    assert summary["blocks"] == len(blocks)
    assert summary["instructions"] == sum(b["length"] for b in blocks)
    image_words = len(load_images([SIEVE])[0].words)
    assert summary["data_words"] == image_words - summary["instructions"]  # blocks never overlap before a run
    for block in blocks:
        addresses = [line["address"] for line in block["listing"]]
        assert addresses == list(range(block["start"], block["end"] + 1))
        assert block["start_hex"] == f"x{block['start']:04X}"
        # Line numbers are LC-3 addresses: every instruction has bytecode, none is elsewhere.
        assert {line["address"] for line in block["bytecode"]} == set(addresses)
        assert block["runs"] is None
        assert block["exit"] in {"fallthrough", "branch", "call", "trap", "return", "jump", "limit"}


def test_json_names_labels_successors_and_exits() -> None:
    blocks = by_start(dump_json(SIEVE))
    start = load_images([SIEVE])[0].symbols
    mark = blocks[start["MARK"]]
    assert mark["label"] == "MARK"
    assert mark["exit"] == "branch"
    assert {"kind": "taken", "address": start["NEXT_I"], "address_hex": f"x{start['NEXT_I']:04X}"} in mark[
        "successors"
    ]
    call = next(b for b in blocks.values() if b["exit"] == "call")
    assert call["successors"][0] == {"kind": "call", "address": 0x3024, "address_hex": "x3024"}
    assert start["PRINT2"] == 0x3024
    assert call["listing"][-1]["mnemonic"] == "JSR"
    assert call["listing"][-1]["target_label"] == "PRINT2"
    ret = blocks[max(blocks)]
    assert ret["exit"] == "return"
    assert ret["successors"] == [{"kind": "return", "address": None, "address_hex": None}]


def test_text_in_a_pipe_is_plain_and_shows_both_sides() -> None:
    result = lc3jit("dump", SIEVE, "--addr", "x3000", "--engine", "blocks")
    assert result.exit_code == 0
    text = result.stdout
    assert not ANSI.search(text)
    assert text.startswith("block x3000-x3002  3 words, exit fallthrough -> fallthrough x3003 OUTER")
    assert re.search(r"^ +LD +R6, #\d+ +; x3000 [0-9A-F]{4}  -> MINUS_LIMIT$", text, re.M)
    assert re.search(r"^ +0 RESUME\b", text, re.M)
    assert re.search(r"^summary: \d+ blocks, \d+ instructions translated, \d+ words left as data", text, re.M)
    assert text.count("\nblock ") == 0  # --addr: one block only


def test_text_on_a_terminal_is_coloured() -> None:
    images = load_images([SIEVE])
    dump = inspect_program(boot(images, CapturedConsole()), images, str(SIEVE))
    coloured, plain = io.StringIO(), io.StringIO()
    write_text(dump, dump.blocks, coloured, color=True)
    write_text(dump, dump.blocks, plain, color=False)
    assert ANSI.search(coloured.getvalue())
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured.getvalue()) == plain.getvalue()


def test_run_counts_hottest_first_and_program_output() -> None:
    document = dump_json(SIEVE, "--run", "--engine", "blocks")
    run = document["run"]
    assert run["stop_reason"] == "halt"
    assert run["output"].startswith("2 3 5 7 11 13 ")
    assert run["output"].endswith("97 \nHALT\n")
    runs = [b["runs"] for b in document["blocks"]]
    assert runs == sorted(runs, reverse=True)
    assert runs[0] > 90  # the marking loop
    # Every instruction ran inside some block or, while blocks were cold, the interpreter.
    assert sum(b["runs"] * b["length"] for b in document["blocks"]) <= run["instructions"]


def test_self_modifying_block_is_shown_invalidated() -> None:
    document = dump_json(SELFMOD, "--run", "--engine", "blocks")
    assert document["run"]["output"] == "5HALT\n"
    loop = by_start(document)[0x3002]
    assert loop["label"] == "LOOP"
    assert loop["invalidations"] >= 1
    assert not loop["installed"]
    assert loop["listing"][0]["operands"] == "R1, R1, #2"  # the words as last translated
    invalidated = [b["start"] for b in document["blocks"] if b["invalidations"]]
    assert invalidated == [0x3002]

    text = lc3jit("dump", SELFMOD, "--run", "--engine", "blocks").stdout
    assert re.search(r"^block x3002-x3006 LOOP .*\[invalidated \d+x by stores\]", text, re.M)
    assert re.search(r"^invalidated by self-modifying stores: x3002 \(\d+x\)$", text, re.M)


def test_block_translated_at_run_time_appears() -> None:
    document = dump_json(INDIRECT, "--run")
    shout = by_start(document)[0x3007]
    assert shout["label"] == "SHOUT"
    assert shout["translated_at_run_time"]
    assert shout["runs"] >= 1
    assert not by_start(dump_json(INDIRECT)).get(0x3007)  # not found ahead of time
    assert document["summary"]["translated_at_run_time"] >= 1


def test_input_is_the_keyboard_of_the_run(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.write_bytes(b"34")
    document = dump_json(EXAMPLES / "add.hex", "--run", "--input", keys)
    assert document["run"]["output"].startswith("3+4=7")


def test_range_selects_blocks_with_a_word_inside() -> None:
    document = dump_json(SIEVE, "--range", "x3004:x3006")
    assert [(b["start"], b["end"]) for b in document["blocks"]] == [(0x3003, 0x3004), (0x3005, 0x3008)]
    assert document["summary"]["blocks"] > 2  # the summary is of the whole program


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--addr", "x3000", "--range", "x3000:x3001"], 2, "exclude each other"),
        (["--input", SIEVE], 2, "--input needs --run"),
        (["--format", "xml"], 2, "text or json"),
        (["--engine", "nope"], 2, "no dump for engine 'nope'"),
        (["--addr", "x4000"], 1, "no translated block in x4000:x4001"),
    ],
)
def test_usage_errors(args: list[object], code: int, message: str) -> None:
    result = lc3jit("dump", SIEVE, *args)
    assert result.exit_code == code
    assert message in result.stderr


def test_regions_are_listed_with_blocks_entries_exits_and_entries_counted() -> None:
    """fib.asm: the recursive FIB is one region whose own call is a direct jump inside it."""
    document = dump_json(EXAMPLES / "bench" / "fib.asm", "--engine", "regions", "--run")
    assert document["engine"] == "regions"
    regions = {r["label"] or r["root_hex"]: r for r in document["regions"]}
    blocks = by_start(document)
    for region in regions.values():
        starts = [b["start"] for b in region["blocks"]]
        assert starts[0] == region["root"]
        assert region["entries"][0]["address"] == region["root"]
        assert {e["address"] for e in region["entries"]} <= set(starts)
        assert set(starts) <= set(blocks)
        assert region["installed"] is True
        inside = set(starts)
        assert all(e["address"] not in inside for e in region["exits"])
    main = regions[next(iter(regions))]
    assert main["runs"] >= 1
    # The bytecode of a block in a region is the part of the region's code with its lines.
    for block in blocks.values():
        assert {line["address"] for line in block["bytecode"]} <= {
            line["address"] for line in block["listing"]
        }
    assert document["run"]["stop_reason"] == "halt"


def test_regions_in_text() -> None:
    result = lc3jit("dump", EXAMPLES / "bench" / "strings.asm", "--engine", "regions", "--run")
    assert result.exit_code == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("region ")]
    main = next(line for line in lines if line.startswith("region x3000 "))
    assert "in one code object; entries x3000 " in main
    assert "exits -> call (at run time), return (at run time)" in main
    assert re.search(r"\[entered [1-9]\d*\]", main)
    # UPPER, called with JSRR through a table of labels, is inside (its target guessed).
    upper = load_images([EXAMPLES / "bench" / "strings.asm"])[0].symbols["UPPER"]
    assert f" x{upper:04X} " in main.split("; blocks ")[1]


def test_text_regions_come_before_their_blocks_with_prologue_epilogue_and_hex_addresses() -> None:
    result = lc3jit("dump", EXAMPLES / "fib.asm")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("region x3000 ")
    assert lines[2].startswith("block x3000-")
    prologue = lines.index("  prologue: the region's locals loaded, its entry chosen")
    first = next(i for i, line in enumerate(lines) if re.match(r" +AND +R1, R1, #0 +; x3000", line))
    epilogue = lines.index("  epilogue: the region's way out, its locals written back")
    assert prologue == 3 < first < epilogue
    assert re.search(r"LOAD_CONST +\d+ \(x300E\)$", result.stdout, re.M)  # LD R3, COUNT: its address
    assert not re.search(r"\(1230\d\)$", result.stdout, re.M)


def test_json_root_keeps_prologue_and_epilogue_apart() -> None:
    document = dump_json(EXAMPLES / "fib.asm")
    roots = {r["root"] for r in document["regions"]}
    for block in document["blocks"]:  # a root copied into an earlier region shows that one's code
        assert bool(block["prologue"]) == bool(block["epilogue"])
        assert not block["prologue"] or block["start"] in roots
    root = by_start(document)[0x3000]
    assert root["prologue"][0]["opname"] == "RESUME"
    assert root["epilogue"][-1]["opname"] in {"RETURN_VALUE", "RETURN_CONST"}
    assert max(line["offset"] for line in root["prologue"]) < min(line["offset"] for line in root["bytecode"])


def test_os_routines_are_translated_and_shown_with_the_os_labels() -> None:
    """--os: the program booted under the OS, as `run --os` runs it; the OS's routines
    are translated from the trap vectors and named by the OS's own labels."""
    echo = EXAMPLES / "echo.obj"
    bare = by_start(dump_json(echo))
    assert min(bare) >= 0x3000  # no OS: nothing but the program
    for edition, returns in ((3, "RTI"), (2, "RET")):
        blocks = by_start(dump_json(echo, "--os", "--edition", str(edition)))
        assert blocks[0x0200]["label"] == "OS_START"
        getc = blocks[0x0219]
        assert getc["label"] == "TRAP_GETC"
        assert [line["mnemonic"] for line in getc["listing"]] == ["LDI", "BRzp"]
        assert getc["listing"][0]["target_label"] == "KBSR_PTR"
        assert blocks[0x020E]["listing"][0]["mnemonic"] == returns  # TRAP_RETURN, per edition
        assert 0x3000 in blocks


def test_os_run_counts_the_os_routines(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.write_bytes(b"hi\n")
    document = dump_json(EXAMPLES / "echo.obj", "--os", "--run", "--input", keys)
    assert document["run"]["stop_reason"] == "halt"
    assert document["run"]["output"] == "Type a line: hi\nHALT\n"
    assert sum(b["runs"] for b in document["blocks"] if b["start"] < 0x3000) > 0


def test_os_with_a_program_compiled_without_one_is_a_usage_error(tmp_path: Path) -> None:
    compiled = tmp_path / "echo.pyc"
    assert lc3jit("compile", EXAMPLES / "echo.obj", "-o", compiled).exit_code == 0
    result = lc3jit("dump", compiled, "--os")
    assert result.exit_code == 2
    assert "was compiled without an OS" in result.stderr
