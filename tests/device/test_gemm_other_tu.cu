// The second translation unit of test_gemm: see gemm_other_tu.cuh.
#include "gemm_other_tu.cuh"

namespace tilecraft::test {

cudaError_t gemm_deep_in_other_tu(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                  float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                                  float beta, float* c, std::int64_t ldc, cudaStream_t stream) {
  return gemm<GemmPolicyDeep>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream);
}

}  // namespace tilecraft::test
