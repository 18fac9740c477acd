; lc3os: the operating system of lc3jit's full-system mode (`lc3jit run --os`).
;
; Memory map: the trap vector table at x0000-x00FF, the interrupt and exception vector
; table at x0100-x01FF, the start-up code at x0200 (where the machine starts), then the
; service routines and their data, all below x3000, closed to user mode in the 3rd edition.
;
; Start-up: lc3jit starts the machine at x0200 in supervisor mode with R0 = the user
; program's first address (the origin of the first program file, or --pc). The OS pushes
; PSR x8002 and that address on its stack (x3000 down) and enters the program by RTI:
; user mode, priority 0, codes Z, Saved_SSP = x3000, every register but R6 cleared.
;
; The six traps go through the device registers (KBSR/KBDR for the keyboard, DSR/DDR for
; the display) and write exactly what lc3jit's host traps write: the IN prompt, the
; echo, "HALT" and a newline; HALT then clears MCR[15], which stops the machine.
;
; Editions: this file is the 3rd edition, where TRAP pushes PSR and PC and the routines
; return with RTI. Every routine returns through the one word TRAP_RETURN;
; lc3os-2nd.asm is loaded over it for the 2nd edition, where TRAP saves the return
; address in R7 and the word is RET. The routines keep every register but R0 (GETC, IN)
; in save slots of their own, so they may call each other (PUTS, IN, HALT call OUT).
; In the 2nd edition GETC and IN leave the codes set from R0, as the host traps do.
;
; Exceptions print what happened and where (the PC pushed, less one), then HALT. The
; keyboard interrupt's default handler returns at once; a program that enables keyboard
; interrupts installs its own at x0180 (and reads KBDR there).

            .ORIG x0000
            .BLKW x20                   ; x00-x1F: no routine
            .FILL TRAP_GETC             ; x20
            .FILL TRAP_OUT              ; x21
            .FILL TRAP_PUTS             ; x22
            .FILL TRAP_IN               ; x23
            .FILL TRAP_PUTSP            ; x24
            .FILL TRAP_HALT             ; x25
            .BLKW xDA                   ; x26-xFF
            .FILL PRIVILEGE_HANDLER     ; x0100: privilege-mode violation
            .FILL ILLEGAL_HANDLER       ; x0101: illegal opcode
            .FILL ACCESS_HANDLER        ; x0102: access-control violation
            .BLKW x7D                   ; x0103-x017F
            .FILL KEYBOARD_HANDLER      ; x0180: keyboard interrupt
            .BLKW x7F                   ; x0181-x01FF

OS_START    LD R6, OS_STACK             ; x0200: R0 = the user program's first address
            LD R1, USER_PSR
            ADD R6, R6, #-1
            STR R1, R6, #0
            ADD R6, R6, #-1
            STR R0, R6, #0
            AND R0, R0, #0
            AND R1, R1, #0
            AND R2, R2, #0
            AND R3, R3, #0
            AND R4, R4, #0
            AND R5, R5, #0
            AND R7, R7, #0
            RTI
TRAP_RETURN RTI                         ; the 2nd edition's RET goes here (lc3os-2nd.asm)

OS_STACK    .FILL x3000
USER_PSR    .FILL x8002
KBSR_PTR    .FILL xFE00
KBDR_PTR    .FILL xFE02
DSR_PTR     .FILL xFE04
DDR_PTR     .FILL xFE06
MCR_PTR     .FILL xFFFE
CLOCK_OFF   .FILL x7FFF
LOW_BYTE    .FILL x00FF
HIGH_BIT    .FILL x0100

; x20 GETC: R0 = the next key, no echo.
TRAP_GETC   LDI R0, KBSR_PTR
            BRzp TRAP_GETC
            LDI R0, KBDR_PTR
            BRnzp TRAP_RETURN

; x21 OUT: write R0[7:0].
TRAP_OUT    ST R1, OUT_R1
OUT_WAIT    LDI R1, DSR_PTR
            BRzp OUT_WAIT
            STI R0, DDR_PTR
            LD R1, OUT_R1
            BRnzp TRAP_RETURN
OUT_R1      .BLKW 1

; x22 PUTS: one character per word from M[R0] until a x0000 word.
TRAP_PUTS   ST R0, PUTS_R0
            ST R1, PUTS_R1
            ST R7, PUTS_R7
            ADD R1, R0, #0
PUTS_NEXT   LDR R0, R1, #0
            BRz PUTS_DONE
            OUT
            ADD R1, R1, #1
            BRnzp PUTS_NEXT
PUTS_DONE   LD R0, PUTS_R0
            LD R1, PUTS_R1
            LD R7, PUTS_R7
            BRnzp TRAP_RETURN
