"""The translation cache of `lc3jit run`: what one run translated ahead of time, the next loads.

Translating 2048 ahead of time takes about 100 ms; loading the same code objects back
with marshal takes well under one. An entry is a compiled file (runtime/compiled.py)
holding one engine's translations, named by the hash of everything they depend on:
- the machine as booted: all of memory, the labels, the start PC, the edition, host
  traps or an OS, access control;
- the engine;
- the translator: lc3jit's version and the size and modification time of each source file
  of lc3jit and runtime (an edited checkout never loads code its old translator made);
- `importlib.util.MAGIC_NUMBER`: marshalled code of another Python version crashes this
  one, so it is never loaded (the file's header is checked as well).
The entry repeats its key inside, so a file renamed or copied over another is refused.

The directory is `$XDG_CACHE_HOME/lc3jit` (`~/.cache/lc3jit` by default), created
private (0700). Loading a .pyc runs its code, so only regular files owned by the user
and writable by no one else are loaded, from a directory owned by the user and closed to
others. An entry that is corrupt, truncated, foreign or otherwise unusable gets one
warning line and is translated and written again. Entries are written to a temporary
file and renamed into place (`os.replace`), so runs at the same time never see half a
file; the oldest entries (by last use) go once the directory passes MAX_BYTES.
`lc3jit run --no-cache` or LC3JIT_NO_CACHE=1 in the environment turn the cache off.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import stat
import time
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path

import lc3jit
import lc3jit_runtime
from lc3jit import __version__
from lc3jit.translator.saved import restored, saved_engine
from lc3jit_runtime.compiled import Compiled, SavedEngine, parse_compiled, write_atomically
from lc3jit_runtime.dispatch import Dispatcher
from lc3jit_runtime.errors import LoadError
from lc3jit_runtime.isa import WORD_MASK
from lc3jit_runtime.machine import Machine

#: Set to anything but "" or "0" to turn the cache off.
DISABLE_VARIABLE = "LC3JIT_NO_CACHE"
#: The cache directory's size at most, in bytes: far more than the programs one person runs.
MAX_BYTES = 64 << 20
#: Temporary files this old were left by a run that died while writing: removed.
STALE_SECONDS = 3600
PRIVATE_DIRECTORY = 0o700
PRIVATE_FILE = 0o600


def disabled_by_environment() -> bool:
    return os.environ.get(DISABLE_VARIABLE, "") not in ("", "0")


def cache_directory() -> Path | None:
    """`$XDG_CACHE_HOME/lc3jit`, or `~/.cache/lc3jit` (the XDG spec ignores a relative path);
    None with neither a home nor XDG_CACHE_HOME (HOME unset, and a uid with no passwd entry,
    as in a container run with `--user N`), where `~` stays `~`, a folder of the current
    directory (Python 3.11), or raises (3.12 and later)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(base):
        return Path(base) / "lc3jit"
    home = os.path.expanduser("~")
    return Path(home) / ".cache" / "lc3jit" if os.path.isabs(home) else None


@functools.cache
def translator_fingerprint() -> bytes:
    """The translator's identity: lc3jit's version, the Python bytecode format, and the name,
    size and modification time of every source file of the translator and the runtime (what
    translated code is made by and runs with), as CPython's own bytecode cache tells an
    edited source (once a process, a fraction of a millisecond: not lc3jit's other 150 files)."""
    sources = []
    for package in (os.path.join(lc3jit.__path__[0], "translator"), lc3jit_runtime.__path__[0]):
        for directory, _, names in os.walk(package):
            for name in names:
                if name.endswith(".py"):
                    found = os.stat(path := os.path.join(directory, name))
                    sources.append((path, found.st_size, found.st_mtime_ns))
    return repr((__version__, importlib.util.MAGIC_NUMBER, sorted(sources))).encode()


#: Memory and start PC of a machine as booted, before it ran.
Booted = tuple[Sequence[int], int]


def entry_key(machine: Machine, engine: str, booted: Booted | None = None) -> str:
    """The hash of everything the engine's translations depend on: the machine as booted
    (`booted`, or the machine as it is)."""
    mem, pc = booted or (machine.mem, machine.pc)
    setting = (engine, machine.edition, machine.host_traps, machine.access_control, pc)
    labels = repr((setting, sorted(machine.labels))).encode()
    return digest(b"".join((translator_fingerprint(), labels, array("H", mem).tobytes())))


