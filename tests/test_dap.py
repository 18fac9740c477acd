"""`lc3jit dap`: every request the adapter supports, through the protocol as a client speaks it.

The adapter runs in this process on a thread, talking through pipes, so that each test
is a few milliseconds; test_dap_client.py drives the real command with Microsoft's own
client, and one test here runs `lc3jit dap --port` as a process.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lc3jit.debugging.debugger import Debugger
from lc3jit.editors.dap import Adapter
from lc3jit.editors.dap_breakpoints import hit_reached
from lc3jit.editors.dap_wire import Channel

EXAMPLES = Path(__file__).parent.parent / "examples"
FIB = EXAMPLES / "fib.asm"  # 20 Fibonacci numbers through PRINT_DEC
ECHO = EXAMPLES / "echo.asm"  # GETC and OUT until a newline
RECURSIVE = EXAMPLES / "bench" / "fib.asm"  # recursion with a stack in R6
TIMEOUT = 30  # seconds: only a hang takes this long


class Client:
    """A DAP client: requests answered in order, events kept until waited for."""

    def __init__(self, incoming: Any, outgoing: Any) -> None:
        self.channel = Channel(incoming, outgoing)
        self.responses: queue.Queue[dict[str, Any]] = queue.Queue()
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.output: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        with contextlib.suppress(ConnectionResetError):  # the adapter hung up with bytes unread
            self._read_until_the_end()

    def _read_until_the_end(self) -> None:
        while (message := self.channel.read()) is not None:
            if message["type"] == "response":
                self.responses.put(message)
            else:
                if message["event"] == "output":
                    self.output.append(message["body"]["output"])
                self.events.put(message)

    def request(self, command: str, **arguments: Any) -> dict[str, Any]:
        """The response's body; AssertionError with the message of a failed request."""
        response = self.call(command, **arguments)
        assert response["success"], response.get("message")
        return response.get("body", {})

    def call(self, command: str, **arguments: Any) -> dict[str, Any]:
        self.channel.send({"type": "request", "command": command, "arguments": arguments})
        response = self.responses.get(timeout=TIMEOUT)
        assert response["command"] == command
        return response

    def event(self, name: str) -> dict[str, Any]:
        """The body of the next event called name (other events before it are passed over)."""
        while True:
            event = self.events.get(timeout=TIMEOUT)
            if event["event"] == name:
                return event.get("body", {})

    def stopped(self) -> dict[str, Any]:
        return self.event("stopped")

    def launch(self, program: Path, **arguments: Any) -> dict[str, Any]:
        capabilities = self.request("initialize", adapterID="lc3", linesStartAt1=True)
        self.request("launch", program=str(program), **arguments)
        self.event("initialized")
        return capabilities

    def break_at(self, path: Path, *breakpoints: dict[str, Any]) -> list[dict[str, Any]]:
        """Set the breakpoints of a source (each {"line": N, ...}); the adapter's replies."""
        return self.request("setBreakpoints", source={"path": str(path)}, breakpoints=list(breakpoints))[
            "breakpoints"
        ]

    def top(self) -> dict[str, Any]:
        return self.request("stackTrace", threadId=1)["stackFrames"][0]

    def registers(self) -> dict[str, str]:
        return {v["name"]: v["value"] for v in self.request("variables", variablesReference=1)["variables"]}


