// Reductions. Whole arrays: tilecraft::reduce against cub::DeviceReduce::Sum and the course's
// multi-pass tree (n = 2^10 ... 2^28 floats). In a kernel: block_reduce against
// cub::BlockReduce in otherwise identical kernels (float and int, 128 ... 1024 threads).
#include <cstdint>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>

#include <tilecraft/block/block_reduce.cuh>
#include <tilecraft/device/reduce.cuh>
#include <tilecraft/util/functional.cuh>

#include "../examples/course/reduce_course.cuh"
#include "harness.cuh"

using namespace tilecraft::bench;

namespace {

enum class ReduceImpl { cub, course_tree, tilecraft, tc_vpt4, tc_stream };

// Grid-policy variants beside the default (tilecraft::ReducePolicy is the knob).
template <class Policy>
void reduce_variant(benchmark::State& state, const DeviceMemory& in, const DeviceMemory& out, std::int64_t n,
                    const Measure& m, const std::string& key) {
  std::size_t bytes = 0;
  TILECRAFT_BENCH_CHECK(
      tilecraft::reduce<Policy>(nullptr, bytes, in.as<float>(), out.as<float>(), n, tilecraft::Sum{}, 0.0f, nullptr));
  DeviceMemory temp(bytes);
  time_it(
      state,
      [&](cudaStream_t s) {
        TILECRAFT_BENCH_CHECK(tilecraft::reduce<Policy>(temp.as<void>(), bytes, in.as<float>(), out.as<float>(), n,
                                                        tilecraft::Sum{}, 0.0f, s));
      },
      m, {}, key);
}

void reduce_f32(benchmark::State& state, ReduceImpl impl) {
  const std::int64_t n = state.range(0);
  DeviceMemory in(static_cast<std::size_t>(n) * sizeof(float)), out(sizeof(float));
  fill_random(in.as<float>(), static_cast<std::size_t>(n), 0.5, 1.5, 3);
  const std::string key = "reduce_f32/" + std::to_string(n);
  const Measure m{static_cast<double>(n) * sizeof(float), 0};
  switch (impl) {
    case ReduceImpl::cub: {
      std::size_t bytes = 0;
      TILECRAFT_BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in.as<float>(), out.as<float>(), n));
      DeviceMemory temp(bytes);
      time_it(
          state,
          [&](cudaStream_t s) {
            TILECRAFT_BENCH_CHECK(
                cub::DeviceReduce::Sum(temp.as<void>(), bytes, in.as<float>(), out.as<float>(), n, s));
          },
          m, key);
      break;
    }
    case ReduceImpl::course_tree: {
      DeviceMemory scratch(static_cast<std::size_t>(course::reduce_scratch_elems(n)) * sizeof(float));
      time_it(
          state,
          [&](cudaStream_t s) {
            TILECRAFT_BENCH_CHECK(course::reduce_passes(course::reduce_sequential, course::reduce_threads,
                                                        in.as<float>(), scratch.as<float>(), out.as<float>(), n, s));
          },
          m, {}, key);
      break;
    }
    case ReduceImpl::tc_vpt4:  // half the loads in flight per thread
      reduce_variant<tilecraft::ReducePolicy<256, 4, 4>>(state, in, out, n, m, key);
      break;
    case ReduceImpl::tc_stream:  // streaming (read-only, no L1, 256-byte L2 fetch) loads
      reduce_variant<tilecraft::ReducePolicy<256, 8, 4, tilecraft::CacheHint::streaming>>(state, in, out, n, m, key);
      break;
    case ReduceImpl::tilecraft: {
      std::size_t bytes = 0;
      TILECRAFT_BENCH_CHECK(
          tilecraft::reduce(nullptr, bytes, in.as<float>(), out.as<float>(), n, tilecraft::Sum{}, 0.0f));
      DeviceMemory temp(bytes);
      time_it(
          state,
          [&](cudaStream_t s) {
            TILECRAFT_BENCH_CHECK(tilecraft::reduce(temp.as<void>(), bytes, in.as<float>(), out.as<float>(), n,
                                                    tilecraft::Sum{}, 0.0f, s));
          },
          m, {}, key);
      break;
    }
  }
}

// block_reduce in a loop: each of `rounds` reductions depends on the previous one's input, so
// neither compiler can hoist or merge them; only the reduction differs between the kernels.
constexpr int rounds = 64;

