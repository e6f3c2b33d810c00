// The FP64 GEMM variants of run.sh against cuBLAS's DGEMM: C = A * B, all column-major (NN),
// alpha 1, beta 0, inputs random in [-1, 1) (53-bit, from experiment_util.cuh's hash).
// argv: shapes MxNxK (default 2048x2048x2048 4096x4096x4096 3000x3000x3000); ROUNDS
// (environment, default 21, at least 11): timed samples per variant and shape.
// Per shape: each variant's C checked against cuBLAS's (max |C - C_cublas| / max |C_cublas|;
// above 1e-12, or NaN, marks it BAD), three untimed warm-up calls each, then ROUNDS rounds in
// each of which every variant (cuBLAS first in round 0, the order rotated by one each round) is
// timed once with CUDA events, twice the L2 written just before each sample outside the timed
// region; the median (and the fastest) of each, TFLOP/s from the median, and the ratio cuBLAS
// median / variant median (above 1: faster than cuBLAS). Each variant writes a C of its own, checked
// again after the timed rounds.
// The variants (TC_VARIANTS: a list of TC_VARIANT(name)) come from lib.cu, one object each.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../cublas_check.cuh"
#include "../experiment_util.cuh"

#if !defined(TC_VARIANTS)
#error "main.cu: build with -DTC_VARIANTS='TC_VARIANT(def) TC_VARIANT(L) ...' (run.sh does)"
#endif
using Fn = cudaError_t (*)(int, int, int, const double*, const double*, double*, cudaStream_t);
#define TC_VARIANT(name)                                                                       \
  cudaError_t gemm_##name(int, int, int, const double*, const double*, double*, cudaStream_t); \
  const char* desc_##name();
TC_VARIANTS
#undef TC_VARIANT
#define TC_VARIANT(name) {#name, gemm_##name, desc_##name},
struct Variant {
  const char* name;
  Fn fn;
  const char* (*desc)();
};
static const Variant variants[] = {TC_VARIANTS};
#undef TC_VARIANT
constexpr int nvar = sizeof(variants) / sizeof(variants[0]);

// x[i] uniform in [-1, 1) with 53 random bits: two 32-bit hashes of the index (seeded by s).
__global__ void fill(double* p, size_t n, unsigned s) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const long long base = 2ll * static_cast<long long>(i) + (static_cast<long long>(s) << 30);
    const unsigned long long hi = index_hash(base), lo = index_hash(base + 1);
    const unsigned long long bits = (hi << 21) ^ (lo >> 11);  // 53 bits
    p[i] = static_cast<double>(bits) * 0x1p-52 - 1.0;
  }
}

// max |x - y| / max |y| over n elements (NaN in x: infinity).
static double rel_diff(const std::vector<double>& x, const std::vector<double>& y, double max_y) {
  double md = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = std::fabs(x[i] - y[i]);
    if (!(d <= md)) md = std::isnan(d) ? INFINITY : d;
  }
  return max_y > 0 ? md / max_y : md;
}

