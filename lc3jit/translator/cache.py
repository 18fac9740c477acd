"""The translation cache of `lc3jit run`: what one run translated ahead of time, the next loads.

Translating 2048 ahead of time takes about 100 ms; loading the same code objects back
with marshal takes well under one. An entry is a compiled file (runtime/compiled.py; its
payload not packed) holding one engine's translations and, as its images, the words they
were translated from, named by the hash of everything they depend on:
- the program as booted: what booted it (`program_key`: the images and OS images with
  their labels, the start PC, the edition), and host traps or an OS, access control; not
  memory itself: hashing 65,536 words, and booting again to have them at a tiered switch,
  cost a run from the cache two of the three milliseconds it may add;
- the engine;
- the translator: lc3jit's version and the size and modification time of each source file
  of lc3jit and runtime (an edited checkout never loads code its old translator made);
- `importlib.util.MAGIC_NUMBER`: marshalled code of another Python version crashes this
  one, so it is never loaded (the file's header is checked as well).
Code is saved only where it is the code of the program as booted, and loaded only where
memory holds the words it was translated from (a tiered run may have rewritten them).
The entry repeats its key inside, so a file renamed or copied over another is refused.

The directory is `$XDG_CACHE_HOME/lc3jit` (`~/.cache/lc3jit` by default), created
private (0700). Loading a .pyc runs its code, so only regular files owned by the user
and writable by no one else are loaded, from a directory owned by the user and closed to
others. An entry that is corrupt, truncated, foreign or otherwise unusable gets one
warning line and is translated and written again. Entries are written to a temporary
file and renamed into place (`os.replace`), so runs at the same time never see half a
file; the oldest entries (by last use) go once the directory passes MAX_BYTES.
`lc3jit run --no-cache` or LC3JIT_NO_CACHE=1 in the environment turn the cache off, as
`--assembler bytecode` or LC3JIT_ASSEMBLER=bytecode do.

Saved translations are put back to run here too (`restored`, for this cache and for
compiled files, with the translator that goes on where saved code ends): a run from the
cache imports this one module of lc3jit's side of them, not two (a module costs a run
70 microseconds to import). Writing an entry (and evicting old ones) is
lc3jit.translator.saved's: only a run that translated, and so imported the translator,
writes one, and the code a run unmarshals on import costs it as much as running it.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import stat

import lc3jit
import lc3jit_runtime
from lc3jit import __version__
from lc3jit_runtime.compiled import Compiled, SavedEngine, parse_compiled, saved_dispatcher
from lc3jit_runtime.dispatch import Dispatcher, Translation
from lc3jit_runtime.errors import LoadError
from lc3jit_runtime.lean import cache, suppress
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import Machine

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterable, Sequence

    from lc3jit.translator.translate import BlockTranslator

#: Set to anything but "" or "0" to turn the cache off.
DISABLE_VARIABLE = "LC3JIT_NO_CACHE"
#: Set to "bytecode", the translations are assembled by `bytecode` (translator.codegen.assembler's
#: VARIABLE, not imported by a run from the cache): made every run, never cached.
ASSEMBLER_VARIABLE = "LC3JIT_ASSEMBLER"
#: The cache directory's size at most, in bytes: far more than the programs one person runs.
MAX_BYTES = 64 << 20
#: Temporary files this old were left by a run that died while writing: removed.
STALE_SECONDS = 3600
PRIVATE_DIRECTORY = 0o700
PRIVATE_FILE = 0o600


def disabled_by_environment() -> bool:
    return (
        os.environ.get(DISABLE_VARIABLE, "") not in ("", "0")
        or os.environ.get(ASSEMBLER_VARIABLE) == "bytecode"
    )


def cache_directory() -> str | None:
    """`$XDG_CACHE_HOME/lc3jit`, or `~/.cache/lc3jit` (the XDG spec ignores a relative path);
    None with neither a home nor XDG_CACHE_HOME (HOME unset, and a uid with no passwd entry,
    as in a container run with `--user N`), where `~` stays `~`, a folder of the current
    directory (Python 3.11), or raises (3.12 and later)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(base):
        return os.path.join(base, "lc3jit")
    home = os.path.expanduser("~")
    return os.path.join(home, ".cache", "lc3jit") if os.path.isabs(home) else None


