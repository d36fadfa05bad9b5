// ptxbench: the command-line entry. Parses, dispatches, prints; all logic lives in the library.
// Exit status: 0 judged/finished, 1 judged with a non-success outcome where a command says so,
// 2 PTXBench itself could not run (bad input, internal or API error).
#include <iostream>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  try {
    return ptxb::cli::dispatch(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ptxbench: error: " << e.what() << "\n";
    return ptxb::cli::kExitHarnessError;
  }
}
