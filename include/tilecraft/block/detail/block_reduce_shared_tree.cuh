//! \file block/detail/block_reduce_shared_tree.cuh
//! BlockReduceAlgorithm::shared_tree: the course's shared-memory tree with sequential
//! addressing (thread t combines t and t + stride: consecutive threads touch consecutive
//! words, so no bank conflicts), one barrier per level.
#pragma once

#include "../../config.cuh"
#include "../../util/math.cuh"
#include "../../util/shared_slot.cuh"

namespace tilecraft::detail {

template <class Acc, int BlockThreads>
struct BlockReduceSharedTree {
  //! Largest power of two <= BlockThreads; threads above it are folded in first.
  static constexpr int pow2_threads = pow2_floor(BlockThreads);

  struct Storage {
    SharedSlot<Acc> data[static_cast<std::size_t>(BlockThreads)];
  };

#if defined(__CUDACC__)
  template <class Op>
  TILECRAFT_DEVICE static Acc tree(Storage& s, Acc v, Op op, int valid, int rank) {
    Acc* const data = slots<Acc>(s.data);
    data[rank] = v;
    __syncthreads();
    if constexpr (pow2_threads != BlockThreads) {
      if (rank < BlockThreads - pow2_threads && rank + pow2_threads < valid) {
        data[rank] = op(data[rank], data[rank + pow2_threads]);
      }
      __syncthreads();
    }
#pragma unroll
    for (int stride = pow2_threads / 2; stride > 0; stride /= 2) {
      if (rank < stride && rank + stride < valid) data[rank] = op(data[rank], data[rank + stride]);
      __syncthreads();
    }
    return data[0];
  }

  template <class Op>
  TILECRAFT_DEVICE static Acc reduce(Storage& s, Acc v, Op op, int valid, int rank) {
    return tree(s, v, op, valid, rank);
  }
  template <class Op>
  TILECRAFT_DEVICE static Acc reduce_full(Storage& s, Acc v, Op op, int rank) {
    return tree(s, v, op, BlockThreads, rank);
  }

  // The last level's barrier already published data[0] to every thread.
  template <class Op>
  TILECRAFT_DEVICE static Acc all_reduce(Storage& s, Acc v, Op op, int valid, int rank) {
    return tree(s, v, op, valid, rank);
  }
  template <class Op>
  TILECRAFT_DEVICE static Acc all_reduce_full(Storage& s, Acc v, Op op, int rank) {
    return tree(s, v, op, BlockThreads, rank);
  }
#endif
};

}  // namespace tilecraft::detail
