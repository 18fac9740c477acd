"""The `lc3jit` command: parses arguments, calls the library, maps its errors to exit codes."""

from __future__ import annotations

import contextlib
import errno
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console as RichConsole
from rich.progress import Progress

from lc3jit import __version__
from lc3jit.api import Simulator
from lc3jit.launch import run_program
from lc3jit.run_options import OPTION, RUN_OPTIONS, RunOptions
from lc3jit.session import (
    ENGINES,
    boot,
    engines_on_this_python,
    load_images,
    os_images,
    why_not_translated,
)
from lc3jit.toolchain.asm import assemble_file, write_outputs
from lc3jit.toolchain.disasm import write_listing
from lc3jit.toolchain.numbers import parse_address
from lc3jit.tools import bench
from lc3jit.tools.capture import CapturedConsole
from lc3jit.tools.dump import DUMPABLE, inspect_program, write_text
from lc3jit.tools.dump import to_json as dump_json
from lc3jit.tools.reverse import DEFAULT_LIMIT as DEFAULT_HISTORY
from lc3jit.translator.saved import recording_translator
from lc3jit_runtime.compiled import Compiled, read_compiled, saved_dispatcher
from lc3jit_runtime.console import Console
from lc3jit_runtime.dispatch import Dispatcher
from lc3jit_runtime.errors import LC3Error
from lc3jit_runtime.isa import MEMORY_WORDS
from lc3jit_runtime.loader import Image, load_file
from lc3jit_runtime.machine import Machine

EXIT_CODES_HELP = """
Exit codes: 0 after HALT; 1 load or assembly error, or output not written; 2 usage
error; 3 machine fault
(illegal opcode, unknown trap vector with no OS); 4 step limit reached; 5 input ended
while the program waited for a key; 6 output limit reached; 129 SIGHUP; 130 interrupted (Ctrl-C); 141 output
pipe closed; 143 SIGTERM. The output is written as the program prints; --stats and
--state-json give the exact state however the run ends.
"""

