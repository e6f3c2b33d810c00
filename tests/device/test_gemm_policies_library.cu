// test_gemm (see gemm_testbed.cuh): gemm<Policy> on the library's float policies chosen
// explicitly, and one kernel launched from two translation units (this file and
// test_gemm_other_tu.cu), each opting in its own copy. (The user configurations are
// test_gemm_policies.cu's: one unit of both was the GPU check's longest compile with device
// assertions, 140 s.)
#include <doctest/doctest.h>

#include <cstdint>

#include "gemm_other_tu.cuh"
#include "gemm_testbed.cuh"

using namespace tilecraft::test::gemm;

TEST_CASE_TEMPLATE("gemm<Policy>: the library's float policies, chosen explicitly", Policy, tilecraft::GemmPolicyLarge,
                   tilecraft::GemmPolicyLarge3, tilecraft::GemmPolicyHuge, tilecraft::GemmPolicySkinny,
                   tilecraft::GemmPolicyMedium, tilecraft::GemmPolicySmall) {
  check_policy<Policy>();
}

TEST_CASE("gemm: one kernel launched from two translation units, each opting in its own copy") {
  // gemm<GemmPolicyDeep> (this file) and the vector-only launcher entry (test_gemm_other_tu.cu)
  // launch the same kernel instantiation, each file its own copy, which needs its own opt-in to
  // 52 KiB of shared memory: the launcher once remembered the opt-in per template instantiation
  // (one flag for all files), and whichever file came second failed with cudaErrorInvalidValue.
  // A^T as stored and B row-major, aligned with leading dimensions of multiples of 4, so that
  // gemm<GemmPolicyDeep> runs the vector kernel too; alternating which file goes first.
  using tilecraft::test::GemmPolicyDeep;
  auto other_tu = [](const Problem<float>& p, const float* a, const float* b, float* c, cudaStream_t stream) {
    return tilecraft::test::gemm_deep_vector_only_in_other_tu(p.m, p.n, p.k, p.alpha, a, p.lda(), b, p.ldb(), p.beta, c,
                                                              p.ldc(), stream);
  };
  std::uint64_t salt = 9100;
  for (int v = 0; v < 6; ++v) {
    const Problem<float> p =
        make_problem(combos[1], 70 + 31 * v, 45 + 17 * v, 33 + 40 * v, layouts[1], 1.0f, v % 2 ? 0.0f : -0.5f);
    if (v % 2 == 0) {
      check_gemm(p, ++salt, run_gemm<float, GemmPolicyDeep>, nullptr, true);
      check_gemm(p, ++salt, other_tu, nullptr, true);
    } else {
      check_gemm(p, ++salt, other_tu, nullptr, true);
      check_gemm(p, ++salt, run_gemm<float, GemmPolicyDeep>, nullptr, true);
    }
  }
}
