//! \file device/detail/scan_kernels.cuh
//! tilecraft::inclusive_scan / exclusive_scan's kernels and the tile staging they share with
//! select_if and partition (internal; include device/scan.cuh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <vector_types.h>

#include "../../block/block_scan.cuh"
#include "../../config.cuh"
#include "../../memory/global_word.cuh"
#include "../../util/math.cuh"
#include "scan_tile_state.cuh"

namespace tilecraft::detail {

//! The 16-byte chunk a tile's chunk `c` is stored at in shared memory. XOR-ing the chunk's
//! position within its 128-byte row with the row number (mod 8) makes both accesses of the
//! staging conflict-free: the striped one (8 consecutive threads, 8 consecutive chunks of one
//! row) and the blocked one (thread t reads chunks t * V ... t * V + V - 1 for V = 1, 2, 4 or 8,
//! so the 8 threads of a 16-byte-load phase hit 8 different positions).
TILECRAFT_HOST_DEVICE constexpr int swizzle_chunk(int c) { return c ^ ((c >> 3) & 7); }

//! A tile of Threads * Items elements of T staged in shared memory.
template <class T, int Threads, int Items>
struct TileStage {
  static constexpr int elems = Threads * Items;
  static constexpr std::size_t bytes = static_cast<std::size_t>(elems) * sizeof(T);
  //! Each thread's run is whole 16-byte chunks and no element straddles two: the staging moves
  //! 16-byte vectors (swizzled); otherwise elements, in order.
  static constexpr bool chunked = sizeof(T) <= 16 && 16 % sizeof(T) == 0 && (Items * sizeof(T)) % 16 == 0;
  static constexpr int chunks_per_thread = chunked ? static_cast<int>(Items * sizeof(T) / 16) : 0;

#if defined(__CUDACC__)
  TILECRAFT_DEVICE static T* element(unsigned char* s, int e) {
    if constexpr (chunked) {
      const int b = e * static_cast<int>(sizeof(T));
      return reinterpret_cast<T*>(s + (swizzle_chunk(b >> 4) << 4) + (b & 15));
    } else {
      return reinterpret_cast<T*>(s) + e;
    }
  }
  TILECRAFT_DEVICE static uint4* chunk(unsigned char* s, int c) {
    return reinterpret_cast<uint4*>(s + (swizzle_chunk(c) << 4));
  }

  // Global (the tile's first element at src, `valid` of them) -> this thread's Items elements in
  // blocked order. vector: src is 16-byte aligned (a full tile then moves as 16-byte vectors; a
  // run-time flag, uniform across the grid: one kernel serves aligned and unaligned arrays).
  // Elements past `valid` repeat the last valid one, so that an operator never sees garbage.
  // Ends with the barrier after which every thread may read its run; the caller must not write
  // `s` again before a barrier that follows every thread's return.
  template <CacheHint Hint>
  TILECRAFT_DEVICE static void load(bool vector, const T* src, int valid, unsigned char* s,
                                    T (&x)[static_cast<std::size_t>(Items)]) {
    const int t = static_cast<int>(threadIdx.x);
    if (chunked && vector && valid == elems) {
      const uint4* g = reinterpret_cast<const uint4*>(src);
      uint4 w[chunks_per_thread > 0 ? chunks_per_thread : 1];
#pragma unroll
      for (int k = 0; k < chunks_per_thread; ++k) w[k] = load_global_word<Hint>(g + k * Threads + t);
#pragma unroll
      for (int k = 0; k < chunks_per_thread; ++k) *chunk(s, k * Threads + t) = w[k];
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int e = k * Threads + t;
        *element(s, e) = src[e < valid ? e : valid - 1];
      }
    }
    __syncthreads();
    if constexpr (chunked) {
#pragma unroll
      for (int k = 0; k < chunks_per_thread; ++k) {
        const uint4 w = *chunk(s, t * chunks_per_thread + k);
        std::memcpy(reinterpret_cast<unsigned char*>(x) + 16 * k, &w, 16);
      }
    } else {
#pragma unroll
      for (int j = 0; j < Items; ++j) x[j] = *element(s, t * Items + j);
    }
  }