app = typer.Typer(
    help="Run LC-3 programs by translating their machine code into Python bytecode.\n\n" + EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(given: bool) -> None:
    if given:
        typer.echo(f"lc3jit {__version__} on Python {sys.version.split()[0]}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Run LC-3 programs by translating their machine code into Python bytecode."""


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
    typer.Argument(
        help="Program files (.obj, .hex, .bin, .asm); later ones load over earlier ones. For run, or"
        " one compiled program (.pyc, from `lc3jit compile`).",
        metavar="PROGRAM",
    ),
]


def _option(name: str, **overrides: object) -> object:
    """The Annotated type of a `run` option (lc3jit/run_options.py), for a typer parameter."""
    option = OPTION[name]
    python_type, checks = _KINDS[option.kind]
    metavar = option.metavar or _METAVARS.get(option.kind)
    settings = {"help": option.help, "metavar": metavar, **checks, **overrides}
    return Annotated[python_type, typer.Option(option.name, **settings)]


#: What help shows for a value of each kind: plain words and the choices, not typer's types.
_METAVARS = {
    "engine": "regions|blocks|interp",
    "edition": "3|2",
    "address": "ADDR",
    "count": "N",
    "file": "FILE",
    "path": "FILE",
    "range": "START:STOP",
}

#: How typer reads a value of each kind of run_options.Option; an address and a range are
#: read as text and converted in the command, as the options of other commands are.
_KINDS: dict[str, tuple[object, dict[str, object]]] = {
    "flag": (bool, {}),
    "engine": (str, {"callback": _engine}),
    "edition": (int, {"callback": _edition}),
    "address": (str | None, {}),
    "count": (int | None, {"min": 0}),
    "file": (Path | None, {"dir_okay": False}),
    "path": (Path | None, {}),
    "range": (str | None, {}),
}

Edition = _option("--edition")
InputFile = _option("--input")
Pc = _option("--pc")
FullSystem = _option("--os")
OsImage = _option("--os-image")
EngineName = _option("--engine")
MaxSteps = _option("--max-steps")


def _given(ctx: typer.Context, option: str) -> bool:
    """Was the option on the command line (not left at its default)?"""
    source = ctx.get_parameter_source(option)
    return source is not None and source.name == "COMMANDLINE"


def _is_compiled(programs: list[Path]) -> bool:
    return any(p.suffix.lower() == ".pyc" for p in programs)


def _compiled(
    ctx: typer.Context,
    programs: list[Path],
    edition: int,
    full_system: bool = False,
    os_image: Path | None = None,
) -> Compiled | None:
    """The compiled program (.pyc) among the programs, if any; it fixes the edition and the OS,
    so --edition and --os may only say what it was compiled with."""
    if not _is_compiled(programs):
        return None
    if len(programs) > 1:
        raise typer.BadParameter("a compiled program (.pyc) is loaded alone", param_hint="'PROGRAMS...'")
    if os_image is not None:
        raise typer.BadParameter(
            "a compiled program holds the OS it was compiled with", param_hint="'--os-image'"
        )
    compiled = read_compiled(programs[0])
    if not compiled.images:
        raise LC3Error(f"{programs[0]}: an entry of the translation cache, not a compiled program")
    if _given(ctx, "edition") and edition != compiled.edition:
        raise typer.BadParameter(
            f"{programs[0]} was compiled for edition {compiled.edition}", param_hint="'--edition'"
        )
    if full_system and not compiled.system:
        raise typer.BadParameter(f"{programs[0]} was compiled without an OS", param_hint="'--os'")
    return compiled


def _with_run_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give the command the options of `run` from their table, as keyword parameters after
    its own: typer reads a command's parameters from its signature."""
    own = list(inspect.signature(command, eval_str=True).parameters.values())[:-1]  # all but **options
    options = [
        inspect.Parameter(
            option.field,
            inspect.Parameter.KEYWORD_ONLY,
            default=None if option.kind == "range" else option.default,  # text until _range reads it
            annotation=_option(option.name),
        )
        for option in RUN_OPTIONS
    ]
    command.__signature__ = inspect.Signature([*own, *options])  # type: ignore[attr-defined]
    return command


@app.command(epilog=EXIT_CODES_HELP)
@_with_run_options
def run(ctx: typer.Context, programs: Programs, **options: Any) -> None:
    """Run a program: keys from the terminal (raw mode) or from a pipe or --input file.

    A compiled program (PROGRAM.pyc, from `lc3jit compile`) runs with its saved translations;
    others with the translations a run of the same program saved before, if any. A .pyc is
    Python code and running it runs that code: run only those you would run as Python programs."""
    options["pc"] = _address(options["pc"], "--pc")
    trace_range = options["trace_range"]
    options["trace_range"] = _range(trace_range, lambda: _symbols(programs))
    if trace_range is not None and options["trace"] is None:
        raise typer.BadParameter("--trace-range needs --trace")
    try:
        compiled = _compiled(ctx, programs, options["edition"], options["full_system"], options["os_image"])
    except LC3Error as e:
        raise fail(str(e)) from None
    if code := run_program(RunOptions(programs=programs, **options), compiled):
        raise typer.Exit(code)


@app.command(name="compile")
def compile_command(
    programs: Programs,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o", "--output", help="The .pyc to write (default: PROGRAM.pyc in the current directory)."
        ),
    ] = None,
    edition: Edition = 3,
    pc: Pc = None,
    full_system: FullSystem = False,
    os_image: OsImage = None,
) -> None:
    """Translate a program ahead of time into a Python bytecode file (.pyc): `python OUT.pyc` runs
    it with only lc3jit's runtime package, `lc3jit run OUT.pyc` with every option of run.

    Everything plausibly reachable is translated (the flow from the start and, under an OS, the
    trap and interrupt routines; labels and the targets of tables of addresses that look like
    code); what it translated and what it left to run time is printed. Loading a .pyc runs its
    code: a compiled file is as trusted as any Python file."""
    from lc3jit.translator.compile import (  # the translator, only when compiling
        compile_program,
        describe,
        write_compiled,
    )

    if _is_compiled(programs):
        raise typer.BadParameter("already compiled: give the program itself", param_hint="'PROGRAMS...'")
    if reason := why_not_translated():
        raise fail(f"nothing to compile: {reason}")
    start_pc = _address(pc, "--pc")
    try:
        system = os_images(edition, os_image) if full_system or os_image else []
        images = load_images(programs, warn=_warn)
    except LC3Error as e:
        raise fail(str(e)) from None
    compiled = compile_program(str(programs[0]), images, edition, start_pc, system)
    path = output or Path(programs[0].with_suffix(".pyc").name)
    try:
        size = write_compiled(compiled, path)
    except OSError as e:
        raise fail(f"{path}: {e.strerror or e}") from None
    typer.echo(f"wrote {path} ({size:,} bytes)")
    for line in describe(compiled):
        typer.echo(line)


