; subroutines.asm: a small library (multiply, divide, write a number) called through a
; table of addresses with JSRR; a second .ORIG block holds the library at x4000.
        .ORIG x3000
        AND R0, R0, #0
        ADD R0, R0, #6
        AND R1, R1, #0
        ADD R1, R1, #7
        LD R5, MULTIPLY_AT
        JSRR R5                 ; R0 = 6 * 7
        LD R5, PRINT_AT
        JSRR R5
        LEA R0, TIMES_TEXT
        PUTS
        LD R0, HUNDRED
        AND R1, R1, #0
        ADD R1, R1, #7
        LD R5, DIVIDE_AT
        JSRR R5                 ; R0 = 100 / 7, R1 = 100 % 7
        LD R5, PRINT_AT
        JSRR R5
        LEA R0, REMAINDER_TEXT
        PUTS
        ADD R0, R1, #0
        JSRR R5
        LD R0, NEWLINE
        OUT
        HALT
MULTIPLY_AT .FILL MULTIPLY
DIVIDE_AT   .FILL DIVIDE
PRINT_AT    .FILL PRINT
HUNDRED     .FILL #100
NEWLINE     .FILL x0A
TIMES_TEXT  .STRINGZ " = 6 * 7\n100 / 7 = "
REMAINDER_TEXT .STRINGZ " remainder "
        .END

        .ORIG x4000
; MULTIPLY: R0 = R0 * R1 (R1 >= 0); R1-R7 kept.
MULTIPLY
        ST R1, LIB_R1
        ST R2, LIB_R2
        AND R2, R2, #0
        ADD R1, R1, #0
TIMES   BRz PRODUCT
        ADD R2, R2, R0
        ADD R1, R1, #-1
        BRnzp TIMES
PRODUCT ADD R0, R2, #0
        LD R2, LIB_R2
        LD R1, LIB_R1
        RET

; DIVIDE: R0 = R0 / R1, R1 = R0 % R1 (R0 >= 0, R1 > 0); R2-R7 kept.
DIVIDE  ST R2, LIB_R2
        ST R3, LIB_R3
        NOT R3, R1
        ADD R3, R3, #1          ; minus the divisor
        AND R2, R2, #0          ; the quotient
DIVIDE_STEP
        ADD R0, R0, R3
        BRn DIVIDED
        ADD R2, R2, #1
        BRnzp DIVIDE_STEP
DIVIDED ADD R1, R0, R1          ; undo the last step: the remainder
        ADD R0, R2, #0
        LD R2, LIB_R2
        LD R3, LIB_R3
        RET

; PRINT: write R0 (0 to 99) in decimal, using DIVIDE; R0-R6 kept.
PRINT   ST R0, LIB_R0
        ST R1, LIB_R1
        ST R7, LIB_R7
        AND R1, R1, #0
        ADD R1, R1, #10
        JSR DIVIDE              ; R0 = tens, R1 = units
        ADD R0, R0, #0
        BRz PRINT_UNITS         ; no leading zero
        LD R7, LIB_ZERO
        ADD R0, R0, R7
        OUT
PRINT_UNITS
        LD R0, LIB_ZERO
        ADD R0, R0, R1
        OUT
        LD R0, LIB_R0
        LD R1, LIB_R1
        LD R7, LIB_R7
        RET
LIB_ZERO .FILL x30
LIB_R0  .BLKW 1
LIB_R1  .BLKW 1
LIB_R2  .BLKW 1
LIB_R3  .BLKW 1
LIB_R7  .BLKW 1
        .END
