// gemm<Policy> for double: user configurations (positional and of named members) and the
// double defaults, chosen explicitly (see gemm_testbed.cuh).
#include <doctest/doctest.h>

#include "gemm_testbed.cuh"

using namespace tilecraft::test::gemm;

// Compiled here for the whole executable (see gemm_testbed.cuh).
TILECRAFT_TEST_GEMM_EPILOGUE_RUN(, double);
using tilecraft::GemmPolicy;
using tilecraft::RegBlock;

namespace {

// Double: 2 stages; TK = 4 with 2 x 4 doubles (one double2 A vector, two B vectors); 8 x 8
// doubles per thread (128 accumulator registers: the limit of what fits); TK = 16 above 48 KiB
// (the dynamic opt-in path); groups of 3 tile rows with K never split.
// The rules whose code depends on the element type (fragment widths, registers, shared memory);
// the block order and K splitting are the float policies' (test_gemm_policies.cu).
using PolicyF64_32 = GemmPolicy<32, 64, RegBlock<2, 4>, 4, 4, 3, 1, 8, 16, double>;     // double2 A fragments
using PolicyF64_8x8 = GemmPolicy<128, 128, RegBlock<8, 8>, 8, 4, 2, 1, 8, 16, double>;  // 128 accumulators
using PolicyF64_128 = GemmPolicy<128, 64, RegBlock<4, 8>, 16, 4, 2, 1, 8, 16, double>;
static_assert(PolicyF64_128::tiled::smem_bytes > 48 * 1024 && PolicyF64_128::tiled::smem_bytes <= 64 * 1024);
// A policy of named members (GemmPolicyDefaults' defaults, the rest as set), passed bare.
struct NamedF64 : tilecraft::GemmPolicyDefaults<double> {
  static constexpr int tile_m = 64, tile_n = 32, tile_k = 16, min_blocks_per_sm = 2, max_split_k = 4;
  using reg_block = RegBlock<4, 2>;
};

}  // namespace

TEST_CASE_TEMPLATE("gemm<Policy> for double: user configurations and the defaults, chosen explicitly", Policy,
                   PolicyF64_32, PolicyF64_8x8, PolicyF64_128, NamedF64, tilecraft::GemmPolicyLargeF64,
                   tilecraft::GemmPolicyMediumF64, tilecraft::GemmPolicySmallF64) {
  check_policy<Policy>();
}
