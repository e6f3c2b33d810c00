// Compile-time probe (.ci/compile-time): one float tilecraft::gemm call with an explicit policy
// (one shape class: its kernels for the four operand orders).
#include <tilecraft/device/gemm.cuh>

cudaError_t sgemm(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
  return tilecraft::gemm<tilecraft::GemmPolicyLarge>(tilecraft::Order::row_major, tilecraft::Op::none,
                                                     tilecraft::Op::none, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n,
                                                     stream);
}
