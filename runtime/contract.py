"""What generated code may name: the contract between the translator and this runtime.

Declared once, as QEMU's `helper.h` declares the helpers translated code may call: the
dispatcher builds the namespace it binds generated code to from it (`bind`), the code
generator names these constants rather than spelling the names itself, and a test holds
every code object's `co_names` against `NAMES`. Saved code (`lc3jit compile`, the
translation cache) depends on it: `DIGEST` is part of the compiled format's version
(runtime.compiled.FORMAT), so code compiled against another contract is refused, never
run with the wrong globals.

Standard library only, like the rest of `runtime/`.
"""

from __future__ import annotations

import importlib.util

from .record import Record


class Helper(Record, fields=("name", "arity")):
    """A runtime function generated code calls, and the arguments it passes (constants or
    locals, checked when the call is emitted)."""

    name: str
    arity: int


#: The state and tables generated code reads on its hot paths (globals, never called).
MEMORY = "M"  # the machine's memory: a list of 65,536 words
WRITE_MAP = "W"  # per word: 0 plain data, else a device, code or a protected word
#: R0-R7: in step with the locals at every way out and before every helper call (a region
#: writes back only the registers, and m.ccv only the codes, changed since R was last in
#: step: at entry, and after a helper that wrote back and read CHANGED again).
REGISTERS = "R"
MACHINE = "m"  # the Machine itself, for the attributes below
REGION_COUNT = "N"  # N[0]: the instructions a region ran, before it leaves
EXIT_COUNTS = "EXITS"  # by address: a region's exits through that JMP or JSRR
#: Tables of bools indexed by the value that set the codes (runtime.code_helpers).
POSITIVE = "POSITIVE"
NEGATIVE = "NEGATIVE"
ZERO = "ZERO"
#: For an OS call inlined in a region (TRAP and RTI entering and leaving the supervisor):
#: By a PSR an RTI pops: its codes' word for user mode at priority 0, else -1 (where the
#: RTI takes the helper's way); a list of 65,536 (code_helpers.rti_codes).
RTI_CODES = "RTI_CODES"
#: For the supervisor's stores (an OS saving registers, a TRAP's pushes): may it not store
#: inline at a word with these write-map flags (machine.SUPERVISOR_STORE_SLOW)?
SUPERVISOR_SLOW = "SUPERVISOR_SLOW"
#: The first values (None) of a region's locals of these names: the Saved_SSP whose two
#: words below it a TRAP inlined found open to plain pushes, KBSR[14] clear, in this call
#: of the region, and the addresses of those words (translator.regions.os_calls).
SSP_CHECKED = "SSP_CHECKED"
PSR_SLOT = "PSR_SLOT"
PC_SLOT = "PC_SLOT"
CHECKED_STACK = (SSP_CHECKED, PSR_SLOT, PC_SLOT)
VALUES = (
    MEMORY,
    WRITE_MAP,
    REGISTERS,
    MACHINE,
    REGION_COUNT,
    EXIT_COUNTS,
    POSITIVE,
    NEGATIVE,
    ZERO,
    RTI_CODES,
    SUPERVISOR_SLOW,
    *CHECKED_STACK,
)

#: Attributes of the Machine generated code reads or writes.
CODES = "ccv"  # the condition codes, as the word that set them
#: PSR[15], user mode when set: read where a block in system space may be fetched in user
#: mode; a region's blocks that only its supervisor code or a TRAP reaches read it once,
#: where the dispatcher enters them (in user mode the region leaves for the interpreter).
PRIVILEGE = "psr_mode"
#: The supervisor's and the user's saved stack pointers, and KBSR[14]: an OS call inlined in
#: a region swaps R6 with them, and takes the helper's way while interrupts are enabled.
SAVED_SSP = "saved_ssp"
SAVED_USP = "saved_usp"
INTERRUPTS = "kbsr_ie"
#: The keyboard's latch (a key a KBSR poll took, not read yet, or None) and KBDR: a KBDR
#: read while KBSR[14] is clear, every key an OS reads, is done inline (no READ call).
KEY_LATCH = "kbd_latch"
KEY_DATA = "kbdr"
ATTRIBUTES = (CODES, PRIVILEGE, SAVED_SSP, SAVED_USP, INTERRUPTS, KEY_LATCH, KEY_DATA)

#: The slow paths: each may stop the machine or leave translated code by exception.
LOAD = Helper("LOAD", 2)  # (address, at): a device register or a checked load
STORE = Helper("STORE", 3)  # (address, value, at): a watched word
FETCH = Helper("FETCH", 1)  # (at): a fetch from system space in user mode
TRAP = Helper("TRAP", 2)  # (vector, at) -> next PC
RTI = Helper("RTI", 1)  # (at) -> next PC
ILLEGAL = Helper("ILLEGAL", 2)  # (word, at) -> next PC (the exception's handler)
INDIRECT = Helper("INDIRECT", 2)  # (site, target): where a JMP or JSRR went (a sample)
#: A load that cannot take an exception (supervisor mode, or no access control), for code
#: that writes its registers back only if it must: the word, or -1 with the stop or way
#: out held back, or without reading the PSR (which holds the codes, not written back);
#: REREAD, called once the registers are written back, raises that or reads the PSR.
READ = Helper("READ", 2)  # (address, at) -> word or -1
REREAD = Helper("REREAD", 2)  # (address, at) -> word
#: A store into DDR that cannot take an exception: (value) -> true when the run is to end
#: after it; it raises nothing (the console's `put`, bound at each run's start).
DISPLAY = Helper("DISPLAY", 1)
HELPERS = (LOAD, STORE, FETCH, TRAP, RTI, ILLEGAL, INDIRECT, READ, REREAD, DISPLAY)
#: The registers TRAP and RTI may change when they come back, besides the codes: a host
#: GETC or IN sets R0, the 2nd edition's TRAP R7, entering and leaving the supervisor swaps
#: R6. Code that goes on after them reads these (and the codes) again; the others are as
#: it left them, two OS calls a key echoed saving a reload of every register.
CHANGED = {TRAP.name: (0, 6, 7), RTI.name: (6,)}

#: The globals generated code may name.
GLOBALS = frozenset(VALUES) | {helper.name for helper in HELPERS}
#: Everything that may appear in a generated code object's co_names.
NAMES = GLOBALS | frozenset(ATTRIBUTES)

#: A short hash of the whole contract, arities included (CPython's own source hash: hashlib
#: would load OpenSSL, milliseconds of every run that loads saved code).
DIGEST = importlib.util.source_hash(
    repr((VALUES, ATTRIBUTES, tuple((h.name, h.arity) for h in HELPERS), CHANGED)).encode()
).hex()[:12]


def bind(bound: dict[str, object]) -> dict[str, object]:
    """The namespace generated code runs in: exactly the globals declared here, no builtins.
    A runtime that binds one name more or less fails here, not in generated code."""
    if bound.keys() != GLOBALS:
        missing, extra = sorted(GLOBALS - bound.keys()), sorted(bound.keys() - GLOBALS)
        raise ValueError(f"generated code's namespace: missing {missing}, undeclared {extra}")
    return {"__builtins__": {}, **bound}
