//! \file block/detail/block_reduce_warp_shuffle.cuh
//! BlockReduceAlgorithm::warp_shuffle: shuffles (or redux.sync) inside each warp, one shared
//! slot per warp, and thread 0 combines the per-warp partials in warp order.
#pragma once

#include <type_traits>

#include "../../config.cuh"
#include "../../util/math.cuh"
#include "../../util/shared_slot.cuh"
#include "../../warp/shuffle.cuh"
#include "../../warp/warp_reduce.cuh"

namespace tilecraft::detail {

template <class Acc, int BlockThreads>
struct BlockReduceWarpShuffle {
  static constexpr int warps = ceil_div(BlockThreads, warp_threads);
  //! Lanes in a partially populated last warp (BlockThreads not a multiple of 32), else 0.
  static constexpr int tail_lanes = BlockThreads % warp_threads;
  static constexpr unsigned tail_mask = tail_lanes == 0 ? full_warp_mask : (1u << tail_lanes) - 1u;

  // Thread 0 reads partials[1 ... warps-1] (its own warp's is in a register). Up to 4 warps,
  // result goes first, so those loads start at byte sizeof(Acc) (for ints: one 8-byte load
  // and one 4-byte load); with more warps the array starts 16-byte aligned, so the loads are
  // as few 16-byte vectors as possible. cub::BlockReduce lays its partials out the same way
  // (measured: benchmarks/TUNING.md).
  struct SmallStorage {
    SharedSlot<Acc> result;
    SharedSlot<Acc> partials[static_cast<std::size_t>(warps)];
  };
  struct LargeStorage {
    alignas(16) alignas(Acc) SharedSlot<Acc> partials[static_cast<std::size_t>(warps)];
    SharedSlot<Acc> result;
  };
  using Storage = std::conditional_t<(warps <= 4), SmallStorage, LargeStorage>;

#if defined(__CUDACC__)
  // Every thread of the block contributes.
  template <class Op>
  TILECRAFT_DEVICE static Acc reduce_full(Storage& s, Acc v, Op op, int rank) {
    const int warp = rank / warp_threads;
    if constexpr (tail_lanes == 0) {
      v = warp_reduce(v, op);
    } else if (warp == warps - 1) {
      v = warp_reduce(v, op, tail_lanes, tail_mask);
    } else {
      v = warp_reduce(v, op);
    }
    return combine_partials(s, v, op, warps, rank);
  }

  // Threads of rank < valid (1 ... BlockThreads) contribute.
  template <class Op>
  TILECRAFT_DEVICE static Acc reduce(Storage& s, Acc v, Op op, int valid, int rank) {
    const int warp = rank / warp_threads;
    v = warp_reduce(v, op, valid - warp * warp_threads, warp == warps - 1 ? tail_mask : full_warp_mask);
    return combine_partials(s, v, op, ceil_div(valid, warp_threads), rank);
  }

  // Lane 0 of each of the first `n` warps holds its warp's partial; thread 0 combines them in
  // warp order. Its shared loads are independent and issue back to back; what warp 0 must
  // finish before the next barrier is the chain of combines after them, so the combine keeps
  // that chain short (measured against cub::BlockReduce: benchmarks/TUNING.md):
  //   - integers, up to 8 warps: a pairwise tree ((p0 op p1) op (p2 op p3)) ..., log2(warps)
  //     deep; it holds every partial in a register, so beyond 8 warps (where 1024-thread
  //     blocks have 64 registers a thread) a left fold;
  //   - floating point: a left fold, which starts on the first partial while the other loads
  //     are in flight;
  //   - 32-bit integer Sum/Min/Max with 8 or more warps on sm_80+: warp 0 loads one partial
  //     a lane and combines them with one redux.sync (the order does not matter for those
  //     operators) instead of a fold up to 31 combines deep.
  // A second shuffle tree would cost a shuffle's latency per level.
  template <class Op>
  TILECRAFT_DEVICE static Acc combine_partials(Storage& s, Acc v, Op op, int n, int rank) {
    if constexpr (warps == 1) {
      return v;
    } else {
      Acc* const partials = slots<Acc>(s.partials);
      if ((rank & (warp_threads - 1)) == 0 && rank / warp_threads < n) partials[rank / warp_threads] = v;
      __syncthreads();
      if constexpr (warps >= 8 && has_redux<Acc, Op>) {
        NV_IF_TARGET(NV_PROVIDES_SM_80, (if (rank < warp_threads) {
                       const Acc x = rank < n ? partials[rank] : redux_identity<Acc, Op>();
                       v = redux<Acc, Op>(full_warp_mask, x);
                     } return v;))
      }
      if (rank == 0) {
        if constexpr (std::is_integral_v<Acc> && warps <= 8) {
          Acc p[warps];
          p[0] = v;
#pragma unroll
          for (int w = 1; w < warps; ++w) {
            if (w < n) p[w] = partials[w];
          }
          // The valid partials are a prefix [0, n): after the level of `step`, p[i] (i a
          // multiple of 2 * step) holds the in-order combination of [i, min(i + 2 * step, n)).
#pragma unroll
          for (int step = 1; step < warps; step *= 2) {
#pragma unroll
            for (int i = 0; i + step < warps; i += 2 * step) {
              if (i + step < n) p[i] = static_cast<Acc>(op(p[i], p[i + step]));
            }
          }
          v = p[0];
        } else {
#pragma unroll
          for (int w = 1; w < warps; ++w) {
            if (w < n) v = static_cast<Acc>(op(v, partials[w]));
          }
        }
      }
      return v;
    }
  }

  template <class Op>
  TILECRAFT_DEVICE static Acc broadcast(Storage& s, Acc v, int rank) {
    if constexpr (warps == 1) {
      return shuffle_index(v, 0, warp_threads, tail_mask);
    } else {
      Acc& result = *slots<Acc>(&s.result);
      if (rank == 0) result = v;
      __syncthreads();
      return result;
    }
  }

  template <class Op>
  TILECRAFT_DEVICE static Acc all_reduce_full(Storage& s, Acc v, Op op, int rank) {
    return broadcast<Op>(s, reduce_full(s, v, op, rank), rank);
  }

  template <class Op>
  TILECRAFT_DEVICE static Acc all_reduce(Storage& s, Acc v, Op op, int valid, int rank) {
    return broadcast<Op>(s, reduce(s, v, op, valid, rank), rank);
  }
#endif
};

}  // namespace tilecraft::detail
