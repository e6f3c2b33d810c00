// The tile shapes again now that the look-back walks at every size: tilecraft::inclusive_scan of
// f32 and select_if of floats (about half kept) with each policy at 2^26 and 2^28 items, beside
// cub::DeviceScan::InclusiveSum / cub::DeviceSelect::If (L2 flushed, medians of 11 runs, us).
// Every output is compared bit for bit with the default policy's.
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/select.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "select_input.cuh"

using tilecraft::ScanPolicy;
using tilecraft::Sum;

struct Ctx {
  const float* in;
  float* out;
  long long n;
  long long* count;
  void* temp;
  char* flush;
  cudaStream_t s;
};

std::vector<float> download(const float* p, long long n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  CK(cudaMemcpy(v.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
  return v;
}

template <class Policy>
void scan_policy(const char* name, const Ctx& c, float cub, const std::vector<float>& want) {
  std::size_t bytes = std::size_t{64} << 20;
  const float us =
      median_us([&] { CK(tilecraft::inclusive_scan<Policy>(c.temp, bytes, c.in, c.out, c.n, Sum{}, c.s)); }, c.flush,
                std::size_t{256} << 20, c.s);
  CK(cudaStreamSynchronize(c.s));
  const bool same = std::memcmp(download(c.out, c.n).data(), want.data(), c.n * sizeof(float)) == 0;
  std::printf("  scan   %-12s %8.1f us (%.3fx cub)%s\n", name, us, cub / us, same ? "" : "  (other bits)");
}

template <class Policy>
void select_policy(const char* name, const Ctx& c, float cub, const std::vector<float>& want, long long kept) {
  std::size_t bytes = std::size_t{64} << 20;
  const float us =
      median_us([&] { CK(tilecraft::select_if<Policy>(c.temp, bytes, c.in, c.out, c.count, c.n, Below{}, c.s)); },
                c.flush, std::size_t{256} << 20, c.s);
  CK(cudaStreamSynchronize(c.s));
  long long got = -1;
  CK(cudaMemcpy(&got, c.count, sizeof(got), cudaMemcpyDeviceToHost));
  const bool same = got == kept && std::memcmp(download(c.out, kept).data(), want.data(), kept * sizeof(float)) == 0;
  std::printf("  select %-12s %8.1f us (%.3fx cub)%s\n", name, us, cub / us, same ? "" : "  WRONG");
}

// Usage: policies [log2 size...] (fractions allowed; default 26 28). Below 2^24 only the scan
// runs. Below 2^25 with smaller tiles too: does a one-wave scan (2^22 floats: 512 tiles of
// 128 x 64, where the scan read 0.99x CUB) gain from more, smaller tiles spread over the SMs,
// and does the single pass just past one wave (2^23.5 to 2^24.5: 2 to 4 waves of 128 x 64
// tiles, 1.02-1.03x CUB at 2^24) lose less to its last wave with smaller tiles?
int main(int argc, char** argv) {
  std::vector<long long> sizes;
  for (const double lg : log2_sizes<double>(argc, argv, {26, 28})) sizes.push_back(std::llround(std::pow(2.0, lg)));
  Ctx c{};
  CK(cudaStreamCreate(&c.s));
  CK(cudaMalloc(&c.flush, 256 << 20));
  CK(cudaMalloc(&c.temp, std::size_t{64} << 20));
  CK(cudaMalloc(&c.count, sizeof(long long)));
  for (const long long n : sizes) {
    float *in, *out;
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMalloc(&out, n * sizeof(float)));
    fill<<<1024, 256, 0, c.s>>>(in, n);
    CK(cudaGetLastError());
    c.in = in;
    c.out = out;
    c.n = n;
    std::size_t cub_bytes = 0;
    CK(cub::DeviceSelect::If(nullptr, cub_bytes, in, out, c.count, n, Below{}, c.s));
    std::size_t scan_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, in, out, n, c.s));
    void* cub_temp;
    CK(cudaMalloc(&cub_temp, std::max(cub_bytes, scan_bytes)));
    std::size_t bytes = std::size_t{64} << 20;
    {
      const float cub = median_us([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, scan_bytes, in, out, n, c.s)); },
                                  c.flush, std::size_t{256} << 20, c.s);
      CK(tilecraft::inclusive_scan(c.temp, bytes, c.in, c.out, n, Sum{}, c.s));
      const auto want = download(out, n);
      std::printf("f32 n=2^%.2f: cub scan %.1f us\n", std::log2(static_cast<double>(n)), cub);
      scan_policy<ScanPolicy<128, 64>>("128 x 64", c, cub, want);
      scan_policy<ScanPolicy<128, 48>>("128 x 48", c, cub, want);
      scan_policy<ScanPolicy<256, 32>>("256 x 32", c, cub, want);
      scan_policy<ScanPolicy<256, 40>>("256 x 40", c, cub, want);
      scan_policy<ScanPolicy<160, 64>>("160 x 64", c, cub, want);
      scan_policy<ScanPolicy<96, 64>>("96 x 64", c, cub, want);
      scan_policy<ScanPolicy<64, 64>>("64 x 64", c, cub, want);
      if (n < (1ll << 25)) {
        scan_policy<ScanPolicy<128, 32>>("128 x 32", c, cub, want);
        scan_policy<ScanPolicy<256, 16>>("256 x 16", c, cub, want);
        scan_policy<ScanPolicy<128, 16>>("128 x 16", c, cub, want);
        scan_policy<ScanPolicy<64, 32>>("64 x 32", c, cub, want);
      }
    }
    if (n >= (1ll << 24)) {
      const float cub =
          median_us([&] { CK(cub::DeviceSelect::If(cub_temp, cub_bytes, in, out, c.count, n, Below{}, c.s)); }, c.flush,
                    std::size_t{256} << 20, c.s);
      CK(tilecraft::select_if(c.temp, bytes, c.in, c.out, c.count, n, Below{}, c.s));
      long long kept = 0;
      CK(cudaMemcpy(&kept, c.count, sizeof(kept), cudaMemcpyDeviceToHost));
      const auto want = download(out, kept);
      std::printf("f32 n=2^%.2f: cub select %.1f us, kept %lld\n", std::log2(static_cast<double>(n)), cub, kept);
      select_policy<ScanPolicy<128, 64>>("128 x 64", c, cub, want, kept);
      select_policy<ScanPolicy<128, 48>>("128 x 48", c, cub, want, kept);
      select_policy<ScanPolicy<128, 32>>("128 x 32", c, cub, want, kept);
      select_policy<ScanPolicy<256, 32>>("256 x 32", c, cub, want, kept);
      select_policy<ScanPolicy<160, 64>>("160 x 64", c, cub, want, kept);
      select_policy<ScanPolicy<96, 64>>("96 x 64", c, cub, want, kept);
      select_policy<ScanPolicy<64, 64>>("64 x 64", c, cub, want, kept);
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(cub_temp));
  }
  return 0;
}
