// The reduction kernels a CUDA course teaches (Harris's ladder), as the rungs of the reduction
// example and the textbook baseline of the benchmarks. Each pass reduces 'block' (or 2x block)
// elements per block to one partial; passes repeat until one value is left.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace course {

constexpr int reduce_threads = 256;

//! Rung 1: interleaved addressing. `tid % (2 * s)` diverges within warps and the stride
//! doubles, so shared accesses conflict.
__global__ void reduce_interleaved(const float* in, float* out, std::int64_t n) {
  __shared__ float sdata[reduce_threads];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

//! Rung 2: sequential addressing (the course's reduceSum): contiguous active threads,
//! conflict-free.
__global__ void reduce_sequential(const float* in, float* out, std::int64_t n) {
  __shared__ float sdata[reduce_threads];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

//! Rung 3: first add during load: each block reads 2 x blockDim elements, so no thread idles
//! in the first step.
__global__ void reduce_first_add(const float* in, float* out, std::int64_t n) {
  __shared__ float sdata[reduce_threads];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x * 2 + tid;
  float v = i < n ? in[i] : 0.0f;
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

//! Rung 4: as rung 3, with the last warp's steps done by shuffles instead of barriers.
__global__ void reduce_warp_unrolled(const float* in, float* out, std::int64_t n) {
  __shared__ float sdata[reduce_threads];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x * 2 + tid;
  float v = i < n ? in[i] : 0.0f;
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    v = sdata[tid] + sdata[tid + 32];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid == 0) out[blockIdx.x] = v;
  }
}

//! Runs one of the rungs pass after pass until a single value is left in `*result`.
//! `scratch` holds at least ceil(n / 256) floats. Elements per block per pass: 256 for
//! rungs 1-2, 512 for rungs 3-4.
template <class Kernel>
cudaError_t reduce_passes(Kernel kernel, int per_block, const float* in, float* scratch, float* result, std::int64_t n,
                          cudaStream_t stream) {
  const float* src = in;
  float* bufs[2] = {scratch, scratch + (n + per_block - 1) / per_block};
  int which = 0;
  do {
    const std::int64_t blocks = (n + per_block - 1) / per_block;
    float* dst = blocks == 1 ? result : bufs[which];
    kernel<<<static_cast<unsigned>(blocks), reduce_threads, 0, stream>>>(src, dst, n);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    src = dst;
    which ^= 1;
    n = blocks;
  } while (n > 1);
  return cudaSuccess;
}

//! Scratch floats reduce_passes needs for n inputs.
inline std::int64_t reduce_scratch_elems(std::int64_t n) { return 2 * ((n + 255) / 256) + 2; }

}  // namespace course
