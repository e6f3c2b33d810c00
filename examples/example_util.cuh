// Small helpers the examples share: event timing and a bandwidth (or TFLOP/s) line.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include <tilecraft/util/error.cuh>

namespace example {

//! Median-free but honest: one warm-up, then the mean of `reps` runs between two events.
template <class F>
double time_ms(F&& f, int reps = 20) {
  cudaEvent_t a, b;
  TILECRAFT_THROW_IF_ERROR(cudaEventCreate(&a));
  TILECRAFT_THROW_IF_ERROR(cudaEventCreate(&b));
  f();
  TILECRAFT_THROW_IF_ERROR(cudaEventRecord(a));
  for (int i = 0; i < reps; ++i) f();
  TILECRAFT_THROW_IF_ERROR(cudaEventRecord(b));
  TILECRAFT_THROW_IF_ERROR(cudaEventSynchronize(b));
  TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
  float ms = 0;
  TILECRAFT_THROW_IF_ERROR(cudaEventElapsedTime(&ms, a, b));
  TILECRAFT_THROW_IF_ERROR(cudaEventDestroy(a));
  TILECRAFT_THROW_IF_ERROR(cudaEventDestroy(b));
  return ms / reps;
}

//! Uniform floats in [lo, hi) for the examples' inputs: a 64-bit linear congruential generator
//! (Knuth's MMIX constants), the top 24 bits of each state. Not <random>, whose headers cost a
//! unit about 2 CPU s to compile (parsed by the host compiler and by cicc for each architecture).
class UniformFloats {
 public:
  UniformFloats(float lo, float hi, std::uint64_t seed) : lo_(lo), width_(hi - lo), state_(seed) {}
  float operator()() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return lo_ + width_ * (static_cast<float>(state_ >> 40) * 0x1p-24f);
  }

 private:
  float lo_, width_;
  std::uint64_t state_;
};

//! One line per rung: time, bandwidth, and the verdict of its correctness check.
inline void report(const char* step, double ms, double bytes, const char* verdict) {
  std::printf("  %-34s %9.1f us %8.1f GB/s  %s\n", step, ms * 1e3, bytes / (ms * 1e-3) * 1e-9, verdict);
}
//! The verdicts in this process that were WRONG.
inline int& failed_checks() {
  static int count = 0;
  return count;
}
//! "ok" or "WRONG" (counted in failed_checks).
inline const char* verdict(bool correct) {
  if (!correct) ++failed_checks();
  return correct ? "ok" : "WRONG";
}
//! main's exit status: 1 where a verdict was WRONG.
inline int exit_status() { return failed_checks() == 0 ? 0 : 1; }

//! The same line for compute-bound work: time and TFLOP/s.
inline void report_flops(const char* step, double ms, double flops, const char* verdict) {
  std::printf("  %-34s %9.1f us %8.2f TFLOP/s  %s\n", step, ms * 1e3, flops / (ms * 1e-3) * 1e-12, verdict);
}

//! A device copy of a host vector (cudaMalloc'd: the caller frees it).
template <class T>
T* device_copy(const std::vector<T>& h) {
  T* d = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d, h.size() * sizeof(T)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

//! True when a GPU is present; otherwise says so (the examples then exit 0). No device and no
//! driver count as no GPU; any other failure of the query throws (a broken driver fails).
inline bool have_gpu(const char* name) {
  int n = 0;
  const cudaError_t status = cudaGetDeviceCount(&n);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver || (status == cudaSuccess && n == 0)) {
    (void)cudaGetLastError();
    std::printf("%s: no CUDA device, nothing to run\n", name);
    return false;
  }
  TILECRAFT_THROW_IF_ERROR(status);
  cudaDeviceProp p{};
  TILECRAFT_THROW_IF_ERROR(cudaGetDeviceProperties(&p, 0));
  std::printf("%s on %s\n", name, p.name);
  return true;
}

}  // namespace example
