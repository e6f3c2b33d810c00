// The histogram benchmarks' inputs and runners, shared by bench_histogram.cu (the product and
// its peers) and bench_histogram_variants.cu (tuning variants). Families:
//   histogram_u8_256[_one]    uint8 samples, 256 even bins over [0, 256): uniform / all one value
//   histogram_f32_64[_one]    float samples in [-1, 1), 64 even bins over [-1, 1)
//   histogram_i32_2048[_one]  int32 samples in [-2^30, 2^30), 2048 range bins (evenly spread levels)
// Peers: `cub` (cub::DeviceHistogram, 32-bit counters, same bins) and `read` (a kernel that only
// reads the same bytes with 16-byte loads and writes one value per block: the bandwidth ceiling).
// The subject reports `ratio` (cub time / its time) and `ratio_read` (read time / its time).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <cub/device/device_histogram.cuh>

#include <tilecraft/device/histogram.cuh>

#include "harness.cuh"

namespace tilecraft::bench::histogram {

enum class Kind { u8_256, f32_64, i32_2048 };

struct Case {
  Kind kind;
  bool one;  // all samples one value
  std::int64_t n;
  std::string family() const {
    const char* base = kind == Kind::u8_256   ? "histogram_u8_256"
                       : kind == Kind::f32_64 ? "histogram_f32_64"
                                              : "histogram_i32_2048";
    return std::string(base) + (one ? "_one" : "");
  }
  int bins() const { return kind == Kind::u8_256 ? 256 : kind == Kind::f32_64 ? 64 : 2048; }
  std::size_t sample_bytes() const { return kind == Kind::u8_256 ? 1 : 4; }
  double bytes() const { return static_cast<double>(n) * static_cast<double>(sample_bytes()); }
};

__device__ inline std::uint32_t hash32(std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return static_cast<std::uint32_t>(x);
}

static __global__ void fill_samples(unsigned char* out, std::int64_t n, int kind, bool one) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t h = one ? 0x5A5A5A5Au : hash32(static_cast<std::uint64_t>(i));
    if (kind == 0) {
      out[i] = static_cast<unsigned char>(h >> 24);
    } else if (kind == 1) {
      reinterpret_cast<float*>(out)[i] = static_cast<float>(h >> 8) * 0x1p-23f - 1.0f;  // [-1, 1)
    } else {
      reinterpret_cast<int*>(out)[i] = static_cast<int>(h >> 1) - (1 << 30);  // [-2^30, 2^30)
    }
  }
}

//! The samples of a case (made once per case and kept) and the range levels.
struct Inputs {
  std::unique_ptr<DeviceMemory> samples;
  std::unique_ptr<DeviceMemory> levels;
};
inline const Inputs& inputs(const Case& c) {
  static std::map<std::string, Inputs> cache;
  const std::string key = c.family() + "/" + std::to_string(c.n);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  // One input at a time: the largest cases take a GiB each.
  cache.clear();
  Inputs in;
  in.samples = std::make_unique<DeviceMemory>(static_cast<std::size_t>(c.bytes()));
  fill_samples<<<1024, 256>>>(in.samples->as<unsigned char>(), c.n, static_cast<int>(c.kind), c.one);
  TILECRAFT_BENCH_CHECK(cudaGetLastError());
  std::vector<int> levels(2049);
  for (int i = 0; i <= 2048; ++i)
    levels[i] = static_cast<int>(-(1ll << 30) + ((1ll << 31) * i) / 2048 + (i % 7) * 13 - 39 * (i > 0 && i < 2048));
  in.levels = std::make_unique<DeviceMemory>(levels.size() * sizeof(int));
  TILECRAFT_BENCH_CHECK(
      cudaMemcpy(in.levels->as<int>(), levels.data(), levels.size() * sizeof(int), cudaMemcpyHostToDevice));
  TILECRAFT_BENCH_CHECK(cudaDeviceSynchronize());
  return cache.emplace(key, std::move(in)).first->second;
}

inline std::string peer_key(const Case& c, const char* impl) {
  return c.family() + "/" + impl + "/" + std::to_string(c.n);
}

// The read-only peer: 8 independent 16-byte loads per thread per step, summed, one value per
// block written (so no load can be dropped).
static __global__ void __launch_bounds__(256) read_kernel(const uint4* in, std::int64_t vectors, unsigned* out) {
  constexpr int per_thread = 8;
  unsigned acc = 0;
  const std::int64_t step = std::int64_t{gridDim.x} * 256 * per_thread;
  std::int64_t v = blockIdx.x * std::int64_t{256} * per_thread + threadIdx.x;
  for (; v + 256 * (per_thread - 1) < vectors; v += step) {
    uint4 w[per_thread];
#pragma unroll
    for (int k = 0; k < per_thread; ++k) w[k] = in[v + k * 256];
#pragma unroll
    for (int k = 0; k < per_thread; ++k) acc += w[k].x + w[k].y + w[k].z + w[k].w;
  }
  for (; v < vectors; v += 256) acc += in[v].x + in[v].y + in[v].z + in[v].w;
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  __shared__ unsigned partial[8];
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 1; i < 8; ++i) acc += partial[i];
    out[blockIdx.x] = acc;
  }
}

