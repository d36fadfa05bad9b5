// GPU tests of the verification pieces: generator, poison, the fp32 GEMM reference against an
// fp64 CPU product, and the comparison kernel on planted errors.
#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "core/fp8.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "device_copies.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace {

using testing::to_host_bf16;

TEST(GpuInputs, SameSeedSameValuesOtherSeedOtherValues) {
  Stream s;
  DeviceBuffer a(4096 * 2), b(4096 * 2), c(4096 * 2);
  fill_random(a.data(), DType::kBF16, 4096, ValueKind::kNormal, 1.0, 1, 0, s.get());
  fill_random(b.data(), DType::kBF16, 4096, ValueKind::kNormal, 1.0, 1, 0, s.get());
  fill_random(c.data(), DType::kBF16, 4096, ValueKind::kNormal, 1.0, 2, 0, s.get());
  EXPECT_EQ(count_differing_bytes(a.data(), b.data(), 4096 * 2, s.get()), 0);
  EXPECT_GT(count_differing_bytes(a.data(), c.data(), 4096 * 2, s.get()), 4096);
  const auto v = to_host_bf16(a, 4096);
  double mean = 0, sq = 0;
  for (float x : v) mean += x, sq += double(x) * x;
  mean /= v.size();
  EXPECT_NEAR(mean, 0.0, 0.1);
  EXPECT_NEAR(std::sqrt(sq / v.size()), 1.0, 0.1);
}

// The fp32 Box-Muller draw (pairs of elements from one hash): normal moments and tails on 2^20
// values, an odd count's last element drawn, streams of one seed independent of each other.
TEST(GpuInputs, NormalDrawHasNormalMomentsAndTails) {
  Stream s;
  const int64_t n = (1 << 20) + 1;
  DeviceBuffer a(n * 4), b(n * 4);
  fill_random(a.data(), DType::kF32, n, ValueKind::kNormal, 1.0, 5, 0, s.get());
  fill_random(b.data(), DType::kF32, n, ValueKind::kNormal, 1.0, 5, 1, s.get());
  std::vector<float> v(n), w(n);
  PTXB_CHECK_CUDA(cudaStreamSynchronize(s.get()));
  PTXB_CHECK_CUDA(cudaMemcpy(v.data(), a.data(), n * 4, cudaMemcpyDeviceToHost));
  PTXB_CHECK_CUDA(cudaMemcpy(w.data(), b.data(), n * 4, cudaMemcpyDeviceToHost));
  double mean = 0, sq = 0, fourth = 0, cross = 0, beyond_3 = 0, largest = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = v[i];
    mean += x, sq += x * x, fourth += x * x * x * x, cross += x * w[i];
    beyond_3 += std::fabs(x) > 3;
    largest = std::max(largest, std::fabs(x));
  }
  mean /= n, sq /= n, fourth /= n, cross /= n, beyond_3 /= n;
  EXPECT_NEAR(mean, 0.0, 0.005);
  EXPECT_NEAR(sq, 1.0, 0.005);
  EXPECT_NEAR(fourth, 3.0, 0.05);         // a normal's kurtosis
  EXPECT_NEAR(beyond_3, 0.0027, 0.0004);  // P(|x| > 3) of a normal
  EXPECT_GT(largest, 4.0);
  EXPECT_LE(largest, 5.8);  // 24-bit uniforms: sqrt(-2 ln 2^-24) = 5.77
  EXPECT_NEAR(cross, 0.0, 0.005) << "two streams of one seed are uncorrelated";
  EXPECT_NE(v[n - 1], 0.f) << "the odd last element is drawn";
}

