; arith.asm: an arithmetic loop, 12 x 30,000 rounds of x = 5x + i, s = s + (NOT x AND x5A5A),
; all modulo 2^16; prints x + s as four hex digits (arith.py computes the same in Python).
        .ORIG x3000
        AND R1, R1, #0          ; x
        AND R2, R2, #0          ; s
        LD R5, MASK
        LD R6, OUTER_COUNT
OUTER   LD R3, INNER_COUNT      ; i counts down to 1
INNER   ADD R4, R1, R1          ; 2x
        ADD R4, R4, R4          ; 4x
        ADD R1, R4, R1          ; 5x
        ADD R1, R1, R3          ; 5x + i
        NOT R4, R1
        AND R4, R4, R5
        ADD R2, R2, R4
        ADD R3, R3, #-1
        BRp INNER
        ADD R6, R6, #-1
        BRp OUTER
        ADD R1, R1, R2          ; the checksum: x + s

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

MASK        .FILL x5A5A
OUTER_COUNT .FILL #12
INNER_COUNT .FILL #30000
LETTERS     .FILL x37
DIGITS      .FILL x30
        .END
