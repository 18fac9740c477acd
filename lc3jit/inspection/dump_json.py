"""The JSON form of a block dump (`lc3jit dump --format json`), for tools.

The JSON format (`FORMAT_VERSION` = 1; keys sorted; every address both as an integer and,
under the same name with `_hex`, as a string like "x3000"):

    {"version": 1, "program": str, "python": "3.11.7", "edition": 3, "engine": "blocks",
     "summary": {"blocks": int, "instructions": int, "data_words": int,
                 "translated_at_run_time": int, "translation_seconds": float},
     "run": null | {"stop_reason": str, "exit_code": int, "message": str,
                    "instructions": int, "seconds": float, "output": str},
     "blocks": [{"start", "start_hex", "end", "end_hex", "label": str | null,
                 "length": int, "exit": "branch" | "call" | "jump" | "return" | "trap" |
                 "rti" | "fallthrough" | "limit" | "invalid",
                 "successors": [{"kind": "taken" | "fallthrough" | "call" | "return" |
                                 "indirect", "address": int | null, "address_hex"}],
                 "listing": [{"address", "address_hex", "word", "word_hex", "label",
                              "mnemonic", "operands", "target", "target_hex",
                              "target_label"}],
                 "bytecode": [{"offset": int, "address", "address_hex", "opname": str,
                               "arg": int | null, "argrepr": str, "jump_target": bool}],
                 "prologue": [bytecode line, as above], "epilogue": [bytecode line],
                 "translated_at_run_time": bool, "installed": bool,
                 "runs": int | null, "invalidations": int}],
     "regions": [{"root", "root_hex", "label": str | null,
                  "entries": [{"address", "address_hex"}], "blocks": [{"start", "start_hex"}],
                  "exits": [{"kind", "address", "address_hex"}], "runs": int | null,
                  "installed": bool}]}

`summary` counts every block the translator made; `blocks` holds those selected (by
--addr/--range), in address order, or hottest first after a run (`runs` is null without
one). `data_words` counts loaded words that no block covers. The opcode names in
`bytecode` are CPython's and differ between Python versions. The records are
lc3jit/inspection/dump.py's; `prologue` and `epilogue` are explained there.
"""

from __future__ import annotations

import json
import platform
from collections.abc import Iterable
from dataclasses import fields

from lc3jit.inspection.dump import BlockDump, Dump, RegionDump
from lc3jit.toolchain.numbers import format_address

FORMAT_VERSION = 1


def _hex(name: str, value: int | None) -> dict[str, object]:
    """An address under its name as an integer and under name_hex as "x3000" (both null if None)."""
    return {name: value, f"{name}_hex": None if value is None else format_address(value)}


def _record_json(record: object, addresses: tuple[str, ...]) -> dict[str, object]:
    """A record's fields under their own names, with `_hex` twins for the address fields."""
    values = {f.name: getattr(record, f.name) for f in fields(record)}  # type: ignore[arg-type]
    for name in addresses:
        values.update(_hex(name, values[name]))
    return values


def _block_json(b: BlockDump) -> dict[str, object]:
    return {
        **_hex("start", b.start),
        **_hex("end", b.end),
        "label": b.label,
        "length": b.block.length,
        "exit": b.block.exit.value,
        "successors": [_record_json(s, ("address",)) for s in b.block.successors],
        "listing": [_record_json(line, ("address", "word", "target")) for line in b.listing],
        "bytecode": [_record_json(line, ("address",)) for line in b.bytecode],
        "prologue": [_record_json(line, ("address",)) for line in b.prologue],
        "epilogue": [_record_json(line, ("address",)) for line in b.epilogue],
        "translated_at_run_time": b.translated_at_run_time,
        "installed": b.installed,
        "runs": b.runs,
        "invalidations": b.invalidations,
    }


def _region_json(r: RegionDump) -> dict[str, object]:
    return {
        **_hex("root", r.root),
        "label": r.label,
        "entries": [_hex("address", e) for e in r.region.entries],
        "blocks": [_hex("start", b.start) for b in r.region.blocks],
        "exits": [_record_json(s, ("address",)) for s in r.region.exits],
        "runs": r.runs,
        "installed": r.installed,
    }


def to_json(dump: Dump, blocks: Iterable[BlockDump]) -> str:
    """The documented JSON form (see the module docstring) of a dump, with the blocks chosen."""
    run = dump.run
    document = {
        "version": FORMAT_VERSION,
        "program": dump.program,
        "python": platform.python_version(),
        "edition": dump.edition,
        "engine": dump.engine,
        "summary": {
            "blocks": len(dump.blocks),
            "instructions": dump.instructions,
            "data_words": dump.data_words,
            "translated_at_run_time": sum(b.translated_at_run_time for b in dump.blocks),
            "translation_seconds": round(dump.translation_seconds, 6),
        },
        "run": None
        if run is None
        else {
            "stop_reason": run.stop_reason,
            "exit_code": run.exit_code,
            "message": run.message,
            "instructions": run.instructions,
            "seconds": round(run.seconds, 6),
            "output": run.output.decode("latin-1"),
        },
        "blocks": [_block_json(b) for b in blocks],
        "regions": [_region_json(r) for r in dump.regions],
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"
