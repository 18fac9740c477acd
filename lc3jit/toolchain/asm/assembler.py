"""One run of the assembler over one source: pass 1 (layout), pass 2 (encoder), the result."""

from __future__ import annotations

from dataclasses import dataclass

from lc3jit.toolchain.asm.diagnostics import AssemblyError, Diagnostic, Reporter, more
from lc3jit.toolchain.asm.encoder import Encoder
from lc3jit.toolchain.asm.layout import Layout
from lc3jit.toolchain.asm.symbols import SymbolTable
from lc3jit_runtime.errors import LoadError
from lc3jit_runtime.loader import MAX_TEXT_BYTES, Image, read_bytes

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from _typeshed import StrPath


@dataclass(frozen=True)
class Assembly:
    """What a source file gives: one image per .ORIG block, and which words are code."""

    images: tuple[Image, ...]
    code: frozenset[int]  # addresses of instructions, as opposed to .FILL/.BLKW/.STRINGZ words
    warnings: tuple[Diagnostic, ...]  # the first SHOWN
    more_warnings: int = 0  # not shown

    def warning_texts(self) -> list[str]:
        """The warnings as the assembler writes them, the count of those not shown last."""
        extra = (
            [f"{self.warnings[0].path}: {more(self.more_warnings, 'warning')}"] if self.more_warnings else []
        )
        return [*map(str, self.warnings), *extra]


class _Assembler:
    """The state of one run over one source: diagnostics, symbols, blocks."""

    def __init__(self, source: str, path: str, encoding: str) -> None:
        self.path = path
        self.reporter = Reporter(path)
        self.symbols = SymbolTable(self.reporter)
        lines = [line.removesuffix("\r") for line in source.split("\n")]
        self.layout = Layout(lines, path, encoding, self.reporter, self.symbols)

    def run(self) -> Assembly:
        blocks = self.layout.run()
        encoder = Encoder(self.reporter, self.symbols)
        for block in blocks:
            encoder.fill(block)
        shown = self.reporter.finish()
        errors = [d for d in shown if d.severity == "error"]
        if errors:
            warnings = [d for d in shown if d.severity != "error"]
            raise AssemblyError(errors, warnings, self.reporter.counts["error"])
        images = tuple(Image(b.origin, tuple(b.words), self.path, b.symbols, b.source) for b in blocks)
        code = frozenset(address for b in blocks for address in b.code)
        return Assembly(images, code, tuple(shown), self.reporter.counts["warning"] - len(shown))


def _decode_source(data: bytes) -> tuple[str, str]:
    """The text of a source file and the encoding its strings are written back in.

    lc3as copies the bytes of a string into words, so strings are re-encoded the way
    they came; a file that is not UTF-8 is read byte for byte.
    """
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def assemble(source: str | bytes, path: str = "<source>") -> Assembly:
    """Assemble a whole source text; raises AssemblyError with every error found."""
    text, encoding = _decode_source(source) if isinstance(source, bytes) else (source, "utf-8")
    return _Assembler(text, path, encoding).run()


def diagnose(source: str, path: str = "<source>") -> tuple[Assembly | None, list[Diagnostic]]:
    """Every error and warning of a source, in order, and its assembly when it has no error:
    what an editor shows as the student types (`assemble` keeps only the errors of a
    source that has some)."""
    assembler = _Assembler(source, path, "utf-8")
    try:
        assembly = assembler.run()
    except AssemblyError:
        assembly = None
    return assembly, list(assembler.reporter.diagnostics)


def assemble_file(path: StrPath) -> Assembly:
    data = read_bytes(path, MAX_TEXT_BYTES)
    if b"\0" in data:
        raise LoadError(path, "a binary file, not assembly text (an .obj? name it so)")
    if not data.strip():
        raise LoadError(path, "an empty file: nothing to assemble (a program starts with .ORIG x3000)")
    return assemble(data, str(path))
