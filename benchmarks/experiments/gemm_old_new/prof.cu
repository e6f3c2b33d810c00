// One shape (argv: M N K [samples]): cuBLAS (pedantic FP32) and every variant of the library
// linked in (TC_VARIANTS, a list of TC_VARIANT(name), each defining gemm_<name>: see lib.cu;
// by default old and new), each the median of `samples` event timings with 256 MiB written
// before each (L2 flushed; experiment_util.cuh's median_us), in two interleaved rounds; the
// ratio to cuBLAS (the better round's) and each variant's max |C - C_cublas| / max |C_cublas|.
// NOTIME=1: only run the last variant `samples` times (for Nsight Compute). Every gemm
// experiment's harness (../gemm_fill_deal and ../gemm_policies_* build this file too). Runs
// recorded in TUNING.md before 2026-12-01 timed one round, old then new, with two warm-ups and
// another hash for the inputs.
#include <cublas_v2.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../cublas_check.cuh"
#include "../experiment_util.cuh"
#if !defined(TC_VARIANTS)
#define TC_VARIANTS TC_VARIANT(old) TC_VARIANT(new)
#endif
using Fn = cudaError_t (*)(int, int, int, const float*, const float*, float*, cudaStream_t);
#define TC_VARIANT(name) cudaError_t gemm_##name(int, int, int, const float*, const float*, float*, cudaStream_t);
TC_VARIANTS
#undef TC_VARIANT
#define TC_VARIANT(name) {#name, gemm_##name},
struct Variant {
  const char* name;
  Fn fn;
} variants[] = {TC_VARIANTS};
static char* flush_buf;
static const size_t flush_bytes = 256u << 20;
__global__ void fill(float* p, size_t n, unsigned s) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    p[i] = static_cast<float>(index_hash(static_cast<long long>(i) + 977ll * s) % 1021) / 512.0f - 1.0f;
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
  std::vector<float> x(size_t(m) * n), y(size_t(m) * n);
  cub();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(y.data(), c2, y.size() * 4, cudaMemcpyDeviceToHost));
  double mx = 0;
  for (float v : y) mx = std::max(mx, (double)std::fabs(v));
  constexpr int nv = sizeof(variants) / sizeof(variants[0]);
  double err[nv], t[nv][2], tc[2];
  for (int v = 0; v < nv; ++v) {
    CK(cudaMemset(c, 0xff, size_t(m) * n * 4));
    CK(variants[v].fn(m, n, k, a, b, c, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(x.data(), c, x.size() * 4, cudaMemcpyDeviceToHost));
    double md = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      md = std::max(md, (double)std::fabs(x[i] - y[i]));
      if (x[i] != x[i]) md = 1e30;
    }
    err[v] = md / mx;
  }
  if (std::getenv("NOTIME")) {
    for (int i = 0; i < reps; ++i) CK(variants[nv - 1].fn(m, n, k, a, b, c, 0));
    CK(cudaDeviceSynchronize());
    return 0;
  }
  for (int round = 0; round < 2; ++round) {
    tc[round] = median_us(cub, flush_buf, flush_bytes, 0, reps);
    for (int v = 0; v < nv; ++v) {
      t[v][round] = median_us([&] { CK(variants[v].fn(m, n, k, a, b, c, 0)); }, flush_buf, flush_bytes, 0, reps);
    }
  }
  std::printf("%5dx%5dx%5d cublas %6.1f/%6.1f", m, n, k, tc[0], tc[1]);
  for (int v = 0; v < nv; ++v) {
    const double best = std::min(t[v][0], t[v][1]);
    std::printf(" | %s %6.1f/%6.1f %.3f%s", variants[v].name, t[v][0], t[v][1], std::min(tc[0], tc[1]) / best,
                err[v] > 1e-4 ? " BAD" : "");
  }
  std::printf("\n");
}
