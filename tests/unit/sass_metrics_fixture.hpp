// The recorded CUPTI SASS-metrics output of tests/fixtures/sass_metrics (its README says what
// it is), read as the tests of instrument/pc_executions and instrument/sass_profile need it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "instrument/pc_executions.hpp"

namespace ptxb {

inline const std::filesystem::path kSassMetricsFixtures =
    std::filesystem::path(PTXB_FIXTURE_DIR) / "sass_metrics";

/// The probe's lines, "record FUNCTION +0xPC executed WARPS threads THREADS", as records.
inline std::vector<PcRecord> probe_records(const std::string& text) {
  std::vector<PcRecord> out;
  std::istringstream lines(text);
  std::string word, pc, executed_word, threads_word;
  PcRecord r;
  while (lines >> word >> r.function >> pc >> executed_word >> r.warps >> threads_word >>
         r.threads) {
    r.pc = static_cast<uint32_t>(std::stoul(pc.substr(3), nullptr, 16));  // "+0x0390"
    out.push_back(r);
  }
  return out;
}

}  // namespace ptxb
