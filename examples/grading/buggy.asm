; ARRAY_MAX, a plausible student's solution: right on small numbers, but it compares by
; subtracting, which overflows when the signs differ (32767 - -32768 reads as -1).
        .ORIG x3000
        LEA R0, SAMPLE
        AND R1, R1, #0
        ADD R1, R1, #4
        JSR ARRAY_MAX
        HALT
SAMPLE  .FILL #3
        .FILL #-7
        .FILL #12
        .FILL #5

ARRAY_MAX
        ST R1, SAVE_R1
        ST R2, SAVE_R2
        ST R3, SAVE_R3
        ST R4, SAVE_R4
        ADD R2, R0, #0
        LDR R0, R2, #0
NEXT    ADD R1, R1, #-1
        BRz DONE
        ADD R2, R2, #1
        LDR R3, R2, #0
        NOT R4, R0
        ADD R4, R4, #1
        ADD R4, R3, R4          ; candidate - largest
        BRnz NEXT
        ADD R0, R3, #0
        BR NEXT
DONE    LD R1, SAVE_R1
        LD R2, SAVE_R2
        LD R3, SAVE_R3
        LD R4, SAVE_R4
        RET
SAVE_R1 .BLKW 1
SAVE_R2 .BLKW 1
SAVE_R3 .BLKW 1
SAVE_R4 .BLKW 1
        .END
