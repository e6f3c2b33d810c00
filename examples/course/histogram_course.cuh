// The histogram kernels a CUDA course teaches when it introduces atomics, as the rungs of the
// histogram example: 256 bins of bytes, each rung a step from the naive kernel toward the
// privatized one. Every kernel adds into `hist` (256 counters the caller zeroed).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace course {

constexpr int histogram_threads = 256;

//! Rung 1: one global atomicAdd per byte. Every increment is a read-modify-write in L2, and
//! the 256 counters are hot lines that thousands of threads fight over.
__global__ void histogram_global_atomics(const unsigned char* in, std::int64_t n, unsigned* hist) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    atomicAdd(&hist[in[i]], 1u);
  }
}

//! Rung 2: a private histogram per block in shared memory (shared atomics, a hundred times
//! cheaper than L2's), added to the global one once per block.
__global__ void histogram_shared_atomics(const unsigned char* in, std::int64_t n, unsigned* hist) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    atomicAdd(&local[in[i]], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    if (local[b] != 0) atomicAdd(&hist[b], local[b]);
  }
}

//! Rung 3: one sub-histogram per warp (fewer threads per counter) and 16-byte loads (16 bytes
//! per load instruction instead of one). Needs `in` 16-byte aligned; the last n % 16 bytes are
//! read one at a time.
__global__ void histogram_privatized_vectors(const unsigned char* in, std::int64_t n, unsigned* hist) {
  constexpr int warps = histogram_threads / 32;
  __shared__ unsigned local[warps][256];
  for (int b = threadIdx.x; b < warps * 256; b += blockDim.x) local[b / 256][b % 256] = 0;
  __syncthreads();
  unsigned* mine = local[threadIdx.x / 32];
  const std::int64_t vectors = n / 16;
  const auto* in4 = reinterpret_cast<const uint4*>(in);
  for (std::int64_t v = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; v < vectors;
       v += std::int64_t{gridDim.x} * blockDim.x) {
    const uint4 w = in4[v];
    for (unsigned word : {w.x, w.y, w.z, w.w}) {
      for (int k = 0; k < 4; ++k) atomicAdd(&mine[(word >> (8 * k)) & 0xffu], 1u);
    }
  }
  const std::int64_t tail = vectors * 16 + blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (tail < n) atomicAdd(&mine[in[tail]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    unsigned total = 0;
    for (int w = 0; w < warps; ++w) total += local[w][b];
    if (total != 0) atomicAdd(&hist[b], total);
  }
}

}  // namespace course
