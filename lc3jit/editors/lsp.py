"""`lc3jit lsp`: a language server for LC-3 assembly, for any editor that speaks LSP.

Everything it knows comes from the assembler: the diagnostics are the assembler's own
(`diagnose`: every error and warning, where `lc3jit asm` would print them), the words
and addresses of hovers are what it assembled, and a line is split into label, mnemonic
and operands by its tokenizer, so the server and `lc3jit asm` never disagree about what
a line means. Labels are case-insensitive, as the assembler reads them.

Needs pygls (`pip install "lc3jit[editor]"`); without it, `lc3jit lsp` says so in one line.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO

from lc3jit import __version__
from lc3jit.editors.lsp_completion import Wanted, wanted
from lc3jit.toolchain.asm import (
    DIRECTIVES,
    SPELLINGS,
    Assembly,
    Diagnostic,
    diagnose,
    is_keyword,
    is_label,
    tokenize,
)
from lc3jit_runtime.isa import FIELD_WIDTHS, TRAP_NAMES, decode, to_signed

if TYPE_CHECKING:
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer

#: What each form does, in Patt & Patel's notation (the ISA table says where its bits are).
DOES = {
    "ADD": "DR = SR1 + SR2; sets N, Z, P",
    "ADDI": "DR = SR1 + imm5 (sign-extended); sets N, Z, P",
    "AND": "DR = SR1 AND SR2; sets N, Z, P",
    "ANDI": "DR = SR1 AND imm5 (sign-extended); sets N, Z, P",
    "NOT": "DR = NOT SR; sets N, Z, P",
    "BR": "if any of the condition codes named is set: PC = PC + 1 + PCoffset9",
    "JMP": "PC = BaseR (RET is JMP R7)",
    "JSR": "R7 = PC + 1; PC = PC + 1 + PCoffset11",
    "JSRR": "R7 = PC + 1; PC = BaseR",
    "LD": "DR = M[PC + 1 + PCoffset9]; sets N, Z, P",
    "LDI": "DR = M[M[PC + 1 + PCoffset9]]; sets N, Z, P",
    "LDR": "DR = M[BaseR + offset6]; sets N, Z, P",
    "LEA": "DR = PC + 1 + PCoffset9 (sets N, Z, P in the 2nd edition only)",
    "ST": "M[PC + 1 + PCoffset9] = SR",
    "STI": "M[M[PC + 1 + PCoffset9]] = SR",
    "STR": "M[BaseR + offset6] = SR",
    "TRAP": "calls the OS routine whose address is at M[trapvect8]",
    "RTI": "returns from an interrupt or trap routine: pops PC and PSR (supervisor mode only)",
}
TRAPS = {
    "GETC": "reads a key into R0 (not echoed)",
    "OUT": "writes the character in R0",
    "PUTC": "writes the character in R0",
    "PUTS": "writes the string (one character a word) at R0",
    "IN": "prompts, then reads and echoes a key into R0",
    "PUTSP": "writes the string packed two characters a word at R0",
    "HALT": "stops the machine",
}
DIRECTIVE_DOES = {
    ".ORIG": "where the block's words go: its first address",
    ".END": "ends the block",
    ".FILL": "one word: a number or a label's address",
    ".BLKW": "reserves that many words (zero)",
    ".STRINGZ": "the characters of the string, one a word, then a zero word",
}
REGISTERS = [f"R{n}" for n in range(8)]


@dataclass(frozen=True, slots=True)
class Span:
    """A token's place: 0-based line and the columns it spans (LSP's terms)."""

    line: int
    start: int
    end: int


#: The largest document read, in characters: assembled for its diagnostics and
#: addresses, its labels indexed. Reading costs about 2.5 s of CPU a megabyte (the
#: assembler half of it), at every edit; a student's program is a few kilobytes, and a
#: larger file is one warning, in no time, whatever it holds.
MAX_READ = 256 << 10


@dataclass(frozen=True, slots=True)
class LineFacts:
    """What one line holds, wherever it is: its label (name, column), its mnemonic or
    directive (upper case), and the labels it uses (name, column). Kept by text, so that
    an edit reads again only the lines it changed."""

    label: tuple[str, int] | None
    op: str
    uses: tuple[tuple[str, int], ...]


def line_facts(line: str) -> LineFacts:
    tokens = [t for t in tokenize(line) if t.kind == "word"]
    if not tokens:
        return LineFacts(None, "", ())
    first, rest = tokens[0], tokens[1:]
    label = None
    if first.text.endswith(":") or not is_keyword(first.text):
        name = first.text.removesuffix(":")
        if is_label(name):
            label = (name, first.column - 1)
    else:
        rest = tokens
    uses = tuple((t.text, t.column - 1) for t in rest[1:] if is_label(t.text) and not is_keyword(t.text))
    return LineFacts(label, rest[0].text.upper() if rest else "", uses)


class LineCache:
    """LineFacts by line text, for the lines of the document read last: rebuilt at each
    reading from what it uses, so it holds no more lines than that document has."""

    def __init__(self) -> None:
        self.facts: dict[str, LineFacts] = {}

    def read(self, lines: list[str]) -> list[LineFacts]:
        old, new = self.facts, {}
        result = []
        for line in lines:
            facts = new.get(line) or old.get(line) or line_facts(line)
            new[line] = facts
            result.append(facts)
        self.facts = new
        return result


@dataclass
class Document:
    """One source as the server sees it: its diagnostics, labels and where they are used."""

    text: str
    path: str
    lines: list[str] = field(default_factory=list)
    assembly: Assembly | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    definitions: dict[str, Span] = field(default_factory=dict)  # upper name -> where defined
    names: dict[str, str] = field(default_factory=dict)  # upper name -> as written where defined
    references: dict[str, list[Span]] = field(default_factory=dict)  # upper name -> uses
    data: set[str] = field(default_factory=set)  # labels of .FILL, .BLKW, .STRINGZ
    blocks: list[tuple[int, int]] = field(default_factory=list)  # (.ORIG line, .END line), 0-based
    addresses: dict[int, int] = field(default_factory=dict)  # 0-based line -> its first address

    @classmethod
    def read(cls, text: str, path: str, cache: LineCache | None = None) -> Document:
        document = cls(text, path, text.split("\n"))
        if len(text) > MAX_READ:
            message = (
                f"{len(text):,} characters: lc3jit lsp reads files of at most {MAX_READ:,}"
                " (no errors, labels or hovers shown here; `lc3jit asm` checks it)"
            )
            document.diagnostics = [Diagnostic(path, 1, 1, message, document.lines[0], "warning")]
            return document
        document.assembly, document.diagnostics = diagnose(text, path)
        document.index((cache or LineCache()).read(document.lines))
        return document

    def index(self, facts: list[LineFacts]) -> None:
        orig = None
        for number, line in enumerate(facts):
            if line.label is not None:
                name, column = line.label
                self.definitions.setdefault(name.upper(), Span(number, column, column + len(name)))
                self.names.setdefault(name.upper(), name)
                if line.op in (".FILL", ".BLKW", ".STRINGZ"):
                    self.data.add(name.upper())
            if line.op == ".ORIG":
                orig = number
            elif line.op == ".END" and orig is not None:
                self.blocks.append((orig, number))
                orig = None
            for name, column in line.uses:
                self.references.setdefault(name.upper(), []).append(Span(number, column, column + len(name)))
        if self.assembly is not None:
            for image in self.assembly.images:
                for address, where in sorted(image.source.items(), reverse=True):
                    self.addresses[where.line - 1] = address

    def line(self, number: int) -> str:
        """A line's text ("" past the end)."""
        return self.lines[number] if 0 <= number < len(self.lines) else ""

    def word_at(self, line: int, character: int) -> tuple[str, Span] | None:
        """The word under the cursor (a label without its colon), and its span."""
        for token in tokenize(self.line(line)):
            start = token.column - 1
            text = token.text.removesuffix(":")
            if token.kind == "word" and start <= character <= start + len(text):
                return text, Span(line, start, start + len(text))
        return None

    def label_at(self, line: int, character: int) -> str | None:
        """The upper-cased label under the cursor, if it is one this file defines or uses."""
        word = self.word_at(line, character)
        if word is None or not is_label(word[0]):
            return None
        name = word[0].upper()
        return name if name in self.definitions or name in self.references else None

    def symbols(self) -> dict[str, int]:
        if self.assembly is None:
            return {}
        return {n.upper(): a for image in self.assembly.images for n, a in image.symbols.items()}

    def word(self, address: int) -> int | None:
        for image in self.assembly.images if self.assembly else ():
            if image.origin <= address < image.end:
                return image.words[address - image.origin]
        return None

    def hover(self, line: int, character: int) -> str | None:
        """Markdown for the word under the cursor: a label's value, or the instruction's word,
        address, encoding and what it does."""
        found = self.word_at(line, character)
        if found is None:
            return None
        text, _ = found
        upper = text.upper()
        if is_label(text) and upper in self.definitions:
            defined = self.definitions[upper].line + 1
            address = self.symbols().get(upper)
            if address is None:
                return f"**{self.names[upper]}**: label defined on line {defined}"
            word = self.word(address)
            value = f"; the word there: x{word:04X} ({to_signed(word)})" if word is not None else ""
            return f"**{self.names[upper]}** = x{address:04X}{value} (line {defined})"
        if upper in DIRECTIVE_DOES:
            return f"**{upper}**: {DIRECTIVE_DOES[upper]}"
        if upper in SPELLINGS:
            return self.instruction_hover(line, upper)
        return None

    def instruction_hover(self, line: int, mnemonic: str) -> str:
        """What the instruction does and its encoding: of the word assembled on this line when
        there is one (ADD with an immediate), else of every form the mnemonic spells."""
        address = self.addresses.get(line)
        word = self.word(address) if address is not None else None
        forms = [s.form for s in SPELLINGS[mnemonic]]
        if word is not None:
            forms = [decode(word).form]
        does = TRAPS.get(mnemonic) or "; or ".join(DOES[form.name] for form in forms)
        patterns = " / ".join(f"`{form.pattern}`" for form in forms)
        parts = [f"**{mnemonic}**: {does}", f"encoding {patterns}"]
        if address is not None and word is not None:
            ins = decode(word, address)
            parts.append(f"x{address:04X}: x{word:04X} = `{_fields(word, ins.form.pattern)}`")
            if ins.target is not None:
                parts.append(f"target x{ins.target:04X}")
            if ins.trapvect8 is not None:
                parts.append(f"trap vector x{ins.trapvect8:02X} ({TRAP_NAMES.get(ins.trapvect8, 'no name')})")
        return "\n\n".join(parts)

    def rename_edits(self, name: str, new: str) -> list[Span]:
        """Every place the label is written (its definition and its uses)."""
        spans = list(self.references.get(name, []))
        if name in self.definitions:
            spans.insert(0, self.definitions[name])
        return spans


