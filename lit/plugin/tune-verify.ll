; decan tune's last check (llvm-plugins/IRTune.h): after the vectoriser, a
; candidate whose loop carries a wider in-order floating-point accumulator
; than the default's (a vector of partial sums, added up in another order
; at the end) is refused: a warning, and its calls go to the default. An
; integer reduction vectorised the same way computes the same: kept. So does
; a jammed nest (jam2): its inner loop carries one in-order accumulator per
; jammed row, each its own reduction.
; RUN: opt -load-pass-plugin=%decan_plugin -passes=decan-tune-verify,verify -S %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
; RUN: FileCheck %s < %t.ll
; WARN: warning: decan: tuning candidate 'dot.decan.tune.vf4' refused: it reassociates floating-point arithmetic that the default keeps in order (decan tune --allow-fast-math allows it)
; WARN-NOT: isum
; WARN-NOT: rows
; RUN: opt -load-pass-plugin=%decan_plugin -passes=decan-tune-verify -decan-tune-fast-math -S %s 2>&1 | FileCheck %s --check-prefix=FAST
; FAST-NOT: warning
; FAST: call double @dot.decan.tune.vf4(

; CHECK-LABEL: define double @dot(
; CHECK: call double @dot.decan.tune.default(
; CHECK: call double @dot.decan.tune.default(
; CHECK-NOT: define internal double @dot.decan.tune.vf4(
; CHECK: define internal i32 @isum.decan.tune.vf4(
; CHECK: define internal void @rows.decan.tune.jam2(

define double @dot(i32 %w, ptr %a, i64 %n) {
entry:
  switch i32 %w, label %c1 [ i32 0, label %c0 ]
c0:
  %r0 = call double @dot.decan.tune.default(ptr %a, i64 %n)
  ret double %r0
c1:
  %r1 = call double @dot.decan.tune.vf4(ptr %a, i64 %n)
  ret double %r1
}

define internal double @dot.decan.tune.default(ptr %a, i64 %n) #0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr double, ptr %a, i64 %i
  %x = load double, ptr %p
  %s.next = fadd double %s, %x
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}

define internal double @dot.decan.tune.vf4(ptr %a, i64 %n) #1 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi <4 x double> [ zeroinitializer, %entry ], [ %s.next, %loop ]
  %p = getelementptr double, ptr %a, i64 %i
  %x = load <4 x double>, ptr %p
  %s.next = fadd <4 x double> %s, %x
  %i.next = add i64 %i, 4
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = call double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %s.next)
  ret double %r
}

define i32 @isum(i32 %w, ptr %a, i64 %n) {
entry:
  switch i32 %w, label %c1 [ i32 0, label %c0 ]
c0:
  %r0 = call i32 @isum.decan.tune.default(ptr %a, i64 %n)
  ret i32 %r0
c1:
  %r1 = call i32 @isum.decan.tune.vf4(ptr %a, i64 %n)
  ret i32 %r1
}

define internal i32 @isum.decan.tune.default(ptr %a, i64 %n) #2 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s.next, %loop ]
  %p = getelementptr i32, ptr %a, i64 %i
  %x = load i32, ptr %p
  %s.next = add i32 %s, %x
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i32 %s.next
}

define internal i32 @isum.decan.tune.vf4(ptr %a, i64 %n) #3 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi <4 x i32> [ zeroinitializer, %entry ], [ %s.next, %loop ]
  %p = getelementptr i32, ptr %a, i64 %i
  %x = load <4 x i32>, ptr %p
  %s.next = add <4 x i32> %s, %x
  %i.next = add i64 %i, 4
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %s.next)
  ret i32 %r
}

define void @rows(i32 %w, ptr %a, ptr %out, i64 %n) {
entry:
  switch i32 %w, label %c1 [ i32 0, label %c0 ]
c0:
  call void @rows.decan.tune.default(ptr %a, ptr %out, i64 %n)
  ret void
c1:
  call void @rows.decan.tune.jam2(ptr %a, ptr %out, i64 %n)
  ret void
}

; out[r] = sum of row r, r < 2.
define internal void @rows.decan.tune.default(ptr %a, ptr %out, i64 %n) #4 {
entry:
  br label %outer
outer:
  %r = phi i64 [ 0, %entry ], [ %r.next, %latch ]
  %row = mul i64 %r, %n
  br label %loop
loop:
  %i = phi i64 [ 0, %outer ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %outer ], [ %s.next, %loop ]
  %k = add i64 %row, %i
  %p = getelementptr double, ptr %a, i64 %k
  %x = load double, ptr %p
  %s.next = fadd double %s, %x
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %latch, label %loop
latch:
  %o = getelementptr double, ptr %out, i64 %r
  store double %s.next, ptr %o
  %r.next = add i64 %r, 1
  %rdone = icmp eq i64 %r.next, 2
  br i1 %rdone, label %exit, label %outer
exit:
  ret void
}

; The rows jammed by 2: two accumulators, one per row, each in order.
define internal void @rows.decan.tune.jam2(ptr %a, ptr %out, i64 %n) #5 {
entry:
  %row1 = mul i64 1, %n
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s0 = phi double [ 0.0, %entry ], [ %s0.next, %loop ]
  %s1 = phi double [ 0.0, %entry ], [ %s1.next, %loop ]
  %p0 = getelementptr double, ptr %a, i64 %i
  %x0 = load double, ptr %p0
  %s0.next = fadd double %s0, %x0
  %k1 = add i64 %row1, %i
  %p1 = getelementptr double, ptr %a, i64 %k1
  %x1 = load double, ptr %p1
  %s1.next = fadd double %s1, %x1
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop, !llvm.loop !0
exit:
  store double %s0.next, ptr %out
  %o1 = getelementptr double, ptr %out, i64 1
  store double %s1.next, ptr %o1
  ret void
}

declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)

attributes #0 = { noinline "decan-tune-candidate"="default" "decan-tune-group"="0" }
attributes #1 = { noinline "decan-tune-candidate"="vf4" "decan-tune-group"="0" }
attributes #2 = { noinline "decan-tune-candidate"="default" "decan-tune-group"="1" }
attributes #3 = { noinline "decan-tune-candidate"="vf4" "decan-tune-group"="1" }
attributes #4 = { noinline "decan-tune-candidate"="default" "decan-tune-group"="2" }
attributes #5 = { noinline "decan-tune-candidate"="jam2" "decan-tune-group"="2" }

!0 = distinct !{!0, !1}
!1 = !{!"decan.loop.jammed", i32 2}
