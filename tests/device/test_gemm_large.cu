// test_gemm (see gemm_testbed.cuh): large shapes against cuBLAS only (no host reference):
// 1000 x 999 x 1001 in both orders with every op, 2048^3, and the shapes that take
// GemmPolicyLargeVector and GemmPolicyHuge, with the operands as given and packed. Skipped in a
// light run (TILECRAFT_TEST_HUGE=0).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>

#include "gemm_testbed.cuh"

using namespace tilecraft::test::gemm;

// ---- large shapes: cuBLAS only ----------------------------------------------------------------------

TEST_CASE_TEMPLATE("gemm against cuBLAS: 1000 x 999 x 1001 in both orders with every op, and 2048^3", T, float,
                   double) {
  if (!full_run()) {
    MESSAGE("TILECRAFT_TEST_HUGE=0: skipping the 1000 x 999 x 1001 and 2048^3 cases");
    return;
  }
  Cublas cublas;
  std::uint64_t salt = 8000;
  int variant = 0;
  for (const Combo& c : combos) {
    const Problem<T> p = make_problem(c, 1000, 999, 1001, layouts[variant % layout_count], variant % 2 ? T(1) : T(0.75),
                                      variant % 3 ? T(0) : T(-1.5));
    check_gemm(p, ++salt, run_gemm<T>, &cublas, false);
    ++variant;
  }
  // The large default by shape (float: 256 tiles of 128 x 128, double: 512 of 128 x 64); once
  // aligned with vector paths, once column-major with odd leading dimensions and unaligned
  // bases (the element-by-element path) and beta != 0.
  check_gemm(make_problem(combos[0], 2048, 2048, 2048, layouts[0], T(1), T(0)), ++salt, run_gemm<T>, &cublas, false);
  check_gemm(make_problem(combos[5], 2048, 2048, 2048, layouts[2], T(-1), T(0.5)), ++salt, run_gemm<T>, &cublas, false);
  // Where both operands fill in vectors (and the GPU holds two GemmPolicyLargeVector blocks per
  // SM, e.g. sm_90), float takes GemmPolicyHuge (256 x 128) for K >= 1024 when C's tiles fill
  // at least half of a last wave, else GemmPolicyLargeVector (K step 32). Huge's shape comes
  // from this GPU's SM count: 2000 rows (7.8 tiles of 256) by as many ragged 128-column tiles as
  // make 8 x floor(SMs / 8) tiles (132 SMs: 2020 columns, 128 tiles), K = 1037 (64.8 steps of
  // 16). A^T as stored (no packing): that and 2048^3; A packed: that and 1537 x 1544 x 37
  // (LargeVector, ragged along M, a K of one and a bit steps).
  int device = 0, sms = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::int64_t huge_n = 128 * std::max(sms / 8, 1) - 28;
  CHECK(tilecraft::detail::huge_policy_pays(tilecraft::detail::facts_of<tilecraft::GemmPolicyHuge>(), 2000, huge_n,
                                            1037, sms, tilecraft::detail::GemmHugeLimits{}));
  check_gemm(make_problem(combos[1], 2048, 2048, 2048, layouts[1], T(1), T(0.5)), ++salt, run_gemm<T>, &cublas, false);
  check_gemm(make_problem(combos[1], 2000, huge_n, 1037, layouts[1], T(-1), T(0)), ++salt, run_gemm<T>, &cublas, false);
  const auto packed = run_gemm<T>(tunables_pack<T>(std::int64_t{64} << 20));
  check_gemm(make_problem(combos[0], 1537, 1544, 37, layouts[1], T(0.75), T(0)), ++salt, packed, &cublas, false);
  check_gemm(make_problem(combos[0], 2000, huge_n, 1037, layouts[1], T(0.5), T(2)), ++salt, packed, &cublas, false);
}
