// Where this binary came from: the PTXBench commit it was built at. Defined in a file that
// CMake generates at configure time (cmake/build_info.cpp.in), so a new commit recompiles that
// one file and not every file of the host library.
#pragma once

namespace ptxb {

/// `git describe --always --dirty --abbrev=12` of the source tree at configure time, or
/// "unknown" outside a git checkout.
const char* ptxbench_commit();

}  // namespace ptxb
