"""The `lc3jit` command: parses arguments, calls the library, maps its errors to exit codes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from runtime.errors import LC3Error
from runtime.loader import Image, load_image_file

from . import __version__
from .launch import RunOptions, run_program
from .numbers import parse_address
from .session import ENGINES, boot, engines_on_this_python, load_images, why_not_translated

EXIT_CODES_HELP = """
Exit codes: 0 after HALT; 1 load or assembly error; 2 usage error; 3 machine fault
(illegal opcode, unknown trap vector with no OS); 4 step limit reached; 5 input ended
while the program waited for a key; 130 interrupted (Ctrl-C).
"""

app = typer.Typer(
    help="Run LC-3 programs by translating their machine code into Python bytecode.\n\n" + EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one line to stderr and give the exit to raise."""
    typer.echo(f"lc3jit: {message}", err=True)
    return typer.Exit(code)


def _address(text: str | None, option: str) -> int | None:
    if text is None:
        return None
    try:
        return parse_address(text)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint=f"'{option}'") from None


def _edition(value: int) -> int:
    if value not in (2, 3):
        raise typer.BadParameter("the edition is 2 or 3")
    return value


def _engine(value: str) -> str:
    if value not in ENGINES:
        raise typer.BadParameter(f"no engine {value!r}; choose from {', '.join(ENGINES)}")
    return value


Programs = Annotated[
    list[Path],
    typer.Argument(help="Program files (.obj, .hex, .bin, .asm); later ones load over earlier ones."),
]
Edition = Annotated[
    int,
    typer.Option("--edition", callback=_edition, help="Patt & Patel edition whose ISA to follow: 3 or 2."),
]
InputFile = Annotated[
    Path | None,
    typer.Option("--input", help="Read the keyboard from this file instead of stdin.", dir_okay=False),
]


@app.command(epilog=EXIT_CODES_HELP)
def run(
    programs: Programs,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            callback=_engine,
            help="regions: loops and subroutines as single code objects (the default); "
            "blocks: one code object per basic block; interp: the reference interpreter.",
        ),
    ] = "regions",
    edition: Edition = 3,
    pc: Annotated[str | None, typer.Option("--pc", help="Start address (default: first origin).")] = None,
    max_steps: Annotated[
        int | None, typer.Option("--max-steps", min=0, help="Stop after this many instructions.")
    ] = None,
    input_file: InputFile = None,
    stats: Annotated[
        bool, typer.Option("--stats", help="Print instructions, time and MIPS to stderr.")
    ] = False,
    state_json: Annotated[
        Path | None, typer.Option("--state-json", help="Write the final registers and stop reason as JSON.")
    ] = None,
    full_system: Annotated[
        bool,
        typer.Option(
            "--os",
            help="Full-system mode: load lc3jit's own OS first and run the program under it, in user"
            " mode (PSR x8002), with traps, exceptions and interrupts done by the OS.",
        ),
    ] = False,
    os_image: Annotated[
        Path | None,
        typer.Option(
            "--os-image",
            help="Full-system mode with this OS image instead (e.g. the classic lc3os.obj); implies --os."
            " The machine starts at x0200 with R0 = the program's start address.",
        ),
    ] = None,
) -> None:
    """Run a program: keys from the terminal (raw mode) or from a pipe or --input file."""
    options = RunOptions(
        programs,
        engine,
        edition,
        _address(pc, "--pc"),
        max_steps,
        input_file,
        stats,
        state_json,
        full_system,
        os_image,
    )
    if code := run_program(options):
        raise typer.Exit(code)


ASM_HELP = """
A file with several .ORIG blocks gives one .obj and one .sym per block, in source order:
FILE.obj for the first block, then FILE-1.obj, FILE-2.obj, ...; load them back together
with `lc3jit run FILE.obj FILE-1.obj ...` (the first one's origin is the start PC), or
run the .asm itself. Errors and warnings are printed as file:line:col with the line and a
caret; any error writes nothing and exits with code 1.
"""