// Differing bytes counted exactly whatever the alignment and length: the 16-byte path, the byte
// tail and misaligned ranges.
TEST(GpuCompare, DifferingBytesCountedAtEveryAlignment) {
  Stream s;
  const int64_t n = 1 << 16;
  DeviceBuffer a(n), b(n);
  PTXB_CHECK_CUDA(cudaMemset(a.data(), 0x11, n));
  PTXB_CHECK_CUDA(cudaMemset(b.data(), 0x11, n));
  for (const int64_t at : {int64_t{0}, int64_t{5}, int64_t{16}, int64_t{4095}, n - 1})
    PTXB_CHECK_CUDA(cudaMemset(static_cast<char*>(b.data()) + at, 0x22, 1));
  const auto* pa = static_cast<const char*>(a.data());
  const auto* pb = static_cast<const char*>(b.data());
  EXPECT_EQ(count_differing_bytes(pa, pb, n, s.get()), 5);
  EXPECT_EQ(count_differing_bytes(pa, pb, n - 1, s.get()), 4) << "the last byte left out";
  EXPECT_EQ(count_differing_bytes(pa + 1, pb + 1, n - 1, s.get()), 4) << "misaligned";
  EXPECT_EQ(count_differing_bytes(pa + 16, pb + 16, 4080, s.get()), 2) << "16 and 4095";
  DeviceBuffer counters(2 * sizeof(unsigned long long));
  PTXB_CHECK_CUDA(cudaMemset(counters.data(), 0, counters.bytes()));
  add_differing_bytes({{pa, pb, 16, 0}, {pa + 16, pb + 16, n - 16, 1}, {pa, pb, 6, 1}},
                      counters.as<unsigned long long>(), s.get());
  unsigned long long host[2] = {0, 0};
  PTXB_CHECK_CUDA(cudaStreamSynchronize(s.get()));
  PTXB_CHECK_CUDA(cudaMemcpy(host, counters.data(), sizeof host, cudaMemcpyDeviceToHost));
  EXPECT_EQ(host[0], 2u);
  EXPECT_EQ(host[1], 3u + 2u);
}

TEST(GpuInputs, ScalesAreTheRulesFactorsAndRepeatBySeed) {
  Stream s;
  const int64_t n = 1 << 16;
  DeviceBuffer a(n * 4), b(n * 4), c(n * 4);
  fill_scales(a.as<float>(), n, 3, 2, s.get());
  fill_scales(b.as<float>(), n, 3, 2, s.get());
  fill_scales(c.as<float>(), n, 4, 2, s.get());
  EXPECT_EQ(count_differing_bytes(a.data(), b.data(), n * 4, s.get()), 0);
  EXPECT_GT(count_differing_bytes(a.data(), c.data(), n * 4, s.get()), n);
  std::vector<float> v(n);
  PTXB_CHECK_CUDA(cudaDeviceSynchronize());
  PTXB_CHECK_CUDA(cudaMemcpy(v.data(), a.data(), n * 4, cudaMemcpyDeviceToHost));
  std::set<float> seen;
  for (float x : v) {
    int e = 0;
    const float f = std::frexp(x, &e);  // x = f 2^e, f in [0.5, 1)
    const float m = (2 * f - 1) * 8;    // x = (1 + m/8) 2^(e-1)
    ASSERT_EQ(m, std::floor(m)) << x;
    ASSERT_GE(e - 1, -3) << x;
    ASSERT_LE(e - 1, 3) << x;
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 7u * 8u) << "every exponent and mantissa occurs";
}

TEST(GpuInputs, SmallIntegersStayInRange) {
  Stream s;
  DeviceBuffer a(10000 * 2);
  fill_random(a.data(), DType::kBF16, 10000, ValueKind::kUniformInt, 2.0, 5, 0, s.get());
  int seen[5] = {};
  for (float x : to_host_bf16(a, 10000)) {
    ASSERT_EQ(x, std::round(x));
    ASSERT_GE(x, -2.f);
    ASSERT_LE(x, 2.f);
    ++seen[static_cast<int>(x) + 2];
  }
  for (int n : seen) EXPECT_GT(n, 1500);
}

TEST(GpuInputs, PoisonIsNaN) {
  Stream s;
  DeviceBuffer a(64 * 2);
  poison(a.data(), DType::kBF16, 64, s.get());
  for (float x : to_host_bf16(a, 64)) EXPECT_TRUE(std::isnan(x));
}

// The reference against an fp64 CPU product on odd shapes: equal up to its one rounding to fp32.
TEST(GpuReference, MatchesFp64OnOddShapes) {
  const int64_t shapes[][3] = {{1, 1, 8}, {65, 33, 24}, {130, 70, 136}, {7, 200, 1000}};
  Stream s;
  for (const auto& sh : shapes) {
    const int64_t M = sh[0], N = sh[1], K = sh[2];
    DeviceBuffer a(size_t(M * K * 2)), b(size_t(N * K * 2)), ref(size_t(M * N * 4));
    fill_random(a.data(), DType::kBF16, M * K, ValueKind::kNormal, 1.0, 3, 0, s.get());
    fill_random(b.data(), DType::kBF16, N * K, ValueKind::kNormal, 1.0, 3, 1, s.get());
    reference_gemm_bf16(a.data(), b.data(), ref.as<float>(), M, N, K, s.get());
    std::vector<float> got(size_t(M * N));
    s.synchronize();
    PTXB_CHECK_CUDA(cudaMemcpy(got.data(), ref.data(), got.size() * 4, cudaMemcpyDeviceToHost));
    const auto ha = to_host_bf16(a, M * K), hb = to_host_bf16(b, N * K);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double want = 0, mag = 0;
        for (int64_t k = 0; k < K; ++k) {
          want += double(ha[m * K + k]) * hb[n * K + k];
          mag += std::fabs(double(ha[m * K + k]) * hb[n * K + k]);
        }
        // fp64 inside, one rounding to fp32: |error| <= 2^-24 |want| plus the two fp64 sums'
        // K * 2^-53 * sum |a*b| each (first order), far below the rounding here.
        ASSERT_NEAR(got[m * N + n], want,
                    0x1p-24 * std::fabs(want) + 2 * double(K) * 0x1p-53 * mag + 1e-30)
            << "M=" << M << " m=" << m << " n=" << n;
      }
  }
}

