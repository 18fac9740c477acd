"""The region compiler: a region's blocks in one code object (RegionCompiler, in compiler),
assembled from the block compiler's parts (translator.codegen) and these:

    across_blocks    AcrossBlocks: the state kept across the blocks, the jumps between
                     them and the shared way out
    budget           Budget: the counts where chains start, the checks where loops start
    exits            RegionExits: jumps inside, the shared way out elsewhere; through a
                     register (indirect_exits) and through a runtime helper (helper_exits,
                     with OS calls inlined by os_calls)
    device_access    DeviceAccess: the slow paths of loads and stores, which leave for the
                     interpreter or, for the device registers' idioms, call the runtime
"""
