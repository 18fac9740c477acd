; fib.asm: the first 20 Fibonacci numbers, one a line, in decimal.
        .ORIG x3000
        AND R1, R1, #0          ; F(n)
        AND R2, R2, #0
        ADD R2, R2, #1          ; F(n+1)
        LD R3, COUNT
NEXT    ADD R0, R1, #0
        JSR PRINT_DEC
        LD R0, NEWLINE
        OUT
        ADD R4, R1, R2
        ADD R1, R2, #0
        ADD R2, R4, #0
        ADD R3, R3, #-1
        BRp NEXT
        HALT
COUNT   .FILL #20
NEWLINE .FILL x0A

; PRINT_DEC writes R0 (0 to 32767) in decimal without leading zeros; R1-R7 are kept.
PRINT_DEC:
        ST R1, SAVE_R1
        ST R2, SAVE_R2
        ST R3, SAVE_R3
        ST R4, SAVE_R4
        ST R5, SAVE_R5
        ST R7, SAVE_R7          ; OUT is a TRAP: in the 2nd edition it writes R7
        ADD R1, R0, #0          ; what is left to write
        LEA R2, POWERS
        AND R4, R4, #0          ; 1 once a digit has been written
POWER   LDR R3, R2, #0
        BRz DONE
        NOT R3, R3
        ADD R3, R3, #1          ; minus the power of ten
        LD R0, ASCII_ZERO
SUBTRACT ADD R1, R1, R3
        BRn DIGIT
        ADD R0, R0, #1
        BRnzp SUBTRACT
DIGIT   NOT R3, R3
        ADD R3, R3, #1
        ADD R1, R1, R3          ; undo the subtraction that went below zero
        LD R5, MINUS_ZERO
        ADD R5, R0, R5          ; the digit's value
        ADD R5, R5, R4          ; not a leading zero when a digit came before
        BRp WRITE
        ADD R5, R3, #-1         ; the units are written even when zero
        BRnp SKIP
WRITE   OUT
        AND R4, R4, #0
        ADD R4, R4, #1
SKIP    ADD R2, R2, #1
        BRnzp POWER
DONE    LD R1, SAVE_R1
        LD R2, SAVE_R2
        LD R3, SAVE_R3
        LD R4, SAVE_R4
        LD R5, SAVE_R5
        LD R7, SAVE_R7
        RET
POWERS  .FILL #10000
        .FILL #1000
        .FILL #100
        .FILL #10
        .FILL #1
        .FILL #0
ASCII_ZERO .FILL x30
MINUS_ZERO .FILL #-48
SAVE_R1 .BLKW 1
SAVE_R2 .BLKW 1
SAVE_R3 .BLKW 1
SAVE_R4 .BLKW 1
SAVE_R5 .BLKW 1
SAVE_R7 .BLKW 1
        .END