@app.command(epilog=ASM_HELP)
def asm(
    source: Annotated[Path, typer.Argument(help="LC-3 assembly source (lc3as and LC3Tools dialects).")],
    output: Annotated[
        Path | None,
        typer.Option("-o", "--output", help="The .obj to write (default: FILE.obj beside FILE.asm)."),
    ] = None,
) -> None:
    """Assemble FILE.asm into FILE.obj and FILE.sym, byte for byte as lc3as writes them."""
    from .asm import assemble_file, write_outputs

    try:
        assembly = assemble_file(source)
    except LC3Error as e:
        raise fail(str(e)) from None
    for warning in assembly.warnings:
        _warn(str(warning))
    try:
        write_outputs(assembly, output or source.with_suffix(".obj"))
    except OSError as e:
        raise fail(f"{e.filename}: {e.strerror or e}") from None


def _warn(message: str) -> None:
    typer.echo(message, err=True)


def _range(text: str | None) -> tuple[int, int]:
    """--range A:B as [start, stop); either end may be left out."""
    if text is None:
        return 0, 0x10000
    start, colon, stop = text.partition(":")
    if not colon:
        raise typer.BadParameter(f"expected START:STOP, found {text!r}")
    try:
        return (parse_address(start) if start else 0), (parse_address(stop) if stop else 0x10000)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None


def _clip(image: Image, start: int, stop: int) -> Image | None:
    """The part of an image inside [start, stop), labels kept; None when nothing is left."""
    low, high = max(start, image.origin), min(stop, image.end)
    if low >= high:
        return None
    words = image.words[low - image.origin : high - image.origin]
    return Image(low, words, image.name, image.symbols, image.source)


@app.command()
def disasm(
    program: Annotated[Path, typer.Argument(help="Program to list (.obj with its .sym, .hex, .bin, .asm).")],
    address_range: Annotated[
        str | None,
        typer.Option("--range", help="START:STOP, e.g. x3000:x3010; STOP excluded; either may be left out."),
    ] = None,
) -> None:
    """List a program as assembler text: labels, mnemonics, operands, then ; address, word
    and the target of PC-relative operands. `lc3jit asm` reads the listing back into the same
    words. Words of .FILL/.BLKW/.STRINGZ in an .asm are listed as .FILL."""
    from .asm import assemble_file
    from .disasm import write_listing

    start, stop = _range(address_range)
    try:
        if program.suffix.lower() == ".asm":
            assembly = assemble_file(program)
            images, code = assembly.images, assembly.code
        else:
            images, code = (load_image_file(program),), None
    except LC3Error as e:
        raise fail(str(e)) from None
    parts = [part for part in (_clip(image, start, stop) for image in images) if part is not None]
    if not parts:
        raise fail(f"{program}: no words in {format_range(start, stop)}")
    for part in parts:
        write_listing(part, sys.stdout, code)


def format_range(start: int, stop: int) -> str:
    return f"x{start:04X}:x{stop:04X}" if stop < 0x10000 else f"x{start:04X}:"


def _dumpable(value: str) -> str:
    from .dump import DUMPABLE

    if value not in DUMPABLE:
        raise typer.BadParameter(f"no dump for engine {value!r}; choose from {', '.join(DUMPABLE)}")
    return value


def _format(value: str) -> str:
    if value not in ("text", "json"):
        raise typer.BadParameter("the format is text or json")
    return value


