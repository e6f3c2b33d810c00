// tiled_gemm on BF16 operands (GemmMath::mma16) against the exact product: the 128 x 128
// configuration's cases of mma16_testbed.cuh for __nv_bfloat16 (the 64 x 64 ones:
// test_mma_tiled_bf16_small.cu, a unit of its own, so that neither is the longest compile).
#include "mma16_testbed.cuh"

TEST_CASE("tiled_gemm on BF16 operands, 128 x 128 tiles: the exact product, every order and layout") {
  tilecraft::test::mma16::check_every_order_and_layout<__nv_bfloat16, /*Large=*/true>();
}
