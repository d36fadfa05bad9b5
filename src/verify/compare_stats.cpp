#include "verify/compare_stats.hpp"

#include <cstdio>

namespace ptxb {

bool CompareStats::passed(const CompareTolerance& tol) const {
  if (mismatches > 0 || nan_count > 0) return false;
  if (tol.max_rel_frobenius > 0 && rel_frobenius > tol.max_rel_frobenius) return false;
  return true;
}

std::string CompareStats::summary() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "max abs %.3g, max rel %.3g, rel frob %.3g, %lld NaN/Inf, %lld/%lld off",
                max_abs_error, max_rel_error, rel_frobenius, static_cast<long long>(nan_count),
                static_cast<long long>(mismatches), static_cast<long long>(count));
  return buf;
}

}  // namespace ptxb
