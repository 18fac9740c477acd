"""`dap` and `lsp`: the servers an editor starts (docs/editors.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from lc3jit.cli.common import command


@command()
def dap(
    port: Annotated[
        int | None,
        typer.Option("--port", metavar="PORT", help="Serve on this TCP port (127.0.0.1) instead of stdio."),
    ] = None,
) -> None:
    """The Debug Adapter Protocol over stdio, for VS Code, Neovim and Emacs (docs/editors.md)."""
    from lc3jit.editors.dap import main as dap_main

    raise typer.Exit(dap_main(port))


@command()
def lsp() -> None:
    """A language server for LC-3 assembly over stdio (needs lc3jit[editor]; docs/editors.md)."""
    from lc3jit.editors.lsp import main as lsp_main

    raise typer.Exit(lsp_main())
