"""The Debug Adapter Protocol's framing: JSON messages, each after a Content-Length header.

Requests come in on one stream and responses and events go out on another, from two
threads (the one reading requests, the one running the program), so sending is locked.
Over stdio the streams are the process's own; with `--socket` or `--port` a connection's
(dap_server.py).

Reading is bounded: a header line of at most MAX_HEADER_LINE bytes, at most MAX_HEADERS
of them, and a body of at most MAX_MESSAGE bytes (a writeMemory of all 64K words is
175 KB), so a client cannot make the adapter hold more than that, whatever it sends.
"""

from __future__ import annotations

import json
import threading
from typing import Any, BinaryIO

Message = dict[str, Any]

#: The largest body read, in bytes.
MAX_MESSAGE = 4 << 20
#: The longest header line, and the most header lines of one message.
MAX_HEADER_LINE = 1024
MAX_HEADERS = 16


class ProtocolError(Exception):
    """The client sent something that is not a DAP message, and the framing is lost."""


class MessageError(ProtocolError):
    """A well-framed body that is not a JSON object: the next message can still be read."""


class Channel:
    """Reads messages from `incoming` and writes them to `outgoing`, numbering what it sends."""

    def __init__(self, incoming: BinaryIO, outgoing: BinaryIO) -> None:
        self.incoming = incoming
        self.outgoing = outgoing
        self._seq = 0
        self._lock = threading.Lock()
        self.closed = False  # the client went away: what is sent is dropped

    def read(self) -> Message | None:
        """The next message, or None at the end of the stream.

        ProtocolError when the framing is lost (the session cannot go on), MessageError
        when only this message is bad."""
        length = None
        headers = 0
        while True:
            line = self.incoming.readline(MAX_HEADER_LINE + 1)
            if not line:
                return None
            if len(line) > MAX_HEADER_LINE:
                raise ProtocolError(f"a header line longer than {MAX_HEADER_LINE} bytes")
            line = line.strip()
            if not line:
                if length is None:
                    continue  # blank lines between messages
                break
            headers += 1
            if headers > MAX_HEADERS:
                raise ProtocolError(f"more than {MAX_HEADERS} header lines")
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                length = _length(value)
        body = self.incoming.read(length)
        if len(body) < length:
            return None
        try:
            message = json.loads(body)
        except (ValueError, RecursionError) as e:
            raise MessageError(f"a message that is not JSON: {str(e)[:80]}") from None
        if not isinstance(message, dict):
            raise MessageError("a message that is not a JSON object")
        return message

    def send(self, message: Message) -> None:
        """Send a message; once the client has gone, nothing (the session ends at its next read)."""
        with self._lock:
            if self.closed:
                return
            self._seq += 1
            body = json.dumps({"seq": self._seq, **message}, separators=(",", ":")).encode()
            try:
                self.outgoing.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
                self.outgoing.flush()
            except (OSError, ValueError):  # a closed socket or pipe; ValueError: a closed file
                self.closed = True

    def event(self, name: str, body: Message | None = None) -> None:
        self.send({"type": "event", "event": name, **({"body": body} if body is not None else {})})

    def respond(self, request: Message, body: Message | None = None) -> None:
        self.send(
            {
                "type": "response",
                **_answering(request),
                "success": True,
                **({"body": body} if body is not None else {}),
            }
        )

    def fail(self, request: Message, message: str) -> None:
        """An error response; the client shows `message` to the user."""
        self.send(
            {
                "type": "response",
                **_answering(request),
                "success": False,
                "message": message,
                "body": {"error": {"id": 1, "format": message, "showUser": True}},
            }
        )


def _answering(request: Message) -> Message:
    """The fields of a response that name its request (typed as the protocol has them,
    whatever the request held)."""
    seq, command = request.get("seq"), request.get("command")
    return {
        "request_seq": seq if type(seq) is int else 0,
        "command": command if isinstance(command, str) else "",
    }


def _length(value: str) -> int:
    """A Content-Length's value, checked: a number of at most MAX_MESSAGE bytes."""
    text = value.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 12):
        raise ProtocolError(f"bad Content-Length: {text[:40]!r}")
    length = int(text)
    if length > MAX_MESSAGE:
        raise ProtocolError(f"a message of {length:,} bytes: the most is {MAX_MESSAGE:,}")
    return length


class RequestError(Exception):
    """A request that cannot be done now or as given: its message goes back to the user."""


def reference(text: str) -> int:
    """A memoryReference, dataId or instructionReference: a word's address, 0x4000 or x4000."""
    text = str(text).strip()
    try:
        return int(text.removeprefix("x").removeprefix("X"), 16) if text[:1] in "xX" else int(text, 0)
    except ValueError:
        raise RequestError(f"not a memory reference: {text!r}") from None
