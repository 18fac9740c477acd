; halt.asm: one instruction, for the time lc3jit takes to start (bench --process).
        .ORIG x3000
        HALT
        .END
