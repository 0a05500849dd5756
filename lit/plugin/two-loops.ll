; Two loops in a row, the second using a value of the first directly (the
; input is not in LCSSA form): both loops are shaped before either is
; recorded, so the second copy receives the first loop's LCSSA PHI as a
; live-in, and the first loop's exit (the second's preheader) takes the
; first copy's live-out.
; RUN: opt -load-pass-plugin=%decan_plugin -passes=decan-outline,verify -S %s \
; RUN:   | FileCheck %s

target triple = "x86_64-pc-linux-gnu"

define void @twice(ptr %a, i64 %n) {
entry:
  br label %sum

sum:
  %i = phi i64 [ 0, %entry ], [ %i.next, %sum ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %sum ]
  %p = getelementptr i64, ptr %a, i64 %i
  %x = load i64, ptr %p
  %s.next = add i64 %s, %x
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %sum, label %mid

mid:
  br label %sub

sub:
  %j = phi i64 [ 0, %mid ], [ %j.next, %sub ]
  %q = getelementptr i64, ptr %a, i64 %j
  %y = load i64, ptr %q
  %d = sub i64 %y, %s.next
  store i64 %d, ptr %q
  %j.next = add i64 %j, 1
  %c2 = icmp ult i64 %j.next, %n
  br i1 %c2, label %sub, label %exit

exit:
  ret void
}

; CHECK-LABEL: define void @twice(
; CHECK:       mid:
; CHECK-NEXT:    %s.next.lcssa = phi i64 [ %s.next, %sum ], [ %s.next.lcssa.decan, %decan.take ]
; CHECK:         call preserve_allcc { i32 } @twice.decan.L1.measure(ptr %a, i64 %s.next.lcssa, i64 %n)
; CHECK:       sub:
; CHECK:         %d = sub i64 %y, %s.next.lcssa
; CHECK-LABEL: define internal void @twice.decan.L0.REF(ptr %a, i64 %n, ptr %s.next.lcssa.out, ptr %cycles, ptr %trips)
; CHECK-LABEL: define internal void @twice.decan.L1.REF(ptr %a, i64 %s.next.lcssa, i64 %n, ptr %cycles, ptr %trips)
; CHECK:         %d = sub i64 %y, %s.next.lcssa
