"""The translation cache of `lc3jit run`: the second run loads what the first translated;
bad entries are one warning and translated again; private, atomic, bounded, keyed by all
that the code depends on. The cache lives in the directory conftest gives each test."""

from __future__ import annotations

import io
import marshal
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import lc3jit.translator.cache
from lc3jit.cli import app
from lc3jit.session import ENGINES, boot, load_images
from lc3jit.translator.cache import (
    TranslationCache,
    cache_directory,
    entry_key,
    program_key,
    source_stamps,
    translator_fingerprint,
)
from lc3jit.translator.saved import save_entry
from lc3jit_runtime.compiled import parse_compiled
from lc3jit_runtime.console import Console
from lc3jit_runtime.errors import LoadError
from lc3jit_runtime.machine import Machine

EXAMPLES = Path(__file__).parent.parent / "examples"
KEYS_2048 = b"n" + b"wasd" * 20


def run(
    *args: object, keys: bytes = KEYS_2048, env: dict[str, str] | None = None, tiered: bool = False
) -> Result:
    """`lc3jit run ARGS --stats`, translating before the run (however short it is) unless tiered."""
    arguments = ["run", *map(str, args), "--stats", *(() if tiered else ("--translate-after", "0"))]
    return CliRunner(env=env).invoke(app, arguments, input=keys, catch_exceptions=False)


def stats(result: Result) -> str:
    """The --stats line (the last line on stderr but the program's message)."""
    return next(line for line in result.stderr.splitlines() if " instructions in " in line)


def entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.pyc"))


