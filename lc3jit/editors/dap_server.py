"""Where `lc3jit dap` listens: stdio, a Unix socket only its user can reach, or TCP with a secret.

A debug adapter reads the files a launch names with its user's rights, so on a machine
others share (a lab server) nobody else may talk to it:

- stdio: the editor started the adapter; nobody else holds its pipes.
- `--socket PATH`: a Unix socket, created mode 0600 in a directory only the user can
  enter (made 0700 when missing, refused when others can enter it), and every connection's
  peer checked to be the same user (SO_PEERCRED) besides.
- `--port N`: TCP on 127.0.0.1, which every local user can reach, so a client must
  present the adapter's token (LC3JIT_DAP_TOKEN, or one made at each start and printed or
  written to a 0600 `--token-file`) in its launch arguments before any request but
  `initialize` (static capabilities; nothing read) is served. A wrong token ends the
  connection; compared in constant time.

A connection that has not authenticated within AUTH_SECONDS is cut off, and at most
MAX_CONNECTIONS are served at once (each a session of its own, on its own thread), so a
client that stalls or floods cannot hold the adapter from its user.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
import socket
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from lc3jit.editors.dap import Adapter
from lc3jit.editors.dap_wire import Channel, Message

#: The environment variable that holds a token chosen by the user.
TOKEN_VARIABLE = "LC3JIT_DAP_TOKEN"
#: The shortest token taken from the environment.
MIN_TOKEN = 16
#: Seconds a TCP client has to authenticate.
AUTH_SECONDS = 10.0
#: Requests refused before authentication, after which the connection is closed.
MAX_REFUSALS = 8
#: Connections served at once; more are closed at once.
MAX_CONNECTIONS = 8


class ServerError(Exception):
    """The adapter cannot listen as asked: one line for the user."""


class TokenChannel(Channel):
    """A channel that passes on only `initialize` until a launch presents the token."""

    def __init__(
        self, incoming: BinaryIO, outgoing: BinaryIO, token: str, admitted: Callable[[], None]
    ) -> None:
        super().__init__(incoming, outgoing)
        self._token = token.encode()
        self._admitted = admitted
        self.authenticated = False
        self._refusals = 0

    def read(self) -> Message | None:
        while True:
            message = super().read()
            if message is None or self.authenticated:
                return message
            if message.get("type") != "request" or message.get("command") == "initialize":
                return message
            args = message.get("arguments")
            given = args.pop("token", None) if isinstance(args, dict) else None
            if message.get("command") == "launch" and isinstance(given, str):
                if hmac.compare_digest(given.encode(), self._token):
                    self.authenticated = True
                    self._admitted()
                    return message
                self.fail(message, "wrong token: this adapter takes the token it was started with")
                return None
            self.fail(
                message, f"this adapter needs its token: give it as `token` in the launch ({TOKEN_VARIABLE})"
            )
            self._refusals += 1
            if self._refusals >= MAX_REFUSALS:
                return None


def serve_stdio() -> None:
    """One session over stdin and stdout. What else would write to stdout (a stray print)
    goes to stderr instead, so that nothing breaks the protocol's framing."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    Adapter(Channel(sys.stdin.buffer, out)).serve()


