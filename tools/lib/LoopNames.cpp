//===- LoopNames.cpp - The names a loop is shown and chosen by ------------===//
//
// Part of decan. See decan/Tool/LoopNames.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/LoopNames.h"
#include "decan/Tool/LoopList.h"
#include "decan/Tool/LoopTable.h"
#include "decan/Tool/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/xxhash.h"

#include <set>

using namespace llvm;

namespace decan::tool {

/// The scopes and name of C++ function \p Function without template
/// arguments or parameters; "" for a C function.
static std::string shortCxxName(StringRef Function) {
  std::string Demangled = demangleSymbol(Function);
  if (Demangled == Function)
    Demangled = nestedNamePrefix(Function);
  if (Demangled.empty())
    return "";
  std::string Short = shortFunctionName(Demangled, /*Max=*/SIZE_MAX);
  for (size_t P; (P = Short.find("<...>")) != std::string::npos;)
    Short.erase(P, 5);
  return Short;
}

std::string shortLoopId(StringRef Function, StringRef Id, bool Suffixed) {
  // "f:L0", or a region's "region:f" and "region:f:L0".
  StringRef Prefix = Id.starts_with("region:") ? "region:" : "";
  StringRef Rest = Id.drop_front(Prefix.size());
  if (Function.empty() || !Rest.starts_with(Function))
    return Id.str();
  StringRef Tail = Rest.drop_front(Function.size());
  if (!Tail.empty() && !Tail.starts_with(":"))
    return Id.str();
  std::string Short = shortCxxName(Function);
  if (Short.empty())
    return Id.str();
  if (Suffixed)
    Short += "~" + utohexstr(xxh3_64bits(Function) & 0xffff, /*LowerCase=*/true,
                             /*Width=*/4);
  return (Prefix + Short + Tail).str();
}

/// "object!name" for a library's loop.
static std::string withObject(StringRef Object, StringRef Name) {
  return Object.empty() ? Name.str() : (Object + "!" + Name).str();
}

std::vector<std::string> loopNames(ArrayRef<LoopIdentity> Loops) {
  // A short name two functions share (in one object) gets suffixes.
  StringMap<std::set<std::string>> Functions;
  std::vector<std::string> Short;
  for (const LoopIdentity &L : Loops) {
    Short.push_back(withObject(L.Object, shortLoopId(L.Function, L.Id)));
    Functions[Short.back()].insert(L.Function.str());
  }
  std::vector<std::string> Out;
  for (auto [L, S] : zip(Loops, Short))
    Out.push_back(Functions[S].size() > 1
                      ? withObject(L.Object, shortLoopId(L.Function, L.Id,
                                                         /*Suffixed=*/true))
                      : S);
  return Out;
}

void nameLoops(std::vector<LoopReport> &Loops, ArrayRef<MetaLoop> Table) {
  std::vector<LoopIdentity> Ids;
  for (const LoopReport &L : Loops)
    Ids.push_back({L.Id, L.Function, L.Object});
  for (const MetaLoop &M : Table)
    Ids.push_back({M.Id, M.Function, M.Object});
  std::vector<std::string> Names = loopNames(Ids);
  for (auto [L, N] : zip(Loops, Names))
    L.Name = N;
}

std::vector<LoopIdentity> loopIdentities(ArrayRef<MetaLoop> Loops) {
  std::vector<LoopIdentity> Out;
  for (const MetaLoop &L : Loops)
    Out.push_back({L.Id, L.Function, L.Object});
  return Out;
}

bool namesLoop(StringRef Wanted, const LoopIdentity &L) {
  auto [Object, Name] = Wanted.split('!');
  if (Name.empty())
    Name = Object, Object = "";
  else if (Object != L.Object)
    return false;
  return Name == L.Id || Name == shortLoopId(L.Function, L.Id) ||
         Name == shortLoopId(L.Function, L.Id, /*Suffixed=*/true);
}

bool namesLoopOfAnyObject(StringRef Wanted, StringRef Id, StringRef Function) {
  StringRef Name = Wanted.contains('!') ? Wanted.rsplit('!').second : Wanted;
  return namesLoop(Name, {Id, Function, ""});
}

Expected<std::vector<std::string>>
resolveLoopNames(ArrayRef<std::string> Wanted, ArrayRef<LoopIdentity> Loops) {
  std::vector<std::string> Ids;
  std::vector<std::string> Names;
  for (const std::string &W : Wanted) {
    std::vector<size_t> Hits;
    std::set<StringRef> Functions;
    for (size_t I = 0; I < Loops.size(); ++I)
      if (namesLoop(W, Loops[I])) {
        Hits.push_back(I);
        Functions.insert(Loops[I].Function);
      }
    if (Hits.empty())
      return createStringError("unknown loop '%s'", W.c_str());
    // An exact id is never ambiguous: the runtime selects by it.
    bool ById = any_of(Hits, [&](size_t I) {
      return W == Loops[I].Id ||
             W == (Loops[I].Object + "!" + Loops[I].Id).str();
    });
    if (!ById && Functions.size() > 1) {
      std::vector<std::string> Each;
      for (size_t I : Hits)
        Each.push_back(withObject(
            Loops[I].Object,
            shortLoopId(Loops[I].Function, Loops[I].Id, /*Suffixed=*/true)));
      return createStringError("loop '%s' is ambiguous: %s", W.c_str(),
                               join(Each, ", ").c_str());
    }
    for (size_t I : Hits)
      if (!is_contained(Ids, Loops[I].Id))
        Ids.push_back(Loops[I].Id.str());
  }
  return Ids;
}

} // namespace decan::tool
