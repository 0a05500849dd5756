## decan-mca-check finds a symbol's innermost loop in an object file (a branch
## backwards inside the symbol), and its prediction through the MCA library
## equals llvm-mca's for the same loop body, CPU and iteration count.
# RUN: llvm-mc -triple=x86_64 -filetype=obj %s -o %t.o
# RUN: decan-mca-check --mcpu znver4 %t.o chain nothere > %t.json
# RUN: FileCheck %s < %t.json
# CHECK: "cpu":"znver4","found":true,"loops":[{"asm":["vaddpd
# CHECK-SAME: "jne
# CHECK-SAME: "innermost":true,"instructions":6
# CHECK: "error":"symbol not found","found":false,"symbol":"nothere"

# RUN: sed -n '/^.Lchain_loop:/,/jne/p' %s | tail -n +2 > %t.body.s
# RUN: llvm-mca -mcpu=znver4 -iterations=500 %t.body.s > %t.mca
# RUN: python3 -c "import json,re,sys; p=json.loads(open(sys.argv[1]).readline())['loops'][0]['cycles_per_iteration']; t=int(re.search(r'Total Cycles:\s+(\d+)', open(sys.argv[2]).read()).group(1)); print('decan-mca-check', p * 500, 'llvm-mca', t); sys.exit(0 if abs(p * 500 - t) < 0.5 else 1)" %t.json %t.mca

## Bad input: one clear line, exit code 2.
# RUN: not decan-mca-check %t.missing chain 2>&1 | FileCheck %s --check-prefix=BAD
# BAD: decan-mca-check: {{.*}}.missing: {{.*}}No such file

	.text
	.globl	chain
	.type	chain,@function
chain:
	xorl	%eax, %eax
.Lchain_loop:
	vaddpd	%ymm0, %ymm1, %ymm1
	vmovupd	(%rsi,%rax,8), %ymm2
	vfmadd231pd	%ymm2, %ymm2, %ymm3
	addq	$4, %rax
	cmpq	%rdi, %rax
	jne	.Lchain_loop
	retq
.Lchain_end:
	.size	chain, .Lchain_end-chain
