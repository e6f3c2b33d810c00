// The scan kernels a CUDA course teaches, as the first rungs of the scan ladder: each block scans
// its part of the array in shared memory and writes its total; the totals are scanned the same
// way (recursively), and a last pass adds each block's offset to its elements.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace course {

constexpr int scan_threads = 512;

//! Rung 1: Hillis-Steele (naive, work-inefficient): one element per thread, log2(512) steps in
//! which every element adds the one `offset` before it, double-buffered so that a step reads
//! only the previous step's values. O(n log n) additions, a barrier per step.
__global__ void scan_hillis_steele(const float* in, float* out, float* block_sums, std::int64_t n) {
  __shared__ float buf[2][scan_threads];
  const int tid = threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * scan_threads + tid;
  int cur = 0;
  buf[cur][tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < scan_threads; offset *= 2) {
    const float v = buf[cur][tid] + (tid >= offset ? buf[cur][tid - offset] : 0.0f);
    cur ^= 1;
    buf[cur][tid] = v;
    __syncthreads();
  }
  if (i < n) out[i] = buf[cur][tid];
  if (tid == scan_threads - 1) block_sums[blockIdx.x] = buf[cur][tid];
}

//! Rung 2: the work-efficient scan (Blelloch): each thread loads two elements, an up-sweep
//! builds partial sums in a tree, the root is cleared, a down-sweep distributes the prefixes:
//! O(n) additions, 2 log2(1024) barriers. Exclusive by construction; the input is added back
//! for the inclusive result.
__global__ void scan_work_efficient(const float* in, float* out, float* block_sums, std::int64_t n) {
  constexpr int m = 2 * scan_threads;
  __shared__ float s[m];
  const int tid = threadIdx.x;
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * m;
  const float a = base + tid < n ? in[base + tid] : 0.0f;
  const float b = base + tid + scan_threads < n ? in[base + tid + scan_threads] : 0.0f;
  s[tid] = a;
  s[tid + scan_threads] = b;
  int offset = 1;
  for (int d = m / 2; d > 0; d /= 2) {  // up-sweep
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      s[bi] += s[ai];
    }
    offset *= 2;
  }
  if (tid == 0) {
    block_sums[blockIdx.x] = s[m - 1];
    s[m - 1] = 0.0f;
  }
  for (int d = 1; d < m; d *= 2) {  // down-sweep
    offset /= 2;
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      const float t = s[ai];
      s[ai] = s[bi];
      s[bi] += t;
    }
  }
  __syncthreads();
  if (base + tid < n) out[base + tid] = s[tid] + a;
  if (base + tid + scan_threads < n) out[base + tid + scan_threads] = s[tid + scan_threads] + b;
}

//! The last pass: block b's elements (per_block of them) get the scanned total of the blocks
//! before it.
__global__ void add_block_offsets(float* out, const float* scanned_sums, std::int64_t n, int per_block) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t block = i / per_block;
  if (i < n && block > 0) out[i] += scanned_sums[block - 1];
}

//! Inclusive scan of n floats with `kernel` (per_block elements per block of scan_threads
//! threads), recursing on the block totals. `scratch` holds scan_scratch_elems(n, per_block)
//! floats.
template <class Kernel>
cudaError_t scan_passes(Kernel kernel, int per_block, const float* in, float* out, float* scratch, std::int64_t n,
                        cudaStream_t stream) {
  const std::int64_t blocks = (n + per_block - 1) / per_block;
  float* sums = scratch;
  kernel<<<static_cast<unsigned>(blocks), scan_threads, 0, stream>>>(in, out, sums, n);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  if (blocks == 1) return cudaSuccess;
  // Scan the totals in place (the next level's scratch follows them), then add the offsets.
  if (const cudaError_t e = scan_passes(kernel, per_block, sums, sums, scratch + blocks, blocks, stream);
      e != cudaSuccess)
    return e;
  add_block_offsets<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(out, sums, n, per_block);
  return cudaGetLastError();
}

//! Scratch floats scan_passes needs for n elements.
inline std::int64_t scan_scratch_elems(std::int64_t n, int per_block) {
  std::int64_t total = 0;
  while (n > 1) {
    n = (n + per_block - 1) / per_block;
    total += n;
  }
  return total + 1;
}

}  // namespace course