int main(int argc, char** argv) {
  std::vector<std::string> shapes;
  for (int i = 1; i < argc; ++i) shapes.push_back(argv[i]);
  if (shapes.empty()) shapes = {"2048x2048x2048", "4096x4096x4096", "3000x3000x3000"};
  const int rounds = std::max(11, std::getenv("ROUNDS") ? std::atoi(std::getenv("ROUNDS")) : 21);

  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  const L2Flush flush = l2_flush_buffer();
  std::printf("%s: %d SMs, L2 %d MiB (flush %zu MiB); %d rounds\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, flush.bytes >> 20, rounds);
  std::printf("cublas: cublasDgemm (default math mode)\n");
  for (const Variant& v : variants) std::printf("%-6s: %s\n", v.name, v.desc());

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  CKB(cublasSetStream(h, s));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  std::printf("\n%-15s %-7s %11s %11s %8s %8s %10s\n", "shape", "variant", "median us", "min us", "TFLOP/s", "x cuBLAS",
              "err");
  for (const std::string& shape : shapes) {
    int m = 0, n = 0, k = 0;
    if (std::sscanf(shape.c_str(), "%dx%dx%d", &m, &n, &k) != 3 || m <= 0 || n <= 0 || k <= 0) {
      std::printf("bad shape %s (want MxNxK)\n", shape.c_str());
      return 1;
    }
    const size_t mn = size_t(m) * n;
    double *a, *b;
    CK(cudaMalloc(&a, size_t(m) * k * sizeof(double)));
    CK(cudaMalloc(&b, size_t(k) * n * sizeof(double)));
    // C per runner: [0] cuBLAS, [1 + v] variant v.
    std::vector<double*> c(nvar + 1);
    for (double*& p : c) CK(cudaMalloc(&p, mn * sizeof(double)));
    fill<<<1024, 256, 0, s>>>(a, size_t(m) * k, 1);
    CK(cudaGetLastError());
    fill<<<1024, 256, 0, s>>>(b, size_t(k) * n, 2);
    CK(cudaGetLastError());
    const double one = 1, zero = 0;
    // Runner r: 0 cuBLAS, 1 + v variant v.
    auto run = [&](int r) {
      if (r == 0) {
        CKB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, m, b, k, &zero, c[0], m));
      } else {
        CK(variants[r - 1].fn(m, n, k, a, b, c[r], s));
      }
    };
    run(0);
    CK(cudaStreamSynchronize(s));
    std::vector<double> ref(mn), x(mn);
    CK(cudaMemcpy(ref.data(), c[0], mn * sizeof(double), cudaMemcpyDeviceToHost));
    double max_ref = 0;
    for (double v : ref) max_ref = std::max(max_ref, std::fabs(v));
    std::vector<double> err(nvar + 1, 0.0);
    auto check = [&](int r) {
      CK(cudaMemcpy(x.data(), c[r], mn * sizeof(double), cudaMemcpyDeviceToHost));
      err[r] = std::max(err[r], rel_diff(x, ref, max_ref));
    };
    for (int r = 1; r <= nvar; ++r) {
      CK(cudaMemsetAsync(c[r], 0xff, mn * sizeof(double), s));  // NaN: an element never written shows
      run(r);
      CK(cudaStreamSynchronize(s));
      check(r);
    }
    for (int w = 0; w < 3; ++w) {
      for (int r = 0; r <= nvar; ++r) run(r);
    }
    CK(cudaStreamSynchronize(s));
    std::vector<std::vector<float>> t(nvar + 1);
    for (int round = 0; round < rounds; ++round) {
      for (int i = 0; i <= nvar; ++i) {
        const int r = (round + i) % (nvar + 1);
        t[r].push_back(timed_us([&] { run(r); }, flush.ptr, flush.bytes, round & 0xff, s, e0, e1));
      }
    }
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    for (int r = 1; r <= nvar; ++r) check(r);  // C of the last timed call
    const double flop = 2.0 * m * n * k;
    std::vector<double> med(nvar + 1);
    for (int r = 0; r <= nvar; ++r) {
      std::sort(t[r].begin(), t[r].end());
      med[r] = t[r][t[r].size() / 2];
    }
    for (int r = 0; r <= nvar; ++r) {
      const bool bad = r > 0 && !(err[r] < 1e-12);
      std::printf("%-15s %-7s %11.1f %11.1f %8.2f %8.3f %10.2e%s\n", shape.c_str(),
                  r == 0 ? "cublas" : variants[r - 1].name, med[r], double(t[r][0]), flop / (med[r] * 1e-6) / 1e12,
                  med[0] / med[r], err[r], bad ? " BAD" : "");
    }
    std::fflush(stdout);
    CK(cudaFree(a));
    CK(cudaFree(b));
    for (double* p : c) CK(cudaFree(p));
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  CKB(cublasDestroy(h));
  CK(cudaStreamDestroy(s));
  CK(cudaFree(flush.ptr));
  return 0;
}
