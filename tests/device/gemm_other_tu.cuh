// A GEMM kernel launched from two translation units (test_gemm_policies_library.cu and
// test_gemm_other_tu.cu) through two different launcher functions: nvcc gives each file its own
// copy of the kernel, and each copy must be opted in to its dynamic shared memory on its own.
// (Through one launcher function both files would run the one copy of it the linker keeps.)
#pragma once

#include <cstdint>

#include <tilecraft/device/gemm.cuh>

namespace tilecraft::test {

//! More than the 48 KiB of shared memory a block gets without opting in, less than sm_75's
//! 64 KiB: 32 x 64 tiles, K step 32, 4 stages (52 KiB).
using GemmPolicyDeep = GemmPolicy<32, 64, RegBlock<4, 4>, 32, 4, 4>;
static_assert(GemmPolicyDeep::tiled::smem_bytes > 48 * 1024 && GemmPolicyDeep::tiled::smem_bytes <= 64 * 1024,
              "GemmPolicyDeep must need the opt-in, and fit every supported GPU");

//! Row-major C (m x n) = alpha A B + beta C with A column-major (m x k) and B row-major (k x n),
//! 16-byte aligned with leading dimensions that are multiples of 4, through the launcher's
//! vector-only entry (detail::launch_product<GemmPolicyDeep, true>, the launcher's default split
//! limits): a launcher function other than the one gemm<GemmPolicyDeep> runs (launch_product<
//! GemmPolicyDeep, false>), instantiated only in test_gemm_other_tu.cu, that launches the same
//! kernel instantiation (its own file's copy).
cudaError_t gemm_deep_vector_only_in_other_tu(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                              const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                                              float beta, float* c, std::int64_t ldc, cudaStream_t stream);

}  // namespace tilecraft::test