def test_the_cache_of_the_tests_is_their_own(
    translation_cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    assert cache_directory() == str(translation_cache)
    assert translation_cache.is_relative_to(tmp_path_factory.getbasetemp())


@pytest.mark.parametrize("engine", ["regions", "blocks"])
def test_the_second_run_loads_what_the_first_translated(translation_cache: Path, engine: str) -> None:
    first = run(EXAMPLES / "2048.obj", "--engine", engine)
    assert not stats(first).endswith("(from the cache)")
    [entry] = entries(translation_cache)
    second = run(EXAMPLES / "2048.obj", "--engine", engine)
    assert f"engine {engine}, translation " in stats(second)
    assert stats(second).endswith(" ms (from the cache)")
    assert (second.stdout, second.exit_code) == (first.stdout, first.exit_code) == (first.stdout, 5)
    assert entries(translation_cache) == [entry]


def test_the_cache_is_private_to_the_user(translation_cache: Path) -> None:
    run(EXAMPLES / "hello.obj")
    assert stat.S_IMODE(translation_cache.stat().st_mode) == 0o700
    [entry] = entries(translation_cache)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert entry.stat().st_uid == os.getuid()


def test_a_directory_open_to_others_is_closed_again(translation_cache: Path) -> None:
    translation_cache.mkdir(mode=0o755)
    translation_cache.chmod(0o755)
    assert run(EXAMPLES / "hello.obj").exit_code == 0
    assert stat.S_IMODE(translation_cache.stat().st_mode) == 0o700


def test_a_directory_of_another_user_is_not_used(
    translation_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    translation_cache.mkdir(mode=0o700)
    someone_else = os.getuid() + 1
    monkeypatch.setattr(lc3jit.translator.cache.os, "getuid", lambda: someone_else)
    result = run(EXAMPLES / "hello.obj")
    assert (
        result.stderr.splitlines()[0]
        == f"lc3jit: translation cache: {translation_cache} is not a directory of yours: not used"
    )
    assert result.stdout == "Hello, World!\nHALT\n"
    assert entries(translation_cache) == []


def test_a_file_where_the_directory_should_be_is_left_alone(translation_cache: Path) -> None:
    translation_cache.parent.mkdir(parents=True, exist_ok=True)
    translation_cache.write_bytes(b"mine")
    result = run(EXAMPLES / "hello.obj")
    assert result.stderr.splitlines()[0] == (
        f"lc3jit: translation cache: {translation_cache} is not a directory of yours: not used"
    )
    assert result.stdout == "Hello, World!\nHALT\n" and translation_cache.read_bytes() == b"mine"


def test_no_cache_and_the_environment_variable_turn_it_off(translation_cache: Path) -> None:
    assert run(EXAMPLES / "hello.obj", "--no-cache").exit_code == 0
    assert run(EXAMPLES / "hello.obj", env={"LC3JIT_NO_CACHE": "1"}).exit_code == 0
    assert not translation_cache.exists()
    run(EXAMPLES / "hello.obj", env={"LC3JIT_NO_CACHE": "0"})
    assert len(entries(translation_cache)) == 1


def spoil(entry: Path, how: str) -> None:
    data = bytearray(entry.read_bytes())
    if how == "truncated":
        entry.write_bytes(data[: len(data) // 3])
    elif how == "a flipped byte":
        data[-100] ^= 0x08
        entry.write_bytes(data)
    elif how == "garbage":
        entry.write_bytes(os.urandom(200))
    elif how == "empty":
        entry.write_bytes(b"")
    elif how == "another Python":
        data[0] ^= 0x01
        entry.write_bytes(data)
    elif how == "writable by others":
        entry.chmod(0o666)
    elif how == "a symbolic link":
        target = entry.with_name("elsewhere")
        entry.rename(target)
        entry.symlink_to(target)


SPOILT = {
    "truncated": "corrupt or truncated (its checksum does not match its contents); translating again",
    "a flipped byte": "corrupt or truncated (its checksum does not match its contents); translating again",
    "garbage": "not a compiled program (no .pyc header); translating again",
    "empty": "not a compiled program (no .pyc header); translating again",
    "another Python": "compiled for another Python version (bytecode magic ",
    "writable by others": "not a file lc3jit wrote (owner or mode); translating again",
    "a symbolic link": "Too many levels of symbolic links; translating again",
}


@pytest.mark.parametrize("how", SPOILT)
def test_a_bad_entry_is_one_warning_then_translated_again(translation_cache: Path, how: str) -> None:
    first = run(EXAMPLES / "2048.obj")
    [entry] = entries(translation_cache)
    spoil(entry, how)
    second = run(EXAMPLES / "2048.obj")
    warnings = second.stderr.splitlines()[:-2]  # before the stats line and the program's message
    assert len(warnings) == 1
    assert warnings[0].startswith(f"lc3jit: translation cache: {entry}")
    assert SPOILT[how] in warnings[0]
    assert (second.stdout, second.exit_code) == (first.stdout, first.exit_code)
    assert not stats(second).endswith("(from the cache)")
    third = run(EXAMPLES / "2048.obj")  # written again, whole and private
    assert stats(third).endswith("(from the cache)")
    assert third.stderr.count("\n") == 2
    assert not entry.is_symlink() and stat.S_IMODE(entry.stat().st_mode) == 0o600


def test_an_entry_copied_over_another_is_refused(translation_cache: Path) -> None:
    run(EXAMPLES / "hello.obj")
    run(EXAMPLES / "fib.obj")
    hello, fib = sorted(entries(translation_cache), key=lambda p: p.stat().st_mtime_ns)
    shutil.copy(fib, hello)
    result = run(EXAMPLES / "hello.obj")
    assert result.stderr.splitlines()[0] == (
        f"lc3jit: translation cache: {hello}: an entry for other translations; translating again"
    )
    assert result.stdout == "Hello, World!\nHALT\n"


def test_an_entry_is_not_a_program_to_run(translation_cache: Path) -> None:
    run(EXAMPLES / "hello.obj")
    [entry] = entries(translation_cache)
    result = CliRunner().invoke(app, ["run", str(entry)])
    assert result.exit_code == 1
    assert result.stderr == f"lc3jit: {entry}: an entry of the translation cache, not a compiled program\n"


@pytest.mark.parametrize(
    "options",
    [["--engine", "blocks"], ["--edition", "2"], ["--os"], ["--pc", "x3002"], ["--os", "--edition", "2"]],
)
def test_what_changes_the_code_changes_the_entry(translation_cache: Path, options: list[str]) -> None:
    run(EXAMPLES / "fib.obj")
    other = run(EXAMPLES / "fib.obj", *options)
    assert not stats(other).endswith("(from the cache)")
    assert len(entries(translation_cache)) == 2


def test_another_lc3jit_never_loads_the_entries(
    translation_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(EXAMPLES / "fib.obj")
    monkeypatch.setattr(lc3jit.translator.cache, "__version__", "99.0")
    translator_fingerprint.cache_clear()
    try:
        result = run(EXAMPLES / "fib.obj")
    finally:
        monkeypatch.undo()
        translator_fingerprint.cache_clear()
    assert not stats(result).endswith("(from the cache)")
    assert result.stderr.count("\n") == 1  # no warning: its entries are simply not its own
    assert len(entries(translation_cache)) == 2


def booted(path: Path) -> Machine:
    return boot(load_images([path]), Console(io.BytesIO(), io.BytesIO()))


def program(path: Path) -> tuple[object, ...]:
    return program_key("regions", 3, None, load_images([path]), ())


def test_the_oldest_entries_go_when_the_cache_is_full(translation_cache: Path) -> None:
    warnings: list[str] = []
    programs = ["hello.obj", "fib.obj", "sieve.obj", "strings.obj", "echo.obj"]
    cache = TranslationCache(translation_cache, warnings.append, max_bytes=0)
    for name in programs:
        cache.build(booted(EXAMPLES / name), "regions", ENGINES["regions"], program(EXAMPLES / name))
        assert len(entries(translation_cache)) == 1  # the newest is always kept
    [kept] = entries(translation_cache)
    assert kept.stem == entry_key(booted(EXAMPLES / "echo.obj"), "regions", program(EXAMPLES / "echo.obj"))
    bounded = TranslationCache(translation_cache, warnings.append, max_bytes=3 * kept.stat().st_size)
    for name in programs:
        bounded.build(booted(EXAMPLES / name), "regions", ENGINES["regions"], program(EXAMPLES / name))
    assert sum(p.stat().st_size for p in entries(translation_cache)) <= bounded.max_bytes
    assert warnings == []


def test_writes_are_atomic(translation_cache: Path) -> None:
    """A reader never sees half an entry while another run writes it again and again."""
    cache = TranslationCache(translation_cache, pytest.fail)
    machine = booted(EXAMPLES / "2048.obj")
    cache.build(machine, "regions", ENGINES["regions"], program(EXAMPLES / "2048.obj"))
    [entry] = entries(translation_cache)
    whole = parse_compiled(entry.read_bytes(), "entry")
    done = threading.Event()

    def write() -> None:
        for _ in range(100):
            save_entry(cache, whole.key, whole)
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    reads = 0
    while not done.is_set() or reads < 10:
        try:
            parse_compiled(entry.read_bytes(), "entry")
        except LoadError as e:
            pytest.fail(f"read half an entry: {e}")
        reads += 1
    writer.join()
    assert [p.name for p in translation_cache.iterdir()] == [entry.name]  # no temporary left


def test_runs_at_the_same_time_share_one_cache(tmp_path: Path, translation_cache: Path) -> None:
    """Real processes, all starting with an empty cache (most translate and write the entry
    at once, a late one may find it), then all finding the entry."""
    keys = tmp_path / "keys"
    keys.write_bytes(b"x" + b"wasd" * 20)
    command = [
        sys.executable,
        "-m",
        "lc3jit",
        "run",
        str(EXAMPLES / "rogue.obj"),
        "--input",
        str(keys),
        "--stats",
    ]
    for wave in ("empty", "filled"):
        processes = [
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(4)
        ]
        results = [(p.communicate(timeout=120), p.returncode) for p in processes]
        outputs = {(out, code) for (out, _), code in results}
        assert len(outputs) == 1
        for (_, err), _ in results:
            lines = err.decode().splitlines()
            assert len(lines) == 2 and " instructions in " in lines[0]  # no warning: never half a file
            if wave == "filled":
                assert lines[0].endswith("(from the cache)")
        assert [p.name for p in translation_cache.iterdir()] == [entries(translation_cache)[0].name]


@pytest.mark.parametrize("change", ["a word of code", "a word of data", "a label"])
def test_another_program_under_the_same_name_is_translated_again(
    translation_cache: Path, tmp_path: Path, change: str
) -> None:
    """The key is made of what booted the machine (the images, their labels), not of its memory."""
    program, labels = tmp_path / "prog.obj", tmp_path / "prog.sym"
    words = bytearray((EXAMPLES / "hello.obj").read_bytes())
    program.write_bytes(words)
    labels.write_text("//\tGREETING          3003\n")
    assert not stats(run(program)).endswith("(from the cache)") and len(entries(translation_cache)) == 1
    if change == "a word of code":
        words[2:4] = (0xE003).to_bytes(2, "big")  # LEA R0, GREETING+1
    elif change == "a word of data":
        words[8:10] = b"\x00J"
    program.write_bytes(words)
    labels.write_text(
        "//\tGREETING          3004\n" if change == "a label" else "//\tGREETING          3003\n"
    )
    second = run(program)
    assert not stats(second).endswith("(from the cache)")
    assert len(entries(translation_cache)) == 2
    expected = {
        "a word of code": "ello, World!",
        "a word of data": "Jello, World!",
        "a label": "Hello, World!",
    }
    assert second.stdout == f"{expected[change]}\nHALT\n"
    assert stats(run(program)).endswith("(from the cache)")


def test_the_fingerprint_sees_every_source_file_and_no_bytecode_cache(tmp_path: Path) -> None:
    (tmp_path / "regions" / "__pycache__").mkdir(parents=True)
    (tmp_path / "engine.py").write_text("x = 1\n")
    (tmp_path / "regions" / "compiler.py").write_text("y = 2\n")
    (tmp_path / "regions" / "__pycache__" / "compiler.cpython-311.pyc").write_bytes(b"pyc")
    first = source_stamps([str(tmp_path)])
    assert [Path(path).relative_to(tmp_path).as_posix() for path, _, _ in first] == [
        "engine.py",
        "regions/compiler.py",
    ]
    (tmp_path / "regions" / "__pycache__" / "compiler.cpython-315.pyc").write_bytes(b"pyc")
    assert source_stamps([str(tmp_path)]) == first
    for edit in ("regions/compiler.py", "regions/graph.py"):  # a file edited, a file added
        before = source_stamps([str(tmp_path)])
        (tmp_path / edit).write_text("z = 345\n")
        os.utime(tmp_path / edit, ns=(1, 10**18))
        assert source_stamps([str(tmp_path)]) != before
    same_size = source_stamps([str(tmp_path)])
    os.utime(tmp_path / "engine.py", ns=(1, 2 * 10**18))  # touched: same size, another time
    assert source_stamps([str(tmp_path)]) != same_size
    roots = [str(EXAMPLES.parent / "lc3jit" / "translator"), str(EXAMPLES.parent / "runtime")]
    assert marshal.dumps(source_stamps(roots), 2) in translator_fingerprint()
