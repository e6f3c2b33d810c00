// What the standalone experiments share: a CUDA-call check that stops the program, the median
// time of a call with L2 flushed before each run (as the benchmarks time theirs), and the hash
// their inputs are made from.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

// One timed call of f() on stream s, in microseconds, between events a and b, after writing
// `flush_bytes` of `fill` at `flush` (at least twice the L2) outside the timed region.
template <class F>
float timed_us(F&& f, char* flush, std::size_t flush_bytes, int fill, cudaStream_t s, cudaEvent_t a, cudaEvent_t b) {
  CK(cudaMemsetAsync(flush, fill, flush_bytes, s));
  CK(cudaEventRecord(a, s));
  f();
  CK(cudaEventRecord(b, s));
  CK(cudaEventSynchronize(b));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms * 1000.0f;
}

// The median of `runs` timed calls of f() on stream s (after one untimed warm-up), each after
// writing `flush_bytes` at `flush` (at least twice the L2), in microseconds.
template <class F>
float median_us(F&& f, char* flush, std::size_t flush_bytes, cudaStream_t s, int runs = 11) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r <= runs; ++r) {
    const float us = timed_us(f, flush, flush_bytes, r, s, a, b);
    if (r > 0) t.push_back(us);
  }
  std::sort(t.begin(), t.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return t[t.size() / 2];
}

// A well-mixed 32-bit hash of an index: the experiments fill their inputs from it, so every
// run and every variant sees the same random-looking data.
__host__ __device__ inline unsigned index_hash(long long i) {
  unsigned h = static_cast<unsigned>(i) * 2654435761u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return h;
}

// A buffer of twice the current device's L2, for median_us to write before each run.
struct L2Flush {
  char* ptr = nullptr;
  std::size_t bytes = 0;
};
inline L2Flush l2_flush_buffer() {
  int dev = 0, l2 = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  L2Flush f;
  f.bytes = 2 * static_cast<std::size_t>(l2);
  CK(cudaMalloc(&f.ptr, f.bytes));
  return f;
}

// The sizes an experiment runs, as log2 of the item count (fractions allowed: 22.32 is about
// 5 Mi): its arguments, or the defaults where it has none.
template <class T = double>
std::vector<T> log2_sizes(int argc, char** argv, std::vector<T> defaults) {
  std::vector<T> logs;
  for (int i = 1; i < argc; ++i) logs.push_back(static_cast<T>(std::atof(argv[i])));
  return logs.empty() ? defaults : logs;
}
