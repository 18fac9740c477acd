; echo.asm: write back every key typed, until a newline (which is echoed too).
        .ORIG x3000
        LEA R0, PROMPT
        PUTS
LOOP    GETC                ; R0 = the key, not echoed by the trap
        OUT
        ADD R1, R0, #-10    ; a newline ends the echo
        BRnp LOOP
        HALT
PROMPT  .STRINGZ "Type a line: "
        .END
