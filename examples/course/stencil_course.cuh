// The 1D convolution a CUDA course teaches ("1D Convolution with Global Memory", then with a
// shared `support` array), as the first rungs of the stencil ladder and the textbook baselines
// of the benchmarks. Generalised from the course's 3-point average to a centred window of
// compile-time radius R with weights passed by value as a kernel parameter:
//   out[i] = sum_{j=-R..R} weights.w[j + R] * in[i + j],   in[k] = 0 outside [0, n).
// 128 threads, one output per thread; bounds-checked so they work for any n.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace course {

constexpr int convolve_threads = 128;  // the course's THREADS_PER_BLK

//! The 2R + 1 weights: w[j + R] multiplies in[i + j]. Passed by value, so the kernel reads
//! them from the parameter (constant) bank: every thread of a warp reads the same word.
template <class T, int R>
struct ConvolveWeights {
  T w[2 * R + 1];
};

//! in[k], or 0 outside [0, n): the zero boundary.
template <class T>
__device__ T input_or_zero(const T* in, std::int64_t k, std::int64_t n) {
  return k >= 0 && k < n ? in[k] : T(0);
}

//! Rung 1: every thread reads its 2R + 1 inputs straight from global memory. Neighbouring
//! threads read overlapping windows, so each input is fetched by 2R + 1 threads (the L1 catches
//! part of it): (2R + 1) x 128 load instructions per block.
template <int R, class T>
__global__ void convolve_global(const T* in, T* out, std::int64_t n, ConvolveWeights<T, R> weights) {
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= n) return;
  T result = 0;
#pragma unroll
  for (int j = -R; j <= R; ++j) result += weights.w[j + R] * input_or_zero(in, index + j, n);
  out[index] = result;
}

//! Rung 2: the block first stages the 128 + 2R inputs its outputs need in shared memory (each
//! thread one, the first R threads the halo on either side), waits at one barrier, then reads
//! its window from `support`: 128 + 2R global loads per block instead of (2R + 1) x 128.
template <int R, class T>
__global__ void convolve_shared(const T* in, T* out, std::int64_t n, ConvolveWeights<T, R> weights) {
  static_assert(R >= 1 && R <= convolve_threads, "the halo is loaded by the first R threads: 1 <= R <= 128");
  __shared__ T support[convolve_threads + 2 * R];  // support[k] = in[first - R + k]
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  support[R + threadIdx.x] = input_or_zero(in, index, n);
  if (threadIdx.x < R) {
    support[threadIdx.x] = input_or_zero(in, index - R, n);
    support[R + convolve_threads + threadIdx.x] = input_or_zero(in, index + convolve_threads, n);
  }
  __syncthreads();
  if (index >= n) return;  // only after the barrier: every thread helped load `support`
  T result = 0;
#pragma unroll
  for (int j = 0; j <= 2 * R; ++j) result += weights.w[j] * support[threadIdx.x + j];
  out[index] = result;
}

//! Blocks for n outputs, one per thread.
inline std::int64_t convolve_blocks(std::int64_t n) { return (n + convolve_threads - 1) / convolve_threads; }

namespace detail {
template <class Kernel, int R, class T>
[[nodiscard]] cudaError_t launch_convolve(Kernel kernel, const T* in, T* out, std::int64_t n,
                                          const ConvolveWeights<T, R>& weights, cudaStream_t stream) {
  if (n < 0 || (n > 0 && (out == nullptr || in == nullptr)) || n > std::int64_t{0x7fffffff} * convolve_threads)
    return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  kernel<<<static_cast<unsigned>(convolve_blocks(n)), convolve_threads, 0, stream>>>(in, out, n, weights);
  return cudaGetLastError();
}
}  // namespace detail

//! Launches rung 1 over n outputs (in and out must not overlap).
template <int R, class T>
[[nodiscard]] cudaError_t launch_convolve_global(const T* in, T* out, std::int64_t n,
                                                 const ConvolveWeights<T, R>& weights, cudaStream_t stream = 0) {
  return detail::launch_convolve(convolve_global<R, T>, in, out, n, weights, stream);
}

//! Launches rung 2 over n outputs (in and out must not overlap).
template <int R, class T>
[[nodiscard]] cudaError_t launch_convolve_shared(const T* in, T* out, std::int64_t n,
                                                 const ConvolveWeights<T, R>& weights, cudaStream_t stream = 0) {
  return detail::launch_convolve(convolve_shared<R, T>, in, out, n, weights, stream);
}

}  // namespace course
