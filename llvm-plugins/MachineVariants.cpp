//===- MachineVariants.cpp - Apply decan variant rules post-RA ------------===//
//
// Part of decan. For each outlined variant function (attribute
// "decan-variant"), rebuilds its one loop from the REF body with the rules
// of the instruction-knowledge library, after every X86 pass that may still
// change instructions, so nothing re-optimizes the result:
//
//   f.decan.L0.FP, REF loop              FP variant
//     vmovupd (%rdi,%rcx,8), %ymm1        vxorps %ymm1, %ymm1, %ymm1 ; nop
//     vaddpd (%rsi,%rcx,8), %ymm1, %ymm1  vaddpd %ymm1, %ymm1, %ymm1 ; nopl
//     vmovupd %ymm1, (%rdx,%rcx,8)        nopw 0x100(%rax,%rax)
//     addq $4, %rcx                       addq $4, %rcx      (CTRL slice)
//     cmpq %rcx, %r8 ; jne                cmpq %rcx, %r8 ; jne
//
// and records the outcome (status, loop bytes, subset sizes) in the loop's
// `.meta` record (MachineMeta.cpp), whose initializer is rewritten before
// AsmPrinter emits globals at the end of the module.
//
// The pass and the MachineInstr <-> Instr translation only it uses.
//
//===----------------------------------------------------------------------===//

#include "MachineVariants.h"
#include "IRIterationCap.h"
#include "IRLoopTable.h"
#include "IRNests.h"
#include "MachineLoopTop.h"
#include "MachineMeta.h"
#include "MachineNests.h"
#include "MachineSharedCode.h"
#include "MachineUnusedCopy.h"

#include "decan/InstrKnowledge/Knowledge.h"
#include "decan/InstrKnowledge/Subsets.h"
#include "decan/InstrKnowledge/Variants.h"
#include "decan/abi_names.h"
#include "decan/symbols.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/CodeGen/MachineDominators.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/MachineOptimizationRemarkEmitter.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/InitializePasses.h"
#include "llvm/Support/CommandLine.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace decan;

#define DEBUG_TYPE "decan"

static cl::OptionCategory DecanMachineCat("decan machine-level options");

static cl::opt<LayoutMode> LayoutOpt(
    "decan-layout", cl::init(LayoutMode::Aware), cl::cat(DecanMachineCat),
    cl::desc("How variants keep the loop's code layout"),
    cl::values(clEnumValN(LayoutMode::Aware, "aware",
                          "each changed instruction keeps its byte length, "
                          "multi-byte NOPs (default)"),
               clEnumValN(LayoutMode::Nop1, "nop1",
                          "a 1-byte NOP per deleted instruction"),
               clEnumValN(LayoutMode::Unaware, "unaware",
                          "deleted instructions vanish")));

static cl::opt<bool> CheckAllLoops(
    "decan-check-all-loops", cl::init(false), cl::cat(DecanMachineCat),
    cl::desc("Testing aid: build (without applying) every variant of every "
             "innermost loop of every function and report each status as a "
             "remark (DecanCheck)"));

static cl::opt<bool> DumpSubsets(
    "decan-dump-subsets", cl::init(false), cl::cat(DecanMachineCat),
    cl::desc("Print the subsets of every instruction of each variant "
             "function's loop to stderr"));

namespace {

class MachineVariants : public MachineFunctionPass {
public:
  static char ID;
  MachineVariants() : MachineFunctionPass(ID) {}
  StringRef getPassName() const override { return "decan variant rules"; }

  void getAnalysisUsage(AnalysisUsage &AU) const override {
    // Loops are recomputed in runOnMachineFunction: this late, the
    // MachineLoopInfo a pass claims to preserve may predate block placement
    // and branch folding.
    AU.addRequired<MachineOptimizationRemarkEmitterPass>();
    AU.setPreservesCFG();
    MachineFunctionPass::getAnalysisUsage(AU);
  }

  bool runOnMachineFunction(MachineFunction &MF) override;

private:
  X86Knowledge *knowledge(const MachineFunction &MF);
  std::map<std::string, std::unique_ptr<X86Knowledge>> Cache;
  SharedCopyCode Shared;
};

/// The function's loop as the library sees it, with the MachineInstr of
/// every library instruction.
struct MachineLoopBody {
  LoopBody Body;
  std::vector<MachineInstr *> MIs;
  std::vector<MachineBasicBlock *> Blocks;
};

} // namespace

