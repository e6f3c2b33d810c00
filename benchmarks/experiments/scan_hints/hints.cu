// Evict-first stores for the scan: tilecraft::inclusive_scan of f32 with the default tile
// (128 x 64, its loads by cp.async, which takes no hint) and the same tile with
// CacheHint::streaming, whose only effect there is st.global.cs on the tile's stores: do the
// output's lines leave L2 early enough to keep the prefetched input lines there? Beside CUB and
// a memcpy of the same bytes (L2 flushed, medians of 11 runs, us), each variant twice,
// alternating; every output compared bit for bit with the default's. select_if (floats, half
// kept, 256 x 32) with the hint too (streaming loads there).
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/select.cuh>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../scan_far/select_input.cuh"

using tilecraft::CacheHint;
using tilecraft::ScanPolicy;
using tilecraft::Sum;
template <int T, int I, CacheHint H>
using Policy = ScanPolicy<T, I, tilecraft::detail::look_back_block_scan<T>, H>;

std::vector<float> download(const float* p, long long n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  CK(cudaMemcpy(v.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
  return v;
}

int main() {
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  char* flush;
  void* temp;
  long long* count;
  CK(cudaMalloc(&flush, 256 << 20));
  CK(cudaMalloc(&temp, std::size_t{64} << 20));
  CK(cudaMalloc(&count, sizeof(long long)));
  for (const long long n : {1ll << 24, 1ll << 26, 1ll << 28}) {
    float *in, *out;
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    fill<<<1024, 256, 0, s>>>(in, n);
    CK(cudaGetLastError());
    std::size_t cub_bytes = 0, scan_bytes = 0, bytes = std::size_t{64} << 20;
    CK(cub::DeviceSelect::If(nullptr, cub_bytes, in, out, count, n, Below{}, s));
    CK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, in, out, n, s));
    void* cub_temp;
    CK(cudaMalloc(&cub_temp, std::max(cub_bytes, scan_bytes)));
    const float copy = median_us([&] { CK(cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDeviceToDevice, s)); },
                                 flush, 256 << 20, s);
    const float cub =
        median_us([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, scan_bytes, in, out, n, s)); }, flush, 256 << 20, s);
    CK(tilecraft::inclusive_scan(temp, bytes, in, out, n, Sum{}, s));
    const auto want = download(out, n);
    std::printf("f32 scan n=2^%d: cub %.1f us, memcpy %.1f us\n", __builtin_ctzll(n), cub, copy);
    auto scan = [&]<class P>(const char* name, P*) {
      const float us =
          median_us([&] { CK(tilecraft::inclusive_scan<P>(temp, bytes, in, out, n, Sum{}, s)); }, flush, 256 << 20, s);
      CK(cudaStreamSynchronize(s));
      const bool same = std::memcmp(download(out, n).data(), want.data(), n * sizeof(float)) == 0;
      std::printf("  %-28s %8.1f us (%.3fx cub, %.3fx memcpy)%s\n", name, us, cub / us, copy / us,
                  same ? "" : "  WRONG");
    };
    for (int round = 0; round < 2; ++round) {
      scan("128 x 64", static_cast<Policy<128, 64, CacheHint::normal>*>(nullptr));
      scan("128 x 64, evict-first stores", static_cast<Policy<128, 64, CacheHint::streaming>*>(nullptr));
    }
    const float cub_sel = median_us(
        [&] { CK(cub::DeviceSelect::If(cub_temp, cub_bytes, in, out, count, n, Below{}, s)); }, flush, 256 << 20, s);
    CK(tilecraft::select_if(temp, bytes, in, out, count, n, Below{}, s));
    long long kept = 0;
    CK(cudaMemcpy(&kept, count, sizeof(kept), cudaMemcpyDeviceToHost));
    const auto want_sel = download(out, kept);
    std::printf("f32 select n=2^%d: cub %.1f us, kept %lld\n", __builtin_ctzll(n), cub_sel, kept);
    auto select = [&]<class P>(const char* name, P*) {
      const float us = median_us([&] { CK(tilecraft::select_if<P>(temp, bytes, in, out, count, n, Below{}, s)); },
                                 flush, 256 << 20, s);
      long long got = -1;
      CK(cudaMemcpy(&got, count, sizeof(got), cudaMemcpyDeviceToHost));
      const bool same = got == kept && std::memcmp(download(out, kept).data(), want_sel.data(), kept * 4) == 0;
      std::printf("  %-28s %8.1f us (%.3fx cub)%s\n", name, us, cub_sel / us, same ? "" : "  WRONG");
    };
    for (int round = 0; round < 2; ++round) {
      select("256 x 32", static_cast<Policy<256, 32, CacheHint::normal>*>(nullptr));
      select("256 x 32, streaming", static_cast<Policy<256, 32, CacheHint::streaming>*>(nullptr));
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(cub_temp));
  }
  return 0;
}
