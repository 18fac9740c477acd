"""The translator: LC-3 machine code to Python bytecode, and the engines that run it.

Its parts, as layers (each imports only those below it; runtime/ is below them all):

    saved, cache, compile     translations kept between runs
    regions/                  many blocks in one code object (see its own picture)
    translate                 the block engine: the dispatcher's callback
    codegen, forms            a block to a code object: the compiler, one emitter per form
    dataflow, bounds          what a block reads and writes; the bounds of unwrapped sums
    emitter                   the one place that knows how Python versions differ
    blocks, jump_tables       which words are code, where blocks begin and end

Generated code names only what runtime.contract declares, bound by the dispatcher.
docs/internals.md follows one block from its words to its bytecode.
"""
