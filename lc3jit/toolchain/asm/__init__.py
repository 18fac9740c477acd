"""A two-pass assembler for the union of the LC-3 dialects that real programs are written in.

It accepts what lc3as accepts and gives the same words for it, plus what other tools and
textbook examples add (see "Assembler dialect to accept" in the semantics doc): labels
with a colon, `0x` hex, several `.ORIG` blocks in one file. Instructions are encoded only
through the ISA table. Every problem is collected as a `Diagnostic`, so that one run
reports all of them; any error ends in one `AssemblyError`, whatever the input.

The parts, each importing only those before it:
- `spellings`: the mnemonics (from the ISA table), directives, registers and labels;
- `syntax`: a line as tokens, then label, op and operands; string escapes;
- `diagnostics`: errors and warnings with their place, bounded in number;
- `hints`: "did you mean", and the warning for a bare decimal;
- `symbols`: the symbol table;
- `layout`: pass 1, the directives and the .ORIG blocks;
- `encoder`: pass 2, instructions and .FILLs encoded;
- `assembler`: the two passes over one source (`assemble`, `assemble_file`, `diagnose`);
- `files`: the .obj and .sym written.
This package exports what the rest of lc3jit uses.
"""

from lc3jit.toolchain.asm.assembler import Assembly, assemble, assemble_file, diagnose
from lc3jit.toolchain.asm.diagnostics import ECHO_WIDTH, SHOWN, AssemblyError, Diagnostic
from lc3jit.toolchain.asm.files import obj_bytes, output_paths, sym_text, write_outputs
from lc3jit.toolchain.asm.spellings import DIRECTIVES, SPELLINGS, Spelling, is_keyword, is_label
from lc3jit.toolchain.asm.syntax import Token, tokenize

__all__ = [
    "DIRECTIVES",
    "ECHO_WIDTH",
    "SHOWN",
    "SPELLINGS",
    "Assembly",
    "AssemblyError",
    "Diagnostic",
    "Spelling",
    "Token",
    "assemble",
    "assemble_file",
    "diagnose",
    "is_keyword",
    "is_label",
    "obj_bytes",
    "output_paths",
    "sym_text",
    "tokenize",
    "write_outputs",
]