DEBUG_HELP = """
Commands: break LOC [if COND], tbreak, delete LOC, watch LOC, display, step [N], next, finish,
until LOC, continue, reverse-step [N] (back), reverse-next, reverse-finish, reverse-continue,
regs, info, mem [ADDR [N]] (x/N), list [LOC], set R3 x10 | set PC LOC | set ADDR VALUE, run,
restart, help, quit (abbreviations b d s n c r). LOC is a label (from the .asm or .sym) or an
address. See docs/debugging.md. Between stops the program
runs on its engine at full speed. The program's keys come from --input, else from stdin
when the commands come from --commands, else from the terminal. Commands piped into stdin
are echoed like those of --commands.
"""


@app.command(epilog=DEBUG_HELP)
def debug(
    programs: Programs,
    engine: EngineName = "regions",
    edition: Edition = 3,
    pc: Pc = None,
    max_steps: MaxSteps = None,
    input_file: InputFile = None,
    full_system: FullSystem = False,
    os_image: OsImage = None,
    commands: Annotated[
        Path | None,
        typer.Option(
            "--commands",
            help="Run the debugger commands in FILE (echoed), then quit; the first that fails ends"
            " it with exit code 1.",
            dir_okay=False,
        ),
    ] = None,
    keep_going: Annotated[
        bool, typer.Option("--keep-going", help="With --commands: go on after a command that fails.")
    ] = False,
    history: Annotated[
        int,
        typer.Option(
            "--history",
            min=0,
            metavar="N",
            help="How many instructions back the reverse commands reach (0: keep no history).",
        ),
    ] = DEFAULT_HISTORY,
) -> None:
    """Debug a program: breakpoints, watches, stepping, registers and memory, at a prompt."""
    from lc3jit.tools.debugger import Debugger, interact

    start_pc = _address(pc, "--pc")
    keys_from_stdin = input_file is not None or commands is not None or sys.stdin.isatty()

    def make() -> Simulator:
        console = (
            Console.for_process(str(input_file) if input_file else None)
            if keys_from_stdin
            else Console(None, sys.stdout.buffer)
        )
        return Simulator(
            *programs,
            engine=engine,
            edition=edition,
            os=os_image or full_system,
            pc=start_pc,
            console=console,
            warn=_warn,
        )

    try:
        debugger = Debugger(make, sys.stdout, max_steps, history)
        script = commands.open() if commands is not None else None
    except LC3Error as e:
        raise fail(str(e)) from None
    except OSError as e:  # the --input or --commands file
        raise fail(f"{e.filename}: {e.strerror or e}") from None
    if script is None and not sys.stdin.isatty():  # commands piped in: a transcript, as from a file
        code = interact(debugger, sys.stdin, keep_going=keep_going)
    else:
        with script if script is not None else contextlib.nullcontext():
            code = interact(debugger, script, str(Path.home() / ".lc3jit_history"), keep_going)
    if code:
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
    try:
        assembly = assemble_file(source)
    except LC3Error as e:
        raise fail(str(e)) from None
    for warning in assembly.warning_texts():
        _warn(warning)
    try:
        write_outputs(assembly, output or source.with_suffix(".obj"))
    except OSError as e:
        raise fail(f"{e.filename}: {e.strerror or e}") from None


def _warn(message: str) -> None:
    typer.echo(message, err=True)


def _range(text: str | None, symbols: Callable[[], dict[str, int]] | None = None) -> tuple[int, int]:
    """--range A:B as [start, stop); either end may be left out; with symbols (the program's
    labels, upper-cased, read when an end is no number), an end may be a label or LABEL+N."""
    if text is None:
        return 0, MEMORY_WORDS
    start, colon, stop = text.partition(":")
    if not colon:
        raise typer.BadParameter(f"expected START:STOP, found {text!r}")

    def end(part: str, default: int) -> int:
        if not part:
            return default
        try:
            return parse_address(part)
        except ValueError as e:
            label, plus, offset = part.upper().partition("+")
            known = symbols() if symbols is not None else {}
            if label not in known or (plus and not offset.isdigit()):
                raise typer.BadParameter(f"{e} (nor a label of the program)") from None
            return min(known[label] + (int(offset) if plus else 0), MEMORY_WORDS)

    return end(start, 0), end(stop, MEMORY_WORDS)


