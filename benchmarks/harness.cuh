// Benchmark harness shared by every tilecraft benchmark.
//
// Method: inputs live on the GPU and are never zeros; each sample is
// timed with CUDA events around the measured region only; before every sample the L2 is
// flushed by writing a buffer twice its size (outside the timed region); a few untimed warm-up
// runs come first. Every rate and ratio is taken from the median sample (`median_us`), which a
// stray slow launch does not move; Google Benchmark's own real_time stays the mean.
// Benchmarks are named family/implementation/size. A peer (memcpy, cub, cublas) registered
// before the subject in the same binary leaves its median time behind, and the subject
// reports `ratio` = peer time / subject time (> 1: tilecraft is faster).
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <tilecraft/util/error.cuh>

namespace tilecraft::bench {

#define TILECRAFT_BENCH_CHECK(...) ::tilecraft::throw_if_error((__VA_ARGS__), #__VA_ARGS__, __FILE__, __LINE__)

//! Device memory of `bytes` bytes for a benchmark's lifetime.
class DeviceMemory {
 public:
  explicit DeviceMemory(std::size_t bytes) : bytes_(bytes) {
    TILECRAFT_BENCH_CHECK(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes));
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  // (A destructor cannot report: a free that fails means a broken context, which the next
  // checked call reports.)
  ~DeviceMemory() { (void)cudaFree(ptr_); }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_;
};

// Thread i's value: 24 random bits from a hash of (i, seed) (lowbias32), scaled to [lo, hi).
template <class T>
__global__ void fill_random_kernel(T* d, std::size_t n, float lo, float hi, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9e3779b9u + seed + static_cast<std::uint32_t>(i >> 32);
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    d[i] = static_cast<T>(lo + (hi - lo) * (static_cast<float>(h >> 8) * 0x1p-24f));
  }
}

//! n random values between lo and hi on the device from `seed` (never zeros: lo > 0 or the caller's
//! choice; integer types truncate; __half and __nv_bfloat16, through their constructors from
//! float, round to nearest). Generated on the device: a host generator takes seconds per 2^28
//! elements, which the benchmarks would spend before every size.
template <class T>
void fill_random(T* d, std::size_t n, double lo, double hi, std::uint32_t seed) {
  fill_random_kernel<<<1024, 256>>>(d, n, static_cast<float>(lo), static_cast<float>(hi), seed);
  TILECRAFT_BENCH_CHECK(cudaGetLastError());
  TILECRAFT_BENCH_CHECK(cudaDeviceSynchronize());
}

//! Evicts the L2 by writing twice its capacity.
class L2Flusher {
 public:
  L2Flusher() {
    int device = 0, l2 = 0;
    TILECRAFT_BENCH_CHECK(cudaGetDevice(&device));
    TILECRAFT_BENCH_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    bytes_ = 2 * static_cast<std::size_t>(l2 > 0 ? l2 : (64 << 20));
    TILECRAFT_BENCH_CHECK(cudaMalloc(&buffer_, bytes_));
  }
  ~L2Flusher() { (void)cudaFree(buffer_); }  // (as DeviceMemory's; at exit the runtime may be unloading)
  void flush(cudaStream_t stream) { TILECRAFT_BENCH_CHECK(cudaMemsetAsync(buffer_, ++round_ & 0xff, bytes_, stream)); }

 private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
  int round_ = 0;
};

//! Median seconds per run of each peer, by "family/size".
inline std::map<std::string, double>& peer_times() {
  static std::map<std::string, double> t;
  return t;
}

struct Measure {
  double bytes = 0;  //!< bytes moved per run (for GB/s)
  double flops = 0;  //!< floating-point operations per run (for TFLOP/s)
};

//! Times `run(stream)` once per benchmark iteration as described above, sets the counters and
//! returns the median seconds per run.
//! `peer_key` non-empty: this is a peer, remember its time; `ratio_to` non-empty: report the
//! speed ratio against that remembered peer.
template <class Run>
double time_it(benchmark::State& state, Run&& run, Measure m, const std::string& peer_key = {},
               const std::string& ratio_to = {}, bool flush_l2 = true);

//! time_it with `prepare(stream)` before every run (warm-up runs included), outside the timed
//! region and before the L2 flush: for runs that change their own input (in place).
template <class Prepare, class Run>
double time_it_prepared(benchmark::State& state, Prepare&& prepare, Run&& run, Measure m,
                        const std::string& peer_key = {}, const std::string& ratio_to = {}, bool flush_l2 = true) {
  static L2Flusher flusher;  // one buffer for the whole binary
  cudaStream_t stream;
  cudaEvent_t start, stop;
  TILECRAFT_BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  TILECRAFT_BENCH_CHECK(cudaEventCreate(&start));
  TILECRAFT_BENCH_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) {  // warm-up: module load, caches, clocks
    prepare(stream);
    run(stream);
  }
  TILECRAFT_BENCH_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> samples;
  for (auto _ : state) {
    prepare(stream);
    if (flush_l2) flusher.flush(stream);
    TILECRAFT_BENCH_CHECK(cudaEventRecord(start, stream));
    run(stream);
    TILECRAFT_BENCH_CHECK(cudaEventRecord(stop, stream));
    TILECRAFT_BENCH_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    TILECRAFT_BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    state.SetIterationTime(ms * 1e-3);
    samples.push_back(ms * 1e-3);
  }
  TILECRAFT_BENCH_CHECK(cudaGetLastError());
  double median = 0;
  if (!samples.empty()) {
    std::sort(samples.begin(), samples.end());
    const std::size_t mid = samples.size() / 2;
    median = samples.size() % 2 == 1 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
  }
  if (median > 0) {
    state.counters["median_us"] = benchmark::Counter(median * 1e6);
    if (m.bytes > 0) state.counters["GB/s"] = benchmark::Counter(m.bytes / median * 1e-9);
    if (m.flops > 0) state.counters["TFLOP/s"] = benchmark::Counter(m.flops / median * 1e-12);
  }
  if (!peer_key.empty()) peer_times()[peer_key] = median;
  if (!ratio_to.empty()) {
    const auto it = peer_times().find(ratio_to);
    if (it != peer_times().end() && median > 0) state.counters["ratio"] = benchmark::Counter(it->second / median);
  }
  TILECRAFT_BENCH_CHECK(cudaEventDestroy(start));
  TILECRAFT_BENCH_CHECK(cudaEventDestroy(stop));
  TILECRAFT_BENCH_CHECK(cudaStreamDestroy(stream));
  return median;
}

template <class Run>
double time_it(benchmark::State& state, Run&& run, Measure m, const std::string& peer_key, const std::string& ratio_to,
               bool flush_l2) {
  return time_it_prepared(
      state, [](cudaStream_t) {}, std::forward<Run>(run), m, peer_key, ratio_to, flush_l2);
}

}  // namespace tilecraft::bench
