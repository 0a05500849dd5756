; The IR pass alone on a loop with two exits (a data-dependent break) and a
; loop with a live-out (a reduction): dispatch stub at the loop site, the
; outlined copies with probes around the untouched loop, trip count derived
; after the loop, and the loop tables.
; RUN: opt -load-pass-plugin=%decan_plugin -passes=decan-outline,verify -S %s -decan-build-variants=all \
; RUN:   | FileCheck %s

target triple = "x86_64-pc-linux-gnu"

define i32 @find(ptr %k, i32 %n, i32 %key) {
entry:
  %pos = icmp sgt i32 %n, 0
  br i1 %pos, label %ph, label %done

ph:
  %wide = zext nneg i32 %n to i64
  br label %loop

loop:
  %i = phi i64 [ 0, %ph ], [ %i.next, %latch ]
  %p = getelementptr inbounds i32, ptr %k, i64 %i
  %v = load i32, ptr %p, align 4
  %hit = icmp eq i32 %v, %key
  br i1 %hit, label %found, label %latch

latch:
  %i.next = add nuw nsw i64 %i, 1
  %end = icmp eq i64 %i.next, %wide
  br i1 %end, label %done, label %loop

found:
  %t = trunc i64 %i to i32
  br label %done

done:
  %r = phi i32 [ 0, %entry ], [ %t, %found ], [ %n, %latch ]
  ret i32 %r
}

define double @sum(ptr %a, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %a, i64 %i
  %x = load double, ptr %p, align 8
  %s.next = fadd double %s, %x
  %i.next = add nuw i64 %i, 4
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %s.next
}

;; The stub: one volatile load of desc.active and an unlikely branch in the
;; old preheader; at active == 2 the countdown decides whether this call goes
;; to the runtime. The original loop is entered through a new preheader.
; CHECK: @find.decan.L0.meta = internal constant { [4 x i8], i32, i32, i32, i32, i32, i32, i32, [126 x i32], [24 x i8] } { [4 x i8] c"DCN1", i32 560, i32 11, i32 524223, i32 0, i32 0, i32 18, i32 0, [126 x i32] [i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 1, i32 3, i32 1, i32 2, i32 3, i32 1, i32 1, i32 3, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0], [24 x i8] c"find:L0\00find\00\00\00\001\00\00\00\00\00\00\00" }, section ".decan.meta", align 8
; CHECK: @find.decan.L0.scratch = internal global [8192 x i8] zeroinitializer, align 64
; CHECK: @find.decan.L0.variants = internal constant { ptr, ptr, [19 x ptr] } { ptr @find.decan.L0.desc, ptr @[[CALL:decan.call[.0-9]*]], [19 x ptr] [ptr @find.decan.L0.REF, ptr @find.decan.L0.LS, ptr @find.decan.L0.FP, ptr @find.decan.L0.REF, ptr @find.decan.L0.DL1, ptr @find.decan.L0.CTRL, ptr @find.decan.L0.REF, ptr @find.decan.L0.S2L, ptr @find.decan.L0.NO_STORE, ptr @find.decan.L0.NO_RED, ptr @find.decan.L0.PREFETCH, ptr @find.decan.L0.DL1_G0, ptr @find.decan.L0.DL1_G1, ptr @find.decan.L0.DL1_G2, ptr @find.decan.L0.DL1_G3, ptr @find.decan.L0.NO_G0, ptr @find.decan.L0.NO_G1, ptr @find.decan.L0.NO_G2, ptr @find.decan.L0.NO_G3] }
;; Descriptors: abi 1, inactive, all variants but NO_CALL, strings and minfo in the
;; meta record, the scratch area.
; CHECK: @decan.descs = internal global [2 x %decan.loop_desc] [%decan.loop_desc { i32 11, i32 0, i32 0, i32 524223, i32 0, i32 1, ptr getelementptr inbounds ({{.*}} ptr @find.decan.L0.meta, i32 0, i32 9, i32 0), ptr getelementptr inbounds ({{.*}} ptr @find.decan.L0.meta, i32 0, i32 9, i32 8), ptr getelementptr inbounds ({{.*}} ptr @find.decan.L0.meta, i32 0, i32 9, i32 13), ptr @find.decan.L0.scratch, i32 8192, i32 0, ptr getelementptr inbounds ({{.*}} ptr @find.decan.L0.meta, i32 0, i32 8), ptr null, i32 0, i32 0, ptr null, i64 0 }, %decan.loop_desc {{.*}} }], section "decan_loops", align 8
; CHECK: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @decan.module_ctor, ptr null }]
; CHECK: @llvm.used = {{.*}}[ptr @find.decan.L0.meta, ptr @find.decan.L0.scratch, ptr @sum.decan.L0.meta, ptr @sum.decan.L0.scratch, ptr @decan.descs]
; CHECK: @find.decan.L0.desc = internal alias %decan.loop_desc, ptr @decan.descs
; CHECK: @sum.decan.L0.desc = internal alias %decan.loop_desc, getelementptr inbounds ([2 x %decan.loop_desc], ptr @decan.descs, i32 0, i32 1)