char MachineVariants::ID = 0;
char &decan::MachineVariantsID = MachineVariants::ID;

INITIALIZE_PASS_BEGIN(MachineVariants, "decan-variants", "decan variant rules",
                      false, false)
INITIALIZE_PASS_DEPENDENCY(MachineOptimizationRemarkEmitterPass)
INITIALIZE_PASS_END(MachineVariants, "decan-variants", "decan variant rules",
                    false, false)

FunctionPass *decan::createMachineVariantsPass() {
  return new MachineVariants();
}

X86Knowledge *MachineVariants::knowledge(const MachineFunction &MF) {
  const Function &F = MF.getFunction();
  std::string CPU = F.getFnAttribute("target-cpu").getValueAsString().str();
  std::string Feat =
      F.getFnAttribute("target-features").getValueAsString().str();
  if (CPU.empty())
    CPU = std::string(MF.getSubtarget().getCPU());
  if (Feat.empty())
    Feat = std::string(MF.getSubtarget().getFeatureString());
  std::string Key = CPU + "|" + Feat;
  auto It = Cache.find(Key);
  if (It != Cache.end())
    return It->second.get();
  Expected<std::unique_ptr<X86Knowledge>> K = X86Knowledge::create(CPU, Feat);
  if (!K) {
    consumeError(K.takeError());
    return nullptr;
  }
  return (Cache[Key] = std::move(*K)).get();
}

static std::optional<Variant> parseVariant(StringRef S) {
  int V = decan_variant_parse(S.data(), S.size());
  return V < 0 ? std::nullopt : std::optional<Variant>(static_cast<Variant>(V));
}

static MachineLoop *theLoop(MachineLoopInfo &MLI, unsigned &Count) {
  SmallVector<MachineLoop *, 8> Work(MLI.begin(), MLI.end());
  MachineLoop *Found = nullptr;
  Count = 0;
  while (!Work.empty()) {
    MachineLoop *L = Work.pop_back_val();
    if (!L->isInnermost()) {
      Work.append(L->begin(), L->end());
      continue;
    }
    ++Count;
    Found = L;
  }
  return Found;
}

/// Instr::Call and the registers a call reads and writes: its argument
/// registers (the call's implicit uses, at full width so both front ends
/// bridge alike), its results and the caller-saved registers it clobbers.
static void describeCall(const X86Knowledge &K, const MachineInstr &MI,
                         Instr &I) {
  I.Call = CallKind::MayWrite;
  for (const MachineOperand &MO : MI.explicit_operands()) {
    if (MO.isSymbol()) {
      // A libcall (exp for llvm.exp, fmod for frem, memcpy): by name.
      I.Call = callKindOfSymbol(MO.getSymbolName());
      I.MemoryPointers = memoryCallPointers(MO.getSymbolName());
    } else if (MO.isGlobal()) {
      if (const auto *F = dyn_cast<Function>(MO.getGlobal())) {
        MemoryEffects ME = F->getMemoryEffects();
        if (callKindOfSymbol(F->getName()) == CallKind::Memory) {
          I.Call = CallKind::Memory;
          I.MemoryPointers = memoryCallPointers(F->getName());
        } else if (ME.getWithoutLoc(IRMemLocation::ErrnoMem)
                       .doesNotAccessMemory())
          I.Call = CallKind::Pure; // readnone, or libm with errno
        else if (ME.onlyReadsMemory())
          I.Call = CallKind::ReadOnly;
      }
    }
  }
  for (const MachineOperand &MO : MI.implicit_operands()) {
    if (!MO.isReg() || !MO.isUse() || !MO.getReg().isPhysical())
      continue;
    unsigned R = MO.getReg().id();
    if (K.isGPR(R) && K.regBits(R) < 64)
      for (MCPhysReg Sup : K.regInfo().superregs(R))
        if (K.regBits(Sup) == 64)
          R = Sup;
    if (K.isVector(R))
      R = K.xmmOf(R);
    StringRef Name = K.regName(R);
    if (Name != "RSP" && Name != "SSP")
      I.ImplicitUses.push_back(R);
  }
  if (I.ImplicitUses.empty()) // no argument: none read (not "unknown")
    I.ImplicitUses.push_back(K.reg("RSP"));
  for (unsigned R : K.callClobberedRegs())
    I.ImplicitDefs.push_back(R);
}

