; selfmod.asm: a loop that rewrites its own first instruction; prints 5.
; The first pass adds 1, then ST replaces "ADD R1, R1, #1" with "ADD R1, R1, #2",
; a store into translated code: the block at LOOP is dropped and translated again.
        .ORIG x3000
        AND R1, R1, #0
        LD R2, COUNT
LOOP    ADD R1, R1, #1
        LD R3, ADD_TWO
        ST R3, LOOP
        ADD R2, R2, #-1
        BRp LOOP
        LD R0, ZERO
        ADD R0, R0, R1
        OUT
        HALT
COUNT   .FILL #3
ADD_TWO ADD R1, R1, #2
ZERO    .FILL x30
        .END
