// Device-to-device copy bandwidth: a plain 16-byte-vector copy kernel (no tilecraft) against
// cudaMemcpyAsync. It exercises the harness end to end and measures the bandwidth ceiling that
// the memory-bound primitives are judged by.
#include <cstdint>

#include "harness.cuh"

using namespace tilecraft::bench;

namespace {

__global__ void copy_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = src[i];
}

enum class CopyImpl { memcpy, kernel };

void copy(benchmark::State& state, CopyImpl impl) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  DeviceMemory src(bytes), dst(bytes);
  fill_random(src.as<float>(), bytes / sizeof(float), 1.0, 2.0, 1);
  int sms = 0;
  TILECRAFT_BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::string key = "copy/" + std::to_string(bytes);
  const Measure m{2.0 * static_cast<double>(bytes), 0};  // read + write
  if (impl == CopyImpl::memcpy) {
    time_it(
        state,
        [&](cudaStream_t s) {
          TILECRAFT_BENCH_CHECK(cudaMemcpyAsync(dst.as<void>(), src.as<void>(), bytes, cudaMemcpyDeviceToDevice, s));
        },
        m, key);
  } else {
    const std::int64_t n = static_cast<std::int64_t>(bytes / sizeof(uint4));
    time_it(
        state, [&](cudaStream_t s) { copy_kernel<<<sms * 8, 256, 0, s>>>(dst.as<uint4>(), src.as<uint4>(), n); }, m, {},
        key);
  }
}

}  // namespace

BENCHMARK_CAPTURE(copy, memcpy, CopyImpl::memcpy)
    ->RangeMultiplier(16)
    ->Range(1 << 20, 1 << 30)
    ->UseManualTime()
    ->MinTime(0.05)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(copy, kernel, CopyImpl::kernel)
    ->RangeMultiplier(16)
    ->Range(1 << 20, 1 << 30)
    ->UseManualTime()
    ->MinTime(0.05)
    ->Unit(benchmark::kMicrosecond);
