; Keyboard interrupts without an OS: in supervisor mode the program installs its handler
; at x0180 and its supervisor stack, then drops to user mode by RTI. Its main loop
; enables interrupts once a round, waits, prints a dot; the handler echoes one key and
; disables them again. With keys "abc" and five rounds it prints "a.b.c...".
        .ORIG x3000
        LD R0, HANDLER_AT
        STI R0, VECTOR
        LD R6, SUPER_STACK      ; Saved_SSP becomes x2F00 when the RTI below leaves
        LD R0, USER_PSR
        ADD R6, R6, #-1
        STR R0, R6, #0
        LEA R0, MAIN
        ADD R6, R6, #-1
        STR R0, R6, #0
        RTI
MAIN    LD R6, USER_STACK
        LD R1, ROUNDS
ROUND   LD R0, ENABLE
        STI R0, KBSR            ; a key waiting: the interrupt comes before the next word
        LD R2, DELAY
WAIT    ADD R2, R2, #-1
        BRp WAIT
        LD R0, DOT
        OUT
        ADD R1, R1, #-1
        BRp ROUND
        HALT
HANDLER ST R0, SAVE_R0          ; supervisor mode, priority 4, on the stack at x2F00
        LDI R0, KBDR
        STI R0, DDR
        AND R0, R0, #0
        STI R0, KBSR            ; interrupts off until the next round
        LD R0, SAVE_R0
        RTI
HANDLER_AT .FILL HANDLER
VECTOR  .FILL x0180
SUPER_STACK .FILL x2F00
USER_STACK .FILL x4000
USER_PSR .FILL x8002
ROUNDS  .FILL #5
ENABLE  .FILL x4000
DELAY   .FILL #20
DOT     .FILL x2E
KBSR    .FILL xFE00
KBDR    .FILL xFE02
DDR     .FILL xFE06
SAVE_R0 .BLKW 1
        .END
