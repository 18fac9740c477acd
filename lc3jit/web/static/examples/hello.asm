; hello.asm: the classic first program, one string written with PUTS.
        .ORIG x3000
        LEA R0, GREETING
        PUTS
        HALT
GREETING .STRINGZ "Hello, World!\n"
        .END