def digest(data: bytes) -> str:
    """128 bits of hash: two of CPython's own source hashes (SipHash, what it keys hash-based
    .pyc files with), of the data and of the data marked. Not hashlib: importing it loads
    OpenSSL, a few milliseconds of every run that finds its translations here."""
    return (importlib.util.source_hash(data) + importlib.util.source_hash(b"lc3jit" + data)).hex()


def unchanged(saved: SavedEngine, mem: Sequence[int], booted: Sequence[int]) -> bool:
    """Are the words the saved code was translated from what memory held at boot? A tiered
    run translates after it has run a while, when the program may have rewritten them; code
    keyed by the boot's memory must be code of the boot's words."""
    words = [w for region in saved.regions for w in region.words]
    words += [(b.start + i) & WORD_MASK for b in saved.blocks for i in range(b.length)]
    return all(mem[w] == booted[w] for w in words)


class TranslationCache:
    """A directory of translations; `build` is an engine builder for `run_machine`."""

    def __init__(
        self, directory: Path | None, warn: Callable[[str], None], max_bytes: int = MAX_BYTES
    ) -> None:
        self.directory = directory
        self._warn = warn
        self.max_bytes = max_bytes
        self.warned = False
        self.hit = False  # did the last build load its translations from here?

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
        booted: Booted | None = None,
    ) -> Dispatcher:
        """The engine from the cache when an entry fits, else translated by `translate` and saved.

        `booted` is the machine's memory and PC at boot, for an engine built after the run
        began (a tiered run): the entry is keyed by them, and holds only code translated
        from words the program has not rewritten since.
        """
        self.hit = False
        usable = self.usable_directory()
        key = entry_key(machine, engine, booted) if usable else ""
        saved = self.load(key, engine) if usable else None
        boot_mem = machine.mem if booted is None else booted[0]
        if saved is not None and unchanged(saved, machine.mem, boot_mem):
            self.hit = True
            return restored(machine, saved, engine)
        dispatcher = translate(machine)
        if usable and unchanged(made := saved_engine(dispatcher), machine.mem, boot_mem):
            entry = Compiled(
                "cache entry", __version__, machine.edition, None, (), engines={engine: made}, key=key
            )
            self.save(key, entry)
        return dispatcher

    def usable_directory(self) -> bool:
        """Create the directory private; refuse one that another user owns or could write to."""
        if self.directory is None:
            self.warn("no directory for it (HOME is unset and the user has no home): not used")
            return False
        try:
            self.directory.mkdir(mode=PRIVATE_DIRECTORY, parents=True, exist_ok=True)
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

    def path(self, key: str) -> Path:
        assert self.directory is not None  # usable_directory() said so
        return self.directory / f"{key}.pyc"

    def load(self, key: str, engine: str) -> SavedEngine | None:
        """The entry's translations, or None (with a warning if one was there but unusable)."""
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
            entry = parse_compiled(data, str(path))
        except LoadError as e:
            self.warn(f"{e}; translating again")
            return None
        if entry.key != key or engine not in entry.engines:
            self.warn(f"{path}: an entry for other translations; translating again")
            return None
        with contextlib.suppress(OSError):  # evicted meanwhile by another run: what was read is good
            os.utime(path)  # its last use, for eviction
        return entry.engines[engine]

    def save(self, key: str, entry: Compiled) -> None:
        try:
            write_atomically(self.path(key), entry.pyc_bytes(), PRIVATE_FILE)
            self.evict(keep=self.path(key))
        except OSError as e:
            self.warn(f"could not save translations: {e.strerror or e}")

    def evict(self, keep: Path) -> None:
        """The oldest entries out until the directory is within max_bytes; dead temporaries out."""
        entries, total, now = [], 0, time.time()
        with os.scandir(self.directory) as found:
            for item in found:
                try:
                    info = item.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # removed meanwhile by another run
                if item.name.startswith(".tmp-"):
                    if now - info.st_mtime > STALE_SECONDS:
                        Path(item.path).unlink(missing_ok=True)
                elif item.name.endswith(".pyc"):
                    entries.append((info.st_mtime, info.st_size, Path(item.path)))
                    total += info.st_size
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            if path != keep:
                path.unlink(missing_ok=True)
                total -= size