def listen_unix(path: Path) -> socket.socket:
    """A Unix socket at `path`, mode 0600, in a directory only this user can enter."""
    directory = path.parent
    with contextlib.suppress(FileExistsError):
        directory.mkdir(mode=0o700)
    try:
        info = os.stat(directory)
    except OSError as e:
        raise ServerError(f"{directory}: {e.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise ServerError(f"{directory}: not a directory only you can enter (yours, mode 700)")
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise ServerError(f"{path}: exists and is not a socket")
        if _answers(path):
            raise ServerError(f"{path}: another adapter is listening there")
        path.unlink()  # left by an adapter that ended without removing it
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mask = os.umask(0o177)  # created 0600: there is no moment when others could connect
    try:
        server.bind(str(path))
    except OSError:
        server.close()
        raise
    finally:
        os.umask(mask)
    os.chmod(path, 0o600)
    server.listen()
    return server


def _answers(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def same_user(connection: socket.socket) -> bool:
    """Is the peer of a Unix socket this user (where the system says; True where it cannot)?"""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True  # the socket's mode and directory still keep others out
    credentials = connection.getsockopt(socket.SOL_SOCKET, option, 12)
    uid = int.from_bytes(credentials[4:8], sys.byteorder)
    return uid == os.getuid()


def make_token() -> tuple[str, bool]:
    """The token: the user's (from the environment), or a new one; and whether it is new."""
    chosen = os.environ.get(TOKEN_VARIABLE)
    if chosen is None:
        return secrets.token_urlsafe(24), True
    if len(chosen) < MIN_TOKEN:
        raise ServerError(f"{TOKEN_VARIABLE} is too short: at least {MIN_TOKEN} characters")
    return chosen, False


def write_token(path: Path, token: str) -> None:
    """The token in a file only this user can read (replacing one of this user's)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    except OSError as e:
        raise ServerError(f"{path}: {e.strerror}") from None
    with os.fdopen(fd, "w") as f:
        if os.fstat(fd).st_uid != os.getuid():
            raise ServerError(f"{path}: belongs to another user")
        os.fchmod(fd, 0o600)
        f.write(token + "\n")


class Listener:
    """Accepts connections and serves each as a session on a thread of its own."""

    def __init__(self, server: socket.socket, token: str | None) -> None:
        self.server = server
        self.token = token
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.stopped = threading.Event()

    def stop(self) -> None:
        """End `serve_forever`: its blocked accept wakes with an error, which it then ignores."""
        self.stopped.set()
        with contextlib.suppress(OSError):
            self.server.shutdown(socket.SHUT_RDWR)

    def serve_forever(self) -> None:
        """Serve until `stop` (from another thread) ends the loop."""
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                if self.stopped.is_set():
                    return
                raise
            if connection.family == socket.AF_UNIX and not same_user(connection):
                connection.close()
                continue
            if not self.slots.acquire(blocking=False):
                connection.close()
                continue
            threading.Thread(
                target=self.session, args=(connection,), name="lc3jit-dap-session", daemon=True
            ).start()

    def session(self, connection: socket.socket) -> None:
        try:
            with connection, connection.makefile("rb") as incoming, connection.makefile("wb") as outgoing:
                if self.token is None:
                    Adapter(Channel(incoming, outgoing)).serve()
                    return
                deadline = threading.Timer(AUTH_SECONDS, _cut, args=(connection,))
                deadline.start()
                try:
                    Adapter(TokenChannel(incoming, outgoing, self.token, deadline.cancel)).serve()
                finally:
                    deadline.cancel()
        except OSError:
            pass  # the client went away
        finally:
            self.slots.release()


def _cut(connection: socket.socket) -> None:
    """End a connection from another thread: its reads see the end of the stream."""
    with contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_RDWR)


@contextlib.contextmanager
def unix_server(path: Path) -> Iterator[socket.socket]:
    server = listen_unix(path)
    try:
        yield server
    finally:
        server.close()
        with contextlib.suppress(OSError):
            path.unlink()


def main(port: int | None = None, socket_path: Path | None = None, token_file: Path | None = None) -> int:
    """`lc3jit dap [--socket PATH | --port N [--token-file PATH]]`: the exit code."""

    def say(line: str) -> None:
        print(f"lc3jit dap: {line}", file=sys.stderr, flush=True)

    if port is None and socket_path is None:
        serve_stdio()
        return 0
    try:
        if socket_path is not None:
            with unix_server(socket_path) as server:
                say(f"listening on {socket_path}")
                Listener(server, None).serve_forever()
        else:
            token, new = make_token()
            if token_file is not None:
                write_token(token_file, token)
            with socket.create_server(("127.0.0.1", port)) as server:
                say(f"listening on 127.0.0.1:{server.getsockname()[1]}")
                if new and token_file is None:
                    say(f"token {token}")
                Listener(server, token).serve_forever()
    except ServerError as e:
        print(f"lc3jit: dap: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        where = socket_path if socket_path is not None else f"port {port}"
        print(f"lc3jit: dap: {where}: {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