@pytest.fixture
def dap() -> Iterator[Client]:
    to_adapter_r, to_adapter_w = os.pipe()
    from_adapter_r, from_adapter_w = os.pipe()
    adapter_in, adapter_out = os.fdopen(to_adapter_r, "rb"), os.fdopen(from_adapter_w, "wb")
    client_out, client_in = os.fdopen(to_adapter_w, "wb"), os.fdopen(from_adapter_r, "rb")
    adapter = Adapter(Channel(adapter_in, adapter_out))
    thread = threading.Thread(target=adapter.serve, daemon=True)
    thread.start()
    client = Client(client_in, client_out)
    yield client
    if thread.is_alive():
        client.call("disconnect")
    thread.join(TIMEOUT)
    assert not thread.is_alive()
    adapter_out.close()  # the client's reader sees the end, and stops
    client.reader.join(TIMEOUT)
    for stream in (adapter_in, client_out, client_in):
        stream.close()


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_initialize_declares_what_is_supported(dap: Client) -> None:
    capabilities = dap.launch(FIB, stopOnEntry=True)
    for name in (
        "supportsConfigurationDoneRequest",
        "supportsConditionalBreakpoints",
        "supportsHitConditionalBreakpoints",
        "supportsFunctionBreakpoints",
        "supportsDataBreakpoints",
        "supportsReadMemoryRequest",
        "supportsWriteMemoryRequest",
        "supportsDisassembleRequest",
        "supportsInstructionBreakpoints",
        "supportsSetVariable",
    ):
        assert capabilities[name] is True, name
    assert capabilities["supportsStepBack"] is hasattr(Debugger, "reverse_step")


def test_stop_on_entry_shows_the_first_line_and_registers(dap: Client) -> None:
    dap.launch(FIB, stopOnEntry=True)
    dap.request("configurationDone")
    assert dap.stopped()["reason"] == "entry"
    assert dap.request("threads")["threads"] == [{"id": 1, "name": "LC-3"}]
    frame = dap.top()
    assert (frame["source"]["path"], frame["line"]) == (os.path.realpath(FIB), 3)
    assert frame["instructionPointerReference"] == "0x3000"
    scopes = dap.request("scopes", frameId=frame["id"])["scopes"]
    assert [s["name"] for s in scopes] == ["Registers", "Labels"]
    registers = dap.registers()
    assert registers["R0"] == "x0000 (0)"
    assert registers["PC"] == "x3000"
    assert registers["CC"] == "z"
    labels = dap.request("variables", variablesReference=2)["variables"]
    count = next(v for v in labels if v["name"] == "COUNT")
    assert count["value"] == "x300E -> x0014 (20)"  # the label's address, and the word there
    assert count["memoryReference"] == "0x300E"


def test_breakpoint_on_a_comment_line_moves_to_the_next_instruction_and_is_hit(dap: Client) -> None:
    dap.launch(FIB)
    comment = line_of(FIB, "; PRINT_DEC writes")
    moved, beyond = dap.break_at(FIB, {"line": comment}, {"line": 74})
    assert moved["verified"] and moved["line"] == line_of(FIB, "ST R1, SAVE_R1")
    assert moved["instructionReference"] == "0x3010"
    assert not beyond["verified"] and "no instruction" in beyond["message"]
    dap.request("configurationDone")
    stop = dap.stopped()
    assert stop["reason"] == "breakpoint" and stop["hitBreakpointIds"] == [moved["id"]]
    assert dap.top()["line"] == moved["line"]
    frames = dap.request("stackTrace", threadId=1)["stackFrames"]
    assert [f["name"] for f in frames] == ["PRINT_DEC", "NEXT+1"]  # called by the JSR after NEXT


def test_conditional_and_hit_count_breakpoints(dap: Client) -> None:
    dap.launch(FIB)
    line = line_of(FIB, "ST R1, SAVE_R1")
    dap.break_at(FIB, {"line": line, "condition": "R0 == 13"})
    dap.request("configurationDone")
    dap.stopped()
    assert dap.registers()["R0"] == "x000D (13)"
    dap.break_at(FIB, {"line": line, "hitCondition": "3"})
    dap.request("continue", threadId=1)
    dap.stopped()
    assert dap.registers()["R0"] == "x0037 (55 '7')"  # the 3rd hit after the change: 21, 34, 55
    assert hit_reached("% 2", 4) and not hit_reached("== 2", 3) and hit_reached(">= 5", 5)


def test_logpoint_prints_and_does_not_stop(dap: Client) -> None:
    dap.launch(FIB)
    line = line_of(FIB, "ST R1, SAVE_R1")
    dap.break_at(FIB, {"line": line, "logMessage": "n={R0}"})
    dap.request("configurationDone")
    assert dap.event("exited")["exitCode"] == 0
    dap.event("terminated")
    text = "".join(dap.output)
    assert "n=x0000 (0)\n" in text and "n=x1055 (4181)\n" in text


