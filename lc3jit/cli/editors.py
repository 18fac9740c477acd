"""`dap` and `lsp`: the servers an editor starts (docs/editors.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lc3jit.cli.common import command


@command()
def dap(
    socket: Annotated[
        Path | None,
        typer.Option(
            "--socket",
            metavar="PATH",
            help="Serve on a Unix socket (mode 0600, in a directory only you can enter) instead of stdio.",
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            "--port",
            metavar="PORT",
            min=0,
            max=65535,
            help="Serve on this TCP port (127.0.0.1); clients give the token in their launch.",
        ),
    ] = None,
    token_file: Annotated[
        Path | None,
        typer.Option("--token-file", metavar="PATH", help="With --port: write the token here (mode 0600)."),
    ] = None,
) -> None:
    """The Debug Adapter Protocol over stdio, for VS Code, Neovim and Emacs (docs/editors.md)."""
    from lc3jit.editors.dap_server import main as dap_main

    if socket is not None and port is not None:
        raise typer.BadParameter("give --socket or --port, not both")
    if token_file is not None and port is None:
        raise typer.BadParameter("--token-file goes with --port")
    raise typer.Exit(dap_main(port, socket, token_file))


@command()
def lsp() -> None:
    """A language server for LC-3 assembly over stdio (needs lc3jit[editor]; docs/editors.md)."""
    from lc3jit.editors.lsp import main as lsp_main

    raise typer.Exit(lsp_main())
