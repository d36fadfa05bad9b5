// The GPU references' check against the fp64 CPU definitions: every fp32 value within 1e-5
// (absolute plus relative) of the fp64 one; the first five misses are reported, naming `what`.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ptxb::testing {

inline void expect_close_to_fp64(const std::vector<float>& got, const std::vector<double>& want,
                                 const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-5 + 1e-5 * std::fabs(want[i]))) {
      ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", fp64 says " << want[i];
      ++bad;
    }
}

}  // namespace ptxb::testing
