// Compile-time probe (.ci/compile-time): a translation unit with one double tilecraft::gemm call.
#include <tilecraft/device/gemm.cuh>

cudaError_t dgemm(const double* a, const double* b, double* c, int n, cudaStream_t stream) {
  return tilecraft::gemm(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none, n, n, n, 1.0, a, n, b,
                         n, 0.0, c, n, stream);
}
