// The recorded evidence run of the TMA GEMM expert (tests/fixtures/ncu: ncu's CSV and the
// worker's messages, H200 2026-12-01) as the evidence stage reads it. The recording predates the
// catalog's other_read_metrics (2026-12-04): each is added to every kernel as 0, and to the live
// evidence control (the first control kernel) as the bytes the control now reads by each kind,
// with its ld.global.nc bytes on the plain-load metric; stand-ins, not measurements, until the
// fixture is recorded again with them.
#pragma once

#include <filesystem>
#include <utility>
#include <vector>

#include "controls/evidence_names.hpp"
#include "instrument/ncu_csv.hpp"
#include "protocol/protocol.hpp"
#include "sys/files.hpp"
#include "tasks/catalog.hpp"

namespace ptxb::testing {

inline std::vector<ProfiledKernel> recorded_tma_kernels(const Catalog& catalog) {
  const std::filesystem::path ncu = std::filesystem::path(PTXB_FIXTURE_DIR) / "ncu";
  std::vector<ProfiledKernel> kernels = parse_ncu_csv(read_file(ncu / "expert_tma_evidence.csv"));
  const InstructionEntry* tma = catalog.find("cp.async.bulk.tensor", "sm_90a");
  for (ProfiledKernel& k : kernels)
    for (const std::string& m : tma->other_read_metrics) k.metrics.emplace(m, 0.0);
  for (ProfiledKernel& k : kernels) {
    if (k.name != kControlKernelName) continue;
    for (const ControlReadBytes& r : kEvidenceControlOtherReads) k.metrics[r.metric] = r.bytes;
    k.metrics[kEvidenceControlOtherReads[0].metric] += kEvidenceControlNonCoherentReadBytes;
    break;  // the live control; the dead one follows it
  }
  return kernels;
}

inline std::vector<nlohmann::json> recorded_tma_messages() {
  bool truncated = false;
  const std::filesystem::path ncu = std::filesystem::path(PTXB_FIXTURE_DIR) / "ncu";
  return parse_worker_messages(read_file(ncu / "expert_tma_messages.jsonl"), &truncated);
}

}  // namespace ptxb::testing
