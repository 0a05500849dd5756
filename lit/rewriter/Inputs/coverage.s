# Loops the rewriter used to skip or break (issue 13 part 3), as compilers
# lay them out; driven by coverage-main.c.
        .text

# hexenc(src, n, dst): sqlite's hex encoder. %dh next to an extended
# register has no encoding: a variant that would put its base in %r8-%r15
# must be refused, not abort the rewriter.
        .globl  hexenc
        .type   hexenc,@function
hexenc:
        pushq   %rbp
        pushq   %r12
        movq    %rdi, %rbp
        movq    %rsi, %r12
        movq    %rdx, %r8
        leaq    digits(%rip), %rdi
        xorl    %eax, %eax
        .p2align 4
.Lhex:
        movzbl  (%rbp,%rax), %ecx
        xorl    %edx, %edx
        movl    %ecx, %esi
        andl    $15, %ecx
        shrb    $4, %sil
        andl    $15, %esi
        movb    (%rdi,%rsi), %dl
        movb    (%rdi,%rcx), %dh
        movw    %dx, (%r8,%rax,2)
        addq    $1, %rax
        cmpq    %rax, %r12
        jne     .Lhex
        popq    %r12
        popq    %rbp
        ret
        .size   hexenc, .-hexenc

# short_header(a, n): a rotated loop entered at its condition, a 4-byte
# header (cmp; jl) followed by code outside the loop: a 2-byte jump to a
# trampoline in the loop's own bytes.
        .globl  short_header
        .type   short_header,@function
short_header:
        xorl    %eax, %eax
        xorl    %ecx, %ecx
        jmp     .Lsh_cond
.Lsh_body:
        addq    (%rdi,%rcx,8), %rax
        addl    $1, %ecx
.Lsh_cond:
        cmpl    %esi, %ecx
        jl      .Lsh_body
        ret
        .size   short_header, .-short_header

# unknown_cfg(op, d, a, n): dispatches through a table the rewriter cannot
# read (its address is loaded from memory); op 1 lands inside the first
# loop, past its header (the loop's original bytes run, then its patched
# header). L0's header starts with a 5-byte instruction (patched in place),
# L1's with a 1-byte one (skipped), L2's with a 4-byte one far from any
# padding (skipped), L3's with a 4-byte one (2-byte jump to a trampoline in
# the padding after the function).
        .globl  unknown_cfg
        .type   unknown_cfg,@function
unknown_cfg:
        movq    %rcx, %r9
        pxor    %xmm0, %xmm0
        xorl    %ecx, %ecx
        xorl    %eax, %eax
        cmpq    $2, %rdi
        je      .Luc_case2
        testq   %rdi, %rdi
        je      .Luc_l0
        movq    table_ptr(%rip), %r8
        jmp     *(%r8,%rdi,8)
.Luc_l0:
        addsd   (%rsi,%rcx,8), %xmm0
.Luc_mid:
        addq    $1, %rcx
        cmpq    %r9, %rcx
        jne     .Luc_l0
        cvttsd2si %xmm0, %rax
        jmp     .Luc_l2_pre
.Luc_case2:
        movl    $7, %eax
.Luc_l1:
        cwtl
        addq    (%rdx,%rcx,8), %rax
        addq    $1, %rcx
        cmpq    %r9, %rcx
        jne     .Luc_l1
.Luc_l2_pre:
        xorl    %ecx, %ecx
.Luc_l2:
        addq    (%rdx,%rcx,8), %rax
        addq    $3, %rcx
        cmpq    %r9, %rcx
        jl      .Luc_l2
        .rept   40
        addq    $1, %rax
        .endr
        xorl    %ecx, %ecx
.Luc_l3:
        addq    (%rdx,%rcx,8), %rax
        addq    $2, %rcx
        cmpq    %r9, %rcx
        jl      .Luc_l3
        ret
        .size   unknown_cfg, .-unknown_cfg
        .skip   8, 0xcc
        .p2align 4, 0xcc

# hoisted_switch(ops, n, a): a switch inside a loop whose table base is
# loaded once, before the loop (%rbx is set by that lea only): the table is
# read, the function's CFG is known and its last loop gets a trampoline in
# its own bytes.
        .globl  hoisted_switch
        .type   hoisted_switch,@function
hoisted_switch:
        pushq   %rbx
        leaq    .Ltab(%rip), %rbx
        xorl    %eax, %eax
        xorl    %ecx, %ecx
.Lhs_top:
        cmpq    %rsi, %rcx
        jge     .Lhs_done
        movzbl  (%rdi,%rcx), %r8d
        andl    $1, %r8d
        movslq  (%rbx,%r8,4), %r8
        addq    %rbx, %r8
        jmp     *%r8
.Lhs_c0:
        addq    $3, %rax
        jmp     .Lhs_next
.Lhs_c1:
        subq    $1, %rax
.Lhs_next:
        addq    $1, %rcx
        jmp     .Lhs_top
.Lhs_done:
        xorl    %ecx, %ecx
        jmp     .Lhs_cond
.Lhs_body:
        addq    (%rdx,%rcx,8), %rax
        addl    $1, %ecx
.Lhs_cond:
        cmpl    %esi, %ecx
        jl      .Lhs_body
        popq    %rbx
        ret
        .size   hoisted_switch, .-hoisted_switch

        .section .rodata
        .p2align 2
.Ltab:
        .long   .Lhs_c0-.Ltab
        .long   .Lhs_c1-.Ltab
digits:
        .ascii  "0123456789abcdef"

        .section .data.rel.ro,"aw"
        .p2align 3
cases:
        .quad   .Luc_l0, .Luc_mid, .Luc_case2

        .data
        .p2align 3
table_ptr:
        .quad   cases

        .section .note.GNU-stack,"",@progbits
