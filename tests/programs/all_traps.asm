; The six standard traps, each once: prints the same with host traps and under an OS.
        .ORIG x3000
        LEA R0, GREETING
        PUTS
        LD R0, LETTER
        OUT
        LEA R0, PACKED
        PUTSP
        IN                      ; the prompt, the key, its echo
        OUT                     ; the key again
        GETC                    ; no echo
        OUT
        HALT
GREETING .STRINGZ "Hello, LC-3\n"
LETTER  .FILL x41
PACKED  .FILL x6261             ; "ab"
        .FILL x0063             ; "c": a high byte of zero is not written
        .FILL x6564             ; "de"
        .FILL x0000
        .END
