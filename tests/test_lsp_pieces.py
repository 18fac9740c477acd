"""The language server's pieces, without a client: what completes where, the cache of
line facts, the limit on documents read and on messages."""

from __future__ import annotations

import io
import subprocess
import sys
import time

import pytest

from lc3jit.editors.lsp import MAX_MESSAGE, MAX_READ, BoundedInput, Document, LineCache, line_facts
from lc3jit.editors.lsp_completion import Wanted, wanted

OPCODE, REGISTER, LABEL = {Wanted.OPCODE}, {Wanted.REGISTER}, {Wanted.LABEL}


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        ("", OPCODE),
        ("        ", OPCODE),
        ("        AD", OPCODE),
        ("LOOP    ", OPCODE),
        ("loop:   BR", OPCODE),
        ("        BRp ", LABEL),
        ("        JSR ", LABEL),
        ("        JSR SUB", LABEL),
        ("        LEA R1, ", LABEL),
        ("        LEA ", REGISTER),
        ("        LD R1,", LABEL),
        ("        LDI R0, ", LABEL),
        ("        ST R3, ", LABEL),
        ("        STI R3, ", LABEL),
        ("        ADD R1, ", REGISTER),
        ("        ADD R1, R1, ", REGISTER),
        ("        AND R1 R1 ", REGISTER),
        ("        NOT R1, ", REGISTER),
        ("        JMP ", REGISTER),
        ("        JSRR ", REGISTER),
        ("        LDR R1, ", REGISTER),
        ("        LDR R1, R6, ", set()),
        ("        TRAP ", set()),
        ("        HALT ", set()),
        ("        RET ", set()),
        ("        ADD R1, R1, R1, ", set()),
        ("DATA    .FILL ", LABEL),
        ("        .ORIG ", set()),
        ("        ADD R1, R1 ; a comment ", set()),
    ],
)
def test_what_completes_where(before: str, expected: set[Wanted]) -> None:
    assert wanted(before) == expected


def test_line_facts_are_read_once_per_text() -> None:
    cache = LineCache()
    first = cache.read(["LOOP ADD R1, R1, #1", "  BRp LOOP", "  BRp LOOP"])
    assert first[0] == line_facts("LOOP ADD R1, R1, #1")
    assert first[0].label == ("LOOP", 0) and first[0].op == "ADD"
    assert first[1].uses == (("LOOP", 6),)
    assert first[1] is first[2]  # the same text, read once
    again = cache.read(["  BRp LOOP", "DONE HALT"])
    assert again[0] is first[1]  # an unchanged line is not read again
    assert set(cache.facts) == {"  BRp LOOP", "DONE HALT"}  # only what the document has


def test_a_document_over_the_limit_costs_nothing_to_read() -> None:
    text = "        .ORIG x3000\n" + "L1 ADD R1, R1, #1 ; padding to make the lines long\n" * (
        5_000_000 // 50
    )
    assert len(text) > MAX_READ
    began = time.process_time()
    document = Document.read(text, "big.asm")
    assert time.process_time() - began < 1
    (warning,) = document.diagnostics
    assert warning.severity == "warning" and "reads files of at most" in warning.message
    assert document.definitions == {} and document.assembly is None


def test_a_document_at_the_limit_is_read_whole() -> None:
    line = "L{} ADD R1, R1, #1\n"
    text = "        .ORIG x3000\n" + "".join(line.format(n) for n in range(MAX_READ // 25)) + "        .END\n"
    assert len(text) <= MAX_READ
    document = Document.read(text, "edge.asm")
    assert document.assembly is not None and "L0" in document.definitions


def test_bounded_input_refuses_what_is_too_large() -> None:
    incoming = BoundedInput(io.BytesIO(b"Content-Length: 5\r\n\r\nhello"))
    assert incoming.readline() == b"Content-Length: 5\r\n"
    assert incoming.readline() == b"\r\n"
    assert incoming.read(5) == b"hello" and incoming.refused is None
    assert incoming.read(MAX_MESSAGE + 1) == b""
    assert incoming.refused == f"a message of {MAX_MESSAGE + 1:,} bytes: the most is {MAX_MESSAGE:,}"
    long_line = BoundedInput(io.BytesIO(b"X" * 5000 + b"\r\n"))
    assert long_line.readline() == b"" and "header line longer" in (long_line.refused or "")


def test_a_message_over_the_limit_is_refused_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "lc3jit", "lsp"],
        input=b"Content-Length: 100000000000\r\n\r\n",
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.decode().splitlines()[-1] == (
        "lc3jit lsp: a message of 100,000,000,000 bytes: the most is 16,777,216; the session ends"
    )
