// Compile-time probe (.ci/compile-time): a translation unit with one float tilecraft::gemm call,
// what a user's file with a GEMM costs to compile.
#include <tilecraft/device/gemm.cuh>

cudaError_t sgemm(const float* a, const float* b, float* c, int n, cudaStream_t stream) {
  return tilecraft::gemm(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none, n, n, n, 1.0f, a, n, b,
                         n, 0.0f, c, n, stream);
}
