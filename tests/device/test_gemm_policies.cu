// test_gemm (see gemm_testbed.cuh): gemm<Policy> on user configurations and on the defaults
// chosen explicitly, float and double; and one kernel launched from two translation units (this
// file and test_gemm_other_tu.cu), each opting in its own copy.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>

#include "gemm_other_tu.cuh"
#include "gemm_testbed.cuh"

using namespace tilecraft::test::gemm;

// Compiled here for the whole executable (see gemm_testbed.cuh).
TILECRAFT_TEST_GEMM_EPILOGUE_RUN(, float);
using tilecraft::GemmPolicy;
using tilecraft::RegBlock;

namespace {

// ---- user policies ------------------------------------------------------------------------------

// (Each policy instantiates the launcher's seven kernels, for every architecture: one policy
// per rule it exercises.)
using Policy32 = GemmPolicy<32, 64, RegBlock<2, 4>, 4, 4, 3>;     // TK = 4, float2 A fragments
using Policy128 = GemmPolicy<128, 64, RegBlock<8, 4>, 16, 4, 4>;  // TK = 16, 4 stages
// 2 stages, groups of 3 tile rows, K never split.
using Policy64Group3 = GemmPolicy<64, 64, RegBlock<4, 4>, 8, 4, 2, 1, 3, 1>;
static_assert(Policy64Group3::tiled::threads == 256 && Policy32::tiled::threads == 256 &&
              Policy128::tiled::threads == 256);
// Above the 48 KiB of static shared memory: the launcher's dynamic opt-in path.
static_assert(Policy128::tiled::smem_bytes > 48 * 1024);

}  // namespace

TEST_CASE_TEMPLATE("gemm<Policy>: user configurations and the defaults, chosen explicitly", Policy, Policy32, Policy128,
                   Policy64Group3, tilecraft::GemmPolicyLarge, tilecraft::GemmPolicyLarge3, tilecraft::GemmPolicyHuge,
                   tilecraft::GemmPolicySkinny, tilecraft::GemmPolicyMedium, tilecraft::GemmPolicySmall) {
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
