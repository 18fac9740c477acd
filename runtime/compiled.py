"""Compiled programs: an LC-3 program and its translated code in one standard CPython .pyc.

`lc3jit compile` writes such a file; `python PROGRAM.pyc` runs it with nothing but this
package (the translator is not needed), and `lc3jit run` and its translation cache read
it back. The file is what CPython itself writes for a module (PEP 552):

    importlib.util.MAGIC_NUMBER      4 bytes: the bytecode and marshal format of one CPython
    flags = 1                        4 bytes: "hash-based, not checked against a source"
    checksum                         8 bytes: importlib.util.source_hash of what follows
    marshal.dumps(module code)

There is no source file to hash, so the checksum covers the marshalled code itself:
lc3jit finds a corrupt or truncated file before unmarshalling it. CPython skips these
bytes, and unmarshalling damaged code can crash it (a flipped bit in a code object's
bytecode is a segmentation fault when it runs), so the module code is only a few lines
(lc3jit.translator.saved.MODULE_SOURCE: lc3jit writes compiled files, the runtime only
reads them) that call `main` with one bytes constant: PAYLOAD_MARK, the
`importlib.util.source_hash` of the rest, and the marshalled payload compressed with zlib,
which `main` checks before it unmarshals anything: `python PROGRAM.pyc` refuses a damaged
file in one line too. (Generated code is mostly the same few instructions and their
zeroed inline caches: compressed it is a fifth to a seventh of its size, 15-40 bytes a
word of the program, and it decompresses at a few hundred MB a second.) The payload is
nested tuples of ints, strings, bytes and code objects, hashable all the way down, as
marshal stores them:

    (MARK, FORMAT), ("lc3jit", version), ("program", name), ("edition", 2 | 3),
    ("pc", start PC or None), ("images", images), ("system", OS images),
    ("engines", ((engine name, (leaders, regions, blocks)), ...)),
    ("report", (entries, rejected, indirect)), ("key", cache key or "")

an image being (origin, words as big-endian bytes, name, ((label, address), ...)), a
region (code, entries, ((start, length, exit), ...)) and a block (code, start, length,
exit). A translation cache entry holds the payload itself, not packed (see
lc3jit.translator.saved.pyc_bytes). Code objects hold only such constants; the machine's
state and the runtime's slow paths are globals, bound when a dispatcher installs the code
(runtime.dispatch).

Marshalled code belongs to one CPython version: another refuses the file by its magic
number (CPython: "Bad magic number"; lc3jit: a one-line message). Loading a .pyc runs
its code: a compiled file is as trusted as any Python file.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import sys
from types import CodeType, FunctionType

from . import contract
from .boot import boot
from .collector import collector_paused, made_long_lived, running
from .console import Console
from .dispatch import Dispatcher, Translation
from .errors import LC3Error, LoadError
from .isa import WORD_MASK
from .lean import suppress
from .loader import Image, extension
from .machine import Machine
from .record import Record
from .running import report_ending, run_to_ending

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from _typeshed import StrPath

    from .dispatch import Translator

    #: Gives, for an engine name, an edition, the block leaders and access control, the translator
    #: of code not compiled ahead (lc3jit.translator.cache.LateTranslator when lc3jit is installed).
    LateTranslatorFactory = Callable[[str, int, frozenset[int], bool], Translator]

#: The first pair of every payload: what it is, and its format: the version of its layout
#: and the digest of the contract between generated code and this runtime (the names it
#: may use, runtime.contract). A file whose FORMAT differs is refused (compile it again):
#: saved code that named a global this runtime no longer binds would fail mid-run.
MARK = "lc3jit compiled program"
LAYOUT = 5
FORMAT = f"{LAYOUT}.{contract.DIGEST}"
HASH_BASED_UNCHECKED = 0b01  # PEP 552 flags
HEADER_BYTES = 16
#: The engine `python PROGRAM.pyc` runs.
DEFAULT_ENGINE = "regions"

#: What the payload's bytes begin with, before their hash (8 bytes) and the compressed payload.
PAYLOAD_MARK = b"lc3jit payload\x00"


class SavedRegion(Record, fields=("code", "entries", "blocks")):
    """A region's code object, where the dispatcher may enter it, and its blocks (the root's
    first) as (start, length, exit)."""

    code: CodeType
    entries: tuple[int, ...]
    blocks: tuple[tuple[int, int, str], ...]

    @property
    def words(self) -> tuple[int, ...]:
        return tuple(
            sorted({(start + i) & WORD_MASK for start, length, _ in self.blocks for i in range(length)})
        )


class SavedBlock(Record, fields=("code", "start", "length", "exit")):
    code: CodeType
    start: int
    length: int
    exit: str


class SavedEngine(Record, fields=("leaders", "regions", "blocks"), defaults={"regions": (), "blocks": ()}):
    """What one engine translated ahead of time, and the block leaders its translator cut blocks at."""

    leaders: frozenset[int]
    regions: tuple[SavedRegion, ...]
    blocks: tuple[SavedBlock, ...]

    @property
    def codes(self) -> int:
        return len(self.regions) + len(self.blocks)


class Report(
    Record,
    fields=("entries", "rejected", "indirect"),
    defaults={"entries": (), "rejected": (), "indirect": ()},
):
    """What the compiler translated ahead and what it left to run time (for reports and dumps).

    `entries`: where translation began, each with why (start, vector, label, table);
    `rejected`: labels and table targets judged to be data; `indirect`: the addresses of
    jumps whose targets are known only at run time (JMP, JSRR, RTI).
    """

    entries: tuple[tuple[int, str], ...]
    rejected: tuple[tuple[int, str], ...]
    indirect: tuple[int, ...]


class Compiled(
    Record,
    fields=("program", "version", "edition", "pc", "images", "system", "engines", "report", "key"),
    defaults={"system": (), "report": Report(), "key": ""},
    factories={"engines": dict},
):
    """The contents of a compiled file (or of an entry of lc3jit's translation cache)."""

    program: str
    version: str  # of the lc3jit that wrote it
    edition: int
    pc: int | None
    images: tuple[Image, ...]
    system: tuple[Image, ...]
    engines: dict[str, SavedEngine]
    report: Report
    key: str  # a cache entry: what its translations were made for

    @classmethod
    def from_payload(cls, payload: object, name: str) -> Compiled:
        """The payload back, checked for what this runtime can run; LoadError if not."""
        if not is_payload(payload):
            raise LoadError(name, "a Python file, not an LC-3 program compiled by lc3jit")
        fields = dict(payload)  # type: ignore[arg-type]
        if fields[MARK] != FORMAT:
            raise LoadError(
                name,
                f"compiled by lc3jit {fields.get('lc3jit', '?')} in format {fields[MARK]}; this runtime "
                f"reads format {FORMAT}: compile it again",
            )
        try:
            entries, rejected, indirect = fields["report"]
            return cls(
                program=fields["program"],
                version=fields["lc3jit"],
                edition=fields["edition"],
                pc=fields["pc"],
                images=tuple(_image(i) for i in fields["images"]),
                system=tuple(_image(i) for i in fields["system"]),
                engines={engine: _engine(saved) for engine, saved in fields["engines"]},
                report=Report(tuple(entries), tuple(rejected), tuple(indirect)),
                key=fields["key"],
            )
        except (KeyError, TypeError, ValueError, LC3Error) as e:
            raise LoadError(name, f"malformed compiled program ({e.__class__.__name__}: {e})") from None


def is_payload(value: object) -> bool:
    return (
        isinstance(value, tuple)
        and bool(value)
        and isinstance(value[0], tuple)
        and len(value[0]) == 2
        and value[0][0] == MARK
    )


def unpack(payload: object, name: str) -> Compiled:
    """The payload's bytes (PAYLOAD_MARK, hash, compressed payload), checked, then unmarshalled.
    A payload that is a tuple already (a cache entry's, see pyc_bytes; or an older format's,
    refused by its format, with what to do) is read as it is."""
    if is_payload(payload):
        return Compiled.from_payload(payload, name)
    if not isinstance(payload, bytes) or not payload.startswith(PAYLOAD_MARK):
        raise LoadError(name, "a Python file, not an LC-3 program compiled by lc3jit")
    start = len(PAYLOAD_MARK)
    checksum, data = payload[start : start + 8], payload[start + 8 :]
    if importlib.util.source_hash(data) != checksum:
        raise LoadError(name, "corrupt (its program's checksum does not match its contents)")
    import zlib  # only for a compiled program's packed payload

    with suppress(zlib.error):  # not compressed: an older lc3jit's, refused by its format
        data = zlib.decompress(data)
    try:
        with collector_paused():
            return Compiled.from_payload(marshal.loads(data), name)
    except (EOFError, ValueError, TypeError) as e:
        raise LoadError(name, f"corrupt ({e})") from None


def _image(payload: tuple[int, bytes, str, tuple[tuple[str, int], ...]]) -> Image:
    origin, data, name, symbols = payload
    words = tuple(data[i] << 8 | data[i + 1] for i in range(0, len(data), 2))
    return Image(origin, words, name, dict(symbols))


def _engine(payload: tuple[tuple[int, ...], tuple[object, ...], tuple[object, ...]]) -> SavedEngine:
    leaders, regions, blocks = payload
    saved = SavedEngine(
        frozenset(leaders),
        tuple(SavedRegion(*r) for r in regions),  # type: ignore[misc]
        tuple(SavedBlock(*b) for b in blocks),  # type: ignore[misc]
    )
    codes = [r.code for r in saved.regions] + [b.code for b in saved.blocks]
    if not all(isinstance(code, CodeType) for code in codes):
        raise ValueError("a translation that is not a code object")
    return saved


#: CPython numbers the bytecode of each minor version in a block of 50 magic numbers:
#: 3.11 from 3450, 3.12 from 3500, ... (3.11.7: 3495, 3.14.x: 3627, 3.15.x: 3666).
FIRST_MAGIC_OF_3_11 = 3450
MAGIC_BLOCK = 50


def another_python(theirs: int) -> str:
    """What to tell the user of a compiled file whose bytecode another Python wrote: that
    Python's version when the magic number says it, the numbers themselves otherwise."""
    this = f"{sys.version_info.major}.{sys.version_info.minor}"
    if theirs >= FIRST_MAGIC_OF_3_11:
        writer = f"3.{11 + (theirs - FIRST_MAGIC_OF_3_11) // MAGIC_BLOCK}"
        if writer != this:
            return (
                f"compiled by Python {writer}; this is Python {this}: compile it again with this "
                f"Python, or run it with Python {writer}"
            )
    ours = int.from_bytes(importlib.util.MAGIC_NUMBER[:2], "little")
    return (
        f"compiled for another Python version (bytecode magic {theirs}; Python "
        f"{sys.version.split()[0]} reads {ours}): compile it again with this Python"
    )


def parse_compiled(data: bytes, name: str) -> Compiled:
    """A compiled file's bytes back as a Compiled; LoadError (one line) for anything else."""
    if len(data) < HEADER_BYTES or data[2:4] != b"\r\n":
        raise LoadError(name, "not a compiled program (no .pyc header)")
    magic, flags, checksum, body = data[:4], data[4:8], data[8:16], data[HEADER_BYTES:]
    if magic != importlib.util.MAGIC_NUMBER:
        raise LoadError(name, another_python(int.from_bytes(magic[:2], "little")))
    if int.from_bytes(flags, "little") != HASH_BASED_UNCHECKED:
        raise LoadError(name, "a .pyc that lc3jit did not write (no checksum of its code)")
    if importlib.util.source_hash(body) != checksum:
        raise LoadError(name, "corrupt or truncated (its checksum does not match its contents)")
    try:
        with collector_paused():
            module = marshal.loads(body)
    except (EOFError, ValueError, TypeError) as e:
        raise LoadError(name, f"corrupt ({e})") from None
    if not isinstance(module, CodeType):
        raise LoadError(name, "corrupt (no module code)")
    found = (
        c for c in module.co_consts if is_payload(c) or (isinstance(c, bytes) and c.startswith(PAYLOAD_MARK))
    )
    payload = next(found, None)
    return unpack(payload, name)


def read_compiled(path: StrPath) -> Compiled:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise LoadError(path, e.strerror or str(e)) from None
    return parse_compiled(data, os.fspath(path))


def write_atomically(path: StrPath, data: bytes, mode: int) -> None:
    """Write a temporary file beside path, then rename it over path: a reader sees the old
    file or the new one, never half of one. OSError if it cannot be written."""
    import tempfile  # only to write: a run that loads saved code does not pay for it

    folder, name = os.path.split(os.fspath(path))
    fd, temporary = tempfile.mkstemp(dir=folder or ".", prefix=".tmp-", suffix=extension(name))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            os.fchmod(f.fileno(), mode)
        os.replace(temporary, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def install(dispatcher: Dispatcher, saved: SavedEngine) -> None:
    """Bind the saved code to the dispatcher's machine and install it, in the order it was
    translated: a region once for each entry (told apart by its default `entry`)."""
    namespace = dispatcher.globals
    for region in saved.regions:
        words, code = region.words, region.code
        functions = [
            (entry, FunctionType(code, namespace, code.co_name, (entry,))) for entry in region.entries
        ]
        dispatcher.install_entries([Translation.from_values((entry, 0, f, words)) for entry, f in functions])
    for block in saved.blocks:
        function = FunctionType(block.code, namespace, block.code.co_name)
        dispatcher.install(Translation(block.start, block.length, function))  # type: ignore[arg-type]


def saved_dispatcher(
    machine: Machine, saved: SavedEngine, translator: Translator | None = None, profile: bool = False
) -> Dispatcher:
    """A dispatcher running the saved code; `translator` (or the interpreter) does the rest."""
    with collector_paused():
        dispatcher = Dispatcher(machine, translator, profile)
        install(dispatcher, saved)
    return dispatcher


def main(
    payload: object, late_translator: LateTranslatorFactory | None = None, argv: Iterable[str] | None = None
) -> int:
    """`python PROGRAM.pyc [--input FILE] [--max-steps N]`: run the program compiled into it.

    Returns the exit code of `lc3jit run` for the way the run ended.
    """
    import argparse  # only for `python PROGRAM.pyc`, not for every run that loads this module

    prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "program.pyc"
    parser = argparse.ArgumentParser(
        prog=prog, description="Run the LC-3 program compiled into this file by `lc3jit compile`."
    )
    parser.add_argument("--input", metavar="FILE", help="read the keyboard from FILE instead of stdin")
    parser.add_argument("--max-steps", metavar="N", type=int, help="stop after N instructions (exit code 4)")
    args = parser.parse_args(None if argv is None else list(argv))
    if args.max_steps is not None and args.max_steps < 0:
        parser.error("--max-steps: N must be 0 or more")
    try:
        compiled = unpack(payload, prog)
        console = Console.for_process(args.input)
    except LC3Error as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return e.exit_code
    except OSError as e:  # the --input file
        print(f"{prog}: {e.filename}: {e.strerror or e}", file=sys.stderr)
        return 1
    with running():
        with made_long_lived():
            machine = boot(compiled.images, console, compiled.edition, compiled.pc, compiled.system)
            saved = compiled.engines.get(DEFAULT_ENGINE, SavedEngine(frozenset()))
            translator = None
            if late_translator is not None:
                translator = late_translator(
                    DEFAULT_ENGINE, machine.edition, saved.leaders, machine.access_control
                )
            dispatcher = saved_dispatcher(machine, saved, translator)
        outcome, _ = run_to_ending(machine, lambda: dispatcher.run(args.max_steps))
    return report_ending(outcome, console, prog)