def _symbols(programs: list[Path]) -> dict[str, int]:
    """The labels of the programs, upper-cased (none for a compiled one, or one that will not load)."""
    if _is_compiled(programs):
        return {}
    try:
        return {name.upper(): a for image in load_images(programs) for name, a in image.symbols.items()}
    except LC3Error:
        return {}


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
    start, stop = _range(address_range)
    try:
        if program.suffix.lower() == ".asm":
            assembly = assemble_file(program)
            images, code = assembly.images, assembly.code
        else:
            images, code = load_file(program, _warn), None
    except LC3Error as e:
        raise fail(str(e)) from None
    parts = [part for part in (_clip(image, start, stop) for image in images) if part is not None]
    if not parts:
        raise fail(f"{program}: no words in {format_range(start, stop)}")
    for part in parts:
        write_listing(part, sys.stdout, code)


def format_range(start: int, stop: int) -> str:
    return f"x{start:04X}:x{stop:04X}" if stop < MEMORY_WORDS else f"x{start:04X}:"


def _dumpable(value: str) -> str:
    if value not in DUMPABLE:
        raise typer.BadParameter(f"no dump for engine {value!r}; choose from {', '.join(DUMPABLE)}")
    return value


def _format(value: str) -> str:
    if value not in ("text", "json"):
        raise typer.BadParameter("the format is text or json")
    return value


@app.command()
def dump(
    ctx: typer.Context,
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
        str,
        typer.Option("--engine", callback=_dumpable, help="The translator to show (run's own by default)."),
    ] = "regions",
    edition: Edition = 3,
    html_file: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Write the translation as one self-contained page to this file: the control-flow graph,"
            " each block's source beside its bytecode (see docs/inspection.md).",
        ),
    ] = None,
) -> None:
    """Show each translated block: LC-3 disassembly, exits, Python bytecode (LC-3 addresses as
    line numbers), and a summary. JSON is documented in lc3jit/tools/dump.py."""
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
        compiled = _compiled(ctx, programs, edition)
        images = load_images(programs) if compiled is None else list(compiled.images)
        console = CapturedConsole.from_file(input_file)
    except LC3Error as e:
        raise fail(str(e)) from None
    except OSError as e:  # the --input file
        raise fail(f"{e.filename}: {e.strerror or e}") from None
    if compiled is None:
        machine, build = boot(images, console, edition), None
    else:
        machine = boot(images, console, compiled.edition, compiled.pc, compiled.system)
        build = _saved_build(compiled, engine)
        if output_format == "text":
            from lc3jit.translator.compile import describe

            typer.echo(f"compiled file {programs[0]}, by lc3jit {compiled.version}")
            for line in describe(compiled):
                typer.echo(line)
            typer.echo("")
    result = inspect_program(machine, images, str(programs[0]), engine, run_first, max_steps, build)
    blocks = result.selected(start, stop)
    if not blocks:
        raise fail(f"{programs[0]}: no translated block in {format_range(start, stop)}")
    if html_file is not None:
        from lc3jit.tools.page import render

        try:
            html_file.write_text(render(result), encoding="utf-8")
        except OSError as e:
            raise fail(f"{html_file}: {e.strerror or e}") from None
    elif output_format == "json":
        sys.stdout.write(dump_json(result, blocks))
    else:
        write_text(result, blocks, sys.stdout)


def _saved_build(compiled: Compiled, engine: str) -> Callable[[Machine, bool], Dispatcher] | None:
    """Builds the dumped engine from the compiled translations, its records filled for the dump."""
    saved = compiled.engines.get(engine)
    if saved is None:
        return None
    return lambda machine, profile: saved_dispatcher(
        machine, saved, recording_translator(machine, engine, saved), profile
    )


