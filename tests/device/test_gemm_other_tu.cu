// The second translation unit of test_gemm: see gemm_other_tu.cuh.
#include "gemm_other_tu.cuh"

namespace tilecraft::test {

cudaError_t gemm_deep_vector_only_in_other_tu(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                              const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                                              float beta, float* c, std::int64_t ldc, cudaStream_t stream) {
  int device = 0, sms = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_RETURN_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const detail::LauncherEpilogue<float, BasicLinearCombination<float>> epi{BasicLinearCombination<float>{alpha, beta},
                                                                           false, false};
  return detail::gemm_row_major_c<GemmPolicyDeep, true>(
      Order::col_major, Order::row_major, MatrixRef<const float>{a, m, k, lda}, MatrixRef<const float>{b, k, n, ldb},
      MatrixRef<float>{c, m, n, ldc}, epi, sms, stream);
}

}  // namespace tilecraft::test
