"""`lc3jit run`: exit codes, options, --state-json, --stats, --input, and bad files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from lc3jit.cli import app
from lc3jit_runtime.machine import KBSR

from .machine_code import GETC, HALT, ORIGIN, op, trap, write_hex

EXAMPLES = Path(__file__).parent.parent / "examples"
SET_N = op("ADDI", dr=0, sr1=0, imm5=-1)


def lc3jit(*args: object, keys: bytes = b"") -> Result:
    """`lc3jit ARGS` in this process, keys as stdin; a Python exception fails the test."""
    return CliRunner().invoke(app, [str(arg) for arg in args], input=keys, catch_exceptions=False)


def test_help_lists_every_exit_code() -> None:
    result = lc3jit("run", "--help")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    for phrase in (
        "0 after HALT",
        "1 load",
        "2 usage",
        "3 machine fault",
        "4 step limit",
        "5 input",
        "129",
        "130",
        "141",
        "143",
    ):
        assert phrase in text


@pytest.mark.parametrize(
    ("words", "options", "code", "message"),
    [
        ([HALT], [], 0, ""),
        ([0xD000], [], 3, "illegal opcode xD000 at x3000"),
        ([SET_N, trap(0x26)], [], 3, "unknown trap vector x26 at x3001"),
        ([op("BR", nzp=0b111, pcoffset9=-1)], ["--max-steps", 100], 4, "step limit reached"),
        ([GETC, HALT], [], 5, "input ended while the program waits for a key"),
        (
            [op("LDI", dr=0, pcoffset9=1), op("BR", nzp=0b011, pcoffset9=-2), KBSR],
            [],
            5,
            "input ended while the program polls KBSR",
        ),
    ],
    ids=["halt", "illegal-opcode", "unknown-trap", "step-limit", "getc-no-input", "kbsr-no-input"],
)
def test_exit_codes_and_messages(
    tmp_path: Path, words: list[int], options: list[object], code: int, message: str
) -> None:
    program = write_hex(tmp_path / "p.hex", words)
    result = lc3jit("run", program, *options)
    assert result.exit_code == code
    assert result.stderr == (f"lc3jit: {program}: {message}\n" if code else "")


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["run"],
        ["run", "{prog}", "--edition", "4"],
        ["run", "{prog}", "--pc", "zz"],
        ["run", "{prog}", "--pc", "x10000"],
        ["run", "{prog}", "--max-steps", "-1"],
        ["run", "{prog}", "--engine", "nope"],
        ["run", "{prog}", "--bogus"],
        ["run", "{prog}", "--input", "{dir}"],
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str]) -> None:
    program = write_hex(tmp_path / "p.hex", [HALT])
    result = lc3jit(*(arg.format(prog=program, dir=tmp_path) for arg in args))
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_a_bad_address_names_its_option(tmp_path: Path) -> None:
    program = write_hex(tmp_path / "p.hex", [HALT])
    result = lc3jit("run", program, "--pc", "x10000")
    assert result.exit_code == 2
    assert "Invalid value for '--pc': not an address in x0000-xFFFF: 'x10000'" in result.stderr


def test_state_json_holds_registers_pc_psr_codes_count_and_stop(tmp_path: Path) -> None:
    words = [op("ADDI", dr=1, sr1=1, imm5=5), op("NOT", dr=2, sr=1), op("LEA", dr=3, pcoffset9=-3), HALT]
    program = write_hex(tmp_path / "p.hex", words)
    state = tmp_path / "state.json"
    assert lc3jit("run", program, "--state-json", state).exit_code == 0
    assert json.loads(state.read_text()) == {
        "registers": [0, 5, 0xFFFA, ORIGIN, 0, 0, 0, 0],
        "pc": ORIGIN + 4,
        "psr": 0x0004,
        "cond": "N",
        "saved_ssp": 0x3000,
        "saved_usp": 0,
        "instructions": 4,
        "stop_reason": "halt",
        "exit_code": 0,
        "message": "",
    }


@pytest.mark.parametrize(("edition", "cond", "r7"), [("2", "P", ORIGIN + 3), ("3", "N", 0)])
def test_the_edition_switch(tmp_path: Path, edition: str, cond: str, r7: int) -> None:
    """LEA sets the codes and TRAP sets R7 in the 2nd edition only."""
    program = write_hex(tmp_path / "p.hex", [SET_N, op("LEA", dr=1, pcoffset9=0), HALT])
    state = tmp_path / "state.json"
    assert lc3jit("run", program, "--edition", edition, "--state-json", state).exit_code == 0
    saved = json.loads(state.read_text())
    assert (saved["cond"], saved["registers"][7]) == (cond, r7)


def test_state_json_after_a_step_limit(tmp_path: Path) -> None:
    program = write_hex(
        tmp_path / "p.hex", [op("ADDI", dr=1, sr1=1, imm5=1), op("BR", nzp=0b111, pcoffset9=-2)]
    )
    state = tmp_path / "state.json"
    assert lc3jit("run", program, "--max-steps", 1001, "--state-json", state).exit_code == 4
    saved = json.loads(state.read_text())
    assert (saved["instructions"], saved["registers"][1], saved["pc"]) == (1001, 501, ORIGIN + 1)
    assert (saved["stop_reason"], saved["exit_code"]) == ("step-limit", 4)


def test_state_json_that_cannot_be_written(tmp_path: Path) -> None:
    program = write_hex(tmp_path / "p.hex", [HALT])
    result = lc3jit("run", program, "--state-json", tmp_path / "no" / "state.json")
    assert result.exit_code == 1
    assert result.stderr == f"lc3jit: {tmp_path / 'no' / 'state.json'}: No such file or directory\n"


#: From R1 down to 0: with R1 = 10 first, 1 + 2 * 10 + 1 = 22 instructions.
COUNT_DOWN = [op("ADDI", dr=1, sr1=1, imm5=-1), op("BR", nzp=0b001, pcoffset9=-2), HALT]


def test_stats_prints_count_time_and_mips_to_stderr(tmp_path: Path) -> None:
    program = write_hex(tmp_path / "p.hex", [op("ADDI", dr=1, sr1=1, imm5=10), *COUNT_DOWN])
    shapes = {  # a plain run interprets what ends before its switch; else the switch is named
        (): r"translation none \(interpreted: it ended before instruction 262144\)",
        ("--translate-after", "0"): r"translation \d+\.\d{3} ms",
        ("--translate-after", "5"): r"translation \d+\.\d{3} ms after 5 instructions",
    }
    for options, translation in shapes.items():
        result = lc3jit("run", program, "--stats", *options)
        assert result.stdout == "HALT\n"
        match = re.fullmatch(
            rf"(\d+) instructions in \d+\.\d{{6}} s CPU \(\d+\.\d+ MIPS\), engine regions, {translation}"
            r"( \(from the cache\))?\n",
            result.stderr,
        )
        assert match is not None, result.stderr
        assert int(match[1]) == 22


def test_pc_starts_elsewhere(tmp_path: Path) -> None:
    program = write_hex(tmp_path / "p.hex", [0xD000, HALT])
    assert lc3jit("run", program, "--pc", "x3001").exit_code == 0
    assert lc3jit("run", program, "--pc", "0x3000").exit_code == 3


def test_later_programs_load_over_earlier_ones(tmp_path: Path) -> None:
    first = write_hex(tmp_path / "a.hex", [0xD000, 0xD000, HALT])
    patch = write_hex(tmp_path / "b.hex", [HALT], origin=ORIGIN + 1)
    state = tmp_path / "state.json"
    assert lc3jit("run", first, patch, "--pc", "x3001", "--state-json", state).exit_code == 0
    assert json.loads(state.read_text())["pc"] == ORIGIN + 2


@pytest.mark.parametrize(("keys", "shown"), [(b"34", "3+4=7"), (b"99", "9+9=18"), (b"00", "0+0=0")])
def test_add_example_from_stdin_and_from_input_file(tmp_path: Path, keys: bytes, shown: str) -> None:
    assert lc3jit("run", EXAMPLES / "add.hex", keys=keys).stdout == f"{shown}\nHALT\n"
    keyfile = tmp_path / "keys.txt"
    keyfile.write_bytes(keys)
    result = lc3jit("run", EXAMPLES / "add.hex", "--input", keyfile, keys=b"ignored")
    assert (result.exit_code, result.stdout) == (0, f"{shown}\nHALT\n")


def test_add_example_runs_out_of_input(tmp_path: Path) -> None:
    result = lc3jit("run", EXAMPLES / "add.hex", keys=b"4")
    assert (result.exit_code, result.stdout) == (5, "4+")


def test_a_missing_input_file(tmp_path: Path) -> None:
    result = lc3jit("run", EXAMPLES / "add.hex", "--input", tmp_path / "none.txt")
    assert result.exit_code == 1
    assert result.stderr == f"lc3jit: {tmp_path / 'none.txt'}: No such file or directory\n"


def bad_files(folder: Path) -> dict[str, Path]:
    """Files no loader accepts: empty, truncated, huge, random bytes, and not there at all."""
    files = {
        "empty.obj": b"",
        "truncated.obj": (EXAMPLES / "2048.obj").read_bytes()[:777],
        "huge.obj": bytes(300_000),
        "random.obj": bytes.fromhex("f3 9a 07 c2 5e 11 d8 40 2b"),
        "random.hex": bytes.fromhex("3000 0a c3 28 a0 a1 e2 28 a1 ff"),
        "random.bin": b"0101\n\x00\x01\x02",
    }
    for name, content in files.items():
        (folder / name).write_bytes(content)
    return {name: folder / name for name in [*files, "missing.obj"]}


def test_bad_files_are_one_line_naming_the_file(tmp_path: Path) -> None:
    for path in bad_files(tmp_path).values():
        result = lc3jit("run", path)
        assert result.exit_code == 1, path
        assert result.stderr.startswith(f"lc3jit: {path}: ")
        assert result.stderr.count("\n") == 1
        assert result.stdout == ""


def test_bad_files_through_the_real_command(tmp_path: Path) -> None:
    """The installed entry point, as a user runs it: no traceback, one line, exit 1."""
    for path in bad_files(tmp_path).values():
        done = subprocess.run(
            [sys.executable, "-m", "lc3jit", "run", str(path)],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
        assert done.returncode == 1, path
        assert done.stderr.decode().startswith(f"lc3jit: {path}: ")
        assert done.stderr.count(b"\n") == 1
        assert done.stdout == b""


@settings(max_examples=60)
@given(content=st.binary(min_size=0, max_size=40))
def test_random_programs_never_raise(tmp_path_factory: pytest.TempPathFactory, content: bytes) -> None:
    """Whatever the bytes, a run ends with one of the documented exit codes."""
    path = tmp_path_factory.mktemp("random") / "random.obj"
    path.write_bytes(content)
    result = lc3jit("run", path, "--max-steps", 5000, keys=b"k")
    assert result.exit_code in {0, 1, 3, 4, 5}
    if result.exit_code:
        assert result.stderr.startswith(f"lc3jit: {path}: ")
        assert result.stderr.count("\n") == 1


def test_running_an_asm_shows_its_warnings_then_runs(tmp_path: Path) -> None:
    source = tmp_path / "wide.asm"
    source.write_text(".ORIG x3000\nAND R1, R1, x001F\nHALT\n.END\n")
    result = lc3jit("run", source, "--engine", "interp", "--state-json", tmp_path / "state.json")
    assert result.exit_code == 0
    assert result.stdout == "HALT\n"
    assert f"{source}:2:13: warning: x001F does not fit imm5" in result.stderr
    assert json.loads((tmp_path / "state.json").read_text())["registers"][1] == 0  # R1 AND -1 = R1 = 0
