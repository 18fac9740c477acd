; FACT and MULT under the stack convention: a plausible student's solution. It forgets
; that 0! is 1 (its base case is n = 1), and FACT does not save R1, which it uses.
        .ORIG x3000
        LD R6, STACK
        AND R0, R0, #0
        ADD R0, R0, #5
        ADD R6, R6, #-1
        STR R0, R6, #0          ; push n = 5
        JSR FACT
        LDR R0, R6, #0          ; R0 = 5! = 120
        ADD R6, R6, #2          ; pop the result and the argument
        HALT
STACK   .FILL xF000

; FACT(n) = n! for 0 <= n <= 7. Frame: R5+3 the return value, R5+4 n.
FACT    ADD R6, R6, #-3         ; the return value's slot, R7, R5
        STR R7, R6, #1
        STR R5, R6, #0
        ADD R5, R6, #-1         ; the frame pointer
        ADD R6, R6, #-2
        STR R0, R6, #0          ; save R0
        LDR R0, R5, #4          ; R0 = n
        ADD R1, R0, #-1
        BRp RECURSE             ; n > 1: recurse; else n! = n
        BR FDONE
RECURSE
        ADD R6, R6, #-1
        STR R1, R6, #0          ; push n - 1
        JSR FACT
        LDR R1, R6, #0          ; R1 = (n - 1)!
        ADD R6, R6, #2          ; pop the result and the argument
        ADD R6, R6, #-1
        STR R1, R6, #0          ; push b = (n - 1)!
        ADD R6, R6, #-1
        STR R0, R6, #0          ; push a = n (the first argument on top)
        JSR MULT
        LDR R0, R6, #0          ; R0 = n * (n - 1)!
        ADD R6, R6, #3          ; pop the result and both arguments
FDONE   STR R0, R5, #3          ; the return value
        LDR R0, R6, #0
        ADD R6, R5, #1          ; back to the saved R5
        LDR R5, R6, #0
        LDR R7, R6, #1
        ADD R6, R6, #2          ; R6 on the return value
        RET

; MULT(a, b) = a * b for b >= 0, by repeated addition. Frame: R5+4 a, R5+5 b.
MULT    ADD R6, R6, #-3
        STR R7, R6, #1
        STR R5, R6, #0
        ADD R5, R6, #-1
        ADD R6, R6, #-3
        STR R0, R6, #0          ; save R0, R1, R2
        STR R1, R6, #1
        STR R2, R6, #2
        LDR R1, R5, #4          ; a
        LDR R2, R5, #5          ; b
        AND R0, R0, #0
MLOOP   ADD R2, R2, #0
        BRz MDONE
        ADD R0, R0, R1
        ADD R2, R2, #-1
        BR MLOOP
MDONE   STR R0, R5, #3
        LDR R0, R6, #0
        LDR R1, R6, #1
        LDR R2, R6, #2
        ADD R6, R5, #1
        LDR R5, R6, #0
        LDR R7, R6, #1
        ADD R6, R6, #2
        RET
        .END
