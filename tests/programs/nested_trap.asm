; A trap routine of the program's own (vector x26, loaded into the table with the
; program) that calls PUTS from inside: a trap within a trap.
        .ORIG x3000
        LD R6, STACK            ; without an OS, TRAP pushes on this stack (3rd edition)
        LEA R0, FIRST
        TRAP x26
        LEA R0, SECOND
        TRAP x26
        HALT
FIRST   .STRINGZ "one"
SECOND  .STRINGZ "two"
STACK   .FILL x4000
SHOUT   ST R7, SAVE_R7          ; [text] in brackets (R7 saved for the 2nd edition)
        ST R0, SAVE_R0
        LD R0, OPEN
        OUT
        LD R0, SAVE_R0
        PUTS
        LD R0, CLOSE
        OUT
        LD R0, SAVE_R0
        LD R7, SAVE_R7
        BRnzp RETURN
RETURN  .FILL x8000             ; RTI in the 3rd edition; the test writes RET for the 2nd
OPEN    .FILL x5B
CLOSE   .FILL x5D
SAVE_R0 .BLKW 1
SAVE_R7 .BLKW 1
        .END
        .ORIG x0026
        .FILL SHOUT
        .END
