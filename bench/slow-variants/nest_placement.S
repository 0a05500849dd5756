# fdtd-2d's nest main:N1 (`decan flags --nests`), vector path: the bytes of
# its REF copy's loops and of its DL1 copy's (operands RIP-relative in an
# 8 KiB scratch area), the inner loop's top at a chosen offset of its
# 64-byte line. Before inner loops were aligned the plugin put REF's at 16
# and DL1's at 32. See nest_placement.c.
#
# void NAME(double *ey_row, double *hz_row, long rows)

        .bss
        .p2align 6
scratch:
        .zero 8192

        .section .rodata
        .p2align 4
half:
        .double 0.5, 0.5

        .text
# OFF: the inner loop top's offset in its line; DL1: scratch operands;
# STILL: the outer loop does not advance (rows stay L1-resident: REF's own
# bytes with L1 hits, what DL1 stands for).
        .macro NEST name, off, dl1, still
        .p2align 6
        .globl \name
\name:
        push %rbx
        mov %rdx, %r11
        movapd half(%rip), %xmm1
        mov %rdi, %rdx
        mov %rsi, %rax
        jmp 2f
        .p2align 6
        .skip \off, 0x90
1:
        .if \dl1
        movupd scratch+0x230(%rip), %xmm2
        movupd scratch+0x240(%rip), %xmm3
        movupd scratch+0x330(%rip), %xmm4
        movupd scratch+0x340(%rip), %xmm5
        movupd scratch+0x2b0(%rip), %xmm6
        subpd %xmm6, %xmm4
        movupd scratch+0x2c0(%rip), %xmm6
        subpd %xmm6, %xmm5
        mulpd %xmm1, %xmm4
        addpd %xmm2, %xmm4
        mulpd %xmm1, %xmm5
        addpd %xmm3, %xmm5
        movupd %xmm4, scratch+0x3b0(%rip)
        movupd %xmm5, scratch+0x3c0(%rip)
        .else
        movupd -0x10(%rdx,%rbx,8), %xmm2
        movupd (%rdx,%rbx,8), %xmm3
        movupd -0x10(%rax,%rbx,8), %xmm4
        movupd (%rax,%rbx,8), %xmm5
        movupd -0x790(%rax,%rbx,8), %xmm6
        subpd %xmm6, %xmm4
        movupd -0x780(%rax,%rbx,8), %xmm6
        subpd %xmm6, %xmm5
        mulpd %xmm1, %xmm4
        addpd %xmm2, %xmm4
        mulpd %xmm1, %xmm5
        addpd %xmm3, %xmm5
        movupd %xmm4, -0x10(%rdx,%rbx,8)
        movupd %xmm5, (%rdx,%rbx,8)
        .endif
        add $4, %rbx
        cmp $0xf0, %rbx
        jne 1b
        .if \still == 0
        add $0x780, %rax
        add $0x780, %rdx
        .endif
        dec %r11
        je 3f
2:
        xor %ebx, %ebx
        jmp 1b
3:
        pop %rbx
        ret
        .endm

        NEST ref16, 16, 0, 0
        NEST ref_l1_16, 16, 0, 1
        NEST dl1_0, 0, 1, 0
        NEST dl1_16, 16, 1, 0
        NEST dl1_32, 32, 1, 0
        NEST dl1_48, 48, 1, 0

        .section .note.GNU-stack,"",@progbits
