//! \file device/detail/pack_copy.cuh
//! The copy that packs a GEMM operand whose rows are not 16-byte aligned into rows that are
//! (the SIMT launcher's vector fill, the tensor-core launchers' wgmma and TMA fills):
//! copy_rows and its kernel.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "../../config.cuh"
#include "../../util/error.cuh"
#include "../../util/launch.cuh"
#include "../../util/math.cuh"

#if defined(__CUDACC__)

namespace tilecraft::detail {

//! pack_copy_kernel's block: `threads` threads write a chunk of `items` x `threads`
//! consecutive elements of a destination row.
struct PackCopyShape {
  static constexpr int threads = 256;
  static constexpr int items = 4;
  static constexpr int chunk = threads * items;
};

//! Copies `outer` rows of `inner` elements from `src` (leading dimension ld) to `dst` (leading
//! dimension ldp >= inner) and zeroes each destination row's padding, its elements inner ...
//! ldp - 1. Block (x, y) writes chunk x of rows y, y + gridDim.y, ... Every warp load and store
//! touches 32 consecutive elements, coalesced whatever the source's alignment, and a thread's
//! loads are all in flight before its stores.
template <class T>
__global__ void __launch_bounds__(PackCopyShape::threads)
    pack_copy_kernel(const T* __restrict__ src, std::int64_t ld, T* __restrict__ dst, std::int64_t ldp,
                     std::int64_t outer, std::int64_t inner) {
  using S = PackCopyShape;
  const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * S::chunk + threadIdx.x;
  for (std::int64_t row = blockIdx.y; row < outer; row += gridDim.y) {
    const T* from = src + row * ld;
    T* to = dst + row * ldp;
    T v[S::items];
#pragma unroll
    for (int i = 0; i < S::items; ++i) {
      const std::int64_t col = col0 + i * S::threads;
      v[i] = col < inner ? from[col] : T(0);
    }
#pragma unroll
    for (int i = 0; i < S::items; ++i) {
      const std::int64_t col = col0 + i * S::threads;
      if (col < ldp) to[col] = v[i];
    }
  }
}

//! Copies the `outer` rows of `inner` elements of `src` (leading dimension ld) to `dst`
//! (leading dimension ldp >= inner, the padding zeroed: compute-sanitizer's initcheck counts
//! every byte of a 16-byte copy that reaches into it) on `stream`. It ran at 3.6 TB/s on an
//! H200 (4093 rows of 4095 floats) where cudaMemcpy2DAsync ran at 1.6 TB/s
//! (benchmarks/TUNING.md). Returns cudaErrorInvalidValue, launching nothing, when outer or
//! inner is negative, ld or ldp is below inner, or (outer > 0) a pointer is null; nothing is
//! launched for outer = 0.
template <class T>
cudaError_t copy_rows(const T* src, std::int64_t ld, T* dst, std::int64_t ldp, std::int64_t outer, std::int64_t inner,
                      cudaStream_t stream) {
  if (outer < 0 || inner < 0 || ld < inner || ldp < inner) return cudaErrorInvalidValue;
  if (outer == 0 || ldp == 0) return cudaSuccess;
  if (src == nullptr || dst == nullptr) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(ceil_div<std::int64_t>(ldp, PackCopyShape::chunk)),
                  static_cast<unsigned>(outer < 65535 ? outer : 65535));
  return launch_kernel(pack_copy_kernel<T>, grid, dim3(PackCopyShape::threads), 0, stream, src, ld, dst, ldp, outer,
                       inner);
}

}  // namespace tilecraft::detail

#endif  // __CUDACC__
