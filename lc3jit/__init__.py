"""lc3jit: run LC-3 programs by translating their machine code into Python bytecode."""

__version__ = "0.1.0"
