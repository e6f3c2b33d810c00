// The scan's L2 prefetch distance (scan_dispatch.cuh: one SM's worth of tickets, past 8 x SMs
// tiles): the library's scan kernel launched as scan_run launches it (the look-back walking
// over the aggregates), with the tile a block prefetches `ahead` tickets past its own for
// ahead = 0 (none), SMs / 2, SMs, 2, 3 and 4 SMs, at sizes on both sides of 8 x SMs tiles,
// beside cub::DeviceScan::InclusiveSum and the library's own call (L2 flushed, medians of 11
// runs, us). Every variant's output is compared bit for bit with the library's.
#include <cub/device/device_scan.cuh>
#include <tilecraft/device/scan.cuh>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../experiment_util.cuh"

namespace td = tilecraft::detail;
using tilecraft::Sum;

template <class T>
__global__ void fill(T* p, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const unsigned h = index_hash(i);
    p[i] = static_cast<T>(static_cast<int>(h >> 24) - 128) / static_cast<T>(std::is_floating_point_v<T> ? 16 : 1);
  }
}

// scan_run's launch (reset kernel, then the scan as its programmatic dependent) with a given
// prefetch distance.
template <class T>
void scan_with_ahead(const T* in, T* out, long long n, void* temp, long long ahead, cudaStream_t s) {
  using Policy = td::DefaultScanPolicyLarge<T, T>;
  using Acc = T;
  const long long tiles = (n + Policy::tile_items - 1) / Policy::tile_items;
  auto* counter = static_cast<unsigned*>(temp);
  const td::TileStatus<Acc> status(static_cast<unsigned char*>(temp) + td::scan_header_bytes, tiles);
  CK(td::launch_kernel(td::scan_init_kernel<td::TileStatus<Acc>>, dim3(static_cast<unsigned>((tiles + 255) / 256)),
                       dim3(256), 0, s, status, static_cast<std::int64_t>(tiles), counter));
  auto kernel = td::scan_kernel<Policy, false, T, T, Acc, Sum>;
  const bool vector = true, by_block = false;
  CK(td::launch_dependent(kernel, dim3(static_cast<unsigned>(tiles)), dim3(Policy::threads), 0, s, in, out,
                          static_cast<std::int64_t>(n), Sum{}, Acc{}, status, counter, vector, by_block,
                          static_cast<std::int64_t>(ahead), true));
}

template <class T>
void run(const char* name, long long n, int sms, char* flush, cudaStream_t s) {
  T *in, *out, *ref;
  CK(cudaMalloc(&in, n * sizeof(T)));
  CK(cudaMalloc(&out, n * sizeof(T)));
  CK(cudaMalloc(&ref, n * sizeof(T)));
  fill<<<1024, 256, 0, s>>>(in, n);
  CK(cudaGetLastError());
  std::size_t bytes = 0;
  CK(tilecraft::inclusive_scan(nullptr, bytes, in, ref, n, Sum{}, s));
  void* temp;
  CK(cudaMalloc(&temp, bytes));
  std::size_t cub_bytes = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, n, s));
  void* cub_temp;
  CK(cudaMalloc(&cub_temp, cub_bytes));
  CK(tilecraft::inclusive_scan(temp, bytes, in, ref, n, Sum{}, s));
  CK(cudaStreamSynchronize(s));
  std::vector<T> want(n), got(n);
  CK(cudaMemcpy(want.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
  const float cub = median_us([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, n, s)); }, flush,
                              std::size_t{256} << 20, s);
  const float lib = median_us([&] { CK(tilecraft::inclusive_scan(temp, bytes, in, out, n, Sum{}, s)); }, flush,
                              std::size_t{256} << 20, s);
  std::printf("%s n=%lld: cub %.1f us, library %.1f us (%.3fx cub)\n", name, n, cub, lib, cub / lib);
  for (const double k : {0.0, 0.5, 1.0, 2.0, 3.0, 4.0}) {
    const long long ahead = static_cast<long long>(k * sms);
    const float us = median_us([&] { scan_with_ahead(in, out, n, temp, ahead, s); }, flush, std::size_t{256} << 20, s);
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    const bool same = std::memcmp(got.data(), want.data(), n * sizeof(T)) == 0;
    std::printf("  ahead %4lld (%.1f SMs): %.1f us (%.3fx cub)%s\n", ahead, k, us, cub / us, same ? "" : "  WRONG");
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(ref));
  CK(cudaFree(temp));
  CK(cudaFree(cub_temp));
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  char* flush;
  CK(cudaMalloc(&flush, 256 << 20));
  for (const long long n : {1ll << 22, 1ll << 23, 1ll << 24, 1ll << 26, 1ll << 28}) run<float>("f32", n, sms, flush, s);
  for (const long long n : {1ll << 23, 1ll << 28}) run<int>("i32", n, sms, flush, s);
  run<long long>("i64", 1ll << 27, sms, flush, s);
  CK(cudaFree(flush));
  return 0;
}
