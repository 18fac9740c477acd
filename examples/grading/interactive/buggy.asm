; UPCASE, a plausible student's solution: it subtracts 32 from every key, so letters come
; out right and everything else (digits, space, capitals) comes out wrong.
        .ORIG x3000
        LEA R0, PROMPT
        PUTS
NEXT    GETC
        ADD R1, R0, #-10        ; Enter (a newline) ends the input
        BRz DONE
        LD R1, TO_UPPER
        ADD R0, R0, R1          ; 'a'..'z' -> 'A'..'Z'
ECHO    OUT
        BR NEXT
DONE    OUT                     ; the newline
        HALT
PROMPT  .STRINGZ "> "
TO_UPPER .FILL #-32
        .END