def test_function_and_instruction_breakpoints(dap: Client) -> None:
    dap.launch(FIB)
    reply = dap.request("setFunctionBreakpoints", breakpoints=[{"name": "print_dec"}, {"name": "NOWHERE"}])
    found, missing = reply["breakpoints"]
    assert found["verified"] and found["line"] == line_of(FIB, "ST R1, SAVE_R1")
    assert not missing["verified"]
    dap.request("configurationDone")
    assert dap.stopped()["hitBreakpointIds"] == [found["id"]]
    dap.request("setFunctionBreakpoints", breakpoints=[])
    reply = dap.request(
        "setInstructionBreakpoints", breakpoints=[{"instructionReference": "0x3010", "offset": 2}]
    )
    assert reply["breakpoints"][0]["verified"]
    dap.request("continue", threadId=1)
    dap.stopped()
    assert dap.top()["instructionPointerReference"] == "0x3012"


def test_step_in_over_and_out(dap: Client) -> None:
    dap.launch(FIB)
    call = line_of(FIB, "JSR PRINT_DEC")
    dap.break_at(FIB, {"line": call})
    dap.request("configurationDone")
    dap.stopped()
    dap.request("stepIn", threadId=1)
    assert dap.stopped()["reason"] == "step"
    assert dap.top()["name"] == "PRINT_DEC"
    dap.request("next", threadId=1)
    dap.stopped()
    assert dap.top()["line"] == line_of(FIB, "ST R2, SAVE_R2")
    dap.request("stepOut", threadId=1)
    dap.stopped()
    assert dap.top()["line"] == line_of(FIB, "LD R0, NEWLINE")
    dap.request("next", threadId=1)
    dap.stopped()
    dap.request("next", threadId=1)  # OUT: a TRAP, run through
    dap.stopped()
    assert dap.top()["line"] == line_of(FIB, "ADD R4, R1, R2")
    assert "0\n" in "".join(dap.output)


def test_evaluate_and_write_registers_and_memory(dap: Client) -> None:
    dap.launch(FIB, stopOnEntry=True)
    dap.request("configurationDone")
    dap.stopped()
    assert dap.request("evaluate", expression="COUNT", context="watch")["result"] == "x300E -> x0014 (20)"
    assert dap.request("evaluate", expression="M[x300E]", context="hover")["result"] == "x0014 (20)"
    assert (
        dap.request("evaluate", expression="NEWLINE+1", context="watch")["result"] == "x3010 -> x322E (12846)"
    )
    assert dap.request("evaluate", expression="R3 == 0", context="watch")["result"] == "true"
    dap.request("evaluate", expression="R3 = -1", context="repl")
    assert dap.request("evaluate", expression="R3", context="watch")["result"] == "xFFFF (-1)"
    assert (
        dap.request("setVariable", variablesReference=1, name="R2", value="x41")["value"] == "x0041 (65 'A')"
    )
    assert dap.request("setVariable", variablesReference=1, name="CC", value="n")["value"] == "n"
    assert dap.request("setVariable", variablesReference=2, name="COUNT", value="#2")["value"] == "x0002 (2)"
    failed = dap.call("evaluate", expression="R9 +", context="watch")
    assert not failed["success"] and "R9" in failed["message"]
    dap.request("setVariable", variablesReference=1, name="R2", value="1")
    dap.request("continue", threadId=1)  # two numbers, as COUNT now says
    assert dap.event("exited")["exitCode"] == 0
    assert "".join(dap.output).count("\n") >= 2


