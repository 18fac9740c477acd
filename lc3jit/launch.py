"""The `lc3jit` entry point: a plain `lc3jit run` starts without the CLI library.

Typer (with pydantic and rich behind it) costs about 0.15 s CPU to import and to build
the command line, ten times a short program's run. So `run` with arguments of the usual
shapes is parsed without it (`lc3jit/run_options.py`, the one table of run's options), by
rules narrower than typer's: every option named in full, each
at most once, values that typer would take as they are. Anything else — help, a typo, an
abbreviation, a value typer would reject or convert, `--` — goes to the typer CLI
(`lc3jit.cli`), which then parses the whole command line itself, so what a user sees
for it is typer's. The command's work (`run_program`) is the same function either way;
a test runs each shape both ways and compares what a user sees.
"""

from __future__ import annotations

import gc
import sys

from lc3jit.run_options import parse_run
from lc3jit.runner import output_failed, run_program


def main() -> None:
    """`lc3jit`: a plain run here, everything else through the typer CLI."""
    args = sys.argv[1:]
    options = parse_run(args[1:]) if args[:1] == ["run"] else None
    if options is None:
        from lc3jit.cli import main as typer_main

        typer_main()
        return
    try:
        code = run_program(options)
    except KeyboardInterrupt:  # as typer ends a command interrupted outside the run
        code = 130
    except OSError as e:
        code = output_failed(e)
    # The process ends here: whatever is alive (the machine, the translations, the branch
    # tables of 3 x 131,072 entries) is frozen out of the collection Python makes at exit,
    # which would only traverse it: 3-6 ms of CPU, a third of a short run's.
    # Everything the run wrote was written and closed above.
    gc.freeze()
    sys.exit(code)
