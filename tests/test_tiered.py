"""The tiered start of `lc3jit run`: the interpreter first, the translated engine after
--translate-after instructions. Wherever the switch falls, the run ends as the
interpreter's; a short run imports nothing of the translator; the translation cache is
keyed by the machine as booted and never holds code of words rewritten before the switch."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lc3jit.session import ENGINES, boot, load_images
from lc3jit.tiered import TRANSLATE_AFTER, TieredEngine
from lc3jit_runtime import interp
from lc3jit_runtime.console import Console

from .conftest import Run, make_machine
from .test_differential import MANY, ORIGIN, assert_same, program

EXAMPLES = Path(__file__).parent.parent / "examples"
PROGRAMS = Path(__file__).parent / "programs"
TRANSLATED = sorted(set(ENGINES) - {"interp"})


def run_in_slices(engine: object, machine: object, display: io.BytesIO, slices: list[int | None]) -> Run:
    """Run in several calls (as a debugger or a grader does), each with its own budget."""
    outcome = None
    for budget in slices:
        outcome = engine.run(budget)  # type: ignore[attr-defined]
        if outcome.reason != "step-limit":
            break
    machine.console.flush()  # type: ignore[attr-defined]
    return Run(machine, outcome, display.getvalue())  # type: ignore[arg-type]


@pytest.mark.parametrize("engine", TRANSLATED)
@MANY
@given(case=program(), after=st.integers(0, 60), slices=st.lists(st.integers(0, 80), min_size=1, max_size=4))
def test_random_programs_agree_wherever_the_switch_falls(
    engine: str, case: tuple[list[int], list[int], bytes], after: int, slices: list[int]
) -> None:
    words, registers, keys = case
    runs = []
    for build in (ENGINES["interp"], lambda m: TieredEngine(m, engine, ENGINES[engine], after)):
        machine, display = make_machine(words, ORIGIN, keys)
        machine.reg[:] = registers
        runs.append(run_in_slices(build(machine), machine, display, [*slices, 3000]))
    assert_same(*runs)


@pytest.mark.parametrize("engine", TRANSLATED)
@pytest.mark.parametrize("after", [0, 1, 500, 3114, 3115, 3116])
@pytest.mark.parametrize("budget", [None, 1, 499, 500, 501, 3115])
def test_a_program_agrees_at_any_budget_and_switch(engine: str, after: int, budget: int | None) -> None:
    """fib.asm runs 3115 instructions: the switch before, at and after its last one, with a
    step limit before, at and after the switch."""
    runs = []
    for build in (ENGINES["interp"], lambda m: TieredEngine(m, engine, ENGINES[engine], after)):
        display = io.BytesIO()
        machine = boot(load_images([EXAMPLES / "fib.asm"]), Console(io.BytesIO(), display))
        runs.append(run_in_slices(build(machine), machine, display, [budget, None]))
    assert_same(*runs)
    assert runs[1].outcome.reason == "halt"


def test_a_breakpoint_set_before_the_switch_stops_after_it() -> None:
    """A stop set while interpreting is the translated engine's once it is built."""
    machine = boot(load_images([EXAMPLES / "fib.asm"]), Console(io.BytesIO(), io.BytesIO()))
    engine = TieredEngine(machine, "regions", ENGINES["regions"], after=100)
    loop = load_images([EXAMPLES / "fib.asm"])[0].symbols["POWER"]  # in PRINT_DEC, run again and again
    engine.set_stop(loop, True)
    hits = []
    while (outcome := engine.run()).reason == "breakpoint":
        hits.append(machine.icount)
        engine.set_stop(loop, False)
        engine.run(1)
        engine.set_stop(loop, True)
    assert outcome.reason == "halt"
    assert engine.translated_at == 100
    reference = boot(load_images([EXAMPLES / "fib.asm"]), Console(io.BytesIO(), io.BytesIO()))
    interpreter = ENGINES["interp"](reference)
    interpreter.set_stop(loop, True)
    expected = []
    while interpreter.run().reason == "breakpoint":
        expected.append(reference.icount)
        interpreter.set_stop(loop, False)
        interpreter.run(1)
        interpreter.set_stop(loop, True)
    assert hits == expected and any(hit > 100 for hit in hits)


def modules_after(*args: str, cache: Path) -> tuple[set[str], str]:
    """The lc3jit translator's and `bytecode`'s modules a real `lc3jit run ARGS` imported, and its stderr."""
    script = (
        "import atexit, sys; from lc3jit.launch import main;"
        " atexit.register(lambda: print(*sorted(m for m in sys.modules if m.split('.')[0] == 'bytecode'"
        " or m.startswith('lc3jit.translator')), file=sys.stderr));"
        " sys.argv[0] = 'lc3jit'; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "run", *args, "--stats"],
        capture_output=True,
        env={"XDG_CACHE_HOME": str(cache), "PATH": ""},
        timeout=120,
        check=True,
    )
    stats, imported = done.stderr.decode().splitlines()[-2:]
    return set(imported.split()), stats


