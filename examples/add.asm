; add.asm: add two digits typed at the keyboard and write the sum in decimal.
        .ORIG x3000
        LD R3, MINUS_ZERO
        IN                      ; the first digit, prompted and echoed
        ADD R1, R0, R3
        IN                      ; the second digit
        ADD R2, R0, R3
        ADD R1, R1, R2          ; the sum, 0 to 18
        LEA R0, RESULT
        PUTS
        ADD R2, R1, #-10        ; two digits when the sum is 10 or more
        BRn UNITS
        LD R0, ASCII_ONE
        OUT
        ADD R1, R2, #0
UNITS   LD R0, ASCII_ZERO
        ADD R0, R0, R1
        OUT
        LD R0, NEWLINE
        OUT
        HALT
MINUS_ZERO .FILL #-48           ; minus '0'
ASCII_ZERO .FILL x30
ASCII_ONE  .FILL x31
NEWLINE    .FILL x0A
RESULT  .STRINGZ "\nThe sum is "
        .END