  // This thread's Items elements (blocked order) -> global, the first `valid` of the tile. The
  // caller guarantees that every thread has finished reading `s` (a barrier since).
  template <CacheHint Hint>
  TILECRAFT_DEVICE static void store(bool vector, T* dst, int valid, unsigned char* s,
                                     const T (&y)[static_cast<std::size_t>(Items)]) {
    const int t = static_cast<int>(threadIdx.x);
    if constexpr (chunked) {
#pragma unroll
      for (int k = 0; k < chunks_per_thread; ++k) {
        uint4 w;
        std::memcpy(&w, reinterpret_cast<const unsigned char*>(y) + 16 * k, 16);
        *chunk(s, t * chunks_per_thread + k) = w;
      }
    } else {
#pragma unroll
      for (int j = 0; j < Items; ++j) *element(s, t * Items + j) = y[j];
    }
    __syncthreads();
    if (chunked && vector && valid == elems) {
      uint4* g = reinterpret_cast<uint4*>(dst);
#pragma unroll
      for (int k = 0; k < chunks_per_thread; ++k)
        store_global_word<Hint>(g + k * Threads + t, *chunk(s, k * Threads + t));
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int e = k * Threads + t;
        if (e < valid) dst[e] = *element(s, e);
      }
    }
  }
#endif
};

#if defined(__CUDACC__)

// The staging buffer of a tile of In read and Out written (one buffer, used in turn).
template <class Policy, class In, class Out>
TILECRAFT_HOST_DEVICE constexpr std::size_t stage_bytes_of() {
  const std::size_t in_bytes = TileStage<In, Policy::threads, Policy::items>::bytes;
  const std::size_t out_bytes = TileStage<Out, Policy::threads, Policy::items>::bytes;
  return in_bytes > out_bytes ? in_bytes : out_bytes;
}

// Tile `tile` of a multi-tile scan: load, scan with the look-back as block_scan's prefix
// callback, store.
template <class Policy, bool Exclusive, class In, class Out, class Acc, class Op, class Status>
TILECRAFT_DEVICE void scan_tile(bool vector, const In* in, Out* out, std::int64_t n, std::int64_t tile, Op op,
                                const Acc& init, const Status& status, unsigned char* stage,
                                BlockScanStorage<Acc, Policy::threads, Policy::block_algorithm>& temp,
                                Acc* look_back_buf) {
  constexpr int items = Policy::items;
  constexpr int elems = Policy::tile_items;
  using InStage = TileStage<In, Policy::threads, items>;
  using OutStage = TileStage<Out, Policy::threads, items>;
  const std::int64_t base = tile * elems;
  const std::int64_t left = n - base;
  const int valid = left < elems ? static_cast<int>(left) : elems;
  Acc a[items];
  {
    In x[items];
    InStage::template load<Policy::hint>(vector, in + base, valid, stage, x);
#pragma unroll
    for (int j = 0; j < items; ++j) a[j] = static_cast<Acc>(x[j]);
  }
  if (tile == 0) {
    if constexpr (Exclusive) {
      FirstTileCallback<Acc, Status, Op> first{status, op, init, nullptr, nullptr};
      block_exclusive_scan(temp, a, a, op, first);
    } else {
      Acc aggregate;
      block_inclusive_scan(temp, a, a, op, aggregate);
      if (threadIdx.x == 0) status.publish(0, tile_inclusive, aggregate);
    }
  } else {
    LookBackCallback<Acc, Status, Op> look_back{status, tile, op, look_back_buf, nullptr, nullptr};
    if constexpr (Exclusive) {
      block_exclusive_scan(temp, a, a, op, look_back);
    } else {
      block_inclusive_scan(temp, a, a, op, look_back);
    }
  }
  Out y[items];
#pragma unroll
  for (int j = 0; j < items; ++j) y[j] = static_cast<Out>(a[j]);
  OutStage::template store<Policy::hint>(vector, out + base, valid, stage, y);
}

// One block per tile; each block takes its tile from the counter (tickets are handed out in
// the order blocks start, so a block only ever waits for tiles whose blocks are running). A
// single tile (single_tile: one block, nothing to wait for) skips the counter, so small inputs
// need no reset kernel.
template <class Policy, bool Exclusive, class In, class Out, class Acc, class Op>
__global__ void __launch_bounds__(Policy::threads)
    scan_kernel(const In* in, Out* out, std::int64_t n, Op op, Acc init, TileStatus<Acc> status, unsigned* counter,
                bool vector, bool single_tile) {
  __shared__ alignas(16) unsigned char stage[stage_bytes_of<Policy, In, Out>()];
  __shared__ BlockScanStorage<Acc, Policy::threads, Policy::block_algorithm> temp;
  __shared__ Acc look_back_buf[warp_threads];
  __shared__ unsigned ticket;
  if (threadIdx.x == 0) ticket = single_tile ? 0u : atomicAdd(counter, 1u);
  __syncthreads();
  scan_tile<Policy, Exclusive>(vector, in, out, n, static_cast<std::int64_t>(ticket), op, init, status, stage, temp,
                               look_back_buf);
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
