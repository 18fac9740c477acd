; runaway.asm: a program that forgot its HALT. Each lap it prints a line and runs on, off
; its end: through its own text and the empty memory after it, the device page, x0000
; and round to x3000 again, about 65,500 words a lap, all of them BR that never branches.
; R6 counts the laps (it starts at 0); the fourth time round the program ends, so the
; benchmark has an end: about 196,600 instructions of runaway in all.
        .ORIG x3000
        ADD R6, R6, #1
        ADD R0, R6, #-4
        BRn LAP
        HALT
LAP     LEA R0, MESSAGE
        PUTS
MESSAGE .STRINGZ "ran off the end\n"
        .END