std::vector<uint8_t> to_host_bytes(const DeviceBuffer& d, int64_t n) {
  std::vector<uint8_t> out(static_cast<size_t>(n));
  PTXB_CHECK_CUDA(cudaMemcpy(out.data(), d.data(), out.size(), cudaMemcpyDeviceToHost));
  return out;
}

// E4M3 draws are finite codes whose values spread like a normal draw (rounded to E4M3).
TEST(GpuInputs, E4M3DrawsAreFiniteAndNormal) {
  Stream s;
  DeviceBuffer a(10000);
  fill_random(a.data(), DType::kF8E4M3, 10000, ValueKind::kNormal, 1.0, 5, 0, s.get());
  s.synchronize();
  double sum = 0, squares = 0;
  for (uint8_t code : to_host_bytes(a, 10000)) {
    ASSERT_NE(code & 0x7F, 0x7F) << "NaN code";
    const double v = e4m3_to_double(code);
    sum += v;
    squares += v * v;
  }
  EXPECT_NEAR(sum / 10000, 0.0, 0.05);
  EXPECT_NEAR(squares / 10000, 1.0, 0.1);
}

// The reference on E4M3 operands with a scale, against the fp64 CPU product of the decoded codes.
TEST(GpuReference, E4M3ProductWithScaleMatchesFp64) {
  const int64_t M = 33, N = 70, K = 136;
  const double alpha = 0.375 * 1.5;
  Stream s;
  DeviceBuffer a(size_t(M * K)), b(size_t(N * K)), ref(size_t(M * N * 4));
  fill_random(a.data(), DType::kF8E4M3, M * K, ValueKind::kNormal, 4.0, 9, 0, s.get());
  fill_random(b.data(), DType::kF8E4M3, N * K, ValueKind::kNormal, 4.0, 9, 1, s.get());
  reference_gemm(a.data(), DType::kF8E4M3, b.data(), DType::kF8E4M3, alpha, ref.as<float>(), M, N,
                 K, s.get());
  s.synchronize();
  std::vector<float> got(size_t(M * N));
  PTXB_CHECK_CUDA(cudaMemcpy(got.data(), ref.data(), got.size() * 4, cudaMemcpyDeviceToHost));
  const auto ha = to_host_bytes(a, M * K), hb = to_host_bytes(b, N * K);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double want = 0;
      for (int64_t k = 0; k < K; ++k)
        want += e4m3_to_double(ha[m * K + k]) * e4m3_to_double(hb[n * K + k]);
      want *= alpha;
      // Products of E4M3 values are exact in fp64 and their sums here too: one fp32 rounding.
      ASSERT_NEAR(got[m * N + n], want, 0x1p-24 * std::fabs(want) + 1e-30) << m << " " << n;
    }
}

