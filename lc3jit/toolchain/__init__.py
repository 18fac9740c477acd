"""The toolchain: the assembler, the disassembler, and the number literals both read."""
