"""Saved translations on lc3jit's side: taken from an engine just built, written into the
translation cache, and read back as the records a dump shows (runtime/compiled.py has the
format and the loader). Putting
them back to run is lc3jit.translator.cache's (`restored`), the one module of the
translator's side a run from the cache imports.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import time
from collections.abc import Callable, Iterable, Sequence
from types import CodeType

from lc3jit import __version__
from lc3jit.translator.cache import (
    PRIVATE_FILE,
    STALE_SECONDS,
    LateTranslator,
    TranslationCache,
    translator_for,
)
from lc3jit_runtime.compiled import (
    FORMAT,
    HASH_BASED_UNCHECKED,
    MARK,
    PAYLOAD_MARK,
    Compiled,
    SavedBlock,
    SavedEngine,
    SavedRegion,
    write_atomically,
)
from lc3jit_runtime.dispatch import Dispatcher
from lc3jit_runtime.isa import WORD_MASK, decode
from lc3jit_runtime.lean import suppress
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import Machine, spans_of

#: LateTranslator is here too for the compiled files written before it moved (their code imports
#: it from this module).
__all__ = [
    "MODULE_SOURCE",
    "LateTranslator",
    "as_images",
    "covered_words",
    "evict",
    "module_code",
    "pyc_bytes",
    "recording_translator",
    "save_entry",
    "save_translations",
    "saved_block",
    "saved_engine",
    "to_payload",
    "unchanged",
]

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from lc3jit.translator.blocks import Block
    from lc3jit.translator.translate import BlockTranslator


def saved_engine(dispatcher: Dispatcher) -> SavedEngine:
    """What a block or region engine translated ahead of time, before it ran."""
    from lc3jit.translator.translate import translator_of

    translator = translator_of(dispatcher)
    return SavedEngine(
        frozenset(translator.leaders),  # type: ignore[arg-type]
        tuple(
            SavedRegion(r.code, r.entries, tuple((b.start, b.length, b.exit.value) for b in r.blocks))
            for r in translator.regions.values()
        ),
        tuple(
            SavedBlock(dispatcher.blocks[start].function.__code__, start, block.length, block.exit.value)  # type: ignore[attr-defined]
            for start, block in translator.compiled.items()
            if start in dispatcher.blocks
        ),
    )


def saved_block(mem: Sequence[int], start: int, length: int, exit: str) -> Block:
    """A saved block's record, decoded again from the memory it was translated from."""
    from lc3jit.translator.blocks import Block, Exit  # for dumps: not on the cache's way

    words = [(start + i) & WORD_MASK for i in range(length)]
    return Block(start, tuple(decode(mem[a], a) for a in words), Exit(exit))


def recording_translator(machine: Machine, engine: str, saved: SavedEngine) -> BlockTranslator:
    """The engine's translator with its records (what `lc3jit dump` reads) filled in from
    saved code, as if it had translated that code itself."""
    from lc3jit.translator.translate import Region

    translator = translator_for(engine, machine.edition, saved.leaders, machine.access_control)
    mem = machine.mem
    for block in saved.blocks:
        translator.compiled[block.start] = saved_block(mem, block.start, block.length, block.exit)
    for region in saved.regions:
        blocks = tuple(saved_block(mem, *b) for b in region.blocks)
        translator.regions[blocks[0].start] = Region(blocks, region.entries, region.code)
    return translator


def save_translations(
    cache: TranslationCache,
    key: str,
    machine: Machine,
    engine: str,
    dispatcher: Dispatcher,
    booted: Callable[[], Sequence[int]] | None,
) -> None:
    """Save what the engine translated as the cache's entry `key`: only code of the program
    as booted (`booted` gives memory at boot, for an engine built after the run began).
    Here, not in the cache's module, which a run that loads its translations imports: a
    run that writes an entry has imported the translator."""
    made = saved_engine(dispatcher)
    if booted is None or unchanged(made, machine.mem, booted()):
        words = as_images(covered_words(made), machine.mem)
        entry = Compiled("cache entry", __version__, machine.edition, None, words, key=key)
        entry.engines[engine] = made
        save_entry(cache, key, entry)


def save_entry(cache: TranslationCache, key: str, entry: Compiled) -> None:
    try:
        write_atomically(cache.path(key), pyc_bytes(entry, packed=False), PRIVATE_FILE)
        evict(cache, keep=cache.path(key))
    except OSError as e:
        cache.warn(f"could not save translations: {e.strerror or e}")


def evict(cache: TranslationCache, keep: str) -> None:
    """The oldest entries out until the directory is within max_bytes; dead temporaries out."""
    entries, total, now = [], 0, time.time()
    with os.scandir(cache.directory) as found:
        for item in found:
            try:
                info = item.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue  # removed meanwhile by another run
            if item.name.startswith(".tmp-"):
                if now - info.st_mtime > STALE_SECONDS:
                    with suppress(FileNotFoundError):
                        os.unlink(item.path)
            elif item.name.endswith(".pyc"):
                entries.append((info.st_mtime, info.st_size, item.path))
                total += info.st_size
    for _, size, path in sorted(entries):
        if total <= cache.max_bytes:
            break
        if path != keep:
            with suppress(FileNotFoundError):
                os.unlink(path)
            total -= size


