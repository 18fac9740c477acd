; strings.asm: string work through a table of subroutines: 600 rounds of UPPER, REVERSE,
; LOWER, ROTATE on one string, each called with JSRR through an address loaded from
; the table with LDR, and after each a Fletcher-style HASH of the string (s = s + c,
; t = t + s, modulo 2^16); prints t as four hex digits.
; Subroutines use R0-R3 (and R7); the main loop keeps R4 (table entry), R5 and R6 (counts).
        .ORIG x3000
        LD R6, ROUNDS
ROUND   LEA R4, TABLE
        AND R5, R5, #0
        ADD R5, R5, #4          ; operations left in this round
OPERATE LDR R2, R4, #0
        JSRR R2
        JSR HASH
        ADD R4, R4, #1
        ADD R5, R5, #-1
        BRp OPERATE
        ADD R6, R6, #-1
        BRp ROUND
        LD R1, HASH_T
        BRnzp FINISH

TABLE   .FILL UPPER
        .FILL REVERSE
        .FILL LOWER
        .FILL ROTATE

; UPPER: a-z to A-Z.
UPPER   LEA R1, TEXT
UP_NEXT LDR R0, R1, #0
        BRz UP_END
        LD R2, MINUS_LOWER_A
        ADD R2, R0, R2
        BRn UP_KEEP             ; below 'a'
        ADD R2, R2, #-16
        ADD R2, R2, #-10
        BRzp UP_KEEP            ; above 'z'
        ADD R0, R0, #-16
        ADD R0, R0, #-16
        STR R0, R1, #0
UP_KEEP ADD R1, R1, #1
        BRnzp UP_NEXT
UP_END  RET

; LOWER: A-Z to a-z.
LOWER   LEA R1, TEXT
LO_NEXT LDR R0, R1, #0
        BRz LO_END
        LD R2, MINUS_UPPER_A
        ADD R2, R0, R2
        BRn LO_KEEP             ; below 'A'
        ADD R2, R2, #-16
        ADD R2, R2, #-10
        BRzp LO_KEEP            ; above 'Z'
        ADD R0, R0, #15
        ADD R0, R0, #15
        ADD R0, R0, #2
        STR R0, R1, #0
LO_KEEP ADD R1, R1, #1
        BRnzp LO_NEXT
LO_END  RET

; REVERSE: in place, from both ends.
REVERSE LEA R1, TEXT
        LEA R2, TEXT
RV_FIND LDR R0, R2, #0          ; R2 to the terminator, then back one
        BRz RV_LAST
        ADD R2, R2, #1
        BRnzp RV_FIND
RV_LAST ADD R2, R2, #-1
RV_SWAP NOT R0, R2
        ADD R0, R0, #1
        ADD R0, R1, R0
        BRzp RV_END             ; the ends met
        LDR R0, R1, #0
        LDR R3, R2, #0
        STR R3, R1, #0
        STR R0, R2, #0
        ADD R1, R1, #1
        ADD R2, R2, #-1
        BRnzp RV_SWAP
RV_END  RET

; ROTATE: the first character moves to the end.
ROTATE  LEA R1, TEXT
        LDR R3, R1, #0
RO_NEXT LDR R0, R1, #1
        BRz RO_END
        STR R0, R1, #0
        ADD R1, R1, #1
        BRnzp RO_NEXT
RO_END  STR R3, R1, #0
        RET

; HASH: folds the string into HASH_S and HASH_T.
HASH    LEA R1, TEXT
        LD R2, HASH_S
        LD R3, HASH_T
HA_NEXT LDR R0, R1, #0
        BRz HA_END
        ADD R2, R2, R0
        ADD R3, R3, R2
        ADD R1, R1, #1
        BRnzp HA_NEXT
HA_END  ST R2, HASH_S
        ST R3, HASH_T
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

ROUNDS          .FILL #600
MINUS_LOWER_A   .FILL #-97
MINUS_UPPER_A   .FILL #-65
HASH_S          .FILL #0
HASH_T          .FILL #0
LETTERS     .FILL x37
DIGITS      .FILL x30
TEXT    .STRINGZ "The Quick Brown Fox Jumps Over The Lazy Dog, 0123456789 times!"
        .END
