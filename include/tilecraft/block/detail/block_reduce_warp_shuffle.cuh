//! \file block/detail/block_reduce_warp_shuffle.cuh
//! BlockReduceAlgorithm::warp_shuffle: shuffles inside each warp, one shared word per warp.
#pragma once

#include "../../config.cuh"
#include "../../util/math.cuh"
#include "../../warp/shuffle.cuh"
#include "../../warp/warp_reduce.cuh"

namespace tilecraft::detail {

template <class Acc, int BlockThreads>
struct BlockReduceWarpShuffle {
  static constexpr int warps = ceil_div(BlockThreads, warp_threads);
  //! Lanes in a partially populated last warp (BlockThreads not a multiple of 32), else 0.
  static constexpr int tail_lanes = BlockThreads % warp_threads;
  //! Logical warp width that covers the per-warp partials in the second stage.
  static constexpr int partial_width = pow2_ceil(warps);

  struct Storage {
    Acc partials[warps];
    Acc result;
  };

#if defined(__CUDACC__)
  // Reduces within the calling warp; the result lands in lane 0.
  template <class Op>
  TILECRAFT_DEVICE static Acc warp_stage(Acc v, Op op, int valid, int warp) {
    const bool partial_warp = tail_lanes != 0 && warp == warps - 1;
    const unsigned mask = partial_warp ? (1u << tail_lanes) - 1u : full_warp_mask;
    const int warp_valid = valid - warp * warp_threads;
    if (!partial_warp && warp_valid >= warp_threads) return warp_reduce(v, op);
    return warp_reduce(v, op, warp_valid, mask);
  }

  template <class Op>
  TILECRAFT_DEVICE static Acc reduce(Storage& s, Acc v, Op op, int valid, int rank) {
    const int lane = rank & (warp_threads - 1);
    const int warp = rank / warp_threads;
    v = warp_stage(v, op, valid, warp);
    if constexpr (warps > 1) {
      if (lane == 0 && warp * warp_threads < valid) s.partials[warp] = v;
      __syncthreads();
      if (warp == 0) {
        const int n = ceil_div(valid, warp_threads);
        // Lanes past the last partial re-read partial 0 and are never combined into lane 0.
        Acc p = s.partials[lane < n ? lane : 0];
        if (n == warps && partial_width == warps) {
          p = warp_reduce<partial_width>(p, op);
        } else {
          p = warp_reduce<partial_width>(p, op, n);
        }
        v = p;
      }
    }
    return v;
  }

  template <class Op>
  TILECRAFT_DEVICE static Acc all_reduce(Storage& s, Acc v, Op op, int valid, int rank) {
    v = reduce(s, v, op, valid, rank);
    if constexpr (warps == 1) {
      const unsigned mask = tail_lanes != 0 ? (1u << tail_lanes) - 1u : full_warp_mask;
      return shuffle_index(v, 0, warp_threads, mask);
    } else {
      if (rank == 0) s.result = v;
      __syncthreads();
      return s.result;
    }
  }
#endif
};

}  // namespace tilecraft::detail
