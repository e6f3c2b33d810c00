// Experiment (not part of the build): tilecraft::gemm beside cublasGemmEx in the same math, on
// row-major operands with B as stored (NN: B k x n, N-contiguous) and transposed (TN: B given
// as n x k, K-contiguous), so that the cost of bringing an M- or N-contiguous float operand
// into K-contiguous rows (TF32 and TF32x3 transpose it into workspace first) shows beside the
// product itself. Medians of 15 after 2 warm-ups, L2 flushed before each sample.
//
//   nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include \
//        benchmarks/experiments/gemm_layouts.cu -lcublas -o gemm_layouts && ./gemm_layouts
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tilecraft/device/gemm.cuh>
#include "cublas_check.cuh"

#include "cuda_check.cuh"

namespace {

void* flush_buffer = nullptr;
constexpr std::size_t flush_bytes = std::size_t{256} << 20;

template <class F>
double median_us(F f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> ts;
  for (int r = 0; r < 17; ++r) {
    CK(cudaMemsetAsync(flush_buffer, r, flush_bytes));
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 2) ts.push_back(ms * 1000.0f);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

template <class T>
__global__ void fill(T* p, std::size_t count, unsigned seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = static_cast<T>(static_cast<float>(h % 17) / 8.0f - 1.0f);
  }
}

struct Shape {
  int m, n, k;
};

}  // namespace

int main() {
  CK(cudaMalloc(&flush_buffer, flush_bytes));
  cublasHandle_t handle;
  CKB(cublasCreate(&handle));
  const float one = 1.0f, zero = 0.0f;
  const Shape shapes[] = {
      {1024, 1024, 1024}, {2048, 2048, 2048}, {3072, 3072, 3072}, {4096, 4096, 4096}, {8192, 8192, 8192}};
  using tilecraft::GemmMath;
  using tilecraft::Op;
  using tilecraft::Order;
  for (const Shape& s : shapes) {
    const int m = s.m, n = s.n, k = s.k;
    const double tflop = 2.0 * m * n * k / 1e6;  // per microsecond -> TFLOP/s
    float *a, *b, *c;
    CK(cudaMalloc(&a, std::size_t(m) * k * 4));
    CK(cudaMalloc(&b, std::size_t(n) * k * 4));
    CK(cudaMalloc(&c, std::size_t(m) * n * 4));
    fill<<<1024, 256>>>(a, std::size_t(m) * k, 1);
    CK(cudaGetLastError());
    fill<<<1024, 256>>>(b, std::size_t(n) * k, 2);
    CK(cudaGetLastError());
    __nv_bfloat16 *a16, *b16;
    CK(cudaMalloc(&a16, std::size_t(m) * k * 2));
    CK(cudaMalloc(&b16, std::size_t(n) * k * 2));
    fill<<<1024, 256>>>(a16, std::size_t(m) * k, 3);
    CK(cudaGetLastError());
    fill<<<1024, 256>>>(b16, std::size_t(n) * k, 4);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    for (bool tn : {false, true}) {
      const Op op_b = tn ? Op::transpose : Op::none;
      const int ldb = tn ? k : n;
      const cublasOperation_t cb = tn ? CUBLAS_OP_T : CUBLAS_OP_N;
      CKB(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
      const double c16 = median_us([&] {
        CKB(cublasGemmEx(handle, cb, CUBLAS_OP_N, n, m, k, &one, b16, CUDA_R_16BF, ldb, a16, CUDA_R_16BF, k, &zero, c,
                         CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      });
      const double t16 = median_us(
          [&] { CK(tilecraft::gemm(Order::row_major, Op::none, op_b, m, n, k, 1.0f, a16, k, b16, ldb, 0.0f, c, n)); });
      const double ctf = median_us([&] {
        CKB(cublasGemmEx(handle, cb, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_32F, ldb, a, CUDA_R_32F, k, &zero, c,
                         CUDA_R_32F, n, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
      });
      const double ttf = median_us([&] {
        CK(tilecraft::gemm<GemmMath::tf32>(Order::row_major, Op::none, op_b, m, n, k, 1.0f, a, k, b, ldb, 0.0f, c, n));
      });
      CKB(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
      const double c32 =
          median_us([&] { CKB(cublasSgemm(handle, cb, CUBLAS_OP_N, n, m, k, &one, b, ldb, a, k, &zero, c, n)); });
      const double tx3 = median_us([&] {
        CK(tilecraft::gemm<GemmMath::tf32x3>(Order::row_major, Op::none, op_b, m, n, k, 1.0f, a, k, b, ldb, 0.0f, c,
                                             n));
      });
      std::printf(
          "%5d^3 %s: bf16 %6.1f vs cuBLAS %6.1f (%.3fx) | tf32 %6.1f vs cuBLAS tf32 %6.1f (%.3fx) | tf32x3 %5.1f vs "
          "SGEMM %5.1f (%.3fx) TFLOP/s\n",
          m, tn ? "TN" : "NN", tflop / t16, tflop / c16, c16 / t16, tflop / ttf, tflop / ctf, ctf / ttf, tflop / tx3,
          tflop / c32, c32 / tx3);
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    CK(cudaFree(a16));
    CK(cudaFree(b16));
  }
  CKB(cublasDestroy(handle));
  return 0;
}
