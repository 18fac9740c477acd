; UPCASE, the reference solution (see assignment.md): echo each key in capitals until Enter.
        .ORIG x3000
        LEA R0, PROMPT
        PUTS
NEXT    GETC
        ADD R1, R0, #-10        ; Enter (a newline) ends the input
        BRz DONE
        LD R1, MINUS_A
        ADD R1, R0, R1
        BRn ECHO                ; below 'a': as it is
        LD R1, MINUS_Z
        ADD R1, R0, R1
        BRp ECHO                ; above 'z': as it is
        LD R1, TO_UPPER
        ADD R0, R0, R1          ; 'a'..'z' -> 'A'..'Z'
ECHO    OUT
        BR NEXT
DONE    OUT                     ; the newline
        HALT
PROMPT  .STRINGZ "> "
MINUS_A .FILL #-97
MINUS_Z .FILL #-122
TO_UPPER .FILL #-32
        .END
