// The recorded evidence run of the TMA GEMM expert (tests/fixtures/ncu: ncu's CSV and the
// worker's messages, H200 2026-12-05, commit b2be6da, bench/results/2026-12-05-h200-session) as
// the evidence stage reads it, the catalog's other-read metrics and the evidence control's byte
// counts included.
#pragma once

#include <filesystem>
#include <utility>
#include <vector>

#include "instrument/ncu_csv.hpp"
#include "protocol/protocol.hpp"
#include "sys/files.hpp"

namespace ptxb::testing {

inline std::vector<ProfiledKernel> recorded_tma_kernels() {
  const std::filesystem::path ncu = std::filesystem::path(PTXB_FIXTURE_DIR) / "ncu";
  return parse_ncu_csv(read_file(ncu / "expert_tma_evidence.csv"));
}

inline std::vector<nlohmann::json> recorded_tma_messages() {
  bool truncated = false;
  const std::filesystem::path ncu = std::filesystem::path(PTXB_FIXTURE_DIR) / "ncu";
  return parse_worker_messages(read_file(ncu / "expert_tma_messages.jsonl"), &truncated);
}

}  // namespace ptxb::testing
