; The copies of loops whose copies take the same arguments are called from
; one function of the module, decan.call (docs/design.md, "How the plugin
; lays the stub out"): its key is the frame (its type, how many of its
; fields are live-ins) and whether the copies take the exit index. Two
; reductions over (ptr, i64) share one; a loop whose frame has the same
; type but splits it otherwise (one live-in, two live-outs) gets its own.
; RUN: opt -load-pass-plugin=%decan_plugin -passes=decan-outline,verify -S %s \
; RUN:   | FileCheck %s

target triple = "x86_64-pc-linux-gnu"

define i64 @sum_a(ptr %a, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %x = load i64, ptr %p
  %s.next = add i64 %s, %x
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret i64 %s.next
}

define i64 @sum_b(ptr %b, i64 %m) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds i64, ptr %b, i64 %i
  %x = load i64, ptr %p
  %s.next = xor i64 %s, %x
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, %m
  br i1 %c, label %loop, label %exit

exit:
  ret i64 %s.next
}

; Up to a zero: the length and the sum come out, only %a goes in.
define i64 @len_sum(ptr %a) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %x = load i64, ptr %p
  %s.next = add i64 %s, %x
  %i.next = add nuw i64 %i, 1
  %z = icmp eq i64 %x, 0
  br i1 %z, label %exit, label %loop

exit:
  %r = mul i64 %i.next, %s.next
  ret i64 %r
}

; CHECK: @sum_a.decan.L0.variants = internal constant { ptr, ptr, [19 x ptr] } { ptr @sum_a.decan.L0.desc, ptr @[[SHARED:decan.call[.0-9]*]], [19 x ptr]
; CHECK: @sum_b.decan.L0.variants = internal constant { ptr, ptr, [19 x ptr] } { ptr @sum_b.decan.L0.desc, ptr @[[SHARED]], [19 x ptr]
; CHECK: @len_sum.decan.L0.variants = internal constant { ptr, ptr, [19 x ptr] } { ptr @len_sum.decan.L0.desc, ptr @[[OWN:decan.call[.0-9]*]], [19 x ptr]

; CHECK:     define internal void @[[SHARED]](ptr %copy, ptr %frame) #[[COLD:[0-9]+]] !decan.frame ![[KEY2:[0-9]+]]
; CHECK:       tail call void %copy(ptr %in0, i64 %in1, ptr %out0.slot, ptr %cycles.slot, ptr %trips.slot)
; CHECK-NOT: define internal void @[[SHARED]](
; CHECK:     define internal void @[[OWN]](ptr %copy, ptr %frame) #[[COLD]] !decan.frame ![[KEY1:[0-9]+]]
; CHECK:       tail call void %copy(ptr %in0, ptr %out0.slot, ptr %out1.slot, ptr %cycles.slot, ptr %trips.slot)
; CHECK-NOT: define internal void @decan.call

; CHECK: attributes #[[COLD]] = { cold noinline nounwind optsize }
; CHECK-DAG: ![[KEY2]] = !{{[{]}}{ i64, i64, i32, ptr, i64, i64 } poison, i32 2, i32 0}
; CHECK-DAG: ![[KEY1]] = !{{[{]}}{ i64, i64, i32, ptr, i64, i64 } poison, i32 1, i32 0}