@cache
def translator_fingerprint() -> bytes:
    """The translator's identity: lc3jit's version, the Python bytecode format, and the name,
    size and modification time of every source file of the translator and the runtime (what
    translated code is made by and runs with), as CPython's own bytecode cache tells an
    edited source (once a process, a fraction of a millisecond: not lc3jit's other 150 files).
    Marshalled (version 2, which shares no objects: the same stamps give the same bytes),
    not repr'd: the repr of 53 paths and times in nanoseconds cost a cache hit 0.25 M
    machine instructions, a third of what stat'ing the files does."""
    roots = (os.path.join(lc3jit.__path__[0], "translator"), lc3jit_runtime.__path__[0])
    return marshal.dumps((__version__, importlib.util.MAGIC_NUMBER, source_stamps(roots)), 2)


def source_stamps(roots: Iterable[str]) -> list[tuple[str, int, int]]:
    """The path, size and modification time of every .py file under the roots, sorted; not
    looking into bytecode caches (`__pycache__`: a few hundred .pyc files, one per Python)."""
    stamps: list[tuple[str, int, int]] = []
    folders = list(roots)
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.name.endswith(".py"):
                    info = entry.stat()
                    stamps.append((entry.path, info.st_size, info.st_mtime_ns))
                elif entry.name != "__pycache__" and entry.is_dir():
                    folders.append(entry.path)
    return sorted(stamps)


def program_key(
    engine: str, edition: int, pc: int | None, images: Sequence[Image], system: Sequence[Image]
) -> tuple[object, ...]:
    """What an engine's translations of a booted machine depend on, from what booted it: the
    images' words and labels as one digest (of their marshal in version 2, which shares no
    objects, so the same words always give the same bytes: the repr of an OS's 830 words
    and its hash cost a cache hit a tenth of a millisecond)."""
    loaded = tuple(
        (image.origin, image.words, tuple(sorted(image.symbols.values()))) for image in (*system, *images)
    )
    return (engine, edition, pc, digest(marshal.dumps(loaded, 2)))


def entry_key(machine: Machine, engine: str, program: object) -> str:
    """The hash of everything the engine's translations depend on: the program as booted
    (`program`, its program_key) and how the machine runs it."""
    setting = (engine, machine.edition, machine.host_traps, machine.access_control)
    return digest(translator_fingerprint() + repr((setting, program)).encode())


def digest(data: bytes) -> str:
    """128 bits of hash: two of CPython's own source hashes (SipHash, what it keys hash-based
    .pyc files with), of the data and of the data marked. Not hashlib: importing it loads
    OpenSSL, a few milliseconds of every run that finds its translations here."""
    return (importlib.util.source_hash(data) + importlib.util.source_hash(b"lc3jit" + data)).hex()


def holds(mem: Sequence[int], images: Sequence[Image]) -> bool:
    """Does memory hold the images' words?"""
    return all(mem[i.origin : i.origin + len(i.words)] == list(i.words) for i in images)


