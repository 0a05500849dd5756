//===- MCACheck.cpp - llvm-mca prediction of decan loop bodies ----------===//
//
// Part of decan's validation suite (bench/validation).
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `decan-mca-check [--mcpu CPU] [--iterations N] ELF SYMBOL...` finds each
/// SYMBOL (a function, e.g. `triad_kernel.decan.L0.FP`) in the ELF file,
/// disassembles its bytes with the MC disassembler, finds its loops (a
/// branch whose target lies backwards inside the same symbol) and runs the
/// innermost one through LLVM's MCA pipeline for the host CPU (or --mcpu).
/// It prints one JSON object per symbol on stdout:
///
///   {"symbol":"f.decan.L0.FP","cpu":"znver5","found":true,
///    "loops":[{"start":4096,"end":4130,"instructions":9,
///              "cycles_per_iteration":1.25,"asm":["vmovupd ...", ...]}]}
///
/// The prediction is the static cost that the thesis gets from CQA: the
/// steady-state cycles per iteration of the loop body with every load
/// hitting L1. bench/run compares it with the measured cycles per iteration
/// of the same variant at L1-resident sizes.
///
//===----------------------------------------------------------------------===//

#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/MCA/Context.h"
#include "llvm/MCA/CustomBehaviour.h"
#include "llvm/MCA/InstrBuilder.h"
#include "llvm/MCA/Pipeline.h"
#include "llvm/MCA/SourceMgr.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

extern "C" void LLVMInitializeX86TargetMCA();

using namespace llvm;

namespace {

/// One disassembled instruction of a symbol.
struct DecodedInst {
  uint64_t Addr;
  uint64_t Size;
  MCInst Inst;
};

/// The MC objects for one triple and CPU, built once.
struct MCTools {
  const Target *TheTarget = nullptr;
  std::unique_ptr<MCRegisterInfo> MRI;
  std::unique_ptr<MCAsmInfo> MAI;
  std::unique_ptr<MCSubtargetInfo> STI;
  std::unique_ptr<MCInstrInfo> MCII;
  std::unique_ptr<MCInstrAnalysis> MCIA;
  std::unique_ptr<MCContext> Ctx;
  std::unique_ptr<MCDisassembler> Disasm;
  std::unique_ptr<MCInstPrinter> Printer;
  std::string CPU;

  Error init(const Triple &TT, StringRef CPUName) {
    std::string Err;
    TheTarget = TargetRegistry::lookupTarget(TT, Err);
    if (!TheTarget)
      return createStringError(inconvertibleErrorCode(), "no target: " + Err);
    CPU = CPUName.str();
    MRI.reset(TheTarget->createMCRegInfo(TT));
    MCTargetOptions Opts;
    MAI.reset(TheTarget->createMCAsmInfo(*MRI, TT, Opts));
    STI.reset(TheTarget->createMCSubtargetInfo(TT, CPU, ""));
    MCII.reset(TheTarget->createMCInstrInfo());
    if (!MRI || !MAI || !STI || !MCII)
      return createStringError(inconvertibleErrorCode(),
                               "cannot create MC objects for " + TT.str());
    if (!STI->getSchedModel().hasInstrSchedModel())
      return createStringError(inconvertibleErrorCode(),
                               "CPU '" + CPU + "' has no scheduling model");
    MCIA.reset(TheTarget->createMCInstrAnalysis(MCII.get()));
    Ctx = std::make_unique<MCContext>(TT, MAI.get(), MRI.get(), STI.get());
    Disasm.reset(TheTarget->createMCDisassembler(*STI, *Ctx));
    // Syntax variant 0: AT&T, as llvm-objdump prints by default.
    Printer.reset(TheTarget->createMCInstPrinter(TT, 0, *MAI, *MCII, *MRI));
    if (!Disasm || !Printer || !MCIA)
      return createStringError(inconvertibleErrorCode(),
                               "cannot create disassembler for " + TT.str());
    return Error::success();
  }