static MachineLoopBody readLoop(const X86Knowledge &K, MachineLoop &L,
                                const TargetRegisterInfo &TRI) {
  MachineLoopBody Out;
  MachineBasicBlock *H = L.getHeader();
  Out.Blocks.push_back(H);
  for (MachineBasicBlock &MBB : *H->getParent())
    if (&MBB != H && L.contains(&MBB))
      Out.Blocks.push_back(&MBB);
  std::map<MachineBasicBlock *, unsigned> Index;
  for (unsigned B = 0; B < Out.Blocks.size(); ++B)
    Index[Out.Blocks[B]] = B;
  for (MachineBasicBlock *MBB : Out.Blocks) {
    LoopBody::Block Blk;
    Blk.Begin = Out.Body.Instrs.size();
    for (MachineInstr &MI : *MBB) {
      if (MI.isMetaInstruction() || MI.isCFIInstruction() || MI.isDebugInstr())
        continue;
      Instr I;
      I.Opcode = MI.getOpcode();
      I.Id = Out.Body.Instrs.size();
      for (unsigned J = 0, E = MI.getNumExplicitOperands(); J < E; ++J) {
        const MachineOperand &MO = MI.getOperand(J);
        if (MO.isReg())
          I.Ops.push_back(Operand::reg(MO.getReg().id()));
        else if (MO.isImm())
          I.Ops.push_back(Operand::imm(MO.getImm()));
        else if (MO.isGlobal())
          // Same global, same key: DL1 keeps the relative offsets of
          // a(,%rcx,8) and a+8(,%rcx,8).
          I.Ops.push_back(Operand::sym(
              J, hash_value(MO.getGlobal()->getName()) | 1, MO.getOffset()));
        else if (MO.isCPI())
          I.Ops.push_back(Operand::sym(
              J, hash_combine(MO.getIndex(), 0x43504900) | 1, MO.getOffset()));
        else
          I.Ops.push_back(Operand::sym(J));
      }
      if (MI.hasOneMemOperand()) {
        const MachineMemOperand *MMO = *MI.memoperands_begin();
        LocationSize LS = MMO->getSize();
        if (LS.hasValue() && !LS.isScalable())
          I.MemWidth = LS.getValue().getFixedValue();
        // The IR object it points into: the rules see a[i] and a[i - d]
        // as one array even through different base registers.
        if (const Value *V = MMO->getValue())
          I.Object = reinterpret_cast<uintptr_t>(getUnderlyingObject(V)) | 1;
      }
      if (MI.isCall())
        describeCall(K, MI, I);
      Out.Body.Instrs.push_back(I);
      Out.MIs.push_back(&MI);
    }
    Blk.End = Out.Body.Instrs.size();
    for (MachineBasicBlock *S : MBB->successors()) {
      if (L.contains(S))
        Blk.Succs.push_back(Index[S]);
      else
        Blk.Exiting = true;
    }
    Blk.Exiting |= !L.isInnermost() && leavesInnerLoop(L, *MBB);
    Out.Body.Blocks.push_back(Blk);
  }
  // Free registers: caller-saved, untouched by the loop, not live into the
  // loop or out of it.
  SmallVector<MachineBasicBlock *, 4> Exits;
  L.getExitBlocks(Exits);
  std::vector<unsigned> Cands = K.unusedRegs(Out.Body);
  for (unsigned R : Cands) {
    unsigned Wide = K.isVector(R) && K.hasAVX512()
                        ? K.reg(("ZMM" + Twine(K.regNumber(R))).str())
                    : K.isVector(R)
                        ? K.reg(("YMM" + Twine(K.regNumber(R))).str())
                        : R;
    bool Busy = false;
    for (MachineInstr *MI : Out.MIs)
      for (const MachineOperand &MO : MI->operands())
        if (MO.isReg() && MO.getReg().isPhysical() &&
            TRI.regsOverlap(MO.getReg(), Wide))
          Busy = true;
    auto LiveIn = [&](MachineBasicBlock *MBB) {
      for (const auto &LI : MBB->liveins())
        if (TRI.regsOverlap(LI.PhysReg, Wide))
          return true;
      return false;
    };
    for (MachineBasicBlock *MBB : Out.Blocks)
      Busy |= LiveIn(MBB);
    for (MachineBasicBlock *MBB : Exits)
      Busy |= LiveIn(MBB);
    if (!Busy)
      Out.Body.FreeRegs.push_back(R);
  }
  for (MachineBasicBlock *MBB : Exits)
    for (const auto &LI : MBB->liveins())
      Out.Body.LiveOuts.push_back(LI.PhysReg.id());
  return Out;
}

