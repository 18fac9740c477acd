"""`dap` and `lsp`, the servers an editor starts (docs/editors.md), and `web build` and
`web serve`, the editor and debugger in a web page (docs/web.md)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer

from lc3jit.cli.common import app, command, fail
from lc3jit.cli.typer_adapter import PlainCommand, PlainGroup


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


web = typer.Typer(
    cls=PlainGroup,
    no_args_is_help=True,
    help="lc3jit in a web page, run by Pyodide: an editor, a terminal, the debugger (docs/web.md).",
)
app.add_typer(web, name="web")

PYODIDE = typer.Option(
    "--pyodide",
    metavar="URL_OR_PATH",
    help="Where the page loads Pyodide 314.x from: a URL, or a local folder (the npm package"
    " `pyodide`) copied into the site. Default: Pyodide's CDN.",
)


@web.command("build", cls=PlainCommand)
def web_build(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The folder to write the site into.")],
    pyodide: Annotated[str | None, PYODIDE] = None,
) -> None:
    """Write the web page as a static site (for any static host, or `web serve --dir`)."""
    from lc3jit.web.site import SNAPSHOT, SiteError, build_site

    try:
        url = build_site(directory, pyodide)
    except SiteError as error:
        raise fail(str(error)) from None
    snapshot = f", and its memory snapshot {SNAPSHOT}" if (directory / SNAPSHOT).is_file() else ""
    typer.echo(f"{directory}/index.html (Pyodide from {url}{snapshot})")


@web.command("serve", cls=PlainCommand)
def web_serve(
    port: Annotated[
        int,
        typer.Option("--port", metavar="PORT", min=0, max=65535, help="127.0.0.1:PORT (0: any free one)."),
    ] = 8000,
    directory: Annotated[
        Path | None,
        typer.Option("--dir", metavar="DIR", help="Serve this site (`web build`) instead of building one."),
    ] = None,
    pyodide: Annotated[str | None, PYODIDE] = None,
) -> None:
    """Serve the web page on 127.0.0.1 until Ctrl-C."""
    import tempfile

    from lc3jit.web.serve import make_server
    from lc3jit.web.site import SiteError, build_site

    with tempfile.TemporaryDirectory(prefix="lc3jit-web-") as built:
        if directory is None:
            directory = Path(built)
            try:
                build_site(directory, pyodide)
            except SiteError as error:
                raise fail(str(error)) from None
        elif pyodide is not None:
            raise typer.BadParameter("--pyodide goes with a site built here, not with --dir")
        elif not (directory / "index.html").is_file():
            raise fail(f"{directory}: no index.html (`lc3jit web build {directory}` writes one)")
        try:
            server = make_server(directory, port)
        except OSError as error:
            raise fail(f"127.0.0.1:{port}: {error.strerror or error}") from None
        with server:
            typer.echo(f"Serving http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C ends)", err=True)
            with contextlib.suppress(KeyboardInterrupt):
                server.serve_forever()
