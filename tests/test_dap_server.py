"""`lc3jit dap --socket` and `--port`: only the adapter's user can connect or make it read files.

The adapter reads what a launch names with its user's rights; on a machine others share,
another user must not reach it. Where the tests run as root, a second user (nobody) is
made with subprocess's `user=` and tries: the Unix socket refuses it (its directory, its
mode, its peer check, each on its own), and the TCP adapter without the token never
reads the file it names.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lc3jit.editors import dap_server
from lc3jit.editors.dap_server import Listener
from tests.test_dap import FIB, TIMEOUT, Client

SECRET = "the root-only secret 7f3a"

# What the second user runs: connect, ask, and print what came back (as JSON).
PROBE = r"""
import json, socket, sys
kind, where, program, secret_file = sys.argv[1:5]
token = sys.argv[5] if len(sys.argv) > 5 else None
def frame(seq, command, **arguments):
    body = json.dumps({"seq": seq, "type": "request", "command": command, "arguments": arguments}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body
try:
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(where)
    else:
        s = socket.create_connection(("127.0.0.1", int(where)))
except OSError as e:
    print(json.dumps({"connected": False, "error": type(e).__name__})); sys.exit()
s.settimeout(5)
launch = {"program": program, "input": secret_file}
if token:
    launch["token"] = token
received = b""
try:
    s.sendall(frame(1, "initialize") + frame(2, "launch", **launch) + frame(3, "configurationDone"))
    while b"exited" not in received:
        data = s.recv(65536)
        if not data:
            break
        received += data
except OSError:
    pass
print(json.dumps({"connected": True, "received": received.decode("latin-1")}))
"""


@pytest.fixture
def echo_program(tmp_path: Path) -> Path:
    """A program that prints the keys it reads until a newline (what a launch's input holds)."""
    program = tmp_path / "echo.asm"
    shutil.copy(FIB.parent / "echo.asm", program)
    program.chmod(0o644)
    return program


def start(*args: str) -> tuple[subprocess.Popen[str], list[str]]:
    """`lc3jit dap ARGS` and the lines it says on stderr before serving."""
    process = subprocess.Popen(
        [sys.executable, "-m", "lc3jit", "dap", *args],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    lines = [process.stderr.readline()]  # type: ignore[union-attr]
    assert "listening on" in lines[0], lines[0] + process.stderr.read()  # type: ignore[union-attr]
    return process, lines


@contextlib.contextmanager
def connected(address: str | tuple[str, int]) -> Iterator[Client]:
    """A client of the adapter at a Unix socket's path or a TCP address, hung up at the end
    (its reader sees the end of the stream)."""
    family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as connection:
        connection.settimeout(TIMEOUT)
        connection.connect(address)
        client = Client(connection.makefile("rb"), connection.makefile("wb"))
        try:
            yield client
        finally:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            client.reader.join(TIMEOUT)


@contextlib.contextmanager
def listening(token: str | None) -> Iterator[tuple[str, int]]:
    """A Listener on a port of its own, serving on a thread, stopped at the end: the thread
    must end with it (nothing left accepting on a closed socket)."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        listener = Listener(server, token)
        thread = threading.Thread(target=listener.serve_forever, daemon=True)
        thread.start()
        try:
            yield server.getsockname()
        finally:
            listener.stop()
            thread.join(TIMEOUT)
            assert not thread.is_alive()


def test_port_serves_a_session_to_a_client_with_the_token(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    process, lines = start("--port", "0", "--token-file", str(token_file))
    try:
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text().strip()
        assert len(token) >= 32 and token not in lines[0]
        port = int(lines[0].rsplit(":", 1)[1])
        with connected(("127.0.0.1", port)) as client:
            client.launch(FIB, token=token)
            client.request("configurationDone")
            assert client.event("exited")["exitCode"] == 0
            assert "4181\nHALT\n" in "".join(client.output)
            client.call("disconnect")
    finally:
        process.kill()
        process.wait()


def test_port_without_the_token_serves_nothing_and_reads_nothing(tmp_path: Path, echo_program: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    process, lines = start("--port", "0")
    try:
        port = int(lines[0].rsplit(":", 1)[1])
        token = process.stderr.readline().split("token ", 1)[1].strip()  # type: ignore[union-attr]
        with connected(("127.0.0.1", port)) as client:
            assert client.request("initialize", adapterID="lc3")["supportsConfigurationDoneRequest"]
            refused = client.call("launch", program=str(echo_program), input=str(secret))
            assert not refused["success"] and "token" in refused["message"]
            assert not client.call("evaluate", expression="R0")["success"]
            wrong = client.call(
                "launch", program=str(echo_program), input=str(secret), token=token[:-1] + "?"
            )
            assert not wrong["success"] and "wrong token" in wrong["message"]
            client.reader.join(TIMEOUT)  # the adapter closed the connection
            assert not client.reader.is_alive()
        assert SECRET not in "".join(client.output)
        with connected(("127.0.0.1", port)) as client:  # the adapter serves the next client
            client.launch(echo_program, input=str(secret), token=token)
            client.request("configurationDone")
            client.event("exited")
            assert SECRET in "".join(client.output)  # the same request, with the token, reads it
    finally:
        process.kill()
        process.wait()


def test_a_client_that_never_authenticates_is_cut_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dap_server, "AUTH_SECONDS", 0.3)
    with listening("a-token-of-sixteen-chars") as address:
        stalled = [socket.create_connection(address, timeout=TIMEOUT) for _ in range(12)]
        for connection in stalled[:8]:  # a header begun, and never ended
            connection.sendall(b"Content-Length: 100\r\n")
        began = time.monotonic()
        for connection in stalled:
            with connection:
                assert connection.recv(1) == b""  # closed: by the deadline, or at once (too many)
        assert time.monotonic() - began < 5
        with connected(address) as client:  # the adapter is free again
            assert client.request("initialize")["supportsConfigurationDoneRequest"]


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    """A directory others may enter (as /tmp is), where the adapter makes its own."""
    base = Path(tempfile.mkdtemp(prefix="lc3jit-dap-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def test_socket_serves_a_session_and_is_only_the_users(socket_dir: Path) -> None:
    path = socket_dir / "private" / "dap.sock"
    process, _ = start("--socket", str(path))
    try:
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        with connected(str(path)) as client:
            client.launch(FIB)
            client.request("configurationDone")
            assert client.event("exited")["exitCode"] == 0
            client.call("disconnect")
    finally:
        process.terminate()
        process.wait()


def test_socket_in_a_directory_others_can_enter_is_refused(socket_dir: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "lc3jit", "dap", "--socket", str(socket_dir / "dap.sock")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 1
    assert (
        result.stderr == f"lc3jit: dap: {socket_dir}: not a directory only you can enter (yours, mode 700)\n"
    )
    assert not (socket_dir / "dap.sock").exists()


def other_user() -> tuple[int, str]:
    """nobody's uid and a Python it can run; skips where there is no second user to be."""
    if os.geteuid() != 0:
        pytest.skip("becoming a second user needs root")
    try:
        import pwd

        uid = pwd.getpwnam("nobody").pw_uid
    except (ImportError, KeyError):
        pytest.skip("no user nobody")
    for python in (sys.executable, "/usr/bin/python3"):
        try:
            subprocess.run(
                [python, "-c", "0"], user=uid, group=uid, extra_groups=[], capture_output=True, check=True
            )
        except (OSError, subprocess.CalledProcessError):
            continue
        return uid, python
    pytest.skip("no Python the user nobody may run")


def probe(uid: int | None, python: str, *args: str) -> dict[str, object]:
    """Run PROBE as `uid` (this user: None) and what it saw."""
    identity = {} if uid is None else {"user": uid, "group": uid, "extra_groups": []}
    result = subprocess.run(
        [python, "-I", "-c", PROBE, *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
        **identity,
    )
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_another_user_can_neither_connect_to_the_socket_nor_read_through_the_port(
    socket_dir: Path, echo_program: Path
) -> None:
    uid, python = other_user()
    secret = socket_dir / "secret"
    secret.write_text(SECRET + "\n")
    secret.chmod(0o600)
    socket_dir.chmod(0o755)
    path = socket_dir / "private" / "dap.sock"
    args = (str(echo_program), str(secret))
    echo_program.parent.chmod(0o755)
    process, _ = start("--socket", str(path))
    try:
        assert probe(uid, python, "unix", str(path), *args) == {
            "connected": False,
            "error": "PermissionError",
        }
        path.parent.chmod(0o711)  # were the directory open, the socket's mode keeps others out
        assert probe(uid, python, "unix", str(path), *args) == {
            "connected": False,
            "error": "PermissionError",
        }
        path.chmod(0o666)  # were the socket open too, the adapter hangs up on another user
        assert probe(uid, python, "unix", str(path), *args) == {"connected": True, "received": ""}
        assert SECRET in str(probe(None, python, "unix", str(path), *args)["received"])  # but serves its user
    finally:
        process.terminate()
        process.wait()
    process, lines = start("--port", "0")
    try:
        port = lines[0].rsplit(":", 1)[1].strip()
        token = process.stderr.readline().split("token ", 1)[1].strip()  # type: ignore[union-attr]
        seen = probe(uid, python, "tcp", port, *args)
        assert seen["connected"] and "token" in str(seen["received"])
        assert SECRET not in str(seen["received"])
        seen = probe(uid, python, "tcp", port, *args, "a-guess-at-the-token")
        assert "wrong token" in str(seen["received"]) and SECRET not in str(seen["received"])
        assert SECRET in str(
            probe(uid, python, "tcp", port, *args, token)["received"]
        )  # the token is the key
    finally:
        process.kill()
        process.wait()
