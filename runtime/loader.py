"""Program images from files: classic `.obj`, LC3Tools `.obj`, lc3convert `.hex`/`.bin` text,
lc3as `.sym`.

An image is an origin and the words that load from there, plus what is known about
them (labels, source lines) for dumps and messages. Every malformed file is a
`LoadError` that names the file and the problem in one line, and no file is read past
the most its format can hold, so a hostile file costs time and memory in proportion
to that bound at most.
"""

from __future__ import annotations

import os
import stat

from .errors import LoadError
from .isa import MEMORY_WORDS
from .record import Record

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from _typeshed import StrPath  # a str or a Path: files are named by either

#: The most a file can hold: an origin and 65,536 words.
MAX_OBJ_BYTES = 2 * (MEMORY_WORDS + 1)
#: The most a text file (`.hex`, `.bin`, `.sym`, `.asm`) or an LC3Tools `.obj` (each word
#: with its source line) may hold: room for every word of memory and a long line for each.
MAX_TEXT_BYTES = 64 * MAX_OBJ_BYTES
#: What an LC3Tools `.obj` starts with: its magic bytes, then its format's version (1.1).
LC3TOOLS_MAGIC = b"\x1c\x30\x15\xc0\x01"
LC3TOOLS_VERSION = b"\x01\x01"


class SourceLine(Record, fields=("path", "line", "text")):
    """Where a word came from, for messages and dumps (line 0: the file names no line number,
    as an LC3Tools `.obj` does not)."""

    path: str
    line: int
    text: str


class Image(
    Record,
    fields=("origin", "words", "name", "symbols", "source"),
    defaults={"name": "<memory>"},
    factories={"symbols": dict, "source": dict},
):
    """Words to place in memory at origin, with labels and source where known."""

    origin: int
    words: tuple[int, ...]
    name: str
    symbols: dict[str, int]
    source: dict[int, SourceLine]

    def __post_init__(self) -> None:
        if not self.words:
            raise LoadError(self.name, "no words after the origin")
        end = self.origin + len(self.words)
        if end > MEMORY_WORDS:
            raise LoadError(self.name, f"{len(self.words)} words from x{self.origin:04X} run past xFFFF")

    @property
    def end(self) -> int:
        """One past the last address."""
        return self.origin + len(self.words)


def loaded_at(images: Iterable[Image], address: int) -> bool:
    """Does one of the images load the word at address?"""
    return any(image.origin <= address < image.end for image in images)


def read_bytes(path: StrPath, limit: int) -> bytes:
    """A regular file's bytes; a larger file than `limit` is "too large", never cut short.

    Anything but a regular file (a FIFO would block the open forever, a device never end)
    is refused before it is opened.
    """
    try:
        mode = os.stat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a directory: the open says so
            raise LoadError(path, "not a regular file")
        with open(path, "rb") as f:  # read(n) holds n bytes at first: ask for what the file has
            data = f.read(min(os.fstat(f.fileno()).st_size, limit) + 1)
    except OSError as e:
        raise LoadError(path, e.strerror or str(e)) from None
    if len(data) > limit:
        raise LoadError(path, f"too large: more than {limit:,} bytes")
    return data


