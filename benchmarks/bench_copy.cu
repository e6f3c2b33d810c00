// Device-to-device copy bandwidth: a plain 16-byte-vector copy kernel (no tilecraft) against
// cudaMemcpyAsync. It exercises the harness end to end and measures the bandwidth ceiling that
// the memory-bound primitives are judged by.
#include <cstdint>

#include <tilecraft/arch/global_access.cuh>
#include <tilecraft/memory/pipeline.cuh>
#include <tilecraft/memory/tile_copy.cuh>

#include "bulk_copy.cuh"
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

// Hopper bulk copies (sm_90): one thread per block streams chunks global -> shared -> global
// through the copy engine, Stages chunks in flight, no registers in the data path. Chunk i of
// the block refills the stage of chunk i - 1 once that chunk's store has read it.
template <int Stages, int ChunkBytes>
__global__ void __launch_bounds__(32)
    bulk_copy_kernel(unsigned char* dst, const unsigned char* src, std::int64_t chunks) {
  extern __shared__ __align__(128) unsigned char buf[];
  __shared__ std::uint64_t bar[Stages];
  namespace hopper = tilecraft::bench::hopper;
  if (threadIdx.x != 0) return;
  for (int s = 0; s < Stages; ++s) hopper::mbarrier_init(&bar[s], 1);
  const std::int64_t step = gridDim.x;
  auto load = [&](std::int64_t i) {  // the block's i-th chunk into stage i % Stages
    const std::int64_t chunk = blockIdx.x + i * step;
    if (chunk >= chunks) return;
    const int s = static_cast<int>(i % Stages);
    hopper::mbarrier_arrive_expect_tx(&bar[s], ChunkBytes);
    hopper::bulk_copy_g2s(buf + s * ChunkBytes, src + chunk * ChunkBytes, ChunkBytes, &bar[s]);
  };
  for (int i = 0; i < Stages; ++i) load(i);
  for (std::int64_t i = 0; blockIdx.x + i * step < chunks; ++i) {
    const int s = static_cast<int>(i % Stages);
    hopper::mbarrier_wait_parity(&bar[s], static_cast<std::uint32_t>((i / Stages) & 1));
    hopper::bulk_copy_s2g(dst + (blockIdx.x + i * step) * ChunkBytes, buf + s * ChunkBytes, ChunkBytes);
    hopper::bulk_commit_group();
    if (i >= 1) {
      hopper::bulk_wait_group_read<1>();  // chunk i - 1's store has read its stage
      load(i - 1 + Stages);
    }
  }
  hopper::bulk_wait_group<0>();
}

// tilecraft's Pipeline with 1 ... 4 stages: persistent blocks stream 8 KiB tiles global ->
// shared with copy_tile_async and back with copy_tile, Stages - 1 tiles in flight while one
// drains. What the stages buy, with nothing else in the loop.
template <int Stages>
__global__ void __launch_bounds__(256) pipeline_copy_kernel(float* dst, const float* src, std::int64_t n) {
  constexpr int threads = 256, tile_n = 2048;
  using Tile = tilecraft::SharedMatrix<float, 1, tile_n>;
  __shared__ tilecraft::PipelineStorage<Tile, Stages> storage;
  tilecraft::Pipeline pipe(storage);
  const tilecraft::MatrixRef<const float> in{src, 1, n, n};
  const tilecraft::MatrixRef<float> out{dst, 1, n, n};
  const std::int64_t tiles = (n + tile_n - 1) / tile_n;
  std::int64_t next = blockIdx.x;
  auto issue = [&] {
    tilecraft::copy_tile_async<threads>(pipe.producer_acquire(), in, 0, next * tile_n);
    pipe.producer_commit();
    next += gridDim.x;
  };
  for (int s = 0; s < Stages - 1 && next < tiles; ++s) issue();
  for (std::int64_t k = blockIdx.x; k < tiles; k += gridDim.x) {
    if constexpr (Stages == 1) issue();
    const Tile& t = pipe.consumer_wait();
    if (Stages > 1 && next < tiles) issue();
    tilecraft::copy_tile<threads>(out, 0, k * tile_n, t);
    pipe.consumer_release();
  }
}

enum class CopyImpl {
  memcpy,
  kernel,
  kernel_x4,
  kernel_x4_stream,
  bulk_4x16k,
  bulk_8x4k,
  pipeline_1,
  pipeline_2,
  pipeline_3,
  pipeline_4
};

