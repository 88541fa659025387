//===- ProofCache.cpp - Proved queries remembered on disk -----------------===//
//
// A file named by the SHA-256 of a query's SMT text records that the query
// is unsat. Only proofs are cached: a counterexample is always recomputed.
//
//===----------------------------------------------------------------------===//
#include "verifier/solver/Solver.h"

#include "llvm/Support/FileSystem.h"

#include <cstdlib>
#include <fstream>

using namespace kuiper::solver;

ProofCache::ProofCache(std::string directory) : directory(std::move(directory)) {
  if (!this->directory.empty())
    llvm::sys::fs::create_directories(this->directory);
}

std::string ProofCache::defaultDirectory() {
  if (const char *dir = std::getenv("KUIPER_CACHE_DIR"))
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
    return std::string(xdg) + "/kuiper";
  if (const char *home = std::getenv("HOME"))
    return std::string(home) + "/.cache/kuiper";
  return "";
}

bool ProofCache::contains(const std::string &hash) const {
  return !directory.empty() && !hash.empty() && llvm::sys::fs::exists(directory + "/" + hash);
}

void ProofCache::storeProved(const std::string &hash) const {
  if (directory.empty() || hash.empty())
    return;
  std::ofstream(directory + "/" + hash) << "unsat\n";
}
