; strings.asm: packed strings for PUTSP, an upper-case copy, and packing it for PUTSP.
        .ORIG x3000
        LEA R0, PACKED
        PUTSP                   ; two characters a word, low byte first
        LEA R1, SOURCE          ; copy SOURCE into BUFFER in upper case
        LEA R2, BUFFER
        LD R4, MINUS_A
COPY    LDR R0, R1, #0
        BRz COPIED
        ADD R3, R0, R4          ; below 'a'?
        BRn STORE
        ADD R3, R3, #-16
        ADD R3, R3, #-10        ; above 'z'?
        BRzp STORE
        ADD R0, R0, #-16
        ADD R0, R0, #-16        ; 'a' - 'A' = 32
STORE   STR R0, R2, #0
        ADD R1, R1, #1
        ADD R2, R2, #1
        BRnzp COPY
COPIED  STR R0, R2, #0          ; the terminating zero
        LEA R0, BUFFER
        PUTS
        LEA R1, BUFFER          ; pack BUFFER into PACKBUF: first char low, second high
        LEA R2, PACKBUF
PACK    LDR R3, R1, #0
        BRz PACKED_ALL
        LDR R0, R1, #1          ; the second character, shifted up 8 bits
        AND R5, R5, #0
        ADD R5, R5, #8
SHIFT   ADD R0, R0, R0
        ADD R5, R5, #-1
        BRp SHIFT
        ADD R0, R0, R3
        STR R0, R2, #0
        ADD R2, R2, #1
        LDR R3, R1, #1          ; a string of odd length ends after the low byte
        BRz PACKED_ALL
        ADD R1, R1, #2
        BRnzp PACK
PACKED_ALL
        AND R0, R0, #0
        STR R0, R2, #0
        LEA R0, PACKBUF
        PUTSP
        HALT
PACKED  .FILL x6948             ; "Hi"
        .FILL x202C             ; ", "
        .FILL x5550             ; "PU"
        .FILL x5354             ; "TS"
        .FILL x2150             ; "P!"
        .FILL x000A             ; "\n", and the high byte ends the string
        .FILL x0000
MINUS_A .FILL #-97
SOURCE  .STRINGZ "Hello, lc-3 strings;\tdone.\n"
BUFFER  .BLKW #32
PACKBUF .BLKW #17
        .END