PUTS_R0     .BLKW 1
PUTS_R1     .BLKW 1
PUTS_R7     .BLKW 1

; x23 IN: the prompt, one key, its echo; R0 = the key.
TRAP_IN     ST R7, IN_R7
            LEA R0, IN_PROMPT
            PUTS
            GETC
            OUT
            LD R7, IN_R7
            ADD R0, R0, #0
            BRnzp TRAP_RETURN
IN_R7       .BLKW 1
IN_PROMPT   .STRINGZ "Enter a character: "

; x24 PUTSP: two characters per word, low byte first, until a x0000 word; a high
; byte of zero is not written.
TRAP_PUTSP  ST R0, PUTSP_R0
            ST R1, PUTSP_R1
            ST R2, PUTSP_R2
            ST R3, PUTSP_R3
            ST R4, PUTSP_R4
            ST R5, PUTSP_R5
            ST R7, PUTSP_R7
            ADD R1, R0, #0
PUTSP_NEXT  LDR R2, R1, #0
            BRz PUTSP_DONE
            LD R0, LOW_BYTE
            AND R0, R2, R0
            OUT
            AND R0, R0, #0              ; R0 = R2 >> 8, one bit at a time
            AND R3, R3, #0
            ADD R3, R3, #1              ; the bit of R0 to set
            LD R4, HIGH_BIT             ; the bit of R2 to test: x0100 ... x8000
PUTSP_BIT   AND R5, R2, R4
            BRz PUTSP_ZERO
            ADD R0, R0, R3
PUTSP_ZERO  ADD R3, R3, R3
            ADD R4, R4, R4
            BRnp PUTSP_BIT
            ADD R0, R0, #0
            BRz PUTSP_SKIP
            OUT
PUTSP_SKIP  ADD R1, R1, #1
            BRnzp PUTSP_NEXT
PUTSP_DONE  LD R0, PUTSP_R0
            LD R1, PUTSP_R1
            LD R2, PUTSP_R2
            LD R3, PUTSP_R3
            LD R4, PUTSP_R4
            LD R5, PUTSP_R5
            LD R7, PUTSP_R7
            BRnzp TRAP_RETURN
PUTSP_R0    .BLKW 1
PUTSP_R1    .BLKW 1
PUTSP_R2    .BLKW 1
PUTSP_R3    .BLKW 1
PUTSP_R4    .BLKW 1
PUTSP_R5    .BLKW 1
PUTSP_R7    .BLKW 1

; x25 HALT: "HALT" and a newline, then the clock stops.
TRAP_HALT   LEA R0, HALT_TEXT
            PUTS
            LDI R0, MCR_PTR
            LD R1, CLOCK_OFF
            AND R0, R0, R1
            STI R0, MCR_PTR
            BRnzp TRAP_HALT             ; not reached: the machine has stopped
HALT_TEXT   .STRINGZ "HALT\n"

; The exceptions: a message naming the instruction, then HALT.
PRIVILEGE_HANDLER
            LEA R0, PRIVILEGE_TEXT
            BRnzp REPORT
ILLEGAL_HANDLER
            LEA R0, ILLEGAL_TEXT
            BRnzp REPORT
ACCESS_HANDLER
            LEA R0, ACCESS_TEXT
REPORT      PUTS                        ; "\n<what happened> at x"
            LDR R1, R6, #0              ; the PC pushed: the instruction's address + 1
            ADD R1, R1, #-1
            LD R4, FOUR                 ; hex digits to write
REPORT_DIGIT
            AND R2, R2, #0              ; the next 4 bits of R1, from the top
            LD R3, FOUR
REPORT_BIT  ADD R2, R2, R2
            ADD R1, R1, #0
            BRzp REPORT_SHIFT
            ADD R2, R2, #1
REPORT_SHIFT
            ADD R1, R1, R1
            ADD R3, R3, #-1
            BRp REPORT_BIT
            LEA R0, HEX_DIGITS
            ADD R0, R0, R2
            LDR R0, R0, #0
            OUT
            ADD R4, R4, #-1
            BRp REPORT_DIGIT
            AND R0, R0, #0
            ADD R0, R0, #10             ; newline
            OUT
            HALT
FOUR        .FILL #4
HEX_DIGITS  .STRINGZ "0123456789ABCDEF"
PRIVILEGE_TEXT .STRINGZ "\nprivilege-mode violation (RTI in user mode) at x"
ILLEGAL_TEXT .STRINGZ "\nillegal opcode at x"
ACCESS_TEXT .STRINGZ "\naccess-control violation (user mode outside x3000-xFDFF) at x"

; x0180: the keyboard interrupt, until a program installs its own handler.
KEYBOARD_HANDLER
            RTI
            .END
