//===- Subsets.cpp - Which instruction belongs to which decan subset ------===//
#include "decan/InstrKnowledge/Subsets.h"

#include "llvm/ADT/StringRef.h"

using namespace llvm;

unsigned decan::classifyOpcode(const MCInstrInfo &MII, unsigned Opcode) {
  const MCInstrDesc &Desc = MII.get(Opcode);
  unsigned Bits = SubsetNone;
  if (Desc.mayLoad())
    Bits |= SubsetLoad;
  if (Desc.mayStore())
    Bits |= SubsetStore;
  StringRef Name = MII.getName(Opcode);
  if (Name.contains("DIV") || Name.contains("SQRT"))
    Bits |= SubsetDiv;
  return Bits;
}
