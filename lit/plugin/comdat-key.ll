; The constructor registering a comdat function's loops is keyed, in
; llvm.global_ctors, on the global whose symbol names the comdat, so that its
; .init_array entry lands in the function's own ELF section group. A comdat
; named after no global (clang's C5/D5 constructor groups are) gets a local
; marker of that name. Linked with a plain object holding the same group, in
; either order and with either linker, the program links and registers the
; loop only when the instrumented group is the one kept.
; RUN: opt -load-pass-plugin=%decan_plugin -passes=decan-outline,verify -S %s \
; RUN:   | FileCheck %s
; RUN: rm -rf %t && mkdir %t
; RUN: %clang_decan -O1 -c %s -o %t/inst.o
; RUN: %clang -O1 -c %s -o %t/plain.o
; RUN: llvm-readelf -g %t/inst.o | FileCheck --check-prefix=GROUPS %s
; RUN: %clang -O1 -c %S/Inputs/comdat-key-main.c -o %t/main.o
; RUN: %clang %t/main.o %t/inst.o %t/plain.o %decan_link -o %t/bfd-inst
; RUN: %clang %t/main.o %t/plain.o %t/inst.o %decan_link -o %t/bfd-plain
; RUN: %clang -fuse-ld=lld %t/main.o %t/inst.o %t/plain.o %decan_link -o %t/lld-inst
; RUN: %clang -fuse-ld=lld %t/main.o %t/plain.o %t/inst.o %decan_link -o %t/lld-plain
; RUN: rm -rf %t/r1 && mkdir %t/r1 && env DECAN_LOOPS=all DECAN_OUTPUT=%t/r1 %t/bfd-inst | FileCheck --check-prefix=OUT %s
; RUN: %python %S/Inputs/report.py summary %t/r1 | FileCheck --check-prefix=INST %s
; RUN: rm -rf %t/r2 && mkdir %t/r2 && env DECAN_LOOPS=all DECAN_OUTPUT=%t/r2 %t/lld-plain | FileCheck --check-prefix=OUT %s
; RUN: %python %S/Inputs/report.py summary %t/r2 | FileCheck --check-prefix=PLAIN %s
; RUN: %t/bfd-plain | FileCheck --check-prefix=OUT %s
; RUN: %t/lld-inst | FileCheck --check-prefix=OUT %s

target triple = "x86_64-pc-linux-gnu"

$group.of.sum = comdat any

define linkonce_odr i64 @sum(ptr %a, i64 %n) noinline comdat($group.of.sum) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %x = load i64, ptr %p, align 8
  %s.next = add i64 %s, %x
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret i64 %s.next
}

; Called from main.c (weak: both objects define it), so the plain object
; holds the same comdat.
define weak i64 @sum_here(ptr %a, i64 %n) {
  %r = call i64 @sum(ptr %a, i64 %n)
  ret i64 %r
}

; CHECK: @group.of.sum = internal constant i8 0, comdat
; CHECK: @llvm.global_ctors = appending global {{.*}} [{ i32, ptr, ptr } { i32 65535, ptr @group.of.sum.decan.module_ctor, ptr @group.of.sum }]
; CHECK: define internal void @group.of.sum.decan.module_ctor() {{.*}}comdat($group.of.sum)

; GROUPS: COMDAT group section {{.*}} [group.of.sum] contains
; GROUPS: .init_array
; GROUPS-NOT: COMDAT group section

; OUT: sum=4950

; INST: loop sum:L0 measured REF,LS,FP
; PLAIN-NOT: loop sum:L0
