"""The arguments of the Debug Adapter's requests, checked before anything is done with them.

A client may send anything where the protocol says a string, a number or a flag; each
check here turns a missing or mistyped argument into a RequestError naming it, which the
adapter answers with an error response. The files a launch names are read as `lc3jit run`
reads files: regular files only, at most as large as the loader's text formats
(lc3jit_runtime.loader.MAX_TEXT_BYTES), so a directory, a FIFO, a device such as
/dev/zero or an over-large file is one clear error (docs/security.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lc3jit.editors.dap_wire import Message, RequestError
from lc3jit.session import ENGINES
from lc3jit_runtime.loader import MAX_TEXT_BYTES, read_bytes

#: The longest path or other string argument taken.
MAX_TEXT = 4096
#: The most files one launch loads.
MAX_PROGRAMS = 64


def arguments(request: Message) -> Message:
    """A request's arguments: an object, or none."""
    args = request.get("arguments")
    if args is None:
        return {}
    if not isinstance(args, dict):
        raise RequestError(f"the arguments of {request.get('command')!r} must be an object")
    return args


def flag(args: Message, name: str, default: bool = False) -> bool:
    value = args.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise RequestError(f"{name} must be true or false, not {_shown(value)}")
    return value


def text(args: Message, name: str) -> str | None:
    value = args.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_TEXT or "\0" in value:
        raise RequestError(f"{name} must be a non-empty string of at most {MAX_TEXT} characters")
    return value


def whole(args: Message, name: str, low: int, high: int) -> int | None:
    """An integer argument in low..high, or None when absent."""
    value = args.get(name)
    if value is None:
        return None
    if type(value) is not int or not low <= value <= high:
        raise RequestError(f"{name} must be a whole number from {low} to {high}, not {_shown(value)}")
    return value


def texts(args: Message, name: str, most: int) -> list[str]:
    value = args.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > most:
        raise RequestError(f"{name} must be a list of at most {most} paths")
    return [text({name: item}, name) or "" for item in value]


def _shown(value: Any) -> str:
    """A value in an error message, cut short."""
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


@dataclass
class Launch:
    """What the launch request asked for, checked."""

    programs: list[Path]
    stop_on_entry: bool = False
    engine: str = "regions"
    edition: int = 3
    full_system: bool = False
    pc: str | int | None = None
    input_file: Path | None = None
    max_steps: int | None = None
    no_debug: bool = False

    @classmethod
    def parse(cls, args: Message) -> Launch:
        base = Path(text(args, "cwd") or os.getcwd())
        program = text(args, "program")
        names = ([program] if program else []) + texts(args, "programs", MAX_PROGRAMS - 1)
        if not names:
            raise RequestError("launch needs a program: the .asm or .obj to debug")
        engine = text(args, "engine") or "regions"
        if engine not in ENGINES:
            raise RequestError(f"engine must be one of {', '.join(ENGINES)}, not {_shown(engine)}")
        edition = whole(args, "edition", 2, 3)
        input_file = text(args, "input")
        return cls(
            programs=[base / name for name in names],
            stop_on_entry=flag(args, "stopOnEntry"),
            engine=engine,
            edition=3 if edition is None else edition,
            full_system=flag(args, "os"),
            pc=_pc(args),
            input_file=base / input_file if input_file else None,
            max_steps=whole(args, "maxSteps", 0, 1 << 62),
            no_debug=flag(args, "noDebug"),
        )


def _pc(args: Message) -> str | int | None:
    """Where to start: an address (a number, or text as `--pc` takes it: x3000, a label)."""
    value = args.get("pc")
    if type(value) is int:
        return whole(args, "pc", 0, 0xFFFF)
    if value is None or isinstance(value, str):
        return text(args, "pc")
    raise RequestError(f"pc must be an address (x3000, a label or a number), not {_shown(value)}")


def read_input(path: Path) -> bytes:
    """The keys of a launch's `input` file: LoadError (one line) for anything but a regular
    file of at most MAX_TEXT_BYTES."""
    return read_bytes(path, MAX_TEXT_BYTES)
