"""The code generator: a basic block becomes one Python function returning the next PC.

Its parts, as layers (each imports only those below it):

    compiler     BlockCompiler: assembles the parts below for one block; emit_block
    forms        one emitter per LC-3 form, driving the state and its parts
    exits        the ways out (the Exits protocol; a block's: BlockExits)
    memory       loads and stores: their fast paths (MemoryAccess)
    slow_paths   their slow paths (the SlowPaths protocol; a block's: Rejoin)
    state        the value the parts share: registers' locals, bounds, codes, the emitter
    dataflow, bounds   what a block reads and writes; the bounds of unwrapped sums
    emitter      the one place that knows how Python versions differ
    assembler    the emitter's items to a code object

A region compiler (regions.codegen) assembles the same parts, with a state across its
blocks and slow paths and exits of its own, behind the same protocols. compiler's
docstring says what the generated code looks like, and why.
"""
