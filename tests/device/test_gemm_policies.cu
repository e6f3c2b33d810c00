// test_gemm (see gemm_testbed.cuh): gemm<Policy> on user configurations, float (the library's
// float policies chosen explicitly: test_gemm_policies_library.cu; double:
// test_gemm_policies_f64.cu).
#include <doctest/doctest.h>

#include "gemm_testbed.cuh"

using namespace tilecraft::test::gemm;

// Compiled here for the whole executable (see gemm_testbed.cuh).
TILECRAFT_TEST_GEMM_EPILOGUE_RUN(, float);
using tilecraft::GemmPolicy;
using tilecraft::RegBlock;

namespace {

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

TEST_CASE_TEMPLATE("gemm<Policy>: user configurations", Policy, Policy32, Policy128, Policy64Group3) {
  check_policy<Policy>();
}