template <int Stages>
void run_pipeline_copy(benchmark::State& state, float* dst, const float* src, std::size_t bytes, const Measure& m,
                       const std::string& key) {
  int device = 0, sms = 0, per_sm = 0;
  TILECRAFT_BENCH_CHECK(cudaGetDevice(&device));
  TILECRAFT_BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TILECRAFT_BENCH_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pipeline_copy_kernel<Stages>, 256, 0));
  const auto n = static_cast<std::int64_t>(bytes / sizeof(float));
  const std::int64_t tiles = (n + 2047) / 2048, resident = static_cast<std::int64_t>(sms) * per_sm;
  const int grid = static_cast<int>(tiles < resident ? tiles : resident);
  time_it(
      state, [&](cudaStream_t s) { pipeline_copy_kernel<Stages><<<grid, 256, 0, s>>>(dst, src, n); }, m, {}, key);
}

template <int Stages, int ChunkBytes>
void run_bulk_copy(benchmark::State& state, unsigned char* dst, const unsigned char* src, std::size_t bytes,
                   int blocks_per_sm, const Measure& m, const std::string& key) {
  int device = 0, major = 0, sms = 0;
  TILECRAFT_BENCH_CHECK(cudaGetDevice(&device));
  TILECRAFT_BENCH_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TILECRAFT_BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (major < 9 || bytes % ChunkBytes != 0) {
    state.SkipWithError("bulk copies need sm_90 and a whole number of chunks");
    return;
  }
  constexpr int smem = Stages * ChunkBytes;
  TILECRAFT_BENCH_CHECK(
      cudaFuncSetAttribute(bulk_copy_kernel<Stages, ChunkBytes>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const auto chunks = static_cast<std::int64_t>(bytes / ChunkBytes);
  const std::int64_t want = static_cast<std::int64_t>(sms) * blocks_per_sm;
  const int grid = static_cast<int>(chunks < want ? chunks : want);
  time_it(
      state, [&](cudaStream_t s) { bulk_copy_kernel<Stages, ChunkBytes><<<grid, 32, smem, s>>>(dst, src, chunks); }, m,
      {}, key);
}

void copy(benchmark::State& state, CopyImpl impl) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  DeviceMemory src(bytes), dst(bytes);
  fill_random(src.as<float>(), bytes / sizeof(float), 1.0, 2.0, 1);
  int sms = 0;
  TILECRAFT_BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::string key = "copy/" + std::to_string(bytes);
  const Measure m{2.0 * static_cast<double>(bytes), 0};  // read + write
  if (impl == CopyImpl::bulk_4x16k) {
    run_bulk_copy<4, 16384>(state, dst.as<unsigned char>(), src.as<unsigned char>(), bytes, 3, m, key);
    return;
  }
  if (impl == CopyImpl::bulk_8x4k) {
    run_bulk_copy<8, 4096>(state, dst.as<unsigned char>(), src.as<unsigned char>(), bytes, 6, m, key);
    return;
  }
  switch (impl) {
    case CopyImpl::pipeline_1:
      return run_pipeline_copy<1>(state, dst.as<float>(), src.as<float>(), bytes, m, key);
    case CopyImpl::pipeline_2:
      return run_pipeline_copy<2>(state, dst.as<float>(), src.as<float>(), bytes, m, key);
    case CopyImpl::pipeline_3:
      return run_pipeline_copy<3>(state, dst.as<float>(), src.as<float>(), bytes, m, key);
    case CopyImpl::pipeline_4:
      return run_pipeline_copy<4>(state, dst.as<float>(), src.as<float>(), bytes, m, key);
    default:
      break;
  }
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

#define TILECRAFT_COPY_BENCH(impl)              \
  BENCHMARK_CAPTURE(copy, impl, CopyImpl::impl) \
      ->RangeMultiplier(16)                     \
      ->Range(1 << 20, 1 << 30)                 \
      ->UseManualTime()                         \
      ->MinTime(0.05)                           \
      ->Unit(benchmark::kMicrosecond)
TILECRAFT_COPY_BENCH(memcpy);  // the peer first: the others report their ratio to it
TILECRAFT_COPY_BENCH(kernel);
TILECRAFT_COPY_BENCH(kernel_x4);
TILECRAFT_COPY_BENCH(kernel_x4_stream);
TILECRAFT_COPY_BENCH(bulk_4x16k);
TILECRAFT_COPY_BENCH(bulk_8x4k);
TILECRAFT_COPY_BENCH(pipeline_1);
TILECRAFT_COPY_BENCH(pipeline_2);
TILECRAFT_COPY_BENCH(pipeline_3);
TILECRAFT_COPY_BENCH(pipeline_4);
