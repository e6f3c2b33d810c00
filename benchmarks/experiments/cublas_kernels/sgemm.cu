// One cuBLAS SGEMM (pedantic FP32, as the benchmarks run it) of argv M N K, row-major C = A B as
// the benchmarks and ../gemm_old_new compute it (cuBLAS's column-major C^T = B^T A^T), twice:
// for Nsight Compute to name the kernels cuBLAS launches for the shape and their grids.
#include <cublas_v2.h>

#include <cstdlib>

#include "../cublas_check.cuh"
#include "../cuda_check.cuh"

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const int m = std::atoi(argv[1]), n = std::atoi(argv[2]), k = std::atoi(argv[3]);
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  CKB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
  float *a, *b, *c;
  CK(cudaMalloc(&a, std::size_t(m) * k * 4));
  CK(cudaMalloc(&b, std::size_t(n) * k * 4));
  CK(cudaMalloc(&c, std::size_t(m) * n * 4));
  CK(cudaMemset(a, 0, std::size_t(m) * k * 4));
  CK(cudaMemset(b, 0, std::size_t(n) * k * 4));
  const float one = 1, zero = 0;
  for (int i = 0; i < 2; ++i) CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n));
  CK(cudaDeviceSynchronize());
  CKB(cublasDestroy(h));
  return 0;
}
