"""`lc3jit dap` against hostile clients: every request gets a response, and the adapter lives on.

Requests with missing or mistyped arguments, files that are not files (a directory, a
FIFO, /dev/zero, one too large), frames too large or not JSON; then a fuzzing test of
random and mutated requests and frames, seeded and bounded in time (a few seconds; more
with `pytest --slow`).
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from lc3jit.editors.dap import Adapter
from lc3jit.editors.dap_wire import MAX_MESSAGE, Channel, Message
from lc3jit_runtime.loader import MAX_TEXT_BYTES
from tests.test_dap import ECHO, FIB, TIMEOUT
from tests.test_dap_server import connected, listening


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def request(seq: int, command: str, **arguments: Any) -> bytes:
    return frame(
        json.dumps({"seq": seq, "type": "request", "command": command, "arguments": arguments}).encode()
    )


def serve(data: bytes) -> list[Message]:
    """The messages the adapter sends for this input, served to its end (on a thread, so
    that a hang fails the test rather than the run)."""
    out = io.BytesIO()
    adapter = Adapter(Channel(io.BytesIO(data), out))  # type: ignore[arg-type]
    failures: list[BaseException] = []

    def run() -> None:
        try:
            adapter.serve()
        except BaseException as e:  # what the test reports: the adapter died
            failures.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    assert not thread.is_alive(), "the adapter hung"
    assert not failures, f"the adapter died: {failures[0]!r}"
    reader = Channel(io.BytesIO(out.getvalue()), io.BytesIO())  # type: ignore[arg-type]
    messages = []
    while (message := reader.read()) is not None:
        messages.append(message)
    return messages


def responses(messages: list[Message]) -> dict[int, Message]:
    answered: dict[int, Message] = {}
    for message in messages:
        if message["type"] == "response":
            assert message["request_seq"] not in answered, "two responses to one request"
            answered[message["request_seq"]] = message
    return answered


def console(messages: list[Message]) -> str:
    return "".join(m["body"]["output"] for m in messages if m.get("event") == "output")


def test_configuration_done_after_a_failed_launch_is_an_error() -> None:
    answered = responses(
        serve(
            request(1, "launch", program="/nonexistent/x.asm")
            + request(2, "configurationDone")
            + request(3, "initialize")
        )
    )
    assert not answered[1]["success"] and "x.asm" in answered[1]["message"]
    assert answered[2]["message"] == "no program is loaded: launch one first"
    assert answered[3]["success"]


def _fifo(tmp_path: Path) -> str:
    os.mkfifo(tmp_path / "fifo")
    return str(tmp_path / "fifo")


def _too_large(tmp_path: Path) -> str:
    with open(tmp_path / "large", "wb") as f:
        f.truncate(MAX_TEXT_BYTES + 1)  # sparse: nothing written
    return str(tmp_path / "large")


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"pc": [1, 2]}, "pc must be an address"),
        ({"pc": {"x": 1}}, "pc must be an address"),
        ({"pc": 70000}, "pc must be a whole number from 0 to 65535, not 70000"),
        ({"edition": "3"}, "edition must be a whole number from 2 to 3, not '3'"),
        ({"engine": "fast"}, "engine must be one of"),
        ({"maxSteps": -1}, "maxSteps must be a whole number"),
        ({"maxSteps": 1.5}, "maxSteps must be a whole number"),
        ({"stopOnEntry": "yes"}, "stopOnEntry must be true or false, not 'yes'"),
        ({"program": 5}, "program must be a non-empty string"),
        ({"programs": "b.obj"}, "programs must be a list"),
        ({"cwd": ["/"]}, "cwd must be a non-empty string"),
        ({"input": "a\0b"}, "input must be a non-empty string"),
        ({"input": "DIR"}, "Is a directory"),
        ({"input": "/dev/zero"}, "/dev/zero: not a regular file"),
        ({"input": "FIFO"}, "fifo: not a regular file"),
        ({"input": "LARGE"}, f"large: too large: more than {MAX_TEXT_BYTES:,} bytes"),
    ],
)
def test_a_bad_launch_is_one_error_and_the_adapter_goes_on(
    arguments: dict[str, Any], error: str, tmp_path: Path
) -> None:
    files = {
        "DIR": lambda: str(tmp_path),
        "FIFO": lambda: _fifo(tmp_path),
        "LARGE": lambda: _too_large(tmp_path),
    }
    if arguments.get("input") in files:
        arguments = {"input": files[arguments["input"]]()}
    launch = {"program": str(ECHO), **arguments}
    began = time.process_time()
    messages = serve(
        request(1, "launch", **launch) + request(2, "configurationDone") + request(3, "initialize")
    )
    assert time.process_time() - began < 2  # nothing read from /dev/zero or the large file
    answered = responses(messages)
    assert not answered[1]["success"] and error in answered[1]["message"], answered[1]["message"]
    assert not answered[2]["success"]
    assert answered[3]["success"]


@pytest.mark.parametrize(
    "body",
    [
        {"seq": 1, "type": "request", "command": "launch", "arguments": [1, 2]},
        {"seq": 1, "type": "request", "command": "setBreakpoints", "arguments": {"source": 5}},
        {
            "seq": 1,
            "type": "request",
            "command": "setBreakpoints",
            "arguments": {"source": {"path": 1}, "breakpoints": 3},
        },
        {
            "seq": 1,
            "type": "request",
            "command": "readMemory",
            "arguments": {"memoryReference": None, "count": "x"},
        },
        {"seq": 1, "type": "request", "command": ["launch"]},
        {"seq": 1, "type": "request", "command": "__init__"},
    ],
)
def test_mistyped_requests_get_error_responses(body: dict[str, Any]) -> None:
    answered = responses(serve(frame(json.dumps(body).encode()) + request(2, "initialize")))
    assert not answered[1]["success"] and answered[1]["message"]
    assert answered[2]["success"]


def test_frames_too_large_or_not_json() -> None:
    messages = serve(b"Content-Length: 100000000000\r\n\r\n" + request(2, "initialize"))
    assert f"the most is {MAX_MESSAGE:,}" in console(messages)
    assert not responses(messages)  # the framing is lost: the session ends
    messages = serve(frame(b"{not json") + frame(b"[1]") + request(3, "initialize"))
    assert "not JSON" in console(messages) and "not a JSON object" in console(messages)
    assert responses(messages)[3]["success"]  # the next message is read
    messages = serve(b"X-Long: " + b"a" * 5000 + b"\r\n")
    assert "header line longer than" in console(messages)


def test_stdio_adapter_refuses_a_huge_frame_without_a_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "lc3jit", "dap"],
        input=b"Content-Length: 100000000000\r\n\r\n",
        capture_output=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0 and b"Traceback" not in result.stderr
    assert b"the most is" in result.stdout


def test_port_serves_the_next_client_after_the_crashes_of_before(tmp_path: Path) -> None:
    with listening(None) as address:
        for arguments in ({"pc": [1]}, {"input": str(tmp_path)}, {"program": "/nonexistent.asm"}):
            with connected(address) as client:
                assert not client.call("launch", **{"program": str(FIB), **arguments})["success"]
                assert not client.call("configurationDone")["success"]
        with connected(address) as client:
            client.launch(FIB)
            client.request("configurationDone")
            assert client.event("exited")["exitCode"] == 0


# The fuzzing test: requests the adapter knows and others, with arguments of every JSON type
# where it expects a few; then the frames of such requests mutated.
COMMANDS = [
    "initialize", "launch", "configurationDone", "setBreakpoints", "setFunctionBreakpoints",
    "setInstructionBreakpoints", "setDataBreakpoints", "dataBreakpointInfo", "continue", "next",
    "stepIn", "stepOut", "stepBack", "reverseContinue", "pause", "threads", "stackTrace", "scopes",
    "variables", "setVariable", "evaluate", "readMemory", "writeMemory", "disassemble", "restart",
    "terminate", "source", "goto", "",
]  # fmt: skip
KEYS = [
    "program", "programs", "input", "pc", "cwd", "engine", "edition", "stopOnEntry", "maxSteps", "os",
    "source", "breakpoints", "lines", "line", "path", "name", "threadId", "frameId", "variablesReference",
    "value", "expression", "context", "memoryReference", "count", "offset", "data", "instructionCount",
    "instructionOffset", "dataId", "accessType", "condition", "hitCondition", "logMessage",
]  # fmt: skip


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(12 if depth < 2 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, 1, -1, 3, 0x3000, 0xFFFF, 1 << 40, -(1 << 70)])
    if kind == 3:
        return rng.random() * 1e6
    if kind == 4:
        return rng.choice(
            ["x3000", "R0", "R0 + 1", "M[x3000]", "MAIN", "==", "[", "#-99999999999999999999999"]
        )
    if kind == 5:
        return rng.choice([str(FIB), str(ECHO), "/dev/zero", "/", "/nonexistent", "5", "R9"])
    if kind == 6:
        return "".join(chr(rng.randrange(32, 0x3000)) for _ in range(rng.randrange(6)))
    if kind == 7:
        return rng.randrange(-5, 100)
    if kind in (8, 9):
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(KEYS): _value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _request(rng: random.Random, seq: int) -> bytes:
    command = rng.choice(COMMANDS)
    arguments: Any = {rng.choice(KEYS): _value(rng) for _ in range(rng.randrange(5))}
    if command == "launch" and rng.random() < 0.7:
        arguments["program"] = str(rng.choice([FIB, ECHO]))
        arguments.setdefault("stopOnEntry", True)
    if rng.random() < 0.05:
        arguments = _value(rng)
    return (
        request(seq, command, **arguments)
        if isinstance(arguments, dict)
        else frame(
            json.dumps({"seq": seq, "type": "request", "command": command, "arguments": arguments}).encode()
        )
    )


def _mutated(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        where = rng.randrange(len(data))
        choice = rng.randrange(4)
        if choice == 0:
            data[where] = rng.randrange(256)
        elif choice == 1:
            del data[where : where + rng.randrange(1, 20)]
        elif choice == 2:
            data[where:where] = rng.choice([b"\r\n", b"Content-Length: 99\r\n", b"{", b"\x00", b"9" * 14])
        else:
            data[where:where] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
    return bytes(data)


def test_fuzzing_the_adapter_with_requests_and_frames(pytestconfig: pytest.Config) -> None:
    seconds = 60 if pytestconfig.getoption("--slow") else 3
    rng = random.Random(20261207)
    deadline = time.monotonic() + seconds
    sessions = 0
    while sessions < 40 or time.monotonic() < deadline:  # at least 40 sessions, however loaded the machine
        count = rng.randrange(1, 30)
        sent = [_request(rng, seq) for seq in range(1, count + 1)]
        if sessions % 2:  # well framed: each request answered once
            answered = responses(serve(b"".join(sent) + request(count + 1, "disconnect")))
            assert set(answered) == set(range(1, count + 2)), sessions
        else:  # mutated: whatever is read is answered, and the adapter ends cleanly
            serve(_mutated(rng, b"".join(sent)))
        sessions += 1