template <class T, int Threads>
__global__ void __launch_bounds__(Threads) block_reduce_tilecraft(const T* in, T* out) {
  __shared__ tilecraft::BlockReduceStorage<T, Threads> temp;
  T v = in[blockIdx.x * Threads + threadIdx.x];
  T acc{};
  for (int r = 0; r < rounds; ++r) {
    acc += tilecraft::block_reduce(temp, v, tilecraft::Sum{});
    __syncthreads();
    v += static_cast<T>(1);
  }
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <class T, int Threads>
__global__ void __launch_bounds__(Threads) block_reduce_cub(const T* in, T* out) {
  using BlockReduce = cub::BlockReduce<T, Threads>;
  __shared__ typename BlockReduce::TempStorage temp;
  T v = in[blockIdx.x * Threads + threadIdx.x];
  T acc{};
  for (int r = 0; r < rounds; ++r) {
    acc += BlockReduce(temp).Sum(v);
    __syncthreads();
    v += static_cast<T>(1);
  }
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <class T, int Threads>
void block_reduce_bench(benchmark::State& state, bool tilecraft_impl, const char* family) {
  int sms = 0;
  TILECRAFT_BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * (2048 / Threads) * 4;
  DeviceMemory in(static_cast<std::size_t>(blocks) * Threads * sizeof(T)),
      out(static_cast<std::size_t>(blocks) * sizeof(T));
  fill_random(in.as<T>(), static_cast<std::size_t>(blocks) * Threads, 1.0, 100.0, 4);
  const std::string key = std::string(family) + "/" + std::to_string(Threads);
  double seconds = 0;
  if (!tilecraft_impl) {
    seconds = time_it(
        state,
        [&](cudaStream_t s) { block_reduce_cub<T, Threads><<<blocks, Threads, 0, s>>>(in.as<T>(), out.as<T>()); },
        Measure{}, key, {}, false);
  } else {
    seconds = time_it(
        state,
        [&](cudaStream_t s) { block_reduce_tilecraft<T, Threads><<<blocks, Threads, 0, s>>>(in.as<T>(), out.as<T>()); },
        Measure{}, {}, key, false);
  }
  if (seconds > 0)
    state.counters["Greductions/s"] = benchmark::Counter(static_cast<double>(blocks) * rounds * 1e-9 / seconds);
}

template <int Threads>
void block_reduce_f32(benchmark::State& state, bool tc) {
  block_reduce_bench<float, Threads>(state, tc, "block_reduce_f32");
}
template <int Threads>
void block_reduce_i32(benchmark::State& state, bool tc) {
  block_reduce_bench<int, Threads>(state, tc, "block_reduce_i32");
}

}  // namespace

#define TILECRAFT_REDUCE_BENCH(impl)                    \
  BENCHMARK_CAPTURE(reduce_f32, impl, ReduceImpl::impl) \
      ->RangeMultiplier(4)                              \
      ->Range(1 << 10, 1 << 28)                         \
      ->Arg(50000) /* between the one-block tiers */    \
      ->UseManualTime()                                 \
      ->MinTime(0.05)                                   \
      ->Unit(benchmark::kMicrosecond)
TILECRAFT_REDUCE_BENCH(cub);
TILECRAFT_REDUCE_BENCH(course_tree);
TILECRAFT_REDUCE_BENCH(tilecraft);
TILECRAFT_REDUCE_BENCH(tc_vpt4);
TILECRAFT_REDUCE_BENCH(tc_stream);

// Template benchmarks are registered by hand: peers (cub) first, so the ratio can be taken.
namespace {
template <int Threads>
void register_block_reduce(const char* family, void (*fn)(benchmark::State&, bool)) {
  for (bool tc : {false, true}) {
    const std::string name = std::string(family) + (tc ? "/tilecraft/" : "/cub/") + std::to_string(Threads);
    benchmark::RegisterBenchmark(name.c_str(), fn, tc)->UseManualTime()->MinTime(0.05)->Unit(benchmark::kMicrosecond);
  }
}
const bool block_reduce_registered = [] {
  register_block_reduce<128>("block_reduce_f32", block_reduce_f32<128>);
  register_block_reduce<256>("block_reduce_f32", block_reduce_f32<256>);
  register_block_reduce<512>("block_reduce_f32", block_reduce_f32<512>);
  register_block_reduce<1024>("block_reduce_f32", block_reduce_f32<1024>);
  register_block_reduce<128>("block_reduce_i32", block_reduce_i32<128>);
  register_block_reduce<256>("block_reduce_i32", block_reduce_i32<256>);
  register_block_reduce<512>("block_reduce_i32", block_reduce_i32<512>);
  register_block_reduce<1024>("block_reduce_i32", block_reduce_i32<1024>);
  return true;
}();
}  // namespace
