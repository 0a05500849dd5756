; The variant rules run after every X86 pass that may still change
; instructions (pre-emit: EVEX->VEX compression, LEA/byte-word fixups,
; vzeroupper), right after FuncletLayout, before the emit passes. The copy
; from REF (MachineCopyFromRef.h) empties a copy's IR before instruction
; selection and installs the kept machine function before the rules.
; RUN: llc -O2 -load=%decan_plugin -mtriple=x86_64-unknown-linux-gnu -debug-pass=Structure %s -o /dev/null 2>&1 | FileCheck %s
; RUN: llc -O0 -load=%decan_plugin -mtriple=x86_64-unknown-linux-gnu -debug-pass=Structure %s -o /dev/null 2>&1 | FileCheck %s

; CHECK: Expand Atomic instructions
; CHECK-NEXT: decan variant body from REF
; CHECK: X86 DAG->DAG Instruction Selection
; CHECK: Compressing EVEX instrs when possible
; CHECK: Contiguously Lay Out Funclets
; CHECK-NEXT: decan variant copy from REF
; CHECK: decan variant rules
; CHECK: X86 Assembly Printer

define void @f() {
  ret void
}