def _engine_list(value: str) -> list[str]:
    """Engine names, each perhaps with @LOC: that engine with a breakpoint at LOC."""
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name.partition(bench.BREAK)[0] not in ENGINES]
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
        str | None,
        typer.Option(
            "--engines",
            help="Comma-separated engine names (default: all); ENGINE@LOC runs ENGINE under the debugger"
            " with a breakpoint at LOC (a label or address), continued through at each hit.",
        ),
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", min=1, help="Runs of each engine; the median counts.")
    ] = 3,
    floor: Annotated[
        bool,
        typer.Option("--floor", help="Also time PROG.py beside PROG: hand-written Python, no emulation."),
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Write the results as JSON (see lc3jit/tools/bench.py).")
    ] = False,
    process: Annotated[
        bool,
        typer.Option(
            "--process",
            help="Time each run as a whole `lc3jit run` process, start-up included (CPU seconds).",
        ),
    ] = False,
    edition: Edition = 3,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot", help="Also draw the results as a chart, an SVG file (see docs/inspection.md)."
        ),
    ] = None,
    html_file: Annotated[
        Path | None,
        typer.Option("--html", help="Also write the chart and the table as one self-contained page."),
    ] = None,
) -> None:
    """Time every engine on each program (alternating runs, same input), checking that all end
    with the same output, state, memory and instruction count; a difference is exit code 1."""
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
    if plot is not None or html_file is not None:
        from lc3jit.tools.chart import chart_svg
        from lc3jit.tools.page import bench_page

        try:
            if plot is not None:
                plot.write_text(chart_svg(results), encoding="utf-8")
            if html_file is not None:
                html_file.write_text(bench_page(results), encoding="utf-8")
        except OSError as e:
            raise fail(f"{e.filename}: {e.strerror or e}") from None


GradeOut = Annotated[Path, typer.Option("--out", help="Folder for scores.csv, scores.json, scores.html.")]
GradeJobs = Annotated[int, typer.Option("--jobs", "-j", min=0, help="Worker processes (0: one per core).")]
GradeCoverage = Annotated[
    bool, typer.Option(help="Name the lines each failing test never ran (runs on the interpreter).")
]
PytestOptions = Annotated[
    list[str] | None,
    typer.Option("--pytest", help="An argument for pytest, e.g. --pytest=--lc3-time-limit=2; repeatable."),
]


@app.command()
def grade(
    tests: Annotated[Path, typer.Argument(help="The pytest tests (file or folder) that grade one program.")],
    submissions: Annotated[list[Path], typer.Argument(help="The students' programs (.asm, .obj, ...).")],
    out: GradeOut = Path("grades"),
    jobs: GradeJobs = 0,
    coverage: GradeCoverage = True,
    pytest_options: PytestOptions = None,
) -> None:
    """Grade a whole class: every submission against the tests, in parallel by submission
    (see lc3jit/tools/grade.py); a submission that does not assemble, loops, floods its
    output or crashes costs only its own score."""
    from lc3jit.tools.grade import grade_class

    for path in (tests, *submissions):
        if not path.exists():
            raise fail(f"{path}: no such file or folder")
    options = [*(["--lc3-coverage"] if coverage else []), *(pytest_options or [])]
    try:
        records = grade_class(tests, submissions, out, jobs or os.cpu_count() or 1, options)
    except RuntimeError as e:
        raise fail(str(e)) from None
    scores = ", ".join(f"{Path(r.program).name} {r.score:g}/{r.max_score:g}" for r in records[:5])
    more = f", ... ({len(records)} in all)" if len(records) > 5 else ""
    typer.echo(f"{scores}{more}\nwritten: {out / 'scores.csv'}, {out / 'scores.json'}, {out / 'scores.html'}")


@app.command()
def dap(
    port: Annotated[
        int | None, typer.Option("--port", help="Serve on this TCP port (127.0.0.1) instead of stdio.")
    ] = None,
) -> None:
    """The Debug Adapter Protocol over stdio, for VS Code, Neovim and Emacs (docs/editors.md)."""
    from lc3jit.tools.dap import main as dap_main

    raise typer.Exit(dap_main(port))


@app.command()
def lsp() -> None:
    """A language server for LC-3 assembly over stdio (needs lc3jit[editor]; docs/editors.md)."""
    from lc3jit.tools.lsp import main as lsp_main

    raise typer.Exit(lsp_main())


@app.command()
def version() -> None:
    """Print the version of lc3jit and of Python."""
    typer.echo(f"lc3jit {__version__} on Python {sys.version.split()[0]}")


def main() -> None:
    """Every command through typer; output that cannot be written ends it as `run` ends."""
    try:
        if sys.stdout is None:  # descriptor 1 closed: print() would drop every line silently
            raise OSError(errno.EBADF, "stdout is closed")
        app()
    except OSError as e:
        from lc3jit.launch import output_failed

        sys.exit(output_failed(e))
