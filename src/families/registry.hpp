// The family registry's members: one accessor per family module. A new family adds its module
// file and one line to registry.cpp.
#pragma once

#include "families/family.hpp"

namespace ptxb {

const Family& gemm_family();
const Family& attention_fwd_family();
const Family& attention_bwd_family();

}  // namespace ptxb
