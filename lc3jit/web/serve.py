"""`lc3jit web serve`: the built site over HTTP on 127.0.0.1, for one user's browser.

Only files under the site's folder are served, by GET or HEAD: a path with `..`, a
backslash, a NUL or a link leading outside is answered 404, and a request that does not
come whole within TIMEOUT seconds is dropped. Files are sent with the types browsers need
(`.mjs` as JavaScript, `.wasm` as WebAssembly for streaming compilation), and the page's
memory snapshot, which is gzipped, as Content-Encoding: gzip, so that the browser inflates
it as it comes, off the page's worker's thread.
"""

from __future__ import annotations

import http.server
import os
import sys
from functools import partial
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlsplit

from lc3jit.web.site import SNAPSHOT

TIMEOUT = 30.0
GZIP = b"\x1f\x8b"  # a gzip stream's first bytes
TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".zip": "application/zip",
    ".asm": "text/plain; charset=utf-8",
    ".obj": "application/octet-stream",
    ".sym": "text/plain; charset=utf-8",
    ".hex": "text/plain; charset=utf-8",
    ".bin": "text/plain; charset=utf-8",
}


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Files of the site folder, nothing else; no directory listings."""

    timeout = TIMEOUT
    gzipped = False  # the file sent is the snapshot, gzipped, to a browser that inflates it
    extensions_map: ClassVar[dict[str, str]] = {**http.server.SimpleHTTPRequestHandler.extensions_map}
    extensions_map.update(TYPES)

    def send_head(self):  # type: ignore[no-untyped-def]
        path = unquote(urlsplit(self.path).path)
        if ".." in path.split("/") or "\\" in path or "\0" in path:
            self.send_error(404)
            return None
        local = Path(self.translate_path(self.path))
        root = Path(self.directory).resolve()
        if local.is_dir():
            local = local / "index.html"
        resolved = local.resolve()
        if not resolved.is_file() or not resolved.is_relative_to(root):
            self.send_error(404)
            return None
        self.gzipped = resolved.name == SNAPSHOT and "gzip" in self.headers.get("Accept-Encoding", "")
        if self.gzipped:
            with resolved.open("rb") as file:
                self.gzipped = file.read(2) == GZIP
        return super().send_head()

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        self.send_error(404)
        return None

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        if self.gzipped:
            self.send_header("Content-Encoding", "gzip")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the terminal is the user's."""


class SiteServer(http.server.ThreadingHTTPServer):
    """A thread a request; a browser that goes away mid-answer (a page closed or reloaded
    while the snapshot comes) is no error to print."""

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


def make_server(directory: Path, port: int = 0) -> SiteServer:
    """A server of directory on 127.0.0.1:port (0: a free port), not yet serving."""
    handler = partial(SiteHandler, directory=str(directory))
    server = SiteServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server