def test_read_write_memory_and_disassemble(dap: Client) -> None:
    dap.launch(FIB, stopOnEntry=True)
    dap.request("configurationDone")
    dap.stopped()
    read = dap.request("readMemory", memoryReference="0x300E", count=4)
    assert read["address"] == "0x601C"  # bytes: twice the word's address
    assert base64.b64decode(read["data"]) == bytes([0x00, 0x14, 0x00, 0x0A])
    written = dap.request(
        "writeMemory", memoryReference="0x300E", offset=1, data=base64.b64encode(b"\x03").decode()
    )
    assert written["bytesWritten"] == 1
    assert dap.request("evaluate", expression="M[COUNT]", context="watch")["result"] == "x0003 (3)"
    lines = dap.request("disassemble", memoryReference="0x3004", instructionOffset=-1, instructionCount=3)[
        "instructions"
    ]
    assert [(i["address"], i["instruction"]) for i in lines] == [
        ("0x3003", "LD R3, COUNT"),
        ("0x3004", "ADD R0, R1, #0"),
        ("0x3005", "JSR PRINT_DEC"),
    ]
    assert lines[1]["symbol"] == "NEXT" and lines[1]["line"] == line_of(FIB, "NEXT    ADD")
    edge = dap.request("disassemble", memoryReference="0xFFFF", instructionCount=2)["instructions"]
    assert edge[1]["presentationHint"] == "invalid"


@pytest.mark.skipif(not hasattr(Debugger, "reverse_step"), reason="the debugger does not go backwards yet")
def test_step_back_and_reverse_continue(dap: Client) -> None:
    dap.launch(FIB)
    call = line_of(FIB, "JSR PRINT_DEC")
    dap.break_at(FIB, {"line": call})
    dap.request("configurationDone")
    dap.stopped()
    for _ in range(4):  # into PRINT_DEC, and three stores
        dap.request("stepIn", threadId=1)
        dap.stopped()
    assert dap.top()["line"] == line_of(FIB, "ST R4, SAVE_R4")
    dap.request("stepBack", threadId=1)
    dap.stopped()
    assert dap.top()["line"] == line_of(FIB, "ST R3, SAVE_R3")
    dap.request("reverseContinue", threadId=1)
    assert dap.stopped()["reason"] == "breakpoint"
    assert dap.top()["line"] == call
    assert dap.registers()["R0"] == "x0000 (0)"


def test_data_breakpoint_stops_after_the_store(dap: Client) -> None:
    dap.launch(FIB)
    info = dap.request("dataBreakpointInfo", variablesReference=2, name="SAVE_R1")
    assert info["dataId"] == "0x303F" and info["accessTypes"] == ["write", "read", "readWrite"]
    assert dap.request("dataBreakpointInfo", variablesReference=1, name="PC")["dataId"] is None
    reply = dap.request("setDataBreakpoints", breakpoints=[{"dataId": info["dataId"], "accessType": "write"}])
    assert reply["breakpoints"][0]["verified"]
    dap.request("configurationDone")
    stop = dap.stopped()
    assert stop["reason"] == "data breakpoint" and "SAVE_R1" in stop["text"]
    assert dap.top()["instructionPointerReference"] == "0x3011"  # after ST R1, SAVE_R1


def test_data_breakpoints_on_a_register_and_on_reads(dap: Client) -> None:
    dap.launch(FIB)
    info = dap.request("dataBreakpointInfo", variablesReference=1, name="R1")
    assert (info["dataId"], info["accessTypes"]) == ("R1", ["write"])
    reply = dap.request(
        "setDataBreakpoints",
        breakpoints=[{"dataId": "R1", "accessType": "write"}, {"dataId": "R2", "accessType": "read"}],
    )
    assert [bp["verified"] for bp in reply["breakpoints"]] == [True, False]
    dap.request("configurationDone")
    stop = dap.stopped()
    assert stop["reason"] == "data breakpoint" and stop["text"].startswith("watch R1: x0000 -> ")
    by = int(stop["text"].rsplit("by x", 1)[1], 16)  # the instruction that changed R1, done
    assert dap.top()["instructionPointerReference"] == f"0x{by + 1:04X}"
    dap.request("setDataBreakpoints", breakpoints=[{"dataId": "0x303F", "accessType": "readWrite"}])
    dap.request("continue", threadId=1)
    stop = dap.stopped()
    assert stop["text"] == "access watch x303F <SAVE_R1>: read x0000, by x3030"
    dap.request("setDataBreakpoints", breakpoints=[{"dataId": "0x303F", "accessType": "read"}])
    dap.request("continue", threadId=1)
    assert dap.stopped()["text"] == "read watch x303F <SAVE_R1>: read x0001, by x3030"