def covered_words(saved: SavedEngine) -> list[int]:
    """The addresses of the words the saved code was translated from, in order."""
    words = {w for region in saved.regions for w in region.words}
    words.update((b.start + i) & WORD_MASK for b in saved.blocks for i in range(b.length))
    return sorted(words)


def unchanged(saved: SavedEngine, mem: Sequence[int], booted: Sequence[int]) -> bool:
    """Are the words the saved code was translated from what memory held at boot? A tiered
    run translates after it has run a while, when the program may have rewritten them; code
    keyed by the boot's program must be code of the boot's words."""
    return all(mem[w] == booted[w] for w in covered_words(saved))


def as_images(addresses: Iterable[int], mem: Sequence[int]) -> tuple[Image, ...]:
    """The words at the addresses (in order), as images of consecutive words."""
    return tuple(Image(start, tuple(mem[start:end]), "translated", {}) for start, end in spans_of(addresses))


#: The module code of a compiled file (runtime/compiled.py describes the format). PLACEHOLDER,
#: a string constant, is replaced by the payload in the compiled code object: Python source
#: cannot express a code object as a constant. This generated source (not the runtime) is
#: what looks for lc3jit, optionally. Written here, on lc3jit's side, as all of a compiled
#: file's writing: a run that loads saved code imports the runtime's reader, not this.
PLACEHOLDER = "\x00lc3jit payload"
MODULE_SOURCE = f'''\
"""An LC-3 program compiled by lc3jit: `python FILE.pyc` runs it (lc3jit's runtime package needed)."""
import sys
try:
    from lc3jit_runtime.compiled import main
except ImportError:
    sys.exit(sys.argv[0] + ": needs the runtime package of lc3jit (pip install lc3jit)")
try:  # with lc3jit, code not compiled ahead of time is translated when it gets hot
    from lc3jit.translator.cache import LateTranslator
except ImportError:  # without it, the interpreter runs that code
    LateTranslator = None
sys.exit(main({PLACEHOLDER!r}, LateTranslator))
'''


def pyc_bytes(compiled: Compiled, packed: bool = True) -> bytes:
    """The compiled file's bytes. A translation cache entry is not `packed`: its payload is a
    constant of the module code, unmarshalled with it in one pass, once the header's
    checksum of the whole is checked (parse_compiled); not compressed, not hashed again:
    read back on the machine that wrote it, where zlib's import and inflating cost a
    run more than the bytes do. `python ENTRY.pyc` does not check that checksum: an
    entry is not a program to run (`lc3jit run` refuses one)."""
    body = marshal.dumps(module_code(compiled, packed))
    flags = HASH_BASED_UNCHECKED.to_bytes(4, "little")
    return importlib.util.MAGIC_NUMBER + flags + importlib.util.source_hash(body) + body


def module_code(compiled: Compiled, packed: bool = True) -> CodeType:
    """The code object of the compiled file: MODULE_SOURCE with the payload's bytes in it;
    or, not `packed`, with the payload itself (see pyc_bytes)."""
    code = compile(MODULE_SOURCE, f"<{compiled.program} compiled by lc3jit>", "exec")
    payload: object = to_payload(compiled)
    if packed:
        import zlib  # not on the way of a run that writes a cache entry

        data = zlib.compress(marshal.dumps(payload))
        payload = PAYLOAD_MARK + importlib.util.source_hash(data) + data
    return code.replace(co_consts=tuple(payload if c == PLACEHOLDER else c for c in code.co_consts))


def to_payload(compiled: Compiled) -> tuple[object, ...]:
    """What Compiled.from_payload reads back."""
    return (
        (MARK, FORMAT),
        ("lc3jit", compiled.version),
        ("program", compiled.program),
        ("edition", compiled.edition),
        ("pc", compiled.pc),
        ("images", tuple(_image_payload(i) for i in compiled.images)),
        ("system", tuple(_image_payload(i) for i in compiled.system)),
        ("engines", tuple((name, _engine_payload(e)) for name, e in compiled.engines.items())),
        ("report", (compiled.report.entries, compiled.report.rejected, compiled.report.indirect)),
        ("key", compiled.key),
    )


def _image_payload(image: Image) -> tuple[object, ...]:
    words = b"".join(w.to_bytes(2, "big") for w in image.words)
    return (image.origin, words, image.name, tuple(image.symbols.items()))


def _engine_payload(saved: SavedEngine) -> tuple[object, ...]:
    return (
        tuple(sorted(saved.leaders)),
        tuple((r.code, r.entries, r.blocks) for r in saved.regions),
        tuple((b.code, b.start, b.length, b.exit) for b in saved.blocks),
    )
