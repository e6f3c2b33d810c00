// The scan's tile shape by size, since the L2 prefetch: tilecraft::inclusive_scan with each
// tile policy (the defaults: 256 x 8 up to 512 KiB, 256 x 32 in registers up to 4 MiB, 128 x 64
// in two passes beyond), f32, 2^20 ... 2^26 items, beside cub::DeviceScan::InclusiveSum (L2
// flushed, medians of 11 runs, us). Every output compared bit for bit with the default's.
#include <cub/device/device_scan.cuh>
#include <tilecraft/device/scan.cuh>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../experiment_util.cuh"

using tilecraft::ScanPolicy;
using tilecraft::Sum;

__global__ void fill(float* p, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const unsigned h = index_hash(i);
    p[i] = static_cast<float>(static_cast<int>(h >> 24) - 128) / 16.0f;
  }
}

void* g_temp = nullptr;

template <class Policy>
float time_policy(const char* name, const float* in, float* out, long long n, const std::vector<float>& want, float cub,
                  char* flush, cudaStream_t s) {
  std::size_t bytes = 0;
  CK(tilecraft::inclusive_scan<Policy>(nullptr, bytes, in, out, n, Sum{}, s));
  bytes = std::size_t{64} << 20;
  const float us = median_us([&] { CK(tilecraft::inclusive_scan<Policy>(g_temp, bytes, in, out, n, Sum{}, s)); }, flush,
                             std::size_t{256} << 20, s);
  CK(cudaStreamSynchronize(s));
  std::vector<float> got(n);
  CK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  const bool same = std::memcmp(got.data(), want.data(), n * sizeof(float)) == 0;
  std::printf("  %-28s %8.1f us (%.3fx cub)%s\n", name, us, cub / us, same ? "" : "  (other bits)");
  return us;
}

int main() {
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  char* flush;
  CK(cudaMalloc(&flush, 256 << 20));
  CK(cudaMalloc(&g_temp, std::size_t{64} << 20));
  for (const long long n : {1ll << 20, 1ll << 21, 1ll << 22, 1ll << 23, 1ll << 24, 1ll << 25, 1ll << 26}) {
    float *in, *out;
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    fill<<<1024, 256, 0, s>>>(in, n);
    CK(cudaGetLastError());
    std::size_t bytes = std::size_t{64} << 20;
    CK(tilecraft::inclusive_scan(g_temp, bytes, in, out, n, Sum{}, s));
    CK(cudaStreamSynchronize(s));
    std::vector<float> want(n);
    CK(cudaMemcpy(want.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    std::size_t cub_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, n, s));
    void* cub_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    const float cub = median_us([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, n, s)); }, flush,
                                std::size_t{256} << 20, s);
    const float lib = median_us([&] { CK(tilecraft::inclusive_scan(g_temp, bytes, in, out, n, Sum{}, s)); }, flush,
                                std::size_t{256} << 20, s);
    std::printf("f32 n=2^%d: cub %.1f us, default %.1f us (%.3fx cub)\n", __builtin_ctzll(n), cub, lib, cub / lib);
    time_policy<ScanPolicy<256, 8>>("256 x 8 (small)", in, out, n, want, cub, flush, s);
    time_policy<ScanPolicy<256, 16>>("256 x 16", in, out, n, want, cub, flush, s);
    time_policy<ScanPolicy<256, 32>>("256 x 32 (registers)", in, out, n, want, cub, flush, s);
    time_policy<ScanPolicy<128, 32>>("128 x 32", in, out, n, want, cub, flush, s);
    time_policy<ScanPolicy<128, 64>>("128 x 64 (two passes)", in, out, n, want, cub, flush, s);
    time_policy<ScanPolicy<256, 40>>("256 x 40", in, out, n, want, cub, flush, s);
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(cub_temp));
  }
  return 0;
}
