; dispatch.asm: a handler per character, called through a table. 800 rounds over a text;
; each character is sorted into a class (lower case, upper case, digit, other) by a few
; compares, and the class's handler is called with JSRR through an address loaded from
; TABLE; each handler is a few instructions that fold the character into a checksum
; (R5) and return with RET. So every few instructions there is an indirect call and an
; indirect return: the shape of an interpreter's dispatch loop, or of a virtual call.
; Prints R5 as four hex digits.
; The main loop keeps R1 (the text), R4 (TABLE), R6 (rounds left); handlers use R0, R5.
        .ORIG x3000
        LD R6, ROUNDS
        LEA R4, TABLE
ROUND   LEA R1, TEXT
NEXT    LDR R0, R1, #0
        BRz END_TEXT
        AND R3, R3, #0          ; class 0: other
        LD R2, MINUS_0
        ADD R2, R0, R2
        BRn CALL                ; below '0'
        ADD R3, R3, #1          ; class 1: digit
        ADD R2, R2, #-10
        BRn CALL
        ADD R3, R3, #1          ; class 2: upper case (or a sign between)
        LD R2, MINUS_LOWER_A
        ADD R2, R0, R2
        BRn CALL
        ADD R3, R3, #1          ; class 3: lower case
CALL    ADD R2, R4, R3
        LDR R2, R2, #0
        JSRR R2
        ADD R1, R1, #1
        BRnzp NEXT
END_TEXT ADD R6, R6, #-1
        BRp ROUND
        ADD R1, R5, #0
        BRnzp FINISH

TABLE   .FILL OTHER
        .FILL DIGIT_C
        .FILL UPPER
        .FILL LOWER

OTHER   ADD R5, R5, #1
        RET
DIGIT_C ADD R5, R5, R0
        ADD R5, R5, R0
        RET
UPPER   ADD R5, R5, R5
        ADD R5, R5, R0
        RET
LOWER   NOT R5, R5
        ADD R5, R5, R0
        RET

; FINISH prints R1 as four hex digits and a newline, then halts.
FINISH  AND R3, R3, #0
        ADD R3, R3, #4          ; digits left
DIGIT   AND R2, R2, #0          ; the digit, from the top four bits of R1
        AND R4, R4, #0
        ADD R4, R4, #4
BIT     ADD R2, R2, R2
        ADD R1, R1, #0
        BRzp ZERO_BIT
        ADD R2, R2, #1
ZERO_BIT ADD R1, R1, R1
        ADD R4, R4, #-1
        BRp BIT
        ADD R0, R2, #-10
        BRn DECIMAL
        LD R0, LETTERS          ; 'A' - 10
        BRnzp SHOW
DECIMAL LD R0, DIGITS           ; '0'
SHOW    ADD R0, R0, R2
        OUT
        ADD R3, R3, #-1
        BRp DIGIT
        AND R0, R0, #0
        ADD R0, R0, #10
        OUT
        HALT

ROUNDS          .FILL #800
MINUS_0         .FILL #-48
MINUS_LOWER_A   .FILL #-97
LETTERS     .FILL x37
DIGITS      .FILL x30
TEXT    .STRINGZ "The Quick Brown Fox Jumps Over The Lazy Dog, 0123456789 times!"
        .END
