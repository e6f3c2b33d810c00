//! \file device/detail/pack_copy.cuh
//! The copy that packs a GEMM operand whose rows are not 16-byte aligned into rows that are
//! (the SIMT launcher's vector fill, the tensor-core launchers' wgmma and TMA fills):
//! copy_rows and its kernel.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "../../arch/griddepcontrol.cuh"
#include "../../config.cuh"
#include "../../util/launch.cuh"
#include "../../util/math.cuh"
#include "../../util/status.cuh"

#if defined(__CUDACC__)

namespace tilecraft::detail {

//! pack_copy_kernel's block: `threads` threads write a chunk of `items` x `threads`
//! consecutive elements of a destination row.
struct PackCopyShape {
  static constexpr int threads = 256;
  static constexpr int items = 4;
  static constexpr int chunk = threads * items;
};

//! How a copy overlaps the copy before or after it (copy_rows): `none`; `first` (its blocks let
//! the next kernel, a `second` copy, launch as soon as they have all started); `second`
//! (launched as a programmatic dependent of a `first` copy, independent of it: it runs beside
//! that copy's last blocks and completes only after it, so that a kernel that waits for it
//! waits for both). A `second` copy does not let its own dependent launch early: a GEMM
//! launched early beside a copy's last blocks slowed both (benchmarks/TUNING.md).
enum class CopyOverlap : int { none = 0, first = 1, second = 2 };

//! Copies `outer` rows of `inner` elements from `src` (leading dimension ld) to `dst` (leading
//! dimension ldp >= inner) and zeroes each destination row's padding, its elements inner ...
//! ldp - 1. Block (x, y) writes chunk x of rows y, y + gridDim.y, ... Every warp load and store
//! touches 32 consecutive elements, coalesced whatever the source's alignment, and a thread's
//! loads are all in flight before its stores.
template <class T>
__global__ void __launch_bounds__(PackCopyShape::threads)
    pack_copy_kernel(const T* __restrict__ src, std::int64_t ld, T* __restrict__ dst, std::int64_t ldp,
                     std::int64_t outer, std::int64_t inner, CopyOverlap overlap) {
  using S = PackCopyShape;
  if (overlap == CopyOverlap::first) arch::launch_dependents();
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
  if (overlap == CopyOverlap::second) arch::wait_for_dependencies();  // done only after the first copy
}

//! The unsigned integer of T's size: a 16-byte vector holds 16 / sizeof(T) of them.
template <class T>
using PackWord =
    std::conditional_t<sizeof(T) == 1, std::uint8_t,
                       std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                          std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

//! pack_copy_kernel in 16-byte vectors, for sources whose rows all start 16-byte aligned (the
//! tensor-core launchers' copies of rows 16 bytes off a 32-byte boundary into 128-byte ones):
//! the destination is `total` vectors, `row_vectors` (ldp / V) a row, V = 16 / sizeof(T)
//! elements each; vector j of row r holds the source's elements j V ... j V + V - 1 of that
//! row where they are below inner (`whole` = inner / V vectors whole, then one of `tail` =
//! inner % V elements read one by one), zeros past it. Thread t of block b moves vectors
//! b x chunk + t + i x threads, all loads in flight before its stores: each warp instruction
//! moves 512 consecutive bytes of the flattened rows, where the element kernel moves 32
//! elements (64 bytes of 16-bit ones) a warp instruction in blocks of a few KiB.
template <class T>
__global__ void __launch_bounds__(PackCopyShape::threads)
    pack_copy_vector_kernel(const T* __restrict__ src, std::int64_t ld, T* __restrict__ dst, std::int64_t ldp,
                            unsigned row_vectors, unsigned whole, int tail, unsigned total, CopyOverlap overlap) {
  using S = PackCopyShape;
  using Word = PackWord<T>;
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  union Vector {
    uint4 v;
    Word w[V];
  };
  if (overlap == CopyOverlap::first) arch::launch_dependents();
  const unsigned first = blockIdx.x * static_cast<unsigned>(S::chunk) + threadIdx.x;
  Vector v[S::items];
  unsigned row[S::items], col[S::items];
#pragma unroll
  for (int i = 0; i < S::items; ++i) {
    const unsigned at = first + static_cast<unsigned>(i * S::threads);
    row[i] = at / row_vectors;
    col[i] = at - row[i] * row_vectors;
    v[i].v = make_uint4(0u, 0u, 0u, 0u);
    if (at < total) {
      const T* from = src + static_cast<std::int64_t>(row[i]) * ld + static_cast<std::int64_t>(col[i]) * V;
      if (col[i] < whole) {
        v[i].v = *reinterpret_cast<const uint4*>(from);
      } else if (col[i] == whole) {
#pragma unroll
        for (int j = 0; j < V; ++j) {  // (whole j: the vector stays in registers)
          if (j < tail) v[i].w[j] = reinterpret_cast<const Word*>(from)[j];
        }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < S::items; ++i) {
    if (first + static_cast<unsigned>(i * S::threads) < total) {
      *reinterpret_cast<uint4*>(dst + static_cast<std::int64_t>(row[i]) * ldp + static_cast<std::int64_t>(col[i]) * V) =
          v[i].v;
    }
  }
  if (overlap == CopyOverlap::second) arch::wait_for_dependencies();  // done only after the first copy
}

//! Launches a copy kernel (its last parameter the CopyOverlap) on `grid` blocks: a `second`
//! copy as a programmatic dependent of the kernel before it, where the kernel waits.
template <class... Params, class... Args>
cudaError_t launch_copy(void (*kernel)(Params...), dim3 grid, cudaStream_t stream, CopyOverlap overlap,
                        Args&&... args) {
  if (overlap == CopyOverlap::second && !waits_for_dependency(reinterpret_cast<const void*>(kernel))) {
    overlap = CopyOverlap::none;
  }
  if (overlap == CopyOverlap::second) {
    return launch_dependent(kernel, grid, dim3(PackCopyShape::threads), 0, stream, std::forward<Args>(args)...,
                            overlap);
  }
  return launch_kernel(kernel, grid, dim3(PackCopyShape::threads), 0, stream, std::forward<Args>(args)..., overlap);
}

//! Copies the `outer` rows of `inner` elements of `src` (leading dimension ld) to `dst`
//! (leading dimension ldp >= inner, the padding zeroed: compute-sanitizer's initcheck counts
//! every byte of a 16-byte copy that reaches into it) on `stream`. It ran at 3.6 TB/s on an
//! H200 (4093 rows of 4095 floats) where cudaMemcpy2DAsync ran at 1.6 TB/s
//! (benchmarks/TUNING.md); where both bases and both leading dimensions are whole 16-byte
//! vectors it moves vectors (pack_copy_vector_kernel). Returns cudaErrorInvalidValue, launching nothing, when outer or
//! inner is negative, ld or ldp is below inner, or (outer > 0) a pointer is null; nothing is
//! launched for outer = 0. `overlap` (CopyOverlap): a `second` copy must follow a `first` one
//! in `stream` right away, neither writing what the other reads; where the device runs code
//! without griddepcontrol, both are ordinary launches.
template <class T>
cudaError_t copy_rows(const T* src, std::int64_t ld, T* dst, std::int64_t ldp, std::int64_t outer, std::int64_t inner,
                      cudaStream_t stream, CopyOverlap overlap = CopyOverlap::none) {
  if (outer < 0 || inner < 0 || ld < inner || ldp < inner) return cudaErrorInvalidValue;
  if (outer == 0 || ldp == 0) return cudaSuccess;
  if (src == nullptr || dst == nullptr) return cudaErrorInvalidValue;
  // 16-byte vectors where every source row, every destination row and both bases allow them
  // (and the flattened vector count fits the kernel's 32-bit indices).
  if constexpr (16 % sizeof(T) == 0) {
    constexpr auto bytes = static_cast<std::int64_t>(sizeof(T));
    const std::int64_t row_vectors = ldp * bytes / 16;
    if (reinterpret_cast<std::uintptr_t>(src) % 16 == 0 && reinterpret_cast<std::uintptr_t>(dst) % 16 == 0 &&
        ld * bytes % 16 == 0 && ldp * bytes % 16 == 0 && outer <= (std::int64_t{1} << 31) / row_vectors) {
      constexpr std::int64_t v = 16 / bytes;
      const std::int64_t total = outer * row_vectors;
      return launch_copy(pack_copy_vector_kernel<T>,
                         dim3(static_cast<unsigned>(ceil_div<std::int64_t>(total, PackCopyShape::chunk))), stream,
                         overlap, src, ld, dst, ldp, static_cast<unsigned>(row_vectors),
                         static_cast<unsigned>(inner / v), static_cast<int>(inner % v), static_cast<unsigned>(total));
    }
  }
  const dim3 grid(static_cast<unsigned>(ceil_div<std::int64_t>(ldp, PackCopyShape::chunk)),
                  static_cast<unsigned>(outer < 65535 ? outer : 65535));
  return launch_copy(pack_copy_kernel<T>, grid, stream, overlap, src, ld, dst, ldp, outer, inner);
}

}  // namespace tilecraft::detail

#endif  // __CUDACC__