/// Dependency-breaking idioms and NOPs read registers whose value does not
/// matter: mark those reads undef so liveness stays exact.
static bool readsAreUndef(const X86Knowledge &K, const Instr &I) {
  return I.Padding || K.isDependencyBreaking(I);
}

static void applyBody(const X86Knowledge &K, MachineLoopBody &ML,
                      const LoopBody &New, GlobalVariable *Scratch,
                      const TargetInstrInfo &TII) {
  std::vector<bool> Kept(ML.MIs.size(), false);
  for (const Instr &I : New.Instrs)
    if (I.Unchanged && I.Id != NoId)
      Kept[I.Id] = true;
  for (unsigned B = 0; B < ML.Blocks.size(); ++B) {
    MachineBasicBlock &MBB = *ML.Blocks[B];
    const LoopBody::Block &NB = New.Blocks[B];
    const LoopBody::Block &OB = ML.Body.Blocks[B];
    // Where new instructions go: before the REF instruction they replace,
    // after the last kept one otherwise.
    MachineBasicBlock::iterator Pos = OB.Begin < OB.End
                                          ? ML.MIs[OB.Begin]->getIterator()
                                          : MBB.getFirstTerminator();
    for (unsigned J = NB.Begin; J < NB.End; ++J) {
      const Instr &I = New.Instrs[J];
      if (I.Unchanged) {
        Pos = std::next(ML.MIs[I.Id]->getIterator());
        continue;
      }
      if (I.Id != NoId && !Kept[I.Id])
        Pos = ML.MIs[I.Id]->getIterator();
      DebugLoc DL = I.Id != NoId ? ML.MIs[I.Id]->getDebugLoc() : DebugLoc();
      const MCInstrDesc &D = TII.get(I.Opcode);
      MachineInstrBuilder MIB = BuildMI(MBB, Pos, DL, D);
      bool Undef = readsAreUndef(K, I);
      for (unsigned O = 0; O < I.Ops.size(); ++O) {
        const Operand &Op = I.Ops[O];
        switch (Op.Kind) {
        case Operand::Register: {
          bool Def = O < D.getNumDefs();
          unsigned Flags = Def ? RegState::Define : 0;
          if (!Def && Undef && Op.Reg)
            Flags |= RegState::Undef;
          MIB.addReg(MCRegister(Op.Reg), Flags);
          break;
        }
        case Operand::Immediate:
          MIB.addImm(Op.Imm);
          break;
        case Operand::Symbol:
          MIB.add(ML.MIs[I.Id]->getOperand(Op.SrcOp));
          break;
        case Operand::Scratch:
          MIB.addGlobalAddress(Scratch, Op.Imm);
          break;
        }
      }
      if (I.Padding)
        for (MachineOperand &MO : MIB->implicit_operands())
          if (MO.isUse())
            MO.setIsUndef();
    }
  }
  for (unsigned I = 0; I < ML.MIs.size(); ++I)
    if (!Kept[I])
      ML.MIs[I]->eraseFromParent();
  // Kill flags are hints; the rewritten loop reads registers in new places.
  for (MachineBasicBlock *MBB : ML.Blocks)
    for (MachineInstr &MI : *MBB)
      for (MachineOperand &MO : MI.operands())
        if (MO.isReg() && MO.isUse())
          MO.setIsKill(false);
}