def _fields(word: int, pattern: str) -> str:
    """The word's bits grouped as the pattern's fields: `0001 001 001 1 11111`."""
    bits, groups, position = f"{word:016b}", [], 0
    for token in pattern.split():
        name = token.strip("()")
        width = FIELD_WIDTHS[name][0] if name in FIELD_WIDTHS else len(name)
        groups.append(bits[position : position + width])
        position += width
    return " ".join(groups)


_LABEL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def build_server() -> LanguageServer:
    """The server with its features registered (pygls imported only here)."""
    from lsprotocol import types
    from pygls.exceptions import JsonRpcInvalidParams
    from pygls.lsp.server import LanguageServer

    server = LanguageServer(
        "lc3jit", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental
    )
    documents: dict[str, Document] = {}
    lines = LineCache()

    def document(uri: str) -> Document:
        source = server.workspace.get_text_document(uri)
        cached = documents.get(uri)
        if cached is None or cached.text != source.source:
            cached = documents[uri] = Document.read(source.source, source.path or uri, lines)
        return cached

    def location(uri: str, span: Span) -> types.Location:
        return types.Location(uri, span_range(span))

    def publish(uri: str) -> None:
        doc = document(uri)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[to_lsp(doc, d) for d in doc.diagnostics])
        )

    def to_lsp(doc: Document, diagnostic: Diagnostic) -> types.Diagnostic:
        line, start = diagnostic.line - 1, diagnostic.column - 1
        token = next((t for t in tokenize(diagnostic.text) if t.column - 1 == start), None)
        end = start + len(token.text) if token is not None else max(len(diagnostic.text.rstrip()), start + 1)
        severity = types.DiagnosticSeverity.Error
        if diagnostic.severity == "warning":
            severity = types.DiagnosticSeverity.Warning
        return types.Diagnostic(
            range=types.Range(types.Position(line, start), types.Position(line, end)),
            message=diagnostic.message,
            severity=severity,
            source="lc3jit",
        )

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        documents.pop(params.text_document.uri, None)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(params: types.DefinitionParams) -> types.Location | None:
        uri, doc = params.text_document.uri, document(params.text_document.uri)
        name = doc.label_at(params.position.line, params.position.character)
        if name is None or name not in doc.definitions:
            return None
        return location(uri, doc.definitions[name])

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def references(params: types.ReferenceParams) -> list[types.Location]:
        uri, doc = params.text_document.uri, document(params.text_document.uri)
        name = doc.label_at(params.position.line, params.position.character)
        if name is None:
            return []
        spans = doc.rename_edits(name, name) if params.context.include_declaration else doc.references[name]
        return [location(uri, span) for span in spans]

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(params: types.HoverParams) -> types.Hover | None:
        doc = document(params.text_document.uri)
        text = doc.hover(params.position.line, params.position.character)
        if text is None:
            return None
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text))

    @server.feature(types.TEXT_DOCUMENT_COMPLETION)
    def completion(params: types.CompletionParams) -> types.CompletionList:
        doc = document(params.text_document.uri)
        kind = types.CompletionItemKind
        want = wanted(doc.line(params.position.line)[: params.position.character])
        items = []
        if Wanted.OPCODE in want:
            items += [
                types.CompletionItem(
                    spellings[0].mnemonic,
                    kind=kind.Keyword,
                    detail=TRAPS.get(m) or DOES[spellings[0].form.name],
                )
                for m, spellings in SPELLINGS.items()
            ]
            items += [
                types.CompletionItem(d, kind=kind.Keyword, detail=DIRECTIVE_DOES[d])
                for d in sorted(DIRECTIVES)
            ]
        if Wanted.REGISTER in want:
            items += [types.CompletionItem(r, kind=kind.Variable, detail="register") for r in REGISTERS]
        if Wanted.LABEL in want:
            items += [
                types.CompletionItem(doc.names[n], kind=kind.Reference, detail=f"label, line {s.line + 1}")
                for n, s in doc.definitions.items()
            ]
        return types.CompletionList(is_incomplete=False, items=items)

    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    def prepare_rename(params: types.PrepareRenameParams) -> types.Range | None:
        doc = document(params.text_document.uri)
        word = doc.word_at(params.position.line, params.position.character)
        if word is None or doc.label_at(params.position.line, params.position.character) is None:
            return None
        return span_range(word[1])

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    def rename(params: types.RenameParams) -> types.WorkspaceEdit | None:
        uri, doc = params.text_document.uri, document(params.text_document.uri)
        name = doc.label_at(params.position.line, params.position.character)
        if name is None:
            return None
        new = params.new_name
        if not _LABEL_NAME.fullmatch(new) or not is_label(new) or is_keyword(new):
            raise JsonRpcInvalidParams(f"{new!r} cannot be a label (a letter or _, then letters, digits, _)")
        if new.upper() in doc.definitions and new.upper() != name:
            raise JsonRpcInvalidParams(
                f"{new} is already a label on line {doc.definitions[new.upper()].line + 1}"
            )
        edits = [types.TextEdit(span_range(span), new) for span in doc.rename_edits(name, new)]
        return types.WorkspaceEdit(changes={uri: edits})

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbols(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        doc = document(params.text_document.uri)
        kind = types.SymbolKind
        symbols = []
        for name, span in sorted(doc.definitions.items(), key=lambda item: item[1].line):
            address = doc.symbols().get(name)
            symbols.append(
                types.DocumentSymbol(
                    name=doc.names[name],
                    kind=kind.Variable if name in doc.data else kind.Function,
                    range=span_range(span),
                    selection_range=span_range(span),
                    detail=f"x{address:04X}" if address is not None else None,
                )
            )
        return symbols

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    def folding_ranges(params: types.FoldingRangeParams) -> list[types.FoldingRange]:
        doc = document(params.text_document.uri)
        return [types.FoldingRange(start_line=start, end_line=end) for start, end in doc.blocks]

    return server


def span_range(span: Span) -> types.Range:
    from lsprotocol import types

    return types.Range(types.Position(span.line, span.start), types.Position(span.line, span.end))


#: The largest message read, in bytes (an 8 MB source, the most `lc3jit asm` reads, fits
#: with its JSON escapes), and the longest header line.
MAX_MESSAGE = 16 << 20
MAX_HEADER_LINE = 1024


class BoundedInput:
    """The client's stream as pygls reads it (a line at a time for headers, then a body of
    Content-Length bytes), refusing a header line or a body over its limit: one line on
    stderr, and the end of the input, before anything that size is held."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.refused: str | None = None

    def readline(self) -> bytes:
        line = self.stream.readline(MAX_HEADER_LINE + 1)
        if len(line) > MAX_HEADER_LINE:
            return self.refuse(f"a header line longer than {MAX_HEADER_LINE:,} bytes")
        return line

    def read(self, size: int) -> bytes:
        if size > MAX_MESSAGE:
            return self.refuse(f"a message of {size:,} bytes: the most is {MAX_MESSAGE:,}")
        return self.stream.read(size)

    def refuse(self, why: str) -> bytes:
        self.refused = why
        print(f"lc3jit lsp: {why}; the session ends", file=sys.stderr, flush=True)
        return b""


def main() -> int:
    """`lc3jit lsp`: serve on stdio until the client says exit (1 after a message refused)."""
    try:
        server = build_server()
    except ImportError as e:
        print(f"lc3jit: lsp needs pygls: pip install 'lc3jit[editor]' ({e})", file=sys.stderr)
        return 1
    incoming = BoundedInput(sys.stdin.buffer)
    server.start_io(incoming, sys.stdout.buffer)  # type: ignore[arg-type]
    return 0 if incoming.refused is None else 1
