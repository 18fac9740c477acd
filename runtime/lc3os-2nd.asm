; lc3os for the 2nd edition: loaded over lc3os.obj (see there). In the 2nd edition TRAP
; saves the return address in R7 and does not change the privilege, so the routines
; return with RET; they all return through TRAP_RETURN, whose address (in lc3os.sym)
; this word replaces. A test checks that the two files agree.
            .ORIG x020E
            RET
            .END
