; indirect.asm: calls a subroutine through JSRR three times; prints ***.
; The block finder cannot see a JSRR target, so SHOUT is translated at run time.
        .ORIG x3000
        LD R1, TIMES
AGAIN   LEA R2, SHOUT
        JSRR R2
        ADD R1, R1, #-1
        BRp AGAIN
        HALT
TIMES   .FILL #3
SHOUT   LD R0, STAR
        OUT
        RET
STAR    .FILL x2A
        .END
