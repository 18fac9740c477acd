; ARRAY_MAX ending with HALT where RET belongs: it never returns to its caller.
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

; R0 = the largest of the R1 (>= 1) signed words from address R0; R1-R6 kept.
ARRAY_MAX
        ST R1, SAVE_R1
        ST R2, SAVE_R2
        ST R3, SAVE_R3
        ST R4, SAVE_R4
        ADD R2, R0, #0          ; R2 = the next word's address
        LDR R0, R2, #0          ; R0 = the largest so far
NEXT    ADD R1, R1, #-1
        BRz DONE
        ADD R2, R2, #1
        LDR R3, R2, #0          ; R3 = the candidate
        BRn CAND_NEG
        ADD R4, R0, #0
        BRn TAKE                ; candidate >= 0 > largest
        BR SAME_SIGN
CAND_NEG ADD R4, R0, #0
        BRzp NEXT               ; largest >= 0 > candidate
SAME_SIGN NOT R4, R0
        ADD R4, R4, #1          ; R4 = -largest
        ADD R4, R3, R4          ; candidate - largest: no overflow, the signs are equal
        BRnz NEXT
TAKE    ADD R0, R3, #0
        BR NEXT
DONE    LD R1, SAVE_R1
        LD R2, SAVE_R2
        LD R3, SAVE_R3
        LD R4, SAVE_R4
        HALT
SAVE_R1 .BLKW 1
SAVE_R2 .BLKW 1
SAVE_R3 .BLKW 1
SAVE_R4 .BLKW 1
        .END