TEST(GpuCompare, FindsPlantedErrorAndNaN) {
  Stream s;
  const int64_t rows = 100, cols = 37, count = rows * cols;
  DeviceBuffer out(size_t(count * 2)), ref(size_t(count * 4));
  std::vector<float> host_ref(static_cast<size_t>(count));
  std::vector<__nv_bfloat16> host_out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    host_ref[i] = 0.25f * float(i % 17) - 2.f;
    host_out[i] = __float2bfloat16_rn(host_ref[i]);
  }
  PTXB_CHECK_CUDA(cudaMemcpy(ref.data(), host_ref.data(), count * 4, cudaMemcpyHostToDevice));
  PTXB_CHECK_CUDA(cudaMemcpy(out.data(), host_out.data(), count * 2, cudaMemcpyHostToDevice));
  const CompareTolerance exact{.round_reference = true};
  CompareStats clean = compare_with_reference(out.data(), DType::kBF16, ref.as<float>(), count,
                                              cols, exact, s.get());
  EXPECT_TRUE(clean.passed(exact)) << clean.summary();

  host_out[5 * cols + 7] = __float2bfloat16_rn(host_ref[5 * cols + 7] + 1.f);
  host_out[9 * cols + 1] = __float2bfloat16_rn(NAN);
  PTXB_CHECK_CUDA(cudaMemcpy(out.data(), host_out.data(), count * 2, cudaMemcpyHostToDevice));
  CompareStats bad = compare_with_reference(out.data(), DType::kBF16, ref.as<float>(), count, cols,
                                            exact, s.get());
  EXPECT_FALSE(bad.passed(exact));
  EXPECT_EQ(bad.mismatches, 2);
  EXPECT_EQ(bad.nan_count, 1);
  ASSERT_TRUE(bad.first_mismatch.has_value());
  EXPECT_EQ(bad.first_mismatch->row, 5);
  EXPECT_EQ(bad.first_mismatch->col, 7);
  EXPECT_NEAR(bad.max_abs_error, 1.0, 1e-2);
}

// The statistics of a comparison do not depend on whether its scratch is its own or one that
// earlier comparisons used (the scratch is reset, nothing of the last one carries over).
TEST(GpuCompare, ReusedScratchGivesTheStatisticsOfAFreshOne) {
  Stream s;
  const int64_t rows = 64, cols = 33, count = rows * cols;
  DeviceBuffer clean(size_t(count * 4)), bad(size_t(count * 4)), ref(size_t(count * 4));
  DeviceBuffer scratch(kCompareScratchBytes);
  std::vector<float> host_ref(static_cast<size_t>(count)), host_bad;
  for (int64_t i = 0; i < count; ++i) host_ref[i] = 0.5f * float(i % 11) - 1.f;
  host_bad = host_ref;
  host_bad[3 * cols + 4] += 0.75f;
  host_bad[7 * cols + 2] = NAN;
  PTXB_CHECK_CUDA(cudaMemcpy(ref.data(), host_ref.data(), count * 4, cudaMemcpyHostToDevice));
  PTXB_CHECK_CUDA(cudaMemcpy(clean.data(), host_ref.data(), count * 4, cudaMemcpyHostToDevice));
  PTXB_CHECK_CUDA(cudaMemcpy(bad.data(), host_bad.data(), count * 4, cudaMemcpyHostToDevice));
  const CompareTolerance tol{.atol = 1e-3, .rtol = 1e-3, .atol_rms = 0.0625};
  auto compare = [&](const DeviceBuffer& out, void* with) {
    return compare_with_reference(out.data(), DType::kF32, ref.as<float>(), count, cols, tol,
                                  s.get(), with);
  };
  const CompareStats fresh_bad = compare(bad, nullptr);
  const CompareStats reused_bad = compare(bad, scratch.data());
  const CompareStats reused_clean = compare(clean, scratch.data());  // after a failing one
  const CompareStats fresh_clean = compare(clean, nullptr);
  for (const CompareStats* r : {&fresh_bad, &reused_bad}) {
    EXPECT_EQ(r->mismatches, 2);
    EXPECT_EQ(r->nan_count, 1);
    ASSERT_TRUE(r->first_mismatch.has_value());
    EXPECT_EQ(r->first_mismatch->row, 3);
    EXPECT_EQ(r->first_mismatch->col, 4);
    EXPECT_EQ(r->max_abs_error, fresh_bad.max_abs_error);
    EXPECT_EQ(r->atol, fresh_bad.atol);
  }
  for (const CompareStats* r : {&fresh_clean, &reused_clean}) {
    EXPECT_TRUE(r->passed(tol)) << r->summary();
    EXPECT_EQ(r->mismatches, 0);
    EXPECT_FALSE(r->first_mismatch.has_value());
    EXPECT_EQ(r->max_abs_error, 0.0);
    EXPECT_EQ(r->rel_frobenius, 0.0);
  }
}

