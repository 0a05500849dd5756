//===- RewriteCommand.cpp - decan rewrite ---------------------------------===//
//
// Part of decan. `decan rewrite BINARY [-o DIR] [--list] ...`: the MC
// rewriter (mc-rewriter/, decan/Rewriter/RewriteTool.h) does the work.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "decan/Rewriter/RewriteTool.h"

int runRewriteCommand(int argc, char **argv) {
  // argv[0] is "decan", argv[1] "rewrite".
  return decan::rewriter::runRewriteTool(argc - 1, argv + 1);
}
