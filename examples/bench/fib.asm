; fib.asm: fib(25) by the naive recursion, with a stack in R6 (R7 and n saved on it);
; 242,785 calls; prints fib(25) = 75,025 modulo 2^16 as four hex digits (2511).
        .ORIG x3000
        LD R6, STACK            ; the stack grows down from xFE00
        LD R0, ARGUMENT
        JSR FIB
        ADD R1, R0, #0
        BRnzp FINISH

; FIB: R0 = fib(R0); R1 is clobbered, R6 is kept.
FIB     ADD R1, R0, #-2
        BRn FIB_BASE            ; fib(0) = 0, fib(1) = 1
        ADD R6, R6, #-1
        STR R7, R6, #0          ; push the return address
        ADD R6, R6, #-1
        STR R0, R6, #0          ; push n
        ADD R0, R0, #-1
        JSR FIB                 ; fib(n - 1)
        LDR R1, R6, #0          ; n
        STR R0, R6, #0          ; its slot now holds fib(n - 1)
        ADD R0, R1, #-2
        JSR FIB                 ; fib(n - 2)
        LDR R1, R6, #0
        ADD R0, R0, R1
        LDR R7, R6, #1
        ADD R6, R6, #2
FIB_BASE RET

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

STACK       .FILL xFE00
ARGUMENT    .FILL #25
LETTERS     .FILL x37
DIGITS      .FILL x30
        .END