// atol_rms: the applied atol is atol + atol_rms * rms(reference), computed once on the device
// (where it decides) and reported from the same sum: an error just inside it passes, one just
// outside fails, and the reported atol and rms are those of the host formula.
TEST(GpuCompare, AtolFromTheReferenceRmsIsAppliedAsReported) {
  Stream s;
  const int64_t count = 4096;
  std::vector<float> host_ref(static_cast<size_t>(count));
  double sum_sq = 0;
  for (int64_t i = 0; i < count; ++i) {
    host_ref[i] = (i % 2 == 0 ? 1.f : -1.f) * (1.f + float(i % 5));  // exact squares
    sum_sq += double(host_ref[i]) * host_ref[i];
  }
  const double rms = std::sqrt(sum_sq / double(count));
  const CompareTolerance tol{.atol = 0.0, .rtol = 0.0, .atol_rms = 0.015625};
  const double applied = tol.atol_rms * rms;
  DeviceBuffer ref(size_t(count * 4)), out(size_t(count * 4));
  PTXB_CHECK_CUDA(cudaMemcpy(ref.data(), host_ref.data(), count * 4, cudaMemcpyHostToDevice));
  auto with_error_at_zero = [&](double error) {
    std::vector<float> host_out = host_ref;
    host_out[0] = static_cast<float>(double(host_ref[0]) + error);
    PTXB_CHECK_CUDA(cudaMemcpy(out.data(), host_out.data(), count * 4, cudaMemcpyHostToDevice));
    return compare_with_reference(out.data(), DType::kF32, ref.as<float>(), count, count, tol,
                                  s.get());
  };
  const CompareStats inside = with_error_at_zero(0.95 * applied);
  const CompareStats outside = with_error_at_zero(1.05 * applied);
  EXPECT_EQ(inside.mismatches, 0) << inside.summary();
  EXPECT_EQ(outside.mismatches, 1) << outside.summary();
  for (const CompareStats* r : {&inside, &outside}) {
    EXPECT_EQ(r->reference_rms, rms);
    EXPECT_EQ(r->atol, applied);
  }
}

// Against another implementation's bf16 output read as it is: the statistics of the comparison
// against that output widened to fp32 (the round checks' quick check, worker/round_check.cpp).
TEST(GpuCompare, ABf16ReferenceReadAsItIsGivesTheWidenedReferencesStatistics) {
  Stream s;
  const int64_t rows = 96, cols = 70, count = rows * cols;
  std::vector<__nv_bfloat16> host_ref(static_cast<size_t>(count)), host_out;
  std::vector<float> host_wide(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    host_ref[i] = __float2bfloat16_rn(0.37f * float(i % 29) - 4.1f);
    host_wide[i] = __bfloat162float(host_ref[i]);
  }
  host_out = host_ref;
  host_out[11 * cols + 5] = __float2bfloat16_rn(host_wide[11 * cols + 5] + 0.5f);
  host_out[40 * cols + 9] = __float2bfloat16_rn(host_wide[40 * cols + 9] * 1.02f);
  host_out[60 * cols + 1] = __float2bfloat16_rn(NAN);
  DeviceBuffer out(size_t(count * 2)), ref(size_t(count * 2)), wide(size_t(count * 4));
  PTXB_CHECK_CUDA(cudaMemcpy(out.data(), host_out.data(), count * 2, cudaMemcpyHostToDevice));
  PTXB_CHECK_CUDA(cudaMemcpy(ref.data(), host_ref.data(), count * 2, cudaMemcpyHostToDevice));
  PTXB_CHECK_CUDA(cudaMemcpy(wide.data(), host_wide.data(), count * 4, cudaMemcpyHostToDevice));
  const CompareTolerance tol{.atol = 1e-2, .rtol = 1e-2, .atol_rms = 0.0625};
  const CompareStats direct = compare_outputs(out.data(), DType::kBF16, ref.data(), DType::kBF16,
                                              count, cols, tol, s.get());
  const CompareStats widened =
      compare_with_reference(out.data(), DType::kBF16, wide.as<float>(), count, cols, tol, s.get());
  EXPECT_EQ(direct.mismatches, 2);  // the +0.5 and the NaN; 2% is inside atol + rtol
  EXPECT_EQ(direct.mismatches, widened.mismatches);
  EXPECT_EQ(direct.nan_count, widened.nan_count);
  ASSERT_TRUE(direct.first_mismatch.has_value() && widened.first_mismatch.has_value());
  EXPECT_EQ(direct.first_mismatch->index, widened.first_mismatch->index);
  EXPECT_EQ(direct.first_mismatch->want, widened.first_mismatch->want);
  EXPECT_EQ(direct.max_abs_error, widened.max_abs_error);
  EXPECT_EQ(direct.max_rel_error, widened.max_rel_error);
  EXPECT_EQ(direct.reference_rms, widened.reference_rms);
  EXPECT_EQ(direct.atol, widened.atol);
  EXPECT_NEAR(direct.rel_frobenius, widened.rel_frobenius, 1e-12 * widened.rel_frobenius);
}

}  // namespace
}  // namespace ptxb
