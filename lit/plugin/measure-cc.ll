; The measure function's calling convention: preserve_all where a
; floating-point or vector value of the caller lives in an XMM register
; across the stub's call (defined before the loop, used after it), so the
; caller keeps it there; preserve_most, which saves no XMM register (256
; bytes less per loop), everywhere else. The loop's own values come back as
; results and do not count.
; RUN: opt -load-pass-plugin=%decan_plugin -passes=decan-outline,verify -S %s \
; RUN:   | FileCheck %s

target triple = "x86_64-pc-linux-gnu"

; %scale lives across the loop: preserve_all.
define double @scaled(ptr %a, i64 %n, double %scale) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %a, i64 %i
  %x = load double, ptr %p, align 8
  %s.next = fadd double %s, %x
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  %r = fmul double %s.next, %scale
  ret double %r
}

; Only the loop's result is floating-point: preserve_most.
define double @sum(ptr %a, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %a, i64 %i
  %x = load double, ptr %p, align 8
  %s.next = fadd double %s, %x
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  %h = fmul double %s.next, 5.0e-01
  ret double %h
}

; CHECK-LABEL: define double @scaled(
; CHECK:         call preserve_allcc { i32, double } @scaled.decan.L0.measure(
; CHECK-LABEL: define double @sum(
; CHECK:         call preserve_mostcc { i32, double } @sum.decan.L0.measure(
; CHECK-LABEL: define internal preserve_allcc { i32, double } @scaled.decan.L0.measure(
; CHECK-LABEL: define internal preserve_mostcc { i32, double } @sum.decan.L0.measure(