/// GROUPING: the source name of each group where the IR knows it (the
/// underlying object of a member's memory operand: a global, or a pointer
/// the debug info names, with -g), else the producer-neutral name the
/// rules gave it ("(%rsi,%rax,8)"). Names only: the groups themselves come
/// from the addresses, as in the rewriter.
static void nameGroups(const MachineLoopBody &ML, LoopSubsets &S) {
  std::vector<bool> Named(S.NumGroups, false);
  for (unsigned I = 0; I < S.Group.size() && I < ML.MIs.size(); ++I) {
    int G = S.Group[I];
    if (G < 0 || Named[G])
      continue;
    for (const MachineMemOperand *MMO : ML.MIs[I]->memoperands()) {
      const Value *V = MMO->getValue();
      if (!V)
        continue;
      Value *O = const_cast<Value *>(getUnderlyingObject(V));
      std::string Name;
      if (auto *GV = dyn_cast<GlobalVariable>(O))
        Name = GV->getName().str();
      // A live-in pointer: the outliner recorded its source name.
      if (auto *A = dyn_cast<Argument>(O)) {
        SmallVector<StringRef, 8> Names;
        A->getParent()
            ->getFnAttribute("decan-arg-names")
            .getValueAsString()
            .split(Names, ',');
        if (A->getArgNo() < Names.size())
          Name = Names[A->getArgNo()].str();
      }
      if (Name.empty())
        for (DbgVariableRecord *R : findDVRValues(O))
          if (DILocalVariable *Var = R->getVariable()) {
            Name = Var->getName().str();
            break;
          }
      if (Name.empty())
        for (DbgVariableRecord *R : findDVRDeclares(O))
          if (DILocalVariable *Var = R->getVariable()) {
            Name = Var->getName().str();
            break;
          }
      if (!Name.empty()) {
        S.GroupNames[G] = Name;
        Named[G] = true;
        break;
      }
    }
  }
}

/// The status in words, as remarks write it (decan/abi_names.h).
static const char *statusName(VariantStatus S) {
  return decan_variant_status_text(static_cast<uint32_t>(S));
}

/// -decan-check-all-loops: every rule on every loop, nothing changed.
static void checkAllLoops(MachineFunction &MF, MachineLoopInfo &MLI,
                          X86Knowledge &K,
                          MachineOptimizationRemarkEmitter &ORE) {
  SmallVector<MachineLoop *, 8> Work(MLI.begin(), MLI.end());
  while (!Work.empty()) {
    MachineLoop *L = Work.pop_back_val();
    if (!L->isInnermost()) {
      Work.append(L->begin(), L->end());
      continue;
    }
    MachineLoopBody ML = readLoop(K, *L, *MF.getSubtarget().getRegisterInfo());
    LoopSubsets S = computeSubsets(K, ML.Body);
    std::string Msg;
    for (unsigned V = 0; V < NumVariants; ++V) {
      VariantResult R = buildVariant(K, ML.Body, S, static_cast<Variant>(V),
                                     VariantOptions());
      Msg +=
          std::string(V ? "; " : "") + variantName(R.V) + " " +
          statusName(R.Status) +
          (R.Status == VariantStatus::OK ? " " + std::to_string(R.Bytes) + "/" +
                                               std::to_string(R.RefBytes)
                                         : ": " + R.Reason);
    }
    ORE.emit([&] {
      return MachineOptimizationRemarkAnalysis(DEBUG_TYPE, "DecanCheck",
                                               L->getStartLoc(), L->getHeader())
             << "check " << MF.getName() << " bb."
             << std::to_string(L->getHeader()->getNumber()) << ": " << Msg;
    });
  }
}

/// -decan-dump-subsets: each loop instruction's subsets, on stderr.
static void dumpSubsets(const MachineFunction &MF, X86Knowledge &K,
                        const MachineLoopBody &ML, const LoopSubsets &S) {
  errs() << "decan subsets of " << MF.getName() << ":\n";
  for (unsigned I = 0; I < ML.Body.Instrs.size(); ++I) {
    unsigned B = S.Bits[I];
    Expected<unsigned> Sz = K.sizeOf(ML.Body.Instrs[I]);
    errs() << "  #" << I << " " << K.opcodeName(ML.Body.Instrs[I].Opcode)
           << " (" << (Sz ? *Sz : 0) << " bytes)";
    if (!Sz)
      consumeError(Sz.takeError());
    static const std::pair<unsigned, const char *> Names[] = {
        {SubsetLoad, "L"},
        {SubsetStore, "S"},
        {SubsetFP, "FP"},
        {SubsetDiv, "DIV"},
        {SubsetBranch, "BR"},
        {SubsetOther, "OTHER"},
        {SubsetUnsupported, "UNSUPPORTED"},
        {SubsetGather, "GATHER"},
        {SubsetPureMem, "PUREMEM"},
        {SubsetNop, "NOP"},
        {SubsetCtrl, "CTRL"},
        {SubsetAddr, "ADDR"},
        {SubsetCall, "CALL"},
        {SubsetRed, "RED"}};
    for (auto [Bit, N] : Names)
      if (B & Bit)
        errs() << " " << N;
    errs() << "\n";
  }
}

