"""`dump` and `bench`: what the translator made of a program, and how fast each engine runs it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lc3jit.cli.common import address, address_range, command, fail, format_range, warn
from lc3jit.cli.options import Assembler, Edition, FullSystem, InputFile, OsImage, assemble_with
from lc3jit.cli.programs import Programs, compiled_program
from lc3jit_runtime.errors import LC3Error

if TYPE_CHECKING:
    from lc3jit.inspection.dump import BlockDump
    from lc3jit_runtime.compiled import Compiled
    from lc3jit_runtime.dispatch import Dispatcher
    from lc3jit_runtime.machine import Machine


def _dumpable(value: str) -> str:
    from lc3jit.inspection.dump import DUMPABLE

    if value not in DUMPABLE:
        raise typer.BadParameter(f"no dump for engine {value!r}; choose from {', '.join(DUMPABLE)}")
    return value


def _format(value: str) -> str:
    if value not in ("text", "json"):
        raise typer.BadParameter("the format is text or json")
    return value


@command()
def dump(
    ctx: typer.Context,
    programs: Programs,
    addr: Annotated[
        str | None,
        typer.Option("--addr", metavar="ADDR", help="Show only the block(s) covering this address."),
    ] = None,
    chosen: Annotated[
        str | None,
        typer.Option(
            "--range",
            metavar="START:STOP",
            help="Show only blocks with a word in START:STOP (STOP excluded).",
        ),
    ] = None,
    output_format: Annotated[
        str, typer.Option("--format", metavar="text|json", callback=_format, help="text or json.")
    ] = "text",
    run_first: Annotated[
        bool, typer.Option("--run", help="Run first (output captured): runs per block, hottest first.")
    ] = False,
    input_file: InputFile = None,
    max_steps: Annotated[
        int | None,
        typer.Option(
            "--max-steps", min=0, metavar="N", help="With --run: stop after this many instructions."
        ),
    ] = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            metavar="regions|blocks",
            callback=_dumpable,
            help="The translator to show (run's own by default).",
        ),
    ] = "regions",
    edition: Edition = 3,
    full_system: FullSystem = False,
    os_image: OsImage = None,
    assembler: Assembler = None,
    symbolic: Annotated[
        bool,
        typer.Option(
            "--symbolic",
            help="Also list each code object as the `bytecode` library prints it, jump targets as"
            " named labels rather than offsets (in the HTML page too).",
        ),
    ] = False,
    html_file: Annotated[
        Path | None,
        typer.Option(
            "--html",
            metavar="FILE",
            help="Write the translation as one self-contained page to this file: the control-flow graph,"
            " each block's source beside its bytecode (see docs/inspection.md).",
        ),
    ] = None,
) -> None:
    """Show each translated block: LC-3 disassembly, exits, Python bytecode (LC-3 addresses as
    line numbers), and a summary. JSON is documented in lc3jit/inspection/dump_json.py. With
    --os, the OS's routines are translated and shown too, as `run --os` translates them."""
    from lc3jit.inspection.dump import inspect_program
    from lc3jit.session import boot, load_images, os_images, why_not_translated
    from lc3jit_runtime.capture import CapturedConsole

    assemble_with(assembler)
    if addr is not None and chosen is not None:
        raise typer.BadParameter("--addr and --range exclude each other")
    if input_file is not None and not run_first:
        raise typer.BadParameter("--input needs --run")
    if reason := why_not_translated():
        raise fail(f"no translated code to dump: {reason}")
    start, stop = address_range(chosen)
    if (at := address(addr, "--addr")) is not None:
        start, stop = at, at + 1
    try:
        compiled = compiled_program(ctx, programs, edition, full_system, os_image)
        images = load_images(programs) if compiled is None else list(compiled.images)
        if compiled is not None:
            system = list(compiled.system)
        else:
            system = os_images(edition, os_image) if full_system or os_image else []
        console = CapturedConsole.from_file(input_file)
    except LC3Error as e:
        raise fail(str(e)) from None
    except OSError as e:  # the --input file
        raise fail(f"{e.filename}: {e.strerror or e}") from None
    if compiled is None:
        machine, build = boot(images, console, edition, system=system), None
    else:
        machine = boot(images, console, compiled.edition, compiled.pc, system)
        build = _saved_build(compiled, engine)
        if output_format == "text":
            from lc3jit.translator.compile import describe

            typer.echo(f"compiled file {programs[0]}, by lc3jit {compiled.version}")
            for line in describe(compiled):
                typer.echo(line)
            typer.echo("")
    # The OS's images too, for its labels, its source and its words counted as data.
    result = inspect_program(
        machine, [*system, *images], str(programs[0]), engine, run_first, max_steps, build
    )
    blocks = result.selected(start, stop)
    if not blocks:
        raise fail(f"{programs[0]}: no translated block in {format_range(start, stop)}")
    if html_file is not None:
        from lc3jit.inspection.page import render

        try:
            listings = _symbolic(result.blocks) if symbolic else []
            html_file.write_text(render(result, listings), encoding="utf-8")
        except OSError as e:
            raise fail(f"{html_file}: {e.strerror or e}") from None
    elif output_format == "json":
        from lc3jit.inspection.dump_json import to_json

        sys.stdout.write(to_json(result, blocks))
    else:
        from lc3jit.inspection.dump_text import write_text

        write_text(result, blocks, sys.stdout)
    if symbolic and html_file is None and output_format == "text":
        for name, lines in _symbolic(blocks):
            typer.echo(f"{name}, as the bytecode library lists it (line numbers: LC-3 addresses)")
            for line in lines:
                typer.echo(f"  {line}")
            typer.echo("")


