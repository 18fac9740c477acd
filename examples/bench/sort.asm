; sort.asm: insertion sort of 1,000 pseudo-random words (x = 5x + x3619, keeping the low
; 15 bits), then a Fletcher-style checksum of the sorted array (s = s + a[k], t = t + s,
; modulo 2^16), which depends on the order; prints t as four hex digits.
        .ORIG x3000
        LD R1, ARRAY_AT         ; fill: a[k] = x AND x7FFF
        LD R2, COUNT
        LD R3, SEED
        LD R5, LOW_BITS
FILL    ADD R4, R3, R3
        ADD R4, R4, R4
        ADD R3, R4, R3
        LD R4, INCREMENT
        ADD R3, R3, R4          ; x = 5x + x3619
        AND R4, R3, R5
        STR R4, R1, #0
        ADD R1, R1, #1
        ADD R2, R2, #-1
        BRp FILL

        LD R4, ARRAY_AT         ; sort: R1 = &a[i], R2 = &a[j], R3 = key, R6 = -key
        NOT R5, R4
        ADD R5, R5, #1          ; -&a[0]
        ADD R1, R4, #1
        LD R7, COUNT
        ADD R7, R7, #-1         ; i = 1 .. n-1
NEXT_I  LDR R3, R1, #0
        NOT R6, R3
        ADD R6, R6, #1
        ADD R2, R1, #-1
SHIFT   ADD R0, R2, R5
        BRn INSERT              ; j < 0
        LDR R4, R2, #0
        ADD R0, R4, R6
        BRnz INSERT             ; a[j] <= key
        STR R4, R2, #1          ; a[j + 1] = a[j]
        ADD R2, R2, #-1
        BRnzp SHIFT
INSERT  STR R3, R2, #1
        ADD R1, R1, #1
        ADD R7, R7, #-1
        BRp NEXT_I

        LD R2, ARRAY_AT         ; checksum
        LD R3, COUNT
        AND R4, R4, #0          ; s
        AND R1, R1, #0          ; t
SUM     LDR R0, R2, #0
        ADD R4, R4, R0
        ADD R1, R1, R4
        ADD R2, R2, #1
        ADD R3, R3, #-1
        BRp SUM

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

COUNT       .FILL #1000
SEED        .FILL x2B67
INCREMENT   .FILL x3619
LOW_BITS    .FILL x7FFF
ARRAY_AT    .FILL ARRAY
LETTERS     .FILL x37
DIGITS      .FILL x30
ARRAY       .BLKW #1000
        .END
