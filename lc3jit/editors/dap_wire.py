"""The Debug Adapter Protocol's framing: JSON messages, each after a Content-Length header.

Requests come in on one stream and responses and events go out on another, from two
threads (the one reading requests, the one running the program), so sending is locked.
Over stdio the streams are the process's own; with `--port` they are a socket's.
"""

from __future__ import annotations

import json
import threading
from typing import Any, BinaryIO

Message = dict[str, Any]


class ProtocolError(Exception):
    """The client sent something that is not a DAP message."""


class Channel:
    """Reads messages from `incoming` and writes them to `outgoing`, numbering what it sends."""

    def __init__(self, incoming: BinaryIO, outgoing: BinaryIO) -> None:
        self.incoming = incoming
        self.outgoing = outgoing
        self._seq = 0
        self._lock = threading.Lock()

    def read(self) -> Message | None:
        """The next message, or None at the end of the stream."""
        length = None
        while True:
            line = self.incoming.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                if length is None:
                    continue  # blank lines between messages
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                try:
                    length = int(value)
                except ValueError:
                    raise ProtocolError(f"bad Content-Length: {value.strip()!r}") from None
        body = self.incoming.read(length)
        if len(body) < length:
            return None
        try:
            message = json.loads(body)
        except ValueError as e:
            raise ProtocolError(f"a message that is not JSON: {e}") from None
        if not isinstance(message, dict):
            raise ProtocolError("a message that is not a JSON object")
        return message

    def send(self, message: Message) -> None:
        with self._lock:
            self._seq += 1
            body = json.dumps({"seq": self._seq, **message}, separators=(",", ":")).encode()
            self.outgoing.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            self.outgoing.flush()

    def event(self, name: str, body: Message | None = None) -> None:
        self.send({"type": "event", "event": name, **({"body": body} if body is not None else {})})

    def respond(self, request: Message, body: Message | None = None) -> None:
        self.send(
            {
                "type": "response",
                "request_seq": request.get("seq", 0),
                "success": True,
                "command": request.get("command", ""),
                **({"body": body} if body is not None else {}),
            }
        )

    def fail(self, request: Message, message: str) -> None:
        """An error response; the client shows `message` to the user."""
        self.send(
            {
                "type": "response",
                "request_seq": request.get("seq", 0),
                "success": False,
                "command": request.get("command", ""),
                "message": message,
                "body": {"error": {"id": 1, "format": message, "showUser": True}},
            }
        )


class RequestError(Exception):
    """A request that cannot be done now or as given: its message goes back to the user."""


def reference(text: str) -> int:
    """A memoryReference, dataId or instructionReference: a word's address, 0x4000 or x4000."""
    text = str(text).strip()
    try:
        return int(text.removeprefix("x").removeprefix("X"), 16) if text[:1] in "xX" else int(text, 0)
    except ValueError:
        raise RequestError(f"not a memory reference: {text!r}") from None