def _symbolic(blocks: Sequence[BlockDump]) -> list[tuple[str, list[str]]]:
    """Each code object of the blocks, once, by name, as `bytecode` lists it."""
    from lc3jit.translator.codegen.reference import symbolic_listing

    codes = {id(b.code): b.code for b in blocks if b.code is not None}
    return [(code.co_name, symbolic_listing(code)) for code in codes.values()]


def _saved_build(compiled: Compiled, engine: str) -> Callable[[Machine, bool], Dispatcher] | None:
    """Builds the dumped engine from the compiled translations, its records filled for the dump."""
    from lc3jit.translator.saved import recording_translator
    from lc3jit_runtime.compiled import saved_dispatcher

    saved = compiled.engines.get(engine)
    if saved is None:
        return None
    return lambda machine, profile: saved_dispatcher(
        machine, saved, recording_translator(machine, engine, saved), profile
    )


def _engine_list(value: str) -> list[str]:
    """Engine names, each perhaps with @LOC: that engine with a breakpoint at LOC."""
    from lc3jit.inspection.bench import BREAK
    from lc3jit.session import ENGINES

    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name.partition(BREAK)[0] not in ENGINES]
    if unknown or not names:
        raise typer.BadParameter(f"no engine {', '.join(unknown)!r}; choose from {', '.join(ENGINES)}")
    return names


@command(name="bench")
def bench_command(
    programs: Annotated[
        list[Path],
        typer.Argument(metavar="PROGRAM", help="Programs to time, each on its own (.asm, .obj, ...)."),
    ],
    input_file: InputFile = None,
    engines: Annotated[
        str | None,
        typer.Option(
            "--engines",
            metavar="ENGINE,...",
            help="Comma-separated engine names (default: all); ENGINE@LOC runs ENGINE under the debugger"
            " with a breakpoint at LOC (a label or address), continued through at each hit.",
        ),
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", min=1, metavar="N", help="Runs of each engine; the median counts.")
    ] = 3,
    floor: Annotated[
        bool,
        typer.Option("--floor", help="Also time PROG.py beside PROG: hand-written Python, no emulation."),
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Write the results as JSON (see lc3jit/inspection/bench.py).")
    ] = False,
    process: Annotated[
        bool,
        typer.Option(
            "--process",
            help="Time each run as a whole `lc3jit run` process, start-up included (CPU seconds).",
        ),
    ] = False,
    edition: Edition = 3,
    assembler: Assembler = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            metavar="FILE",
            help="Also draw the results as a chart, an SVG file (see docs/inspection.md).",
        ),
    ] = None,
    html_file: Annotated[
        Path | None,
        typer.Option(
            "--html", metavar="FILE", help="Also write the chart and the table as one self-contained page."
        ),
    ] = None,
) -> None:
    """Time every engine on each program (alternating runs, same input), checking that all end
    with the same output, state, memory and instruction count; a difference is exit code 1."""
    from rich.console import Console as RichConsole
    from rich.progress import Progress

    from lc3jit.inspection import bench
    from lc3jit.session import ENGINES, engines_on_this_python, load_images

    assemble_with(assembler)
    if floor and process:
        raise typer.BadParameter("--floor and --process exclude each other")
    names = engines_on_this_python(_engine_list(engines or ",".join(ENGINES)), warn)
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
    if plot is not None or html_file is not None:
        from lc3jit.inspection.chart import chart_svg
        from lc3jit.inspection.page import bench_page

        try:
            if plot is not None:
                plot.write_text(chart_svg(results), encoding="utf-8")
            if html_file is not None:
                html_file.write_text(bench_page(results), encoding="utf-8")
        except OSError as e:
            raise fail(f"{e.filename}: {e.strerror or e}") from None
