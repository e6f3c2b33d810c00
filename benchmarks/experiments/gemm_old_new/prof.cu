// One shape (argv: M N K [samples]): cuBLAS (pedantic FP32), the old and the new library's default
// gemm, each the median of `samples` event timings with 256 MiB written before each (L2 flushed);
// then the ratios to cuBLAS and each version's max |C - C_cublas| / max |C_cublas|. NOTIME=1: only
// run the new version `samples` times (for Nsight Compute).
#include <cublas_v2.h>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cmath>
#include "../cublas_check.cuh"
#include "../cuda_check.cuh"
cudaError_t gemm_old(int, int, int, const float*, const float*, float*, cudaStream_t);
cudaError_t gemm_new(int, int, int, const float*, const float*, float*, cudaStream_t);
static char* flush_buf;
static const size_t flush_bytes = 256u << 20;
template <class F>
double median_us(F f, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int i = 0; i < 2; ++i) f();
  for (int i = 0; i < reps; ++i) {
    CK(cudaMemsetAsync(flush_buf, i, flush_bytes));
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
__global__ void fill(float* p, size_t n, unsigned s) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u + s * 97u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = static_cast<float>(h % 1021) / 512.0f - 1.0f;
  }
}
int main(int argc, char** argv) {
  int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
  int reps = argc > 4 ? atoi(argv[4]) : 15;
  CK(cudaMalloc(&flush_buf, flush_bytes));
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  CKB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
  float *a, *b, *c, *c2;
  CK(cudaMalloc(&a, size_t(m) * k * 4));
  CK(cudaMalloc(&b, size_t(n) * k * 4));
  CK(cudaMalloc(&c, size_t(m) * n * 4));
  CK(cudaMalloc(&c2, size_t(m) * n * 4));
  fill<<<512, 256>>>(a, size_t(m) * k, 1);
  CK(cudaGetLastError());
  fill<<<512, 256>>>(b, size_t(n) * k, 2);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  const float one = 1, zero = 0;
  auto cub = [&] { CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c2, n)); };
  auto t_old = [&] { CK(gemm_old(m, n, k, a, b, c, 0)); };
  auto t_new = [&] { CK(gemm_new(m, n, k, a, b, c, 0)); };
  std::vector<float> x(size_t(m) * n), y(size_t(m) * n);
  cub();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(y.data(), c2, y.size() * 4, cudaMemcpyDeviceToHost));
  double mx = 0;
  for (float v : y) mx = std::max(mx, (double)std::fabs(v));
  auto check = [&](auto f) {
    CK(cudaMemset(c, 0xff, size_t(m) * n * 4));
    f();
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(x.data(), c, x.size() * 4, cudaMemcpyDeviceToHost));
    double md = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      md = std::max(md, (double)std::fabs(x[i] - y[i]));
      if (x[i] != x[i]) md = 1e30;
    }
    return md / mx;
  };
  const double e_old = check(t_old), e_new = check(t_new);
  if (getenv("NOTIME")) {
    for (int i = 0; i < reps; ++i) {
      t_new();
    }
    CK(cudaDeviceSynchronize());
    return 0;
  }
  for (int rep = 0; rep < 1; ++rep) {
    double t1 = median_us(cub, reps), t2 = median_us(t_old, reps), t3 = median_us(t_new, reps);
    std::printf("%5dx%5dx%5d cublas %7.1f us | old %7.1f us %.3f | new %7.1f us %.3f | err %.1e %.1e\n", m, n, k, t1,
                t2, t1 / t2, t3, t1 / t3, e_old, e_new);
  }
}