bool MachineVariants::runOnMachineFunction(MachineFunction &MF) {
  const Function &F = MF.getFunction();
  if (CheckAllLoops && !F.hasFnAttribute("decan-variant")) {
    MachineDominatorTree MDT(MF);
    MachineLoopInfo MLI(MDT);
    if (X86Knowledge *K = knowledge(MF))
      checkAllLoops(
          MF, MLI, *K,
          getAnalysis<MachineOptimizationRemarkEmitterPass>().getORE());
    return false;
  }
  if (!F.hasFnAttribute("decan-variant"))
    return false;
  auto &ORE = getAnalysis<MachineOptimizationRemarkEmitterPass>().getORE();
  StringRef VName = F.getFnAttribute("decan-variant").getValueAsString();
  StringRef LoopId = F.getFnAttribute("decan-loop").getValueAsString();
  std::optional<Variant> V = parseVariant(VName);
  size_t Colon = LoopId.rfind(':');
  if (!V || Colon == StringRef::npos) {
    ORE.emit([&] {
      return MachineOptimizationRemarkMissed(DEBUG_TYPE, "BadVariant",
                                             F.getSubprogram(), &MF.front())
             << "decan: function '" << MF.getName()
             << "' has a malformed decan-variant/decan-loop attribute";
    });
    return false;
  }
  std::string Stem = loopSymbolStemOfId(LoopId);
  Module &M = *const_cast<Module *>(F.getParent());
  MachineDominatorTree MDT(MF);
  MachineLoopInfo MLI(MDT);
  unsigned NumLoops = 0;
  MachineLoop *L = F.hasFnAttribute(NestAttr) ? outermostLoop(MLI, NumLoops)
                                              : theLoop(MLI, NumLoops);
  X86Knowledge *K = knowledge(MF);
  auto Missed = [&](VariantStatus St, const Twine &Why,
                    const MachineBasicBlock *MBB, DebugLoc Loc) {
    writeMeta(M, Stem + ".meta", *V, St, 0, nullptr);
    std::string W = Why.str();
    recordUnbuiltAs(MF, Stem, ORE, MBB, Loc, St, W);
    ORE.emit([&] {
      return MachineOptimizationRemarkMissed(DEBUG_TYPE, "VariantUnavailable",
                                             Loc, MBB)
             << "variant " << VName << " of " << LoopId << " unavailable ("
             << statusName(St) << "): " << W;
    });
  };
  if (!K) {
    Missed(VariantStatus::Unsupported, "no x86-64 instruction knowledge",
           &MF.front(), DebugLoc());
    return false;
  }
  if (!L || NumLoops != 1) {
    Missed(VariantStatus::NoLoop,
           NumLoops ? F.hasFnAttribute(NestAttr)
                          ? "more than one outer loop"
                          : "more than one innermost loop"
                    : "no machine loop",
           &MF.front(), DebugLoc());
    dropUnusedCopy(MF, *V, Stem);
    return true;
  }
  alignLoopTop(MF, *L);
  const TargetSubtargetInfo &ST = MF.getSubtarget();
  MachineLoopBody ML = readLoop(*K, *L, *ST.getRegisterInfo());
  // The outliner's alias analysis (IRIterationCap.h): whether a store may
  // write what an exit reads.
  if (Attribute A = F.getFnAttribute("decan-exit-alias"); A.isValid())
    ML.Body.ExitMayReadStored = A.getValueAsString() == "may";
  LoopSubsets S = computeSubsets(*K, ML.Body);
  nameGroups(ML, S);
  if (DumpSubsets)
    dumpSubsets(MF, *K, ML, S);
  VariantOptions Opts;
  Opts.Layout = LayoutOpt;
  // DL1's area; LS and NO_DIV use it too for a store the next iteration
  // reloads (its cell keeps the chain through memory).
  GlobalVariable *Scratch = M.getNamedGlobal(Stem + ".scratch");
  if (Scratch)
    if (auto *AT = dyn_cast<ArrayType>(Scratch->getValueType()))
      Opts.ScratchSize = AT->getNumElements();
  Opts.ScratchInAllVariants = Scratch && Scratch->isDSOLocal();
  // A capped copy with a trip count: an exit that may read what it changes
  // ends, and its samples are checked against REF's iterations.
  Opts.ExitCapped =
      F.hasFnAttribute(CappedAttr) && !F.hasFnAttribute(TripsUnknownAttr);
  auto Build = [&](Variant W) {
    if (W != Variant::DL1 || (Scratch && Scratch->isDSOLocal()))
      return buildVariant(*K, ML.Body, S, W, Opts);
    VariantResult R;
    R.V = W;
    R.Status = VariantStatus::Unsupported;
    R.Reason = Scratch ? "scratch area is not dso_local (no RIP-relative "
                         "address)"
                       : "no scratch area " + Stem + ".scratch";
    return R;
  };
  VariantResult R = Build(*V);
  // The IR saw a possible loop-carried memory dependence the machine
  // level cannot (other base registers, aliasing pointers): a variant that
  // stores less than REF, or into the scratch area, drops it.
  // ("adjacent": only a[i] from a[i-1], which the rules see themselves.)
  if (R.Status == VariantStatus::OK && !R.Bound &&
      F.getFnAttribute("decan-memdep").getValueAsString() == "other" &&
      *V != Variant::REF) {
    unsigned Stores = 0;
    for (const Instr &I : R.Body.Instrs)
      if (!I.Padding && (K->classify(I.Opcode) & SubsetStore))
        ++Stores;
    if (Stores < S.NumStore || *V == Variant::DL1) {
      R.Bound = true;
      R.BoundReason = "drops a loop-carried memory dependence "
                      "LoopAccessAnalysis sees (stores not kept): Sat is a "
                      "lower bound";
    }
  }
  MachineBasicBlock *H = L->getHeader();
  DebugLoc Loc = L->getStartLoc();
  // Changed at least: the loop's alignment (alignLoopTop).
  if (R.Status == VariantStatus::OK && *V != Variant::REF)
    applyBody(*K, ML, R.Body, Scratch, *ST.getInstrInfo());
  if (*V == Variant::REF)
    recordUnbuilt(MF, Stem, &S, ORE, H, Loc, Build);
  if (R.Status != VariantStatus::OK) {
    Missed(R.Status, R.Reason, H, Loc);
    writeMeta(M, Stem + ".meta", *V, R.Status, R.RefBytes, &S, false, false,
              R.Why);
    dropUnusedCopy(MF, *V, Stem);
    return true;
  }
  writeMeta(M, Stem + ".meta", *V, R.Status, R.Bytes, &S, R.Bound,
            R.CallsDeleted, DECAN_WHY_NONE,
            R.MemoryCallsRedirected ? R.MemoryCallBytes : 0,
            F.hasFnAttribute(CappedAttr));
  ORE.emit([&] {
    MachineOptimizationRemark Rem(DEBUG_TYPE, "VariantBuilt", Loc, H);
    Rem << "variant " << VName << " of " << LoopId << ": "
        << DiagnosticInfoOptimizationBase::Argument("Bytes", R.Bytes)
        << " bytes (REF "
        << DiagnosticInfoOptimizationBase::Argument("RefBytes", R.RefBytes)
        << ")";
    if (!R.Reason.empty())
      Rem << "; " << R.Reason;
    if (R.Bound)
      Rem << "; " << R.BoundReason;
    if (R.CallsDeleted && *V != Variant::NO_CALL)
      Rem << "; calls deleted (they may write memory, or are not this "
             "variant's work): NO_CALL is its reference";
    return Rem;
  });
  // What this copy repeats of an earlier one it shares (MachineSharedCode.h).
  if (const Function *Same = Shared.sameAsEarlierCopy(MF, Stem)) {
    jumpToCopy(MF, *Same);
    ORE.emit([&] {
      return MachineOptimizationRemarkAnalysis(DEBUG_TYPE, "CopyShared", Loc, H)
             << "variant " << VName << " of " << LoopId << ": the same code as "
             << Same->getName() << ", a jump to it";
    });
    return true;
  }
  Shared.shareExitTails(MF, Stem);
  return true;
}
