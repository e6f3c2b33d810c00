// The 1-byte scan's tile shape and the exclusive 2-byte scan (whose first tile took 222
// registers a thread until the forty-seventh session): tilecraft::inclusive_scan of int8 into
// int8 with each policy, 2^24, 2^26 and 2^28 items (or the sizes' log2 given after the variant's
// name, then without the 2-byte scan), and tilecraft::exclusive_scan of int16 at 2^28, beside
// cub::DeviceScan (L2 flushed, medians of 11 runs, us) and cudaMemcpyAsync of the same bytes.
// Every output is compared byte for byte with CUB's (integer sums wrap identically in any
// association). run.sh builds it against the library (1-byte sums in two passes over shared
// memory, since the forty-ninth session) and against a copy whose 1-byte scans keep their
// accumulators in registers, as before.
#include <cub/device/device_scan.cuh>
#include <tilecraft/device/scan.cuh>

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../experiment_util.cuh"

using tilecraft::ScanPolicy;
using tilecraft::Sum;

template <class T>
__global__ void fill(T* p, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const unsigned h = index_hash(i);
    p[i] = static_cast<T>(1 + (h >> 24) % 3);
  }
}

struct Case {
  void* temp;
  char* flush;
  cudaStream_t s;
};

template <class Policy, class T>
void time_policy(const char* name, const T* in, T* out, long long n, const std::vector<T>& want, float cub, float copy,
                 const Case& c) {
  std::size_t bytes = std::size_t{64} << 20;
  const float us = median_us([&] { CK(tilecraft::inclusive_scan<Policy>(c.temp, bytes, in, out, n, Sum{}, c.s)); },
                             c.flush, std::size_t{256} << 20, c.s);
  CK(cudaStreamSynchronize(c.s));
  std::vector<T> got(n);
  CK(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
  const bool same = std::memcmp(got.data(), want.data(), n * sizeof(T)) == 0;
  std::printf("  %-24s %8.1f us (%.3fx cub, %.3fx memcpy)%s\n", name, us, cub / us, copy / us, same ? "" : "  WRONG");
}

int main(int argc, char** argv) {
  const char* variant = argc > 1 ? argv[1] : "library";
  std::printf("variant %s\n", variant);
  Case c;
  CK(cudaStreamCreate(&c.s));
  CK(cudaMalloc(&c.flush, 256 << 20));
  CK(cudaMalloc(&c.temp, std::size_t{64} << 20));
  std::vector<long long> sizes;
  for (int i = 2; i < argc; ++i) sizes.push_back(1ll << std::atoi(argv[i]));
  const bool named_sizes = !sizes.empty();
  if (!named_sizes) sizes = {1ll << 24, 1ll << 26, 1ll << 28};
  for (const long long n : sizes) {
    std::int8_t *in, *out;
    CK(cudaMalloc(&in, n));
    CK(cudaMalloc(&out, n));
    fill<<<1024, 256, 0, c.s>>>(in, n);
    CK(cudaGetLastError());
    std::size_t cub_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, n, c.s));
    void* cub_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    const float cub = median_us([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, n, c.s)); },
                                c.flush, std::size_t{256} << 20, c.s);
    CK(cudaStreamSynchronize(c.s));
    std::vector<std::int8_t> want(n);
    CK(cudaMemcpy(want.data(), out, n, cudaMemcpyDeviceToHost));
    const float copy = median_us([&] { CK(cudaMemcpyAsync(out, in, n, cudaMemcpyDeviceToDevice, c.s)); }, c.flush,
                                 std::size_t{256} << 20, c.s);
    std::size_t bytes = std::size_t{64} << 20;
    const float lib = median_us([&] { CK(tilecraft::inclusive_scan(c.temp, bytes, in, out, n, Sum{}, c.s)); }, c.flush,
                                std::size_t{256} << 20, c.s);
    std::printf("i8 n=2^%d: cub %.1f us, memcpy %.1f us, default %.1f us (%.3fx cub, %.3fx memcpy)\n",
                __builtin_ctzll(n), cub, copy, lib, cub / lib, copy / lib);
    time_policy<ScanPolicy<256, 64>>("256 x 64 (default)", in, out, n, want, cub, copy, c);
    time_policy<ScanPolicy<128, 64>>("128 x 64", in, out, n, want, cub, copy, c);
    time_policy<ScanPolicy<512, 64>>("512 x 64", in, out, n, want, cub, copy, c);
    time_policy<ScanPolicy<256, 32>>("256 x 32", in, out, n, want, cub, copy, c);
    time_policy<ScanPolicy<512, 32>>("512 x 32", in, out, n, want, cub, copy, c);
    time_policy<ScanPolicy<1024, 16>>("1024 x 16", in, out, n, want, cub, copy, c);
    time_policy<ScanPolicy<512, 16>>("512 x 16", in, out, n, want, cub, copy, c);
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(cub_temp));
  }
  if (!named_sizes) {
    const long long n = 1ll << 28;
    std::int16_t *in, *out;
    CK(cudaMalloc(&in, n * 2));
    CK(cudaMalloc(&out, n * 2));
    fill<<<1024, 256, 0, c.s>>>(in, n);
    CK(cudaGetLastError());
    std::size_t cub_bytes = 0;
    CK(cub::DeviceScan::ExclusiveSum(nullptr, cub_bytes, in, out, n, c.s));
    void* cub_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    const float cub = median_us([&] { CK(cub::DeviceScan::ExclusiveSum(cub_temp, cub_bytes, in, out, n, c.s)); },
                                c.flush, std::size_t{256} << 20, c.s);
    CK(cudaStreamSynchronize(c.s));
    std::vector<std::int16_t> want(n), got(n);
    CK(cudaMemcpy(want.data(), out, n * 2, cudaMemcpyDeviceToHost));
    const float copy = median_us([&] { CK(cudaMemcpyAsync(out, in, n * 2, cudaMemcpyDeviceToDevice, c.s)); }, c.flush,
                                 std::size_t{256} << 20, c.s);
    std::size_t bytes = std::size_t{64} << 20;
    const float lib =
        median_us([&] { CK(tilecraft::exclusive_scan(c.temp, bytes, in, out, n, Sum{}, std::int16_t{0}, c.s)); },
                  c.flush, std::size_t{256} << 20, c.s);
    CK(cudaStreamSynchronize(c.s));
    CK(cudaMemcpy(got.data(), out, n * 2, cudaMemcpyDeviceToHost));
    const bool same = std::memcmp(got.data(), want.data(), n * 2) == 0;
    std::printf("i16 exclusive n=2^28: cub %.1f us, memcpy %.1f us, default %.1f us (%.3fx cub, %.3fx memcpy)%s\n", cub,
                copy, lib, cub / lib, copy / lib, same ? "" : "  WRONG");
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(cub_temp));
  }
  return 0;
}
