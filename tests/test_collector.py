"""What lives until a run ends stays out of the garbage collector's sight until then
(runtime/collector.py): a collection that finds a machine young walks its 65,536-entry lists
for nothing, a millisecond or more of a short run. After the run, a process that goes on
(a grader's) gets it collected as usual."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from lc3jit.api import Simulator
from lc3jit.session import ENGINES, boot, load_images, run_machine
from lc3jit_runtime.capture import CapturedConsole
from lc3jit_runtime.collector import made_long_lived, running
from lc3jit_runtime.dispatch import Dispatcher
from lc3jit_runtime.machine import Machine

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lc3jit.session import Engine

EXAMPLES = Path(__file__).parent.parent / "examples"


def frozen(thing: object) -> bool:
    """Out of the collector's sight: in no generation it collects (gc.freeze)."""
    return gc.is_tracked(thing) and not any(o is thing for o in gc.get_objects())


def test_a_simulators_machine_is_frozen_from_its_boot_to_the_end_of_its_run() -> None:
    sim = Simulator(EXAMPLES / "hello.obj", engine="regions")
    assert frozen(sim.machine.mem) and frozen(sim.machine.watch)
    sim.run()
    assert sim.output.startswith("Hello")
    assert not frozen(sim.machine.mem) and gc.get_freeze_count() == 0


def test_the_engine_is_built_out_of_sight_and_stays_so_until_the_run_ends() -> None:
    tables: list[list[object]] = []

    def build(machine: Machine) -> Engine:
        engine: Dispatcher = ENGINES["regions"](machine)  # type: ignore[assignment]
        tables.append(engine.table)
        return engine

    machine = boot(load_images([EXAMPLES / "hello.obj"]), CapturedConsole(b""))
    with running():
        result = run_machine(machine, "regions", build=build)
        assert frozen(tables[0])  # the run inside this one ended: still frozen
    assert result.outcome.reason == "halt"
    assert not frozen(tables[0]) and gc.get_freeze_count() == 0


class Node:
    """Half of a reference cycle: only the collector frees it."""

    other: object = None


def test_garbage_made_long_lived_waits_for_the_end_of_the_run_then_is_collected() -> None:
    with running():
        with made_long_lived():
            cycle = Node()
            cycle.other = cycle
        gone = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert gone() is not None  # out of sight while the run lasts
    gc.collect()
    assert gone() is None