class TranslationCache:
    """A directory of translations; `build` is an engine builder for `run_machine`."""

    def __init__(
        self, directory: str | None, warn: Callable[[str], None], max_bytes: int = MAX_BYTES
    ) -> None:
        self.directory = directory
        self._warn = warn
        self.max_bytes = max_bytes
        self.warned = False
        self.hit = False  # did the last build load its translations from here?
        self.loaded: SavedEngine | None = None  # and those translations

    def warn(self, message: str) -> None:
        """One warning line a run at most: the first problem is the one worth reading."""
        if not self.warned:
            self.warned = True
            self._warn(f"lc3jit: translation cache: {message}")

    def build(
        self,
        machine: Machine,
        engine: str,
        translate: Callable[[Machine], Dispatcher],
        program: object,
        booted: Callable[[], Sequence[int]] | None = None,
    ) -> Dispatcher:
        """The engine from the cache when an entry fits, else translated by `translate` and saved.

        `program` is what booted the machine (its program_key). `booted` gives its memory at
        boot, for an engine built after the run began (a tiered run), which saves only code
        translated from words the program has not rewritten since.
        """
        self.hit, self.loaded = False, None
        usable = self.usable_directory()
        key = entry_key(machine, engine, program) if usable else ""
        entry = self.load(key, engine) if usable else None
        if entry is not None and holds(machine.mem, entry.images):
            self.hit, self.loaded = True, entry.engines[engine]
            return restored(machine, self.loaded, engine)
        dispatcher = translate(machine)
        if usable and machine.ending is None:  # a translation a signal cut short is not kept
            from lc3jit.translator.saved import save_translations  # translated: the translator is here

            save_translations(self, key, machine, engine, dispatcher, booted)
        return dispatcher

    def usable_directory(self) -> bool:
        """Create the directory private; refuse one that another user owns or could write to."""
        if self.directory is None:
            self.warn("no directory for it (HOME is unset and the user has no home): not used")
            return False
        try:
            try:  # there already, as on every run but the first: one system call
                info = os.lstat(self.directory)
            except FileNotFoundError:
                os.makedirs(self.directory, mode=PRIVATE_DIRECTORY, exist_ok=True)
                info = os.lstat(self.directory)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                self.warn(f"{self.directory} is not a directory of yours: not used")
                return False
            if info.st_mode & 0o077:
                os.chmod(self.directory, PRIVATE_DIRECTORY)
        except OSError as e:
            self.warn(f"{self.directory}: {e.strerror or e}: not used")
            return False
        return True

    def path(self, key: str) -> str:
        assert self.directory is not None  # usable_directory() said so
        return os.path.join(self.directory, f"{key}.pyc")

    def load(self, key: str, engine: str) -> Compiled | None:
        """The entry, with the engine's translations, or None (with a warning if one was there
        but unusable)."""
        path = self.path(key)
        try:  # not blocking: a FIFO put there would wait for a writer forever
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as e:  # a symbolic link (ELOOP), no permission
            self.warn(f"{path}: {e.strerror or e}; translating again")
            return None
        info = os.fstat(fd)  # before any read: a directory or a FIFO is never read
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
            os.close(fd)
            problem = "owner or mode" if stat.S_ISREG(info.st_mode) else "not a regular file"
            self.warn(f"{path}: not a file lc3jit wrote ({problem}); translating again")
            return None
        with os.fdopen(fd, "rb") as f:
            data = f.read()
        try:
            entry = parse_compiled(data, path)
        except LoadError as e:
            self.warn(f"{e}; translating again")
            return None
        if entry.key != key or engine not in entry.engines:
            self.warn(f"{path}: an entry for other translations; translating again")
            return None
        with suppress(OSError):  # evicted meanwhile by another run: what was read is good
            os.utime(path)  # its last use, for eviction
        return entry


def translator_for(
    engine: str, edition: int, leaders: Container[int], access_control: bool
) -> BlockTranslator:
    """The translator of engine `engine` (blocks or regions), as its engine builds it."""
    from lc3jit.translator.regions import RegionTranslator
    from lc3jit.translator.translate import BlockTranslator

    kind = RegionTranslator if engine == "regions" else BlockTranslator
    return kind(edition, leaders, access_control)


class LateTranslator:
    """Translates at run time what was not saved: the dispatcher's callback, which builds
    the engine's translator at its first call."""

    def __init__(self, engine: str, edition: int, leaders: frozenset[int], access_control: bool) -> None:
        self.arguments = (engine, edition, leaders, access_control)
        self.translator: BlockTranslator | None = None

    def __call__(self, dispatcher: Dispatcher, pc: int) -> Sequence[Translation]:
        return self.built()(dispatcher, pc)

    def left_through(self, dispatcher: Dispatcher, site: int, target: int) -> None:
        self.built().left_through(dispatcher, site, target)

    def built(self) -> BlockTranslator:
        if self.translator is None:
            self.translator = translator_for(*self.arguments)
        return self.translator


def restored(machine: Machine, saved: SavedEngine, engine: str, profile: bool = False) -> Dispatcher:
    """The engine from saved code, translating the rest when it gets hot, as the engine would."""
    late = LateTranslator(engine, machine.edition, saved.leaders, machine.access_control)
    return saved_dispatcher(machine, saved, late, profile)
