"""`lc3jit lsp` driven by pytest-lsp, a real LSP client talking to the server as a process:
diagnostics as the student types, definition, references, hover, completion, rename,
document symbols and folding."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SOURCE = """\
; counts down from 5
        .ORIG x3000
        LD R1, COUNT
loop:   ADD R1, R1, #-1
        BRp LOOP
        JSR Done
        HALT
COUNT   .FILL #5
DONE    RET
        .END
"""
BROKEN = """\
        .ORIG x3000
        ADD R1, R9, #1
        LD R2, NOWHERE
        ADD R3, R3, x1F
        HALT
        .END
"""


#: One server for the module's tests (its start, importing pygls, is most of their time);
#: each test opens files of its own.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(
    scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "lc3jit", "lsp"])
)
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("workspace")
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=root.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


def open_document(client: LanguageClient, path: Path, text: str) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="lc3", version=1, text=text)
        )
    )
    return uri


async def published(client: LanguageClient, uri: str, before: object = None) -> list[types.Diagnostic]:
    """The diagnostics of uri once the server has published them (anew, if `before` was the last)."""
    while client.diagnostics.get(uri) is before:
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return client.diagnostics[uri]


def at(uri: str, line: int, character: int) -> dict[str, object]:
    return {"text_document": types.TextDocumentIdentifier(uri), "position": types.Position(line, character)}


async def test_diagnostics_of_every_error_and_warning_with_ranges(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = open_document(client, tmp_path / "broken.asm", BROKEN)
    diagnostics = await published(client, uri)
    found = [
        (d.range.start.line, d.range.start.character, d.range.end.character, d.severity, d.message)
        for d in diagnostics
    ]
    error, warning = types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning
    assert found == [
        (1, 16, 18, error, "ADD expects a register R0-R7, found R9"),
        (2, 15, 22, error, "unknown label NOWHERE"),
        (3, 20, 23, warning, "x1F does not fit imm5 (-16 to 15); keeping its low 5 bits: -1"),
    ]
    assert all(d.source == "lc3jit" for d in diagnostics)

    fixed = BROKEN.replace("R9", "R2").replace("NOWHERE", "R1").replace("LD R2, R1", "ADD R2, R2, R1")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    assert [d.severity for d in await published(client, uri, diagnostics)] == [warning]


async def test_definition_and_references_ignore_case(client: LanguageClient, tmp_path: Path) -> None:
    uri = open_document(client, tmp_path / "count.asm", SOURCE)
    result = await client.text_document_definition_async(types.DefinitionParams(**at(uri, 4, 13)))
    assert isinstance(result, types.Location)
    assert (result.range.start.line, result.range.start.character, result.range.end.character) == (3, 0, 4)
    refs = await client.text_document_references_async(
        types.ReferenceParams(**at(uri, 5, 13), context=types.ReferenceContext(include_declaration=True))
    )
    assert [(r.range.start.line, r.range.start.character) for r in refs] == [(8, 0), (5, 12)]


async def test_hover_on_label_and_instruction(client: LanguageClient, tmp_path: Path) -> None:
    uri = open_document(client, tmp_path / "count.asm", SOURCE)
    label = await client.text_document_hover_async(types.HoverParams(**at(uri, 2, 17)))
    assert label is not None and "**COUNT** = x3005" in label.contents.value
    assert "x0005 (5)" in label.contents.value
    instruction = await client.text_document_hover_async(types.HoverParams(**at(uri, 3, 9)))
    text = instruction.contents.value
    assert (
        "DR = SR1 + imm5" in text
        and "x3001: x127F = `0001 001 001 1 11111`" in text
        and "`0001 dr sr1 1 imm5`" in text
    )
    trap = await client.text_document_hover_async(types.HoverParams(**at(uri, 6, 9)))
    assert "stops the machine" in trap.contents.value and "trap vector x25" in trap.contents.value


async def test_completion_by_context(client: LanguageClient, tmp_path: Path) -> None:
    uri = open_document(
        client,
        tmp_path / "count.asm",
        SOURCE + "        \nNEXT    LEA R1, \n        ADD R2, \n        HALT \n",
    )

    async def offered(line: int, character: int) -> set[str]:
        result = await client.text_document_completion_async(
            types.CompletionParams(**at(uri, line, character))
        )
        return {item.label for item in result.items}

    labels = {"loop", "COUNT", "DONE", "NEXT"}
    assert await offered(4, 12) == labels  # BRp |LOOP
    assert await offered(5, 12) == labels  # JSR |Done
    assert await offered(11, 16) == labels  # LEA R1, |
    registers = await offered(12, 16)  # ADD R2, |
    assert registers == {f"R{n}" for n in range(8)}
    at_start = await offered(10, 8)
    assert {"ADD", "BRnzp", ".STRINGZ", "PUTS", "HALT"} <= at_start
    assert not at_start & (labels | registers)
    assert await offered(11, 8) == at_start  # after a label
    assert await offered(13, 13) == set()  # HALT takes no operand


async def test_rename_a_label_everywhere(client: LanguageClient, tmp_path: Path) -> None:
    uri = open_document(client, tmp_path / "count.asm", SOURCE)
    prepared = await client.text_document_prepare_rename_async(types.PrepareRenameParams(**at(uri, 4, 13)))
    assert prepared is not None
    edit = await client.text_document_rename_async(types.RenameParams(**at(uri, 4, 13), new_name="AGAIN"))
    spans = sorted((e.range.start.line, e.range.start.character, e.new_text) for e in edit.changes[uri])
    assert spans == [(3, 0, "AGAIN"), (4, 12, "AGAIN")]
    with pytest.raises(Exception, match="cannot be a label"):
        await client.text_document_rename_async(types.RenameParams(**at(uri, 4, 13), new_name="R1"))
    with pytest.raises(Exception, match="already a label"):
        await client.text_document_rename_async(types.RenameParams(**at(uri, 4, 13), new_name="count"))


async def test_document_symbols_and_folding(client: LanguageClient, tmp_path: Path) -> None:
    uri = open_document(client, tmp_path / "count.asm", SOURCE)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    assert [(s.name, s.detail, s.kind) for s in symbols] == [
        ("loop", "x3001", types.SymbolKind.Function),
        ("COUNT", "x3005", types.SymbolKind.Variable),
        ("DONE", "x3006", types.SymbolKind.Function),
    ]
    folds = await client.text_document_folding_range_async(
        types.FoldingRangeParams(types.TextDocumentIdentifier(uri))
    )
    assert [(f.start_line, f.end_line) for f in folds] == [(1, 9)]


async def test_a_document_too_large_is_one_warning_at_once(client: LanguageClient, tmp_path: Path) -> None:
    text = "        .ORIG x3000\n" + "LOOP    ADD R1, R1, #1 ; and a comment\n" * 130_000 + "        .END\n"
    uri = open_document(client, tmp_path / "huge.asm", text)
    (warning,) = await published(client, uri)
    assert warning.severity == types.DiagnosticSeverity.Warning
    assert f"{len(text):,} characters: lc3jit lsp reads files of at most" in warning.message
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [
                types.TextDocumentContentChangePartial(
                    types.Range(types.Position(1, 0), types.Position(1, 4)), "NEXT"
                )
            ],
        )
    )
    hover = await client.text_document_hover_async(types.HoverParams(**at(uri, 1, 1)))
    assert hover is None