inline void run_read(benchmark::State& state, const Case& c) {
  const Inputs& in = inputs(c);
  int sms = 0;
  TILECRAFT_BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = sms * 8;
  DeviceMemory out(static_cast<std::size_t>(grid) * sizeof(unsigned));
  const auto vectors = static_cast<std::int64_t>(c.bytes()) / 16;
  time_it(
      state,
      [&](cudaStream_t s) { read_kernel<<<grid, 256, 0, s>>>(in.samples->as<uint4>(), vectors, out.as<unsigned>()); },
      Measure{c.bytes(), 0}, peer_key(c, "read"));
}

inline void run_cub(benchmark::State& state, const Case& c) {
  const Inputs& in = inputs(c);
  DeviceMemory hist(static_cast<std::size_t>(c.bins()) * sizeof(unsigned));
  std::size_t bytes = 0;
  auto call = [&](void* temp, cudaStream_t s) -> cudaError_t {
    switch (c.kind) {
      case Kind::u8_256:
        return cub::DeviceHistogram::HistogramEven(temp, bytes, in.samples->as<unsigned char>(), hist.as<unsigned>(),
                                                   257, 0, 256, c.n, s);
      case Kind::f32_64:
        return cub::DeviceHistogram::HistogramEven(temp, bytes, in.samples->as<float>(), hist.as<unsigned>(), 65, -1.0f,
                                                   1.0f, c.n, s);
      default:
        return cub::DeviceHistogram::HistogramRange(temp, bytes, in.samples->as<int>(), hist.as<unsigned>(), 2049,
                                                    in.levels->as<int>(), c.n, s);
    }
  };
  TILECRAFT_BENCH_CHECK(call(nullptr, nullptr));
  DeviceMemory temp(bytes);
  time_it(
      state, [&](cudaStream_t s) { TILECRAFT_BENCH_CHECK(call(temp.as<void>(), s)); }, Measure{c.bytes(), 0},
      peer_key(c, "cub"));
}

//! tilecraft with a policy (void: the default), reporting ratio (to cub) and ratio_read.
template <class Policy>
void run_tilecraft(benchmark::State& state, const Case& c) {
  const Inputs& in = inputs(c);
  DeviceMemory hist(static_cast<std::size_t>(c.bins()) * sizeof(unsigned));
  std::size_t bytes = 0;
  auto call = [&](void* temp, cudaStream_t s) -> cudaError_t {
    switch (c.kind) {
      case Kind::u8_256:
        return tilecraft::histogram_even<Policy>(temp, bytes, in.samples->as<std::uint8_t>(), hist.as<unsigned>(), 256,
                                                 0, 256, c.n, s);
      case Kind::f32_64:
        return tilecraft::histogram_even<Policy>(temp, bytes, in.samples->as<float>(), hist.as<unsigned>(), 64, -1.0f,
                                                 1.0f, c.n, s);
      default:
        return tilecraft::histogram_range<Policy>(temp, bytes, in.samples->as<std::int32_t>(), hist.as<unsigned>(),
                                                  2048, in.levels->as<int>(), c.n, s);
    }
  };
  TILECRAFT_BENCH_CHECK(call(nullptr, nullptr));
  DeviceMemory temp(bytes);
  const double median = time_it(
      state, [&](cudaStream_t s) { TILECRAFT_BENCH_CHECK(call(temp.as<void>(), s)); }, Measure{c.bytes(), 0}, {},
      peer_key(c, "cub"));
  const auto it = peer_times().find(peer_key(c, "read"));
  if (it != peer_times().end() && median > 0) state.counters["ratio_read"] = benchmark::Counter(it->second / median);
}

//! The cases of the default run.
inline std::vector<Case> cases() {
  return {{Kind::u8_256, false, std::int64_t{1} << 28}, {Kind::u8_256, false, std::int64_t{1} << 30},
          {Kind::u8_256, true, std::int64_t{1} << 28},  {Kind::f32_64, false, std::int64_t{1} << 28},
          {Kind::f32_64, true, std::int64_t{1} << 28},  {Kind::i32_2048, false, std::int64_t{1} << 28},
          {Kind::i32_2048, true, std::int64_t{1} << 28}};
}

inline void register_case(const Case& c, const std::string& impl, void (*fn)(benchmark::State&, const Case&)) {
  const std::string name = c.family() + "/" + impl + "/" + std::to_string(c.n);
  benchmark::RegisterBenchmark(name.c_str(), [fn, c](benchmark::State& state) { fn(state, c); })
      ->UseManualTime()
      ->MinTime(0.1)
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace tilecraft::bench::histogram