@app.command()
def dump(
    programs: Programs,
    addr: Annotated[
        str | None, typer.Option("--addr", help="Show only the block(s) covering this address.")
    ] = None,
    address_range: Annotated[
        str | None,
        typer.Option("--range", help="Show only blocks with a word in START:STOP (STOP excluded)."),
    ] = None,
    output_format: Annotated[str, typer.Option("--format", callback=_format, help="text or json.")] = "text",
    run_first: Annotated[
        bool, typer.Option("--run", help="Run first (output captured): runs per block, hottest first.")
    ] = False,
    input_file: InputFile = None,
    max_steps: Annotated[
        int | None, typer.Option("--max-steps", min=0, help="With --run: stop after this many instructions.")
    ] = None,
    engine: Annotated[
        str, typer.Option("--engine", callback=_dumpable, help="The translator to show.")
    ] = "blocks",
    edition: Edition = 3,
) -> None:
    """Show each translated block: LC-3 disassembly, exits, Python bytecode (LC-3 addresses as
    line numbers), and a summary. JSON is documented in lc3jit/dump.py."""
    from .capture import CapturedConsole
    from .dump import inspect_program, write_text
    from .dump import to_json as dump_json

    if addr is not None and address_range is not None:
        raise typer.BadParameter("--addr and --range exclude each other")
    if input_file is not None and not run_first:
        raise typer.BadParameter("--input needs --run")
    if reason := why_not_translated():
        raise fail(f"no translated code to dump: {reason}")
    start, stop = _range(address_range)
    if (at := _address(addr, "--addr")) is not None:
        start, stop = at, at + 1
    try:
        images = load_images(programs)
        console = CapturedConsole.from_file(input_file)
    except LC3Error as e:
        raise fail(str(e)) from None
    except OSError as e:  # the --input file
        raise fail(f"{e.filename}: {e.strerror or e}") from None
    result = inspect_program(
        boot(images, console, edition), images, str(programs[0]), engine, run_first, max_steps
    )
    blocks = result.selected(start, stop)
    if not blocks:
        raise fail(f"{programs[0]}: no translated block in {format_range(start, stop)}")
    if output_format == "json":
        sys.stdout.write(dump_json(result, blocks))
    else:
        write_text(result, blocks, sys.stdout)


def _engine_list(value: str) -> list[str]:
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in ENGINES]
    if unknown or not names:
        raise typer.BadParameter(f"no engine {', '.join(unknown)!r}; choose from {', '.join(ENGINES)}")
    return names


@app.command(name="bench")
def bench_command(
    programs: Annotated[
        list[Path], typer.Argument(help="Programs to time, each on its own (.asm, .obj, ...).")
    ],
    input_file: InputFile = None,
    engines: Annotated[
        str | None, typer.Option("--engines", help="Comma-separated engine names (default: all).")
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", min=1, help="Runs of each engine; the median counts.")
    ] = 3,
    floor: Annotated[
        bool,
        typer.Option("--floor", help="Also time PROG.py beside PROG: hand-written Python, no emulation."),
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Write the results as JSON (see lc3jit/bench.py).")
    ] = False,
    process: Annotated[
        bool,
        typer.Option(
            "--process",
            help="Time each run as a whole `lc3jit run` process, start-up included (CPU seconds).",
        ),
    ] = False,
    edition: Edition = 3,
) -> None:
    """Time every engine on each program (alternating runs, same input), checking that all end
    with the same output, state, memory and instruction count; a difference is exit code 1."""
    from rich.console import Console as RichConsole
    from rich.progress import Progress

    from . import bench

    if floor and process:
        raise typer.BadParameter("--floor and --process exclude each other")
    names = engines_on_this_python(_engine_list(engines or ",".join(ENGINES)), _warn)
    try:
        keys = input_file.read_bytes() if input_file else b""
        loaded = [(path, load_images([path])) for path in programs]
    except LC3Error as e:
        raise fail(str(e)) from None
    except OSError as e:
        raise fail(f"{e.filename}: {e.strerror or e}") from None
    floors = {path: bench.floor_module(path) if floor else None for path in programs}
    total = bench.runs_needed(len(programs), len(names), repeat, sum(f is not None for f in floors.values()))
    progress_console = RichConsole(stderr=True)
    hidden = not progress_console.is_terminal
    with Progress(transient=True, console=progress_console, disable=hidden) as progress:
        task = progress.add_task("bench", total=total)
        try:
            results = [
                bench.bench_program(
                    str(path),
                    images,
                    names,
                    keys,
                    repeat,
                    edition,
                    floors[path],
                    lambda: progress.advance(task),
                    process,
                )
                for path, images in loaded
            ]
        except LC3Error as e:
            progress.stop()
            raise fail(str(e)) from None
    if json_output:
        sys.stdout.write(bench.to_json(results, repeat, process))
    else:
        bench.write_table(results, sys.stdout)


@app.command()
def version() -> None:
    """Print the version of lc3jit and of Python."""
    typer.echo(f"lc3jit {__version__} on Python {sys.version.split()[0]}")


def main() -> None:
    app()
