; sieve.asm: the sieve of Eratosthenes over 8,192 words of memory, 15 times; prints the
; sum of the primes found, modulo 2^16, as four hex digits (sieve.py does it in Python).
        .ORIG x3000
        AND R0, R0, #0          ; zero, to clear with
        AND R5, R5, #0          ; the sum
        LD R4, MINUS_N
        LD R6, PASSES
        LD R7, FLAGS_AT         ; flags[k] at R7 + k: nonzero when k is composite
PASS    ADD R1, R7, #0
        LD R2, N
CLEAR   STR R0, R1, #0
        ADD R1, R1, #1
        ADD R2, R2, #-1
        BRp CLEAR
        AND R1, R1, #0
        ADD R1, R1, #2          ; i = 2
OUTER   ADD R2, R1, R4
        BRzp DONE               ; i reached N
        ADD R3, R7, R1
        LDR R2, R3, #0
        BRnp NEXT               ; composite
        ADD R5, R5, R1          ; a prime: add it, mark its multiples from 2i
        ADD R2, R1, R1
MARK    ADD R3, R2, R4
        BRzp NEXT
        ADD R3, R7, R2
        STR R1, R3, #0
        ADD R2, R2, R1
        BRnzp MARK
NEXT    ADD R1, R1, #1
        BRnzp OUTER
DONE    ADD R6, R6, #-1
        BRp PASS
        ADD R1, R5, #0

; FINISH prints R1 as four hex digits and a newline, then halts.
FINISH  AND R3, R3, #0
        ADD R3, R3, #4          ; digits left
DIGIT   AND R2, R2, #0          ; the digit, from the top four bits of R1
        AND R4, R4, #0
        ADD R4, R4, #4
BIT     ADD R2, R2, R2
        ADD R1, R1, #0
        BRzp ZERO_BIT
        ADD R2, R2, #1
ZERO_BIT ADD R1, R1, R1
        ADD R4, R4, #-1
        BRp BIT
        ADD R0, R2, #-10
        BRn DECIMAL
        LD R0, LETTERS          ; 'A' - 10
        BRnzp SHOW
DECIMAL LD R0, DIGITS           ; '0'
SHOW    ADD R0, R0, R2
        OUT
        ADD R3, R3, #-1
        BRp DIGIT
        AND R0, R0, #0
        ADD R0, R0, #10
        OUT
        HALT

N           .FILL #8192
MINUS_N     .FILL #-8192
PASSES      .FILL #15
FLAGS_AT    .FILL FLAGS
LETTERS     .FILL x37
DIGITS      .FILL x30
FLAGS       .BLKW #8192
        .END
