//! \file block/block_reduce.cuh
//! Block-wide reduction with caller-owned shared temp storage (CUB's TempStorage contract).
#pragma once

#include <cstddef>

#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../config.cuh"
#include "../util/concepts.cuh"
#include "../util/math.cuh"
#include "../util/thread.cuh"
#include "detail/block_reduce_shared_tree.cuh"
#include "detail/block_reduce_warp_shuffle.cuh"

namespace tilecraft {

//! The algorithms behind block_reduce, chosen by the storage's third parameter:
//! \code
//! __shared__ tilecraft::BlockReduceStorage<float, 256, tilecraft::BlockReduceAlgorithm::shared_tree> temp;
//! float total = tilecraft::block_reduce(temp, x, tilecraft::Sum{});   // thread 0
//! \endcode
enum class BlockReduceAlgorithm {
  //! Each warp reduces with shuffles (one redux.sync for 32-bit integer sum/min/max on sm_80+),
  //! one partial per warp goes through shared memory, and thread 0 folds the partials in warp
  //! order (warp 0 by one redux.sync, for 32-bit integer sum/min/max with 8 or more warps on
  //! sm_80+). One barrier (two for the all-threads variant) with more than one warp, none in a
  //! block of one warp; ceil(BlockThreads / 32) + 1 values of
  //! shared memory (sizeof(BlockReduceStorage) may round them up to 16 bytes). Combines in
  //! thread-rank order. The default.
  warp_shuffle,
  //! The course's tree: every thread stores its value in shared memory, then log2(BlockThreads)
  //! rounds halve the active threads (sequential addressing, conflict-free), each followed by
  //! a barrier. BlockThreads values of shared memory and 1 + log2(P) barriers, P the largest power
  //! of two <= BlockThreads (one more when BlockThreads is not a power of two): kept for
  //! teaching and comparison, several times slower than warp_shuffle. Thread t combines t with
  //! t + stride, so the operator must be commutative as well as associative.
  shared_tree,
};

//! The type block_reduce accumulates T in: float for the 16-bit floating types (__half,
//! __nv_bfloat16), whose 8- or 11-bit mantissas would lose most of a block's sum; T otherwise.
template <class T>
using block_accumulator_t = std::conditional_t<std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, float, T>;

//! Shared temp storage for block_reduce over T with BlockThreads threads. T (its accumulator):
//! trivially copyable and default constructible; a T with default member initializers or its
//! own default constructor is held as raw bytes, so the storage stays trivial all the same.
//! Trivial: declare it `__shared__`, union it with other storage, or carve it. One instance serves one
//! block_reduce call at a time; before reusing it (or its union partners) the block must pass
//! a `__syncthreads()` after the previous call returned.
template <class T, int BlockThreads, BlockReduceAlgorithm Algorithm = BlockReduceAlgorithm::warp_shuffle>
struct BlockReduceStorage {
  static_assert(ValidBlockThreads<BlockThreads>, "BlockReduceStorage: BlockThreads must be between 1 and 1024");
  //! The reduced type.
  using value_type = T;
  //! The type partials are combined in (block_accumulator_t<T>: 16-bit floats widen to float).
  using accumulator_type = block_accumulator_t<T>;
  static_assert(std::is_trivially_copyable_v<accumulator_type> && std::is_default_constructible_v<accumulator_type>,
                "BlockReduceStorage: T must be trivially copyable and default constructible to live in shared temp "
                "storage");
  //! The block size the storage is laid out for.
  static constexpr int block_threads = BlockThreads;
  //! The algorithm block_reduce runs with this storage.
  static constexpr BlockReduceAlgorithm algorithm = Algorithm;
  //! The algorithm's implementation (an internal type; use block_reduce).
  using impl = std::conditional_t<Algorithm == BlockReduceAlgorithm::warp_shuffle,
                                  detail::BlockReduceWarpShuffle<accumulator_type, BlockThreads>,
                                  detail::BlockReduceSharedTree<accumulator_type, BlockThreads>>;
  //! The shared words (public only so the type stays an aggregate; do not touch).
  typename impl::Storage storage;
};

namespace detail {
template <class T, class Op>
struct BlockReduceOpRule {
  static_assert(ReductionOp<Op, block_accumulator_t<T>>,
                "block_reduce: op(acc, acc) must be callable on the accumulator type (T, or float for 16-bit floats) "
                "and return something convertible to it");
  static constexpr bool checked = true;
};
}  // namespace detail

#if defined(__CUDACC__)

//! Reduces one value per thread over the block with `op` (associative; warp_shuffle applies it
//! in thread-rank order, so it need not be commutative; shared_tree needs it commutative).
//! The block has BlockThreads threads in any 1D/2D/3D shape; all of them must call this (it
//! contains __syncthreads()).
//!
//! Result: valid in thread 0 (rank 0) only. Barriers: 1 (warp_shuffle; none when BlockThreads
//! <= 32, a single warp's shuffles) or 1 + log2(P) (shared_tree; P the largest power of two
//! <= BlockThreads, one more when BlockThreads is not a power of two). Shared memory:
//! sizeof(temp). 16-bit floats accumulate in float. Reusing `temp` for another reduction needs
//! a __syncthreads() in between (as with CUB's TempStorage).
//! \code
//! __shared__ tilecraft::BlockReduceStorage<float, 256> temp;
//! float total = tilecraft::block_reduce(temp, x, tilecraft::Sum{});   // thread 0
//! \endcode
template <class T, int BlockThreads, BlockReduceAlgorithm Algorithm, class Op>
TILECRAFT_DEVICE T block_reduce(BlockReduceStorage<T, BlockThreads, Algorithm>& temp, std::type_identity_t<T> input,
                                Op op) {
  using Storage = BlockReduceStorage<T, BlockThreads, Algorithm>;
  static_assert(detail::BlockReduceOpRule<T, Op>::checked);
  TILECRAFT_ASSERT(block_threads() == BlockThreads);
  return static_cast<T>(
      Storage::impl::reduce_full(temp.storage, static_cast<block_accumulator_t<T>>(input), op, thread_rank()));
}

//! As block_reduce, but only threads of rank < valid_items (1 ... BlockThreads) contribute;
//! the others' inputs are ignored (every thread still calls it). For the last, partially
//! filled tile of an array. Result in thread 0; barriers and shared memory as block_reduce.
//! \code
//! // The last tile of an array of `rows` floats, 256 a block: the threads past its end call too.
//! __shared__ tilecraft::BlockReduceStorage<float, 256> temp;
//! const int t = static_cast<int>(threadIdx.x), first = static_cast<int>(blockIdx.x) * 256;
//! const int valid = rows - first < 256 ? rows - first : 256;
//! const float v = t < valid ? in[first + t] : 0.0f;  // (ignored past valid)
//! const float sum = tilecraft::block_reduce(temp, v, tilecraft::Sum{}, valid);  // thread 0
//! \endcode
template <class T, int BlockThreads, BlockReduceAlgorithm Algorithm, class Op>
TILECRAFT_DEVICE T block_reduce(BlockReduceStorage<T, BlockThreads, Algorithm>& temp, std::type_identity_t<T> input,
                                Op op, int valid_items) {
  using Storage = BlockReduceStorage<T, BlockThreads, Algorithm>;
  static_assert(detail::BlockReduceOpRule<T, Op>::checked);
  TILECRAFT_ASSERT(block_threads() == BlockThreads);
  TILECRAFT_ASSERT(valid_items >= 1);
  return static_cast<T>(Storage::impl::reduce(temp.storage, static_cast<block_accumulator_t<T>>(input), op,
                                              valid_items < BlockThreads ? valid_items : BlockThreads, thread_rank()));
}

//! Reduces Items values per thread (each thread first folds its own items in order, then the
//! block reduces). Result in thread 0; barriers and shared memory as block_reduce.
//! \code
//! __shared__ tilecraft::BlockReduceStorage<float, 128> temp;
//! const float4 v = in4[blockIdx.x * 128 + threadIdx.x];  // 4 items a thread, one 16-byte load
//! const float items[4] = {v.x, v.y, v.z, v.w};
//! const float largest = tilecraft::block_reduce(temp, items, tilecraft::Max{});  // thread 0
//! \endcode
template <class T, int BlockThreads, BlockReduceAlgorithm Algorithm, std::size_t Items, class Op>
TILECRAFT_DEVICE T block_reduce(BlockReduceStorage<T, BlockThreads, Algorithm>& temp, const T (&items)[Items], Op op) {
  using Acc = block_accumulator_t<T>;
  using Storage = BlockReduceStorage<T, BlockThreads, Algorithm>;
  static_assert(detail::BlockReduceOpRule<T, Op>::checked);
  TILECRAFT_ASSERT(block_threads() == BlockThreads);
  Acc acc = static_cast<Acc>(items[0]);
#pragma unroll
  for (std::size_t i = 1; i < Items; ++i) acc = static_cast<Acc>(op(acc, static_cast<Acc>(items[i])));
  return static_cast<T>(Storage::impl::reduce_full(temp.storage, acc, op, thread_rank()));
}

//! Reduces one value per thread and returns the result to every thread of the block (bitwise
//! the same value everywhere). Barriers: block_reduce's plus 1 with warp_shuffle and more
//! than one warp (thread 0 publishes the result in `temp`; a single warp broadcasts it by
//! shuffle), block_reduce's with shared_tree (its last barrier publishes it). Shared memory:
//! sizeof(temp).
//! \code
//! __shared__ tilecraft::BlockReduceStorage<float, 256> temp;
//! const float mean = tilecraft::block_all_reduce(temp, x, tilecraft::Sum{}) / 256.0f;  // every thread
//! \endcode
template <class T, int BlockThreads, BlockReduceAlgorithm Algorithm, class Op>
TILECRAFT_DEVICE T block_all_reduce(BlockReduceStorage<T, BlockThreads, Algorithm>& temp, std::type_identity_t<T> input,
                                    Op op) {
  using Storage = BlockReduceStorage<T, BlockThreads, Algorithm>;
  static_assert(detail::BlockReduceOpRule<T, Op>::checked);
  TILECRAFT_ASSERT(block_threads() == BlockThreads);
  return static_cast<T>(
      Storage::impl::all_reduce_full(temp.storage, static_cast<block_accumulator_t<T>>(input), op, thread_rank()));
}

//! block_all_reduce over the first `valid_items` threads (1 ... BlockThreads; every thread
//! calls it and receives the result). Barriers and shared memory as block_all_reduce.
//! \code
//! // The mean of a partial tile's `valid` values, in every thread.
//! __shared__ tilecraft::BlockReduceStorage<float, 256> temp;
//! const int valid = cols < 256 ? cols : 256;
//! const float sum = tilecraft::block_all_reduce(temp, x, tilecraft::Sum{}, valid);
//! const float mean = sum / static_cast<float>(valid);
//! \endcode
template <class T, int BlockThreads, BlockReduceAlgorithm Algorithm, class Op>
TILECRAFT_DEVICE T block_all_reduce(BlockReduceStorage<T, BlockThreads, Algorithm>& temp, std::type_identity_t<T> input,
                                    Op op, int valid_items) {
  using Storage = BlockReduceStorage<T, BlockThreads, Algorithm>;
  static_assert(detail::BlockReduceOpRule<T, Op>::checked);
  TILECRAFT_ASSERT(block_threads() == BlockThreads);
  TILECRAFT_ASSERT(valid_items >= 1);
  return static_cast<T>(Storage::impl::all_reduce(temp.storage, static_cast<block_accumulator_t<T>>(input), op,
                                                  valid_items < BlockThreads ? valid_items : BlockThreads,
                                                  thread_rank()));
}

#endif  // __CUDACC__

}  // namespace tilecraft