def test_pause_interrupts_a_program_running_translated(dap: Client, tmp_path: Path) -> None:
    forever = tmp_path / "forever.asm"
    forever.write_text(".ORIG x3000\nLOOP ADD R1, R1, #1\nBRnzp LOOP\n.END\n")
    dap.launch(forever)
    dap.request("configurationDone")
    dap.request("pause", threadId=1)
    assert dap.stopped()["reason"] == "pause"
    assert dap.top()["line"] in (2, 3)
    [reply] = dap.break_at(forever, {"line": 2})
    assert reply["verified"]
    dap.request("continue", threadId=1)
    assert dap.stopped()["reason"] == "breakpoint"


def test_breakpoint_set_while_running_is_applied(dap: Client, tmp_path: Path) -> None:
    forever = tmp_path / "forever.asm"
    forever.write_text(".ORIG x3000\nLOOP ADD R1, R1, #1\nBRnzp LOOP\n.END\n")
    dap.launch(forever)
    dap.request("configurationDone")
    dap.break_at(forever, {"line": 3})
    assert dap.stopped()["reason"] == "breakpoint"
    assert dap.top()["instructionPointerReference"] == "0x3001"


def test_register_data_breakpoint_set_while_running_stops_the_translated_run(
    dap: Client, tmp_path: Path
) -> None:
    counting = tmp_path / "counting.asm"
    counting.write_text(".ORIG x3000\nLOOP ADD R1, R1, #1\nBRnp LOOP\nADD R2, R2, #1\nBRnzp LOOP\n.END\n")
    dap.launch(counting)
    dap.request("configurationDone")  # running on regions, translated
    dap.request("setDataBreakpoints", breakpoints=[{"dataId": "R2", "accessType": "write"}])
    stop = dap.stopped()
    assert stop["reason"] == "data breakpoint" and stop["text"].startswith("watch R2: ")
    assert stop["text"].endswith(", by x3002") and dap.top()["instructionPointerReference"] == "0x3003"


def test_keys_from_the_debug_console_and_from_a_file(dap: Client, tmp_path: Path) -> None:
    dap.launch(ECHO)
    dap.request("configurationDone")
    dap.request("evaluate", expression="hi", context="repl")  # the program runs: keys for it
    assert dap.event("exited")["exitCode"] == 0
    assert "Type a line: hi\n" in "".join(dap.output)


def test_input_file_that_ends_exits_with_code_5(dap: Client, tmp_path: Path) -> None:
    keys = tmp_path / "keys.txt"
    keys.write_bytes(b"ab")
    dap.launch(ECHO, input=str(keys))
    dap.request("configurationDone")
    assert dap.event("exited")["exitCode"] == 5
    assert "Type a line: ab" in "".join(dap.output)


def test_a_fault_exits_with_code_3_and_says_why(dap: Client, tmp_path: Path) -> None:
    bad = tmp_path / "bad.asm"
    bad.write_text(".ORIG x3000\n.FILL xD000\n.END\n")
    dap.launch(bad)
    dap.request("configurationDone")
    assert dap.event("exited")["exitCode"] == 3
    assert "illegal" in "".join(dap.output).lower()


def test_launch_of_a_file_with_errors_fails_with_the_diagnostics(dap: Client, tmp_path: Path) -> None:
    bad = tmp_path / "bad.asm"
    bad.write_text(".ORIG x3000\nADD R1, R9, #1\n.END\n")
    dap.request("initialize", adapterID="lc3")
    failed = dap.call("launch", program=str(bad))
    assert not failed["success"] and "1 error" in failed["message"]
    assert f"{bad}:2:9: error" in "".join(dap.output)