  std::string print(const MCInst &I, uint64_t Addr) const {
    std::string S;
    raw_string_ostream OS(S);
    Printer->printInst(&I, Addr, "", *STI, OS);
    return StringRef(S).trim().str();
  }
};

/// Steady-state cycles per iteration predicted by MCA for \p Body.
Expected<double> predict(const MCTools &T, ArrayRef<MCInst> Body,
                         unsigned Iterations) {
  std::unique_ptr<mca::InstrumentManager> IM(
      T.TheTarget->createInstrumentManager(*T.STI, *T.MCII));
  if (!IM)
    IM = std::make_unique<mca::InstrumentManager>(*T.STI, *T.MCII);
  // Calls do not occur in loop bodies decan outlines; 100 is llvm-mca's
  // default call latency.
  mca::InstrBuilder IB(*T.STI, *T.MCII, *T.MRI, T.MCIA.get(), *IM, 100);
  std::unique_ptr<mca::InstrPostProcess> IPP(
      T.TheTarget->createInstrPostProcess(*T.STI, *T.MCII));
  if (!IPP)
    IPP = std::make_unique<mca::InstrPostProcess>(*T.STI, *T.MCII);
  IPP->resetState();

  SmallVector<std::unique_ptr<mca::Instruction>> Lowered;
  for (const MCInst &MCI : Body) {
    SmallVector<mca::UniqueInstrument> Owned = IM->createInstruments(MCI);
    SmallVector<mca::Instrument *> Instruments;
    for (auto &U : Owned)
      Instruments.push_back(U.get());
    Expected<std::unique_ptr<mca::Instruction>> Inst =
        IB.createInstruction(MCI, Instruments);
    if (!Inst)
      return Inst.takeError();
    IPP->postProcessInstruction(*Inst.get(), MCI);
    Lowered.emplace_back(std::move(Inst.get()));
  }
  mca::CircularSourceMgr S(Lowered, Iterations);
  std::unique_ptr<mca::CustomBehaviour> CB(
      T.TheTarget->createCustomBehaviour(*T.STI, S, *T.MCII));
  if (!CB)
    CB = std::make_unique<mca::CustomBehaviour>(*T.STI, S, *T.MCII);
  mca::Context MCA(*T.MRI, *T.STI);
  // Zero = take every size from the CPU's scheduling model (llvm-mca's
  // defaults); memory accesses are assumed not to alias, as llvm-mca does.
  mca::PipelineOptions PO(0, 0, 0, 0, 0, 0, /*NoAlias=*/true);
  std::unique_ptr<mca::Pipeline> P = MCA.createDefaultPipeline(PO, S, *CB);
  Expected<unsigned> Cycles = P->run();
  if (!Cycles)
    return Cycles.takeError();
  return double(*Cycles) / double(Iterations);
}

/// Disassembles [Start, Start+Size) of the section that holds it.
Expected<std::vector<DecodedInst>> disassemble(const MCTools &T,
                                               const object::ObjectFile &Obj,
                                               uint64_t Start, uint64_t Size) {
  for (const object::SectionRef &Sec : Obj.sections()) {
    uint64_t SA = Sec.getAddress(), SS = Sec.getSize();
    if (!Sec.isText() || Start < SA || Start + Size > SA + SS)
      continue;
    Expected<StringRef> Contents = Sec.getContents();
    if (!Contents)
      return Contents.takeError();
    ArrayRef<uint8_t> Bytes(
        reinterpret_cast<const uint8_t *>(Contents->data()) + (Start - SA),
        Size);
    std::vector<DecodedInst> Out;
    for (uint64_t Off = 0; Off < Size;) {
      DecodedInst D;
      D.Addr = Start + Off;
      if (T.Disasm->getInstruction(D.Inst, D.Size, Bytes.slice(Off), D.Addr,
                                   nulls()) != MCDisassembler::Success ||
          D.Size == 0)
        return createStringError(inconvertibleErrorCode(),
                                 "cannot decode byte at 0x" +
                                     utohexstr(D.Addr));
      Off += D.Size;
      Out.push_back(std::move(D));
    }
    return Out;
  }
  return createStringError(inconvertibleErrorCode(),
                           "symbol is not inside a text section");
}

json::Object
checkSymbol(const MCTools &T, const object::ObjectFile &Obj,
            const std::map<std::string, std::pair<uint64_t, uint64_t>> &Syms,
            StringRef Name, unsigned Iterations) {
  json::Object R{{"symbol", Name}, {"cpu", T.CPU}};
  auto It = Syms.find(Name.str());
  if (It == Syms.end()) {
    R["found"] = false;
    R["error"] = "symbol not found";
    return R;
  }
  R["found"] = true;
  auto [Start, Size] = It->second;
  Expected<std::vector<DecodedInst>> Insts = disassemble(T, Obj, Start, Size);
  if (!Insts) {
    R["error"] = toString(Insts.takeError());
    return R;
  }
  // A loop: a branch whose target lies backwards within the symbol. Sorted
  // by span, the first one found for each target is its latch.
  json::Array Loops;
  for (size_t BI = 0; BI < Insts->size(); ++BI) {
    const DecodedInst &B = (*Insts)[BI];
    uint64_t Target;
    if (!T.MCIA->isBranch(B.Inst) ||
        !T.MCIA->evaluateBranch(B.Inst, B.Addr, B.Size, Target) ||
        Target > B.Addr || Target < Start)
      continue;
    std::vector<MCInst> Body;
    json::Array Asm;
    bool Inner = true;
    for (const DecodedInst &D : *Insts) {
      if (D.Addr < Target || D.Addr > B.Addr)
        continue;
      uint64_t Other;
      // Another backward branch inside the body: not an innermost loop.
      if (&D != &B && T.MCIA->isBranch(D.Inst) &&
          T.MCIA->evaluateBranch(D.Inst, D.Addr, D.Size, Other) &&
          Other <= D.Addr && Other >= Target)
        Inner = false;
      Body.push_back(D.Inst);
      Asm.push_back(T.print(D.Inst, D.Addr));
    }
    json::Object L{{"start", int64_t(Target)},
                   {"end", int64_t(B.Addr + B.Size)},
                   {"instructions", int64_t(Body.size())},
                   {"innermost", Inner},
                   {"asm", std::move(Asm)}};
    Expected<double> CPI = predict(T, Body, Iterations);
    if (CPI)
      L["cycles_per_iteration"] = *CPI;
    else
      L["error"] = toString(CPI.takeError());
    Loops.push_back(std::move(L));
  }
  R["loops"] = std::move(Loops);
  return R;
}

int run(int Argc, char **Argv) {
  std::string CPU = sys::getHostCPUName().str();
  unsigned Iterations = 500;
  std::vector<std::string> Args;
  for (int I = 1; I < Argc; ++I) {
    StringRef A = Argv[I];
    if (A == "--mcpu" && I + 1 < Argc)
      CPU = Argv[++I];
    else if (A == "--iterations" && I + 1 < Argc)
      Iterations = std::max(1, atoi(Argv[++I]));
    else if (A == "-h" || A == "--help") {
      outs() << "usage: decan-mca-check [--mcpu CPU] [--iterations N] ELF "
                "SYMBOL...\n";
      return 0;
    } else
      Args.push_back(A.str());
  }
  if (Args.size() < 2) {
    errs() << "decan-mca-check: need an ELF file and at least one symbol\n";
    return 2;
  }
  Expected<object::OwningBinary<object::ObjectFile>> Bin =
      object::ObjectFile::createObjectFile(Args[0]);
  if (!Bin) {
    errs() << "decan-mca-check: " << Args[0] << ": "
           << toString(Bin.takeError()) << "\n";
    return 2;
  }
  const object::ObjectFile &Obj = *Bin->getBinary();
  MCTools T;
  if (Error E = T.init(Obj.makeTriple(), CPU)) {
    errs() << "decan-mca-check: " << toString(std::move(E)) << "\n";
    return 2;
  }
  std::map<std::string, std::pair<uint64_t, uint64_t>> Syms;
  for (const object::SymbolRef &S : Obj.symbols()) {
    Expected<StringRef> N = S.getName();
    Expected<uint64_t> A = S.getAddress();
    if (!N || !A) {
      consumeError(N.takeError());
      consumeError(A.takeError());
      continue;
    }
    uint64_t Size = object::ELFSymbolRef(S).getSize();
    if (Size)
      Syms[N->str()] = {*A, Size};
  }
  for (size_t I = 1; I < Args.size(); ++I)
    outs() << json::Value(checkSymbol(T, Obj, Syms, Args[I], Iterations))
           << "\n";
  return 0;
}

} // namespace

int main(int Argc, char **Argv) {
  InitializeAllTargetInfos();
  InitializeAllTargetMCs();
  InitializeAllDisassemblers();
  LLVMInitializeX86TargetMCA();
  return run(Argc, Argv);
}
