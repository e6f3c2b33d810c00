// tiled_gemm on FP16 operands (GemmMath::mma16) against the exact product: the 64 x 64
// configurations' cases of mma16_testbed.cuh for __half (the 128 x 128 one:
// test_mma_tiled_f16.cu).
#include "mma16_testbed.cuh"

TEST_CASE("tiled_gemm on FP16 operands, 64 x 64 tiles: the exact product, every order and layout") {
  tilecraft::test::mma16::check_every_order_and_layout<__half, /*Large=*/false>();
}

TEST_CASE("tiled_gemm on FP16 operands with C of the same type: the exact product rounded once") {
  tilecraft::test::mma16::check_c_of_operand_type<__half>();
}

TEST_CASE("tiled_gemm on FP16 operands: warp tiles one MMA tile wide (B fragments by ldmatrix.x2)") {
  tilecraft::test::mma16::check_narrow_warp_tiles<__half>();
}