def test_restart_terminate_and_max_steps(dap: Client) -> None:
    dap.launch(FIB, stopOnEntry=True, maxSteps=10)
    dap.request("configurationDone")
    dap.stopped()
    dap.request("continue", threadId=1)
    assert dap.event("exited")["exitCode"] == 4
    dap.request("restart")
    assert dap.stopped()["reason"] == "entry"
    assert dap.registers()["PC"] == "x3000"
    dap.request("terminate")
    dap.event("terminated")


def test_obj_borrows_the_lines_of_the_asm_beside_it(dap: Client) -> None:
    dap.launch(EXAMPLES / "fib.obj")
    reply = dap.request("setFunctionBreakpoints", breakpoints=[{"name": "PRINT_DEC"}])
    assert reply["breakpoints"][0]["source"]["path"] == os.path.realpath(FIB)
    dap.request("configurationDone")
    dap.stopped()
    assert dap.top()["line"] == line_of(FIB, "ST R1, SAVE_R1")


def test_stack_of_a_recursive_program(dap: Client) -> None:
    dap.launch(RECURSIVE)
    dap.request("setFunctionBreakpoints", breakpoints=[{"name": "FIB", "hitCondition": "6"}])
    dap.request("configurationDone")
    dap.stopped()
    frames = dap.request("stackTrace", threadId=1)["stackFrames"]
    assert frames[0]["name"] == "FIB"
    assert len(frames) >= 3 and all(f["name"].startswith("FIB") for f in frames[1:-1])


def test_unknown_request_and_bad_message(dap: Client) -> None:
    failed = dap.call("goto", threadId=1, targetId=1)
    assert not failed["success"] and "goto" in failed["message"]
    failed = dap.call("stackTrace", threadId=1)
    assert not failed["success"] and "launch" in failed["message"]


def test_stdio_keeps_stdout_for_the_protocol() -> None:
    message = json.dumps({"seq": 1, "type": "request", "command": "initialize", "arguments": {}}).encode()
    result = subprocess.run(
        [sys.executable, "-m", "lc3jit", "dap"],
        input=b"Content-Length: %d\r\n\r\n%s" % (len(message), message),
        capture_output=True,
        timeout=TIMEOUT,
        check=True,
    )
    header, _, body = result.stdout.partition(b"\r\n\r\n")
    assert header == b"Content-Length: %d" % len(body)
    assert json.loads(body)["body"]["supportsConfigurationDoneRequest"] is True


def test_a_program_that_halted_stays_ended(dap: Client) -> None:
    dap.launch(FIB)
    dap.request("configurationDone")
    assert dap.event("exited")["exitCode"] == 0
    before = dap.registers()
    for command in ("continue", "next", "stepIn", "stepOut"):
        failed = dap.call(command, threadId=1)
        assert not failed["success"]
        assert failed["message"] == "the program has halted; `run` starts it again"
    assert dap.registers() == before
    assert "".join(dap.output).count("HALT") == 1


def test_debug_console_takes_the_prompts_commands(dap: Client) -> None:
    dap.launch(FIB, stopOnEntry=True)
    dap.request("configurationDone")
    dap.stopped()
    regs = dap.request("evaluate", expression="regs", context="repl")["result"].splitlines()
    assert regs[2].startswith("PC=x3000  PSR=x0002  CC=Z  instructions=0")
    mem = dap.request("evaluate", expression="mem COUNT 2", context="repl")["result"]
    assert mem.splitlines() == ["x300E  COUNT        x0014     20", "x300F  NEWLINE      x000A     10"]
    assert dap.request("evaluate", expression="p M[COUNT]", context="repl")["result"] == "x0014 (20)"
    dap.request("evaluate", expression="next", context="repl")
    assert dap.stopped()["reason"] == "step"
    assert dap.registers()["PC"].startswith("x3001")
    dap.request("evaluate", expression="back", context="repl")
    dap.stopped()
    assert dap.registers()["PC"].startswith("x3000")
    failed = dap.call("evaluate", expression="mem COUNT 0", context="repl")
    assert not failed["success"] and "not a count" in failed["message"]
