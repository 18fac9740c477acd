"""`lc3jit web serve`: the built site over HTTP on 127.0.0.1, for one user's browser.

Only files under the site's folder are served, by GET or HEAD: a path with `..`, a
backslash, a NUL or a link leading outside is answered 404, and a request that does not
come whole within TIMEOUT seconds is dropped. Files are sent with the types browsers need
(`.mjs` as JavaScript, `.wasm` as WebAssembly for streaming compilation).
"""

from __future__ import annotations

import http.server
import os
from functools import partial
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlsplit

TIMEOUT = 30.0
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
        return super().send_head()

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        self.send_error(404)
        return None

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the terminal is the user's."""


def make_server(directory: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """A server of directory on 127.0.0.1:port (0: a free port), not yet serving."""
    handler = partial(SiteHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server
