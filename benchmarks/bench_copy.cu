// Device-to-device copy bandwidth: a plain 16-byte-vector copy kernel (no tilecraft) against
// cudaMemcpyAsync. It exercises the harness end to end and measures the bandwidth ceiling that
// the memory-bound primitives are judged by.
#include <cstdint>

#include <tilecraft/arch/global_access.cuh>

#include "harness.cuh"

using namespace tilecraft::bench;

namespace {

__global__ void copy_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = src[i];
}

// Four independent 16-byte loads per thread before any store (more bytes in flight per
// thread), optionally with streaming cache hints: what a kernel needs to come close to memcpy.
template <bool Streaming>
__global__ void copy_kernel_x4(uint4* __restrict__ dst, const uint4* __restrict__ src, std::int64_t n) {
  const std::int64_t threads = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x * 4 + threadIdx.x;
  for (std::int64_t base = first; base < n; base += 4 * threads) {
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const std::int64_t i = base + k * static_cast<std::int64_t>(blockDim.x);
      if (i < n) v[k] = Streaming ? tilecraft::arch::ld_global_stream(src + i) : src[i];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const std::int64_t i = base + k * static_cast<std::int64_t>(blockDim.x);
      if (i < n) {
        if (Streaming) {
          tilecraft::arch::st_global_stream(dst + i, v[k]);
        } else {
          dst[i] = v[k];
        }
      }
    }
  }
}

enum class CopyImpl { memcpy, kernel, kernel_x4, kernel_x4_stream };

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
        state,
        [&](cudaStream_t s) {
          switch (impl) {
            case CopyImpl::kernel_x4:
              copy_kernel_x4<false><<<sms * 8, 256, 0, s>>>(dst.as<uint4>(), src.as<uint4>(), n);
              break;
            case CopyImpl::kernel_x4_stream:
              copy_kernel_x4<true><<<sms * 8, 256, 0, s>>>(dst.as<uint4>(), src.as<uint4>(), n);
              break;
            default:
              copy_kernel<<<sms * 8, 256, 0, s>>>(dst.as<uint4>(), src.as<uint4>(), n);
          }
        },
        m, {}, key);
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
BENCHMARK_CAPTURE(copy, kernel_x4, CopyImpl::kernel_x4)
    ->RangeMultiplier(16)
    ->Range(1 << 20, 1 << 30)
    ->UseManualTime()
    ->MinTime(0.05)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(copy, kernel_x4_stream, CopyImpl::kernel_x4_stream)
    ->RangeMultiplier(16)
    ->Range(1 << 20, 1 << 30)
    ->UseManualTime()
    ->MinTime(0.05)
    ->Unit(benchmark::kMicrosecond);
