# A loop (.Lhead, .Lbody) and, after the return, a cycle no path from the
# entry reaches that jumps into the loop past its header.
        .text
        .globl  f
        .type   f,@function
f:
        xorl    %eax, %eax
        xorl    %ecx, %ecx
.Lhead:
        addl    $1, %eax
.Lbody:
        addl    $2, %ecx
        cmpl    $100, %eax
        jne     .Lhead
        movl    %ecx, %eax
        retq
.Ldead1:
        addl    $3, %edx
        jmp     .Ldead2
.Ldead2:
        testl   %edx, %edx
        jne     .Ldead1
        jmp     .Lbody
        .size   f, .-f

        .globl  g
        .type   g,@function
g:
        xorl    %eax, %eax
.Lg1:
        addl    $1, %eax
        cmpl    $10, %eax
        jne     .Lg1
.Lg2:
        addl    $1, %eax
        cmpl    $20, %eax
        jne     .Lg2
        retq
        .size   g, .-g
        .section .note.GNU-stack,"",@progbits
