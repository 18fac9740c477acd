; sieve.asm: the primes below 100 by the sieve of Eratosthenes, on one line.
        .ORIG x3000
        LD R6, MINUS_LIMIT
        AND R1, R1, #0
        ADD R1, R1, #2          ; i = 2
OUTER   ADD R2, R1, #-10        ; i * i < 100 while i < 10
        BRzp LIST
        LEA R3, FLAGS
        ADD R3, R3, R1
        LDR R4, R3, #0
        BRnp NEXT_I             ; i is already known composite
        ADD R2, R1, R1          ; j = 2i
MARK    ADD R5, R2, R6
        BRzp NEXT_I             ; j reached the limit
        LEA R3, FLAGS
        ADD R3, R3, R2
        STR R1, R3, #0          ; any nonzero value marks j composite
        ADD R2, R2, R1
        BRnzp MARK
NEXT_I  ADD R1, R1, #1
        BRnzp OUTER
LIST    AND R1, R1, #0
        ADD R1, R1, #2
SCAN    ADD R5, R1, R6
        BRzp FINISH
        LEA R3, FLAGS
        ADD R3, R3, R1
        LDR R4, R3, #0
        BRnp NEXT_N
        ADD R0, R1, #0
        JSR PRINT2
        LD R0, SPACE
        OUT
NEXT_N  ADD R1, R1, #1
        BRnzp SCAN
FINISH  LD R0, NEWLINE
        OUT
        HALT

; PRINT2 writes R0 (0 to 99) in decimal; R1, R2 and R7 are kept.
PRINT2  ST R1, KEEP_R1
        ST R2, KEEP_R2
        ST R7, KEEP_R7
        LD R1, ASCII_ZERO       ; the tens digit, counted up
TENS    ADD R2, R0, #-10
        BRn UNITS
        ADD R0, R2, #0
        ADD R1, R1, #1
        BRnzp TENS
UNITS   ADD R2, R0, #0          ; the units
        LD R0, ASCII_ZERO
        NOT R0, R0
        ADD R0, R0, #1
        ADD R0, R1, R0
        BRz NO_TENS             ; no leading zero
        ADD R0, R1, #0
        OUT
NO_TENS LD R0, ASCII_ZERO
        ADD R0, R0, R2
        OUT
        LD R1, KEEP_R1
        LD R2, KEEP_R2
        LD R7, KEEP_R7
        RET
MINUS_LIMIT .FILL #-100
ASCII_ZERO  .FILL x30
SPACE   .FILL x20
NEWLINE .FILL x0A
KEEP_R1 .BLKW 1
KEEP_R2 .BLKW 1
KEEP_R7 .BLKW 1
FLAGS   .BLKW #100              ; nonzero: composite
        .END
