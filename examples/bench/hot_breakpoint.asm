; hot_breakpoint.asm: a loop of 1,000,000 iterations whose body holds a line (RARE) that
; runs only in the last one, for measuring what a breakpoint there costs before it is hit.
        .ORIG x3000
        LD R1, ROUNDS           ; 1000 rounds of 1000 iterations
        AND R2, R2, #0
OUTER   LD R5, THOUSAND
LOOP    ADD R2, R2, #3
        ADD R5, R5, #-1
        BRnp SKIP
        ADD R1, R1, #-1
        BRnp SKIP
RARE    ADD R3, R2, #0          ; the last iteration only: the breakpoint goes here
SKIP    ADD R5, R5, #0
        BRp LOOP
        ADD R1, R1, #0
        BRp OUTER
        HALT
ROUNDS  .FILL #1000
THOUSAND .FILL #1000
        .END
