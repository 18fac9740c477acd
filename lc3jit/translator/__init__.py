"""The translator: LC-3 machine code to Python bytecode, and the engines that run it.

The block finder (`blocks`) decides what is code; the code generator (`codegen`, through
`emitter`, the one place that knows how Python versions differ) turns a block into a code
object, and `regions` many blocks into one (with the targets of its indirect jumps guessed
by `jump_tables`); `translate` and `regions` plug them into the runtime's dispatcher.
`saved`, `cache` and `compile` keep translations between runs.
"""