def test_a_short_run_imports_nothing_of_the_translator(tmp_path: Path) -> None:
    imported, stats = modules_after(str(EXAMPLES / "hello.obj"), cache=tmp_path)
    assert imported == set()
    assert stats.endswith(
        f"engine regions, translation none (interpreted: it ended before instruction {TRANSLATE_AFTER})"
    )
    assert not (tmp_path / "lc3jit").exists()  # nothing translated, nothing saved


def test_a_long_run_translates_at_the_switch_and_saves_it(tmp_path: Path) -> None:
    runaway = str(EXAMPLES / "bench" / "runaway.asm")
    imported, stats = modules_after(runaway, "--translate-after", "150000", cache=tmp_path)
    assert {"lc3jit.translator.regions", "lc3jit.translator.cache"} <= imported
    assert "bytecode" not in imported  # the translator assembles its code itself
    assert " translation " in stats and stats.endswith(" ms after 150000 instructions")
    imported, stats = modules_after(runaway, "--translate-after", "150000", cache=tmp_path)
    assert stats.endswith(" ms after 150000 instructions (from the cache)")
    assert "bytecode" not in imported  # saved code loads without the translator


def test_code_rewritten_before_the_switch_is_never_cached_as_the_booted_code(tmp_path: Path) -> None:
    """selfmod.asm rewrites its own instructions as it runs. Tiered runs switching at every
    point of it, each twice (the second may load what the first saved, keyed by the program
    as booted), all end as the interpreter's."""
    program = PROGRAMS / "selfmod.asm"
    expected = subprocess.run(
        [
            sys.executable,
            "-m",
            "lc3jit",
            "run",
            str(program),
            "--engine",
            "interp",
            "--state-json",
            str(tmp_path / "i.json"),
        ],
        capture_output=True,
        timeout=120,
    )
    for after in (1, 4, 5, 6, 9, 12, boot_count(program)):
        for attempt in range(2):
            state = tmp_path / f"{after}-{attempt}.json"
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "lc3jit",
                    "run",
                    str(program),
                    "--translate-after",
                    str(after),
                    "--state-json",
                    str(state),
                ],
                capture_output=True,
                env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": ""},
                timeout=120,
            )
            assert (done.stdout, done.returncode) == (expected.stdout, expected.returncode)
            assert state.read_text() == (tmp_path / "i.json").read_text()


def boot_count(program: Path) -> int:
    """How many instructions the program runs on the interpreter."""
    machine = boot(load_images([program]), Console(io.BytesIO(), io.BytesIO()))
    ENGINES["interp"](machine).run(100_000)
    return machine.icount


@pytest.mark.parametrize("engine", ["blocks", "regions"])
def test_the_switch_keeps_the_words_the_interpreter_decoded(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The translated engine interprets the words it has no code for on the tiered start's
    interpreter: what ran before the switch is not decoded again after it (here nothing is
    translated, the budget being spent: every word runs on the interpreter)."""
    decoded: list[int] = []
    decode = interp.decode
    monkeypatch.setattr(interp, "decode", lambda word, pc: (decoded.append(pc), decode(word, pc))[1])
    machine = boot(load_images([EXAMPLES / "fib.asm"]), Console(io.BytesIO(), io.BytesIO()))
    machine.translation_budget = 0
    tiered = TieredEngine(machine, engine, ENGINES[engine], after=100)
    assert tiered.run().reason == "halt" and tiered.translated_at == 100
    assert len(decoded) == len(set(decoded))


def test_tiered_switch_script_runs_each_program_as_long_as_asked() -> None:
    """examples/bench/tiered_switch.py measures the switch on the bench programs made longer
    (the target is at 10^8 instructions): by a count (sort's, which sizes its array
    too), by fib's argument and by copies of dispatch's text, each runs at least the
    instructions asked for after the switch and less than the next step of its growth, and
    the tiered run ends as the one translated before the run (else the script fails)."""
    script = EXAMPLES / "bench" / "tiered_switch.py"
    asked = 1_000_000
    done = subprocess.run(
        [
            sys.executable,
            str(script),
            "--instructions",
            str(asked),
            "--rounds",
            "1",
            "sort",
            "fib",
            "dispatch",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = [
        line.split("|")[1:-1]
        for line in done.stdout.splitlines()
        if line.startswith("| ") and "---" not in line
    ]
    steps = {name.strip(): int(count.replace(",", "")) for name, count, *_ in rows[1:]}
    assert steps.keys() == {"sort", "fib", "dispatch"}
    assert all(asked <= count < 2.5 * asked for count in steps.values()), steps
