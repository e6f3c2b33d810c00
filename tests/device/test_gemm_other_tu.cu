// The second translation unit of test_gemm's two-file case: see gemm_other_tu.cuh.
#include "gemm_other_tu.cuh"

namespace tilecraft::test {

cudaError_t gemm_deep_vector_only_in_other_tu(std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                              const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                                              float beta, float* c, std::int64_t ldc, cudaStream_t stream) {
  detail::DeviceLimits limits;
  TILECRAFT_RETURN_IF_ERROR(detail::device_limits(limits));
  const detail::GemmProblem<float> problem{Order::col_major,
                                           Order::row_major,
                                           MatrixRef<const float>{a, m, k, lda},
                                           MatrixRef<const float>{b, k, n, ldb},
                                           MatrixRef<float>{c, m, n, ldc},
                                           false};
  const detail::LauncherEpilogue<float, BasicLinearCombination<float>> epi{BasicLinearCombination<float>{alpha, beta}};
  return detail::launch_product<GemmPolicyDeep, true>(problem, epi, limits.sms, detail::GemmSplitLimits{}, stream);
}

}  // namespace tilecraft::test
