"""A headless Chromium driven through the DevTools protocol over a pipe, for the page tests.

`--remote-debugging-pipe` makes Chromium read protocol messages (JSON, each ended by a NUL)
from its descriptor 3 and write them to its descriptor 4: no port, no websocket, nothing
outside the standard library. Only what the tests need: open a URL, wait for a condition,
evaluate JavaScript, move and click the mouse, type keys, take a screenshot, collect
console errors.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import struct
import subprocess
import tempfile
import threading
import time
import zlib
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,900",
    "--remote-debugging-pipe",
)
TIMEOUT = 60.0  # only a hang reaches it


def find_chromium() -> str | None:
    """The browser: $LC3JIT_CHROMIUM, else Debian's `chromium` (or its other names) on PATH."""
    named = os.environ.get("LC3JIT_CHROMIUM")
    if named:
        return named
    return next(
        (path for name in ("chromium", "chromium-browser", "google-chrome") if (path := shutil.which(name))),
        None,
    )


class Browser:
    """One Chromium process with one page (tab) attached."""

    def __init__(self, executable: str) -> None:
        self.profile = tempfile.TemporaryDirectory(prefix="lc3jit-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def pipes() -> None:  # in the child: the protocol's two descriptors, where Chromium looks
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile.name}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=pipes,
            pass_fds=(3, 4),
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.next_id = 0
        self.replies: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    def _read(self) -> None:
        pending = b""
        with os.fdopen(self.from_browser, "rb", buffering=0) as stream:
            while chunk := stream.read(1 << 16):
                pending += chunk
                *messages, pending = pending.split(b"\0")
                with self.changed:
                    for raw in messages:
                        message = json.loads(raw)
                        if "id" in message:
                            self.replies[message["id"]] = message
                        else:
                            self.events.append(message)
                    self.changed.notify_all()

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """A protocol command and its result (an error reply raises)."""
        self.next_id += 1
        ident = self.next_id
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        with self.changed:
            if not self.changed.wait_for(lambda: ident in self.replies, TIMEOUT):
                raise TimeoutError(f"no reply to {method}")
            reply = self.replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """A command to the page."""
        return self.call(method, self.session, **params)

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url: str, ready: str) -> None:
        """Navigate, then wait until the JavaScript `ready` is true. The errors of the
        pages before are forgotten."""
        with self.changed:
            self.events.clear()
        self.send("Page.navigate", url=url)
        self.wait(f"document.readyState === 'complete' && Boolean({ready})")

    def centre(self, selector: str) -> tuple[float, float]:
        """The middle of the element, scrolled into view, in the page's coordinates."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center', inline: 'center'});"
            " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        return box[0], box[1]

    def hover(self, selector: str) -> None:
        x, y = self.centre(selector)
        self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)

    def click(self, selector: str) -> None:
        self.click_at(*self.centre(selector))

    def click_at(self, x: float, y: float) -> None:
        """A left click at a point of the page."""
        self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def type(self, text: str) -> None:
        """Keys typed into the element that has the focus, one key press each."""
        for char in text:
            key = "Enter" if char == "\n" else char
            typed = "\r" if char == "\n" else char
            self.send("Input.dispatchKeyEvent", type="keyDown", key=key, text=typed, unmodifiedText=typed)
            self.send("Input.dispatchKeyEvent", type="keyUp", key=key)

    def wait(self, condition: str, timeout: float = TIMEOUT) -> None:
        """Until the JavaScript condition is true (a TimeoutError after timeout seconds)."""
        deadline = time.monotonic() + timeout
        while not self.evaluate(f"Boolean({condition})"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{condition} never became true")
            time.sleep(0.05)

    def screenshot(self, scale: float = 0.25) -> bytes:
        """The window as PNG, scaled down (decoding a full-size one in Python takes seconds)."""
        width, height = self.evaluate("[window.innerWidth, window.innerHeight]")
        clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": scale}
        return base64.b64decode(self.send("Page.captureScreenshot", format="png", clip=clip)["data"])

    def errors(self) -> list[str]:
        """Console errors and uncaught exceptions so far."""
        with self.changed:
            events = list(self.events)
        found = []
        for event in events:
            params = event.get("params", {})
            if event.get("method") == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails", {}))[:300])
            elif event.get("method") == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(json.dumps(params.get("args", []))[:300])
            elif event.get("method") == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(params["entry"].get("text", "")[:300])
        return found

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.call("Browser.close")
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.to_browser)
        self.profile.cleanup()


def png_colours(png: bytes, step: int = 1) -> set[tuple[int, ...]]:
    """The colours of every step-th pixel of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, data = 8, b""
    width = height = channels = 0
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0, "only 8-bit non-interlaced"
            channels = {2: 3, 6: 4, 0: 1, 4: 2}[colour]
        elif kind == b"IDAT":
            data += body
        at += 12 + length
    raw = zlib.decompress(data)
    stride = width * channels
    previous = bytearray(stride)
    colours = set()
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        previous = line
        if row % step == 0:
            for x in range(0, width, step):
                colours.add(tuple(line[x * channels : (x + 1) * channels]))
    return colours


def file_url(path: Path) -> str:
    return path.resolve().as_uri()
