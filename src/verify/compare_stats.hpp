// Output-comparison statistics and the pass rule; host code, shared by worker and tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ptxb {

struct CompareTolerance {
  double atol = 0;
  double rtol = 0;
  double atol_rms = 0;           ///< adds atol_rms * rms(reference) to atol (0: none)
  double max_rel_frobenius = 0;  ///< 0: not checked
  bool round_reference = false;  ///< compare against the reference rounded to the output dtype
};

/// Element coordinates of a mismatch in a 2-D view (row = index / cols, col = index % cols).
struct Mismatch {
  int64_t index = 0;
  int64_t row = 0;
  int64_t col = 0;
  double got = 0;
  double want = 0;
};

struct CompareStats {
  int64_t count = 0;
  int64_t mismatches = 0;  ///< elements outside atol + rtol*|ref|, NaN and Inf included
  int64_t nan_count = 0;   ///< NaN or Inf in the output
  double max_abs_error = 0;
  double max_rel_error = 0;  ///< over elements with |ref| > 0
  double rel_frobenius = 0;  ///< ||out - ref||_F / ||ref||_F (0 when ||ref|| = 0 and equal)
  double reference_rms = 0;  ///< root-mean-square of the reference (only when atol_rms is set)
  double atol = 0;           ///< the absolute tolerance applied: atol + atol_rms * reference_rms
  std::optional<Mismatch> first_mismatch;  ///< the lowest mismatching index

  /// Pass rule: no mismatch, no NaN, and the Frobenius bound when set.
  bool passed(const CompareTolerance& tol) const;
  /// One line: "max abs 1.2e-02, max rel 3.9e-03, rel frob 1.1e-03, 0 NaN, 0/16777216 off".
  std::string summary() const;
};

}  // namespace ptxb
