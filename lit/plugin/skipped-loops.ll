; Innermost loops that are not instrumented keep a meta record with variant
; mask 0 and the reason, and get a missed remark; nothing else is emitted
; for them (no copies, no descriptor, no stub).
; RUN: opt -load-pass-plugin=%decan_plugin -passes=decan-outline,verify -S %s -decan-build-variants=all \
; RUN:   -pass-remarks-missed=decan 2>%t.remarks | FileCheck %s
; RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
;; By default (no -decan-build-variants) the variant masks hold what
;; `decan run` rotates by default: REF..CTRL, and NO_CALL where the loop calls.
; RUN: opt -load-pass-plugin=%decan_plugin -passes=decan-outline -S %s \
; RUN:   | FileCheck --check-prefix=DEFAULT %s
; DEFAULT: @plain.decan.L0.meta = {{.*}} i32 11, i32 63, {{.*}} c"plain:L0\00
; DEFAULT: @driver.decan.L0.meta = {{.*}} i32 11, i32 127, {{.*}} c"driver:L0\00
;; -decan-functions restricts the selection; others are "not selected".
; RUN: opt -load-pass-plugin=%decan_plugin -passes=decan-outline -S %s \
; RUN:   -decan-functions=plain | FileCheck --check-prefix=ONLY %s
; RUN: not opt -load-pass-plugin=%decan_plugin -passes=decan-outline -S %s \
; RUN:   -decan-lines=oops -o /dev/null 2>&1 | FileCheck --check-prefix=BADOPT %s

target triple = "x86_64-pc-linux-gnu"

; A call that returns twice (setjmp) cannot be outlined; other calls can
; (lit/plugin/calls.test).
declare void @ext(i64) returns_twice

define void @calls(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  call void @ext(i64 %i)
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

;; Two entries into the cycle {a, b}: irreducible, no natural loop.
define void @irreducible(i1 %p, ptr %x, i64 %n) {
entry:
  br i1 %p, label %a, label %b
a:
  %ia = phi i64 [ 0, %entry ], [ %ib.next, %b ]
  store i64 %ia, ptr %x
  %ia.next = add i64 %ia, 1
  br label %b
b:
  %ib = phi i64 [ 0, %entry ], [ %ia.next, %a ]
  %ib.next = add i64 %ib, 1
  %c = icmp ult i64 %ib.next, %n
  br i1 %c, label %a, label %exit
exit:
  ret void
}

define void @dynalloca(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %m = alloca i8, i64 %i
  store volatile i8 0, ptr %m
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

define void @plain(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = getelementptr i64, ptr %x, i64 %i
  store i64 %i, ptr %p
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

;; A loop that calls a function of the module with loops is instrumented
;; too (issue 13): the runtime measures the innermost loop (one that runs
;; measured loops yields to them: docs/runtime.md); NO_CALL bit (6) set.
define void @driver(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  call void @plain(ptr %x, i64 %n)
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, 10
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; CHECK: @calls.decan.L0.meta = internal constant {{.*}} { [4 x i8] c"DCN1", i32 {{[0-9]+}}, i32 11, i32 0, {{.*}} c"calls:L0\00calls\00\00setjmp-like call in the loop\00\00{{[0-9]+}}\00{{(\\00)*}}" }, section ".decan.meta", align 8
; CHECK: @irreducible.decan.L0.meta = internal constant {{.*}} i32 11, i32 0, {{.*}} c"irreducible:L0\00irreducible\00\00irreducible control flow\00\00{{[0-9]+}}\00{{(\\00)*}}" }, section ".decan.meta", align 8
; CHECK: @dynalloca.decan.L0.meta = {{.*}} i32 11, i32 0, {{.*}} c"dynalloca:L0\00dynalloca\00\00alloca in the loop\00\00{{[0-9]+}}\00{{(\\00)*}}" }
; CHECK: @plain.decan.L0.meta = {{.*}} i32 11, i32 524223, {{.*}} c"plain:L0\00plain\00\00\00\00{{[0-9]+}}\00{{(\\00)*}}" }
; CHECK: @driver.decan.L0.meta = {{.*}} i32 11, i32 524287, {{.*}} c"driver:L0\00driver\00\00\00\00{{[0-9]+}}\00{{(\\00)*}}" }
; CHECK-NOT: @{{calls|irreducible|dynalloca}}.decan.L0.{{desc|scratch|variants}}
; CHECK: @llvm.used = {{.*}}[ptr @calls.decan.L0.meta, ptr @irreducible.decan.L0.meta, ptr @dynalloca.decan.L0.meta, ptr @plain.decan.L0.meta, ptr @plain.decan.L0.scratch, ptr @driver.decan.L0.meta, ptr @driver.decan.L0.scratch, ptr @decan.descs]
; CHECK: @plain.decan.L0.desc = internal alias
; CHECK-LABEL: define void @calls(
; CHECK-NOT:   decan
; CHECK-LABEL: define void @irreducible(
; CHECK-NOT:   decan
; CHECK-LABEL: define void @dynalloca(
; CHECK-NOT:   decan
; CHECK-LABEL: define void @plain(
; CHECK:       call preserve_allcc { i32 } @plain.decan.L0.measure(
; CHECK-NOT: define internal void @calls.decan
; CHECK: define internal void @plain.decan.L0.REF(
; CHECK-NOT: define internal void @calls.decan

; REMARK: remark: <unknown>:0:0: loop calls:L0 not instrumented: setjmp-like call in the loop
; REMARK: remark: <unknown>:0:0: loop irreducible:L0 not instrumented: irreducible control flow
; REMARK: remark: <unknown>:0:0: loop dynalloca:L0 not instrumented: alloca in the loop
; REMARK-NOT: plain:L0
; REMARK-NOT: driver:L0

; ONLY: c"calls:L0\00calls\00\00not selected (-decan-functions/-decan-lines)\00
; ONLY: c"plain:L0\00plain\00\00\00
; ONLY: define internal void @plain.decan.L0.REF(
; ONLY-NOT: define internal void @dynalloca.decan

; BADOPT: error: decan: bad -decan-lines entry 'oops': expected FILE:LINE or FILE:FIRST-LAST