; CHECK-LABEL: define i32 @find(
; CHECK:       ph:
; CHECK-NEXT:    %wide = zext nneg i32 %n to i64
; CHECK-NEXT:    %decan.active = load volatile i32, ptr getelementptr inbounds nuw (%decan.loop_desc, ptr @find.decan.L0.desc, i32 0, i32 1), align 4
; CHECK-NEXT:    [[ON:%.*]] = icmp ne i32 %decan.active, 0
; CHECK-NEXT:    br i1 [[ON]], label %decan.mode, label %decan.inline, !prof ![[UNLIKELY:[0-9]+]]
; CHECK:       decan.mode:
; CHECK-NEXT:    [[STRIDED:%.*]] = icmp eq i32 %decan.active, 2
; CHECK-NEXT:    br i1 [[STRIDED]], label %decan.count, label %decan.measure
; CHECK:       decan.count:
; CHECK-NEXT:    %decan.countdown = load volatile i32, ptr getelementptr inbounds nuw (%decan.loop_desc, ptr @find.decan.L0.desc, i32 0, i32 2), align 4
; CHECK-NEXT:    %decan.countdown.next = sub i32 %decan.countdown, 1
; CHECK-NEXT:    store volatile i32 %decan.countdown.next, ptr getelementptr inbounds nuw (%decan.loop_desc, ptr @find.decan.L0.desc, i32 0, i32 2), align 4
; CHECK-NEXT:    [[SKIP:%.*]] = icmp sgt i32 %decan.countdown.next, 0
; CHECK-NEXT:    br i1 [[SKIP]], label %decan.inline, label %decan.measure
;; Measured: one cold call that preserves every register; the loop ran out
;; of line, through exit 0 or 1.
; CHECK:       decan.measure:
; CHECK-NEXT:    %decan.result = call preserve_allcc { i32, i64 } @find.decan.L0.measure(ptr %k, i32 %key, i64 %wide)
; CHECK-NEXT:    %decan.exit = extractvalue { i32, i64 } %decan.result, 0
; CHECK-NEXT:    switch i32 %decan.exit, label %decan.take.1 [
; CHECK-NEXT:      i32 0, label %decan.take.0
; CHECK:       decan.inline:
; CHECK-NEXT:    br label %loop
; CHECK:       decan.take.0:
; CHECK-NEXT:    %i.lcssa.decan = extractvalue { i32, i64 } %decan.result, 1
; CHECK-NEXT:    br label %found
; CHECK:       decan.take.1:
; CHECK-NEXT:    br label %done.loopexit
;; The original loop is untouched.
; CHECK:       loop:
; CHECK-NEXT:    %i = phi i64 [ 0, %decan.inline ], [ %i.next, %latch ]
; CHECK-NEXT:    %p = getelementptr inbounds i32, ptr %k, i64 %i
; CHECK-NEXT:    %v = load i32, ptr %p, align 4
; CHECK-NEXT:    %hit = icmp eq i32 %v, %key
; CHECK-NEXT:    br i1 %hit, label %found, label %latch
; CHECK:       found:
; CHECK-NEXT:    %i.lcssa = phi i64 [ %i, %loop ], [ %i.lcssa.decan, %decan.take.0 ]
; CHECK:       done.loopexit:
; CHECK-NEXT:    br label %done

; CHECK-LABEL: define double @sum(
; CHECK:       entry:
; CHECK-NEXT:    %decan.active = load volatile i32
; CHECK:       decan.measure:
; CHECK-NEXT:    %decan.result = call preserve_allcc { i32, double } @sum.decan.L0.measure(ptr %a, i64 %n)
; CHECK-NEXT:    br label %decan.take
; CHECK:       decan.take:
; CHECK-NEXT:    %s.next.lcssa.decan = extractvalue { i32, double } %decan.result, 1
; CHECK-NEXT:    br label %exit
; CHECK:       exit:
; CHECK-NEXT:    %s.next.lcssa = phi double [ %s.next, %loop ], [ %s.next.lcssa.decan, %decan.take ]

;; The REF copy: probe, the loop as it was, probe, stores after the loop.
; CHECK-LABEL: define internal void @find.decan.L0.REF(ptr %k, i32 %key, i64 %wide, ptr %i.lcssa.out, ptr %exit.out, ptr %cycles, ptr %trips)
; CHECK-SAME:  #[[ATTR:[0-9]+]] {
; CHECK-NEXT:  decan.entry:
; CHECK-NEXT:    %decan.t0 = call i64 asm sideeffect "lfence\0A\09rdtsc
; CHECK-NEXT:    br label %loop
; CHECK:       loop:
; CHECK-NEXT:    %i = phi i64 [ 0, %decan.entry ], [ %i.next, %latch ]
; CHECK-NEXT:    %p = getelementptr inbounds i32, ptr %k, i64 %i
; CHECK-NEXT:    %v = load i32, ptr %p, align 4
; CHECK-NEXT:    %hit = icmp eq i32 %v, %key
; CHECK-NEXT:    br i1 %hit, label %found.decan, label %latch
; CHECK:       latch:
; CHECK-NEXT:    %i.next = add nuw nsw i64 %i, 1
; CHECK-NEXT:    %end = icmp eq i64 %i.next, %wide
; CHECK-NEXT:    br i1 %end, label %done.loopexit.decan, label %loop
;; Exit through `found` (before the increment): trips = i + 1.
; CHECK:       found.decan:
; CHECK-NEXT:    %i.lcssa = phi i64 [ %i, %loop ]
; CHECK-NEXT:    %decan.iv.exit = phi i64 [ %i, %loop ]
; CHECK-NEXT:    %decan.iv.adjust = phi i64 [ 1, %loop ]
; CHECK-NEXT:    %decan.t1 = call i64 asm sideeffect "rdtscp\0A\09lfence
; CHECK-NEXT:    %decan.cycles = sub i64 %decan.t1, %decan.t0
; CHECK-NEXT:    store i64 %decan.cycles, ptr %cycles
; CHECK-NEXT:    [[D:%.*]] = sub i64 %decan.iv.exit, 0
; CHECK-NEXT:    %decan.trips = add i64 [[D]], %decan.iv.adjust
; CHECK-NEXT:    store i64 %decan.trips, ptr %trips
; CHECK-NEXT:    store i64 %i.lcssa, ptr %i.lcssa.out
; CHECK-NEXT:    store i32 0, ptr %exit.out
; CHECK-NEXT:    ret void
;; Exit through the latch (after the increment): trips = i.next.
; CHECK:       done.loopexit.decan:
; CHECK-NEXT:    %decan.iv.exit1 = phi i64 [ %i.next, %latch ]
; CHECK-NEXT:    %decan.iv.adjust2 = phi i64 [ 0, %latch ]
; CHECK-NEXT:    %decan.t13 = call i64 asm sideeffect "rdtscp\0A\09lfence
; CHECK:         store i32 1, ptr %exit.out
; CHECK-NEXT:    ret void

;; Identical clones; none of NO_DIV, find divides nothing (its table entry
;; is REF's; REF's "decan-not-built" names it: bit 3).
; CHECK: define internal void @find.decan.L0.LS({{.*}}) #[[ATTR_LS:[0-9]+]]
; CHECK: define internal void @find.decan.L0.FP(
; CHECK-NOT: define internal void @find.decan.L0.NO_DIV(
; CHECK: define internal void @find.decan.L0.DL1(
; CHECK: define internal void @find.decan.L0.CTRL(
;; The call site of the loop's copies (an ordinary function of the module,
;; shared by the loops whose copies take the same arguments: its metadata
;; names the frame, shared-call.ll; it reads the live-ins from the frame
;; the measure function filled): the copy it is given, with the addresses
;; of the frame's live-outs, exit index, cycles and trips.
; CHECK:       define internal void @[[CALL]](ptr %copy, ptr %frame)
; CHECK-SAME:  #[[COLD:[0-9]+]] !decan.frame
;; The live-ins are loaded where the call passes them.
; CHECK:         %in0.slot = getelementptr inbounds nuw [[FRAME:\{ i64, i64, i32, ptr, i32, i64, i64 \}]], ptr %frame, i32 0, i32 3
; CHECK-NEXT:    %in0 = load ptr, ptr %in0.slot
; CHECK:         %in1 = load i32, ptr %in1.slot
; CHECK:         %in2 = load i64, ptr %in2.slot
; CHECK-NEXT:    %out0.slot = getelementptr inbounds nuw [[FRAME]], ptr %frame, i32 0, i32 6
; CHECK-NEXT:    %exit.slot = getelementptr inbounds nuw [[FRAME]], ptr %frame, i32 0, i32 2
; CHECK-NEXT:    %cycles.slot = getelementptr inbounds nuw [[FRAME]], ptr %frame, i32 0, i32 0
; CHECK-NEXT:    %trips.slot = getelementptr inbounds nuw [[FRAME]], ptr %frame, i32 0, i32 1
; CHECK-NEXT:    tail call void %copy(ptr %in0, i32 %in1, i64 %in2, ptr %out0.slot, ptr %exit.slot, ptr %cycles.slot, ptr %trips.slot)
; CHECK-NEXT:    ret void
;; What the stub calls: preserve_allcc, it fills the frame, calls the
;; module's measured call with the loop's measure record through the
;; module's one register-saving helper and returns the exit index and
;; live-outs from the frame.
; CHECK-LABEL: define internal preserve_allcc { i32, i64 } @find.decan.L0.measure(ptr %k, i32 %key, i64 %wide)
; CHECK-SAME:  #[[MEASURE:[0-9]+]]
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %frame = alloca [[FRAME]]
; CHECK:         store ptr %k, ptr %k.in
; CHECK:         store i32 %key, ptr %key.in
; CHECK:         store i64 %wide, ptr %wide.in
; CHECK-NEXT:    call preserve_allcc void @decan.preserve_all(ptr @find.decan.L0.variants, ptr %frame)
; CHECK:         %exit = load i32
; CHECK:         %i.lcssa = load i64
; CHECK:         ret { i32, i64 }
;; The measured call, once in the module (an ordinary function): begin_call,
;; the variant's copy through the loop's call function (a copy other than
;; REF under the runtime's fault guard: a fault in it returns from
;; __decan_guard_enter a second time, with 1), end_call; the REF copy is
;; the real loop when the variant's effects must not stand. Cycles and
;; trips are the frame's first fields.
; CHECK-LABEL: define internal void @decan.measure_call(ptr %rec, ptr %frame)
; CHECK-SAME:  #[[HELPER:[0-9]+]]
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %desc.ptr = getelementptr inbounds nuw [[REC:\{ ptr, ptr, \[19 x ptr\] \}]], ptr %rec, i32 0, i32 0
; CHECK-NEXT:    %desc = load ptr, ptr %desc.ptr
; CHECK-NEXT:    %call.ptr = getelementptr inbounds nuw [[REC]], ptr %rec, i32 0, i32 1
; CHECK-NEXT:    %call = load ptr, ptr %call.ptr
; CHECK-NEXT:    %cycles.slot = getelementptr inbounds nuw { i64, i64 }, ptr %frame, i32 0, i32 0
; CHECK-NEXT:    %trips.slot = getelementptr inbounds nuw { i64, i64 }, ptr %frame, i32 0, i32 1
; CHECK-NEXT:    %variant = call i32 @__decan_begin_call(ptr %desc)
; CHECK-NEXT:    [[OK:%.*]] = icmp ult i32 %variant, 19
; CHECK-NEXT:    br i1 [[OK]], label %pick, label %original
; CHECK:       pick:
; CHECK-NEXT:    [[V64:%.*]] = zext i32 %variant to i64
; CHECK-NEXT:    [[COPYPTR:%.*]] = getelementptr inbounds [[REC]], ptr %rec, i64 0, i32 2, i64 [[V64]]
; CHECK-NEXT:    %copy = load ptr, ptr [[COPYPTR]]
; CHECK-NEXT:    [[NOTREF:%.*]] = icmp ne i32 %variant, 0
; CHECK-NEXT:    br i1 [[NOTREF]], label %guard, label %run
; CHECK:       guard:
; CHECK-NEXT:    %faulted = call i32 @__decan_guard_enter(ptr %copy) #[[TWICE:[0-9]+]]
; CHECK-NEXT:    [[FAULTED:%.*]] = icmp ne i32 %faulted, 0
; CHECK-NEXT:    br i1 [[FAULTED]], label %ended, label %run
; CHECK:       run:
; CHECK-NEXT:    call void %call(ptr %copy, ptr %frame)
; CHECK-NEXT:    br label %ended
; CHECK:       ended:
; CHECK-NEXT:    %cycles = load i64, ptr %cycles.slot
; CHECK-NEXT:    %trips = load i64, ptr %trips.slot
; CHECK-NEXT:    %again = call i32 @__decan_end_call(ptr %desc, i32 %variant, i64 %cycles, i64 %trips)
; CHECK-NEXT:    [[AGAIN:%.*]] = icmp ne i32 %again, 0
; CHECK-NEXT:    br i1 [[AGAIN]], label %original, label %done
; CHECK:       done:
; CHECK-NEXT:    ret void
; CHECK:       original:
;; The program's loop, timed too: whole-run totals, and after a variant the
;; trip count of the same input (DECAN_RERUN = 0x100).
; CHECK-NEXT:    %ref.ptr = getelementptr inbounds [[REC]], ptr %rec, i64 0, i32 2, i64 0
; CHECK-NEXT:    %ref = load ptr, ptr %ref.ptr
; CHECK-NEXT:    call void %call(ptr %ref, ptr %frame)
; CHECK-NEXT:    [[RV:%.*]] = or i32 %variant, 256
; CHECK-NEXT:    %rerun.cycles = load i64, ptr %cycles.slot
; CHECK-NEXT:    %rerun.trips = load i64, ptr %trips.slot
; CHECK-NEXT:    call i32 @__decan_end_call(ptr %desc, i32 [[RV]], i64 %rerun.cycles, i64 %rerun.trips)
; CHECK-NEXT:    br label %done
;; The runtime entry points are weak: a plugin build links without it.
; CHECK: declare extern_weak i32 @__decan_begin_call(ptr)
; CHECK: declare extern_weak i32 @__decan_end_call(ptr, i32, i64, i64)
; CHECK: declare extern_weak i32 @__decan_guard_enter(ptr)
;; The helper's saves are the stub's guarantee; not a tail call, so that it
;; restores them.
; CHECK-LABEL: define internal preserve_allcc void @decan.preserve_all(ptr %rec, ptr %frame)
; CHECK-SAME:  #[[HELPER]]
; CHECK-NEXT:  entry:
; CHECK-NEXT:    notail call void @decan.measure_call(ptr %rec, ptr %frame)
; CHECK-NEXT:    ret void


;; Step 4: trips = (i.next - 0) / 4.
; CHECK-LABEL: define internal void @sum.decan.L0.REF(ptr %a, i64 %n, ptr %s.next.lcssa.out, ptr %cycles, ptr %trips)
; CHECK:         [[D2:%.*]] = sub i64 %decan.iv.exit, 0
; CHECK-NEXT:    [[Q:%.*]] = lshr i64 [[D2]], 2
; CHECK-NEXT:    %decan.trips = add i64 [[Q]], %decan.iv.adjust
; CHECK:         store double %s.next.lcssa, ptr %s.next.lcssa.out
;; One helper and one measured call per module (per target): sum's measure
;; function shares them; its copies take other arguments than find's
;; (a call function of its own).
; CHECK-NOT:   define {{.*}}@decan.{{preserve_all|measure_call}}
; CHECK:       define internal void @decan.call{{[.0-9]+}}(ptr %copy, ptr %frame)
; CHECK:         tail call void %copy(ptr %in0, i64 %in1, ptr %out0.slot, ptr %cycles.slot, ptr %trips.slot)
; CHECK:       define internal preserve_allcc { i32, double } @sum.decan.L0.measure(
; CHECK:         call preserve_allcc void @decan.preserve_all(ptr @sum.decan.L0.variants, ptr %frame)
; CHECK-NOT:   define {{.*}}@decan.{{preserve_all|measure_call}}

; CHECK: declare extern_weak void @__decan_register_loops(ptr, i32)
; CHECK-LABEL: define internal void @decan.module_ctor()
; CHECK:         icmp ne ptr @__decan_register_loops, null
; CHECK:         call void @__decan_register_loops(ptr @decan.descs, i32 2)


; CHECK-DAG: attributes #[[ATTR]] = { noinline nounwind "decan-exit-alias"="no" "decan-loop"="find:L0" "decan-not-built"="8" "decan-variant"="REF" }
; CHECK-DAG: attributes #[[ATTR_LS]] = { noinline nounwind "decan-capped" "decan-exit-alias"="no" "decan-loop"="find:L0" "decan-variant"="LS" }
; CHECK-DAG: attributes #[[COLD]] = { cold noinline nounwind optsize }
;; No vzeroupper after the restores (the caller's YMM upper halves); no
;; alignment padding between the small cold functions (optsize).
; CHECK-DAG: attributes #[[MEASURE]] = { cold noinline nounwind optsize "target-features"="-vzeroupper" }
; CHECK-DAG: attributes #[[HELPER]] = { cold noinline nounwind optsize uwtable "target-features"="-vzeroupper" }
; CHECK-DAG: attributes #[[TWICE]] = { returns_twice }
; CHECK-DAG: ![[UNLIKELY]] = !{!"branch_weights", i32 1, i32 1048575}