def _read_text(path: StrPath) -> str:
    data = read_bytes(path, MAX_TEXT_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LoadError(path, f"not a text file (byte {e.start} is not UTF-8)") from None


def parse_obj(path: StrPath) -> Image:
    """A classic `.obj`: big-endian words, the first the origin."""
    return _classic_obj(read_bytes(path, MAX_TEXT_BYTES), path)


def _classic_obj(data: bytes, path: StrPath) -> Image:
    if not data:
        raise LoadError(path, "empty file")
    if len(data) > MAX_OBJ_BYTES:
        raise LoadError(path, f"more than {MAX_OBJ_BYTES} bytes: runs past xFFFF wherever it loads")
    if _is_text(data):  # checked first: text of an odd length would say "odd number of bytes"
        kind = "assembly source: name it .asm" if b".orig" in data.lower() else "name it .hex or .bin"
        raise LoadError(path, f"a text file, not an .obj of 16-bit words ({kind})")
    if len(data) % 2:
        raise LoadError(path, f"odd number of bytes ({len(data)}): an .obj holds 16-bit words")
    words = [data[i] << 8 | data[i + 1] for i in range(0, len(data), 2)]
    return Image(words[0], tuple(words[1:]), os.fspath(path))


def _is_text(data: bytes) -> bool:
    """Lines of printable ASCII: what an .obj never is (its origin alone has a byte
    outside that range for every origin below x2020, and words of code many more)."""
    return b"\n" in data and all(0x20 <= byte < 0x7F or byte in b"\t\r\n" for byte in data)


#: An LC3Tools entry: the word (little-endian), 1 if it is an origin, the length of its line.
_ENTRY_HEAD = 7


def parse_lc3tools_obj(data: bytes, name: str) -> tuple[Image, ...]:
    """What LC3Tools' assembler writes: its header, then an entry per word, each the word,
    a byte that is 1 where the entry is an `.ORIG` (its word the origin) and 0 for a word
    to load, and the word's source line (a 32-bit little-endian length, then the bytes).
    One image per `.ORIG`, each word with its line."""
    version = data[len(LC3TOOLS_MAGIC) : len(LC3TOOLS_MAGIC) + len(LC3TOOLS_VERSION)]
    if version != LC3TOOLS_VERSION:
        found = ".".join(str(b) for b in version) or "none"
        raise LoadError(name, f"an LC3Tools .obj of format version {found}, not 1.1: assemble it again")
    blocks: list[tuple[int, list[int], dict[int, SourceLine]]] = []
    offset = len(LC3TOOLS_MAGIC) + len(LC3TOOLS_VERSION)
    while offset < len(data):
        head = data[offset : offset + _ENTRY_HEAD]
        if len(head) < _ENTRY_HEAD:
            raise LoadError(name, f"truncated: {len(head)} bytes at byte {offset} where an entry needs 7")
        word, is_origin = int.from_bytes(head[:2], "little"), head[2]
        end = offset + _ENTRY_HEAD + int.from_bytes(head[3:], "little")
        if end > len(data):
            raise LoadError(
                name, f"truncated: the source line at byte {offset} runs {end - len(data)} bytes past the end"
            )
        if is_origin > 1:
            raise LoadError(
                name, f"corrupt: the entry at byte {offset} has origin flag {is_origin}, not 0 or 1"
            )
        if is_origin:
            blocks.append((word, [], {}))
        elif not blocks:
            raise LoadError(name, f"corrupt: a word at byte {offset} before any origin")
        else:
            origin, words, source = blocks[-1]
            if origin + len(words) >= MEMORY_WORDS:
                raise LoadError(name, f"the words from x{origin:04X} run past xFFFF")
            text = data[offset + _ENTRY_HEAD : end].decode("utf-8", "replace")
            source[origin + len(words)] = SourceLine(name, 0, text)
            words.append(word)
        offset = end
    images = tuple(Image(origin, tuple(words), name, {}, source) for origin, words, source in blocks if words)
    if not images:
        raise LoadError(name, "no words: an LC3Tools .obj with no .ORIG block that holds any")
    return images


#: Spaces that may group the digits of a `.bin` word, as LC3Tools' samples group them
#: by field (`0001 001 001 1 00001`).
_GROUPING = str.maketrans("", "", " \t")
_BINARY_DIGITS = frozenset("01")


def _text_word(text: str, binary: bool) -> int | None:
    """The word a line of a `.bin` (16 binary digits, the spaces that grouped them taken out)
    or `.hex` (1 to 4 hex digits after an optional `x` or `0x`) holds, or None. Read without
    `re`, as `.sym` lines are."""
    if binary:
        return int(text, 2) if len(text) == 16 and _BINARY_DIGITS.issuperset(text) else None
    return _hex_word(text)


def _hex_word(text: str) -> int | None:
    """1 to 4 hex digits after an optional `x` or `0x` (either case), or None."""
    digits = text[2:] if text[:2] in ("0x", "0X") else text[1:] if text[:1] in ("x", "X") else text
    return int(digits, 16) if 1 <= len(digits) <= 4 and _HEX_DIGITS.issuperset(digits) else None


def parse_text(path: StrPath, binary: bool) -> Image:
    """One word a line, hex (`.hex`) or 16 binary digits, maybe grouped by spaces (`.bin`);
    `;` starts a comment."""
    words = []
    for number, line in enumerate(_read_text(path).splitlines(), 1):
        text = line.split(";", 1)[0].strip()
        if not text:
            continue
        if binary:
            text = text.translate(_GROUPING)
        word = _text_word(text, binary)
        if word is None:
            kind = "16 binary digits" if binary else "a hex word of 1 to 4 digits"
            raise LoadError(path, f"line {number}: expected {kind}, found {text[:20]!r}")
        words.append(word)
    if not words:
        raise LoadError(path, "empty file: no words")
    return Image(words[0], tuple(words[1:]), os.fspath(path))


def parse_sym(path: StrPath) -> dict[str, int]:
    """lc3as symbol table: `//<tab>LABEL<tab>ADDR` lines below a header of `//` lines.

    Any other line that is not blank is a LoadError: the file is not a symbol table."""
    symbols = {}
    for number, line in enumerate(_read_text(path).splitlines(), 1):
        text = line.strip()
        entry = _symbol_entry(text)
        if entry and entry[0].lower() not in {"symbol", "scope"}:
            symbols[entry[0]] = entry[1]
        elif text and not text.startswith("//"):
            raise LoadError(path, f"line {number}: not a symbol table line")
    return symbols


_LABEL_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _symbol_entry(text: str) -> tuple[str, int] | None:
    """A stripped line `//  LABEL  ADDR` as (label, address): the label a letter or `_`,
    then word characters or dots; the address 1 to 4 hex digits after an optional `x` or
    `0x`. Read without `re`: a run of an `.obj` with its `.sym` does not import it."""
    fields = text[2:].split() if text.startswith("//") else ()
    if len(fields) != 2:
        return None
    label, address = fields
    if label[0] not in _LABEL_START or not all(c.isalnum() or c in "_." for c in label):
        return None
    word = _hex_word(address)
    return None if word is None else (label, word)


def extension(path: StrPath) -> str:
    """The file name's extension as `Path.suffix` gives it, without importing pathlib: on
    3.11 that imports `re` and `urllib.parse`, more CPU than the rest of a short run."""
    name = os.path.basename(os.fspath(path))
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def with_extension(path: StrPath, suffix: str) -> str:
    """The file beside path of the same name with another extension, as
    `Path.with_suffix` names it (`game.obj` -> `game.sym`)."""
    text = os.fspath(path)
    return text[: len(text) - len(extension(text))] + suffix


#: What the file name's extension says a program file holds (`.asm` is assembled by lc3jit).
FORMATS = (".obj", ".hex", ".bin", ".asm")


def unknown_format(path: StrPath) -> LoadError:
    if os.path.isdir(path):
        return LoadError(path, "is a directory, not a program file")
    suffix = extension(path)
    found = f"extension {suffix!r}" if suffix else "no extension"
    return LoadError(path, f"{found}: a program is {', '.join(FORMATS[:-1])} or {FORMATS[-1]}")


def load_file(path: StrPath, warn: Callable[[str], None] | None = None) -> tuple[Image, ...]:
    """The images of an `.obj` (classic: one; LC3Tools: one per `.ORIG`), `.hex` or `.bin`
    file, with the labels of the `.sym` beside an `.obj` when there is one.

    A `.sym` that cannot be read is no reason not to run the program: `warn` is told why
    and the images load without labels.
    """
    suffix = extension(path).lower()
    if suffix in (".hex", ".bin"):
        return (parse_text(path, binary=suffix == ".bin"),)
    if suffix != ".obj":
        raise unknown_format(path)
    data = read_bytes(path, MAX_TEXT_BYTES)
    images = (
        parse_lc3tools_obj(data, os.fspath(path))
        if data.startswith(LC3TOOLS_MAGIC)
        else (_classic_obj(data, path),)
    )
    sym = with_extension(path, ".sym")
    if not os.path.exists(sym):
        return images
    try:
        symbols = parse_sym(sym)
    except LoadError as e:
        if warn is not None:
            warn(f"lc3jit: {e}; loading {path} without labels")
        return images
    return tuple(Image(i.origin, i.words, i.name, symbols, i.source) for i in images)


def load_image_file(path: StrPath) -> Image:
    """The one image of a file (an LC3Tools `.obj` of several `.ORIG` blocks is a LoadError)."""
    images = load_file(path)
    if len(images) > 1:
        raise LoadError(path, f"{len(images)} .ORIG blocks where one image is wanted")
    return images[0]
