//! \file block/block_scan.cuh
//! Block-wide prefix scans (inclusive and exclusive, one item or an array of items per thread,
//! partial blocks, a prefix callback that carries a running total across tiles) with
//! caller-owned shared temp storage (CUB's TempStorage contract).
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>

#include "../config.cuh"
#include "../util/concepts.cuh"
#include "../util/math.cuh"
#include "../util/thread.cuh"
#include "detail/block_scan_raking.cuh"
#include "detail/block_scan_warp_scans.cuh"

namespace tilecraft {

//! The algorithms behind block_scan. warp_scans and two_level scan each warp's partials with
//! shuffles and publish one total per warp in shared memory; they differ in how the warp totals
//! become prefixes. raking hands all partials to the first warp.
enum class BlockScanAlgorithm {
  //! raking up to 512 threads, two_level above: the fastest at each size on an H200
  //! (benchmarks/TUNING.md). The default.
  automatic,
  //! Every thread folds all the warps' totals in warp order (broadcast shared loads), taking
  //! its warp's prefix on the way and the block's total at the end: one barrier (two with a
  //! prefix callback; none in a block of one warp), BlockThreads / 32 loads and
  //! BlockThreads / 32 - 1 operator calls per thread (CUB's BLOCK_SCAN_WARP_SCANS).
  warp_scans,
  //! Warp 0 scans the warp totals with shuffles and writes one prefix per warp back: two
  //! barriers, two shared loads per thread, whatever the block size of more than one warp.
  two_level,
  //! Every thread stores the fold of its items; the first warp alone folds them in segments of
  //! ceil(BlockThreads / 32) threads, scans the segment totals with shuffles and writes each thread's
  //! prefix back (CUB's BLOCK_SCAN_RAKING): two barriers (none in a block of one warp), one
  //! shared store and one load per thread, and the shuffles of one warp instead of every warp's.
  raking,
};

namespace detail {
// The implementation behind an algorithm at a block size (automatic resolved).
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm>
using BlockScanImpl = std::conditional_t<
    Algorithm == BlockScanAlgorithm::raking || (Algorithm == BlockScanAlgorithm::automatic && BlockThreads <= 512),
    BlockScanRaking<T, BlockThreads>, BlockScanWarpScans<T, BlockThreads, Algorithm == BlockScanAlgorithm::warp_scans>>;
}  // namespace detail

//! Shared temp storage for block_scan over T with BlockThreads threads: (BlockThreads / 32 + 2)
//! values of T (whole warps) for warp_scans and two_level; for raking and automatic up to 512
//! threads 32 x s + 1, with g = BlockThreads / 32 (rounded up) and s = g rounded up to an odd
//! number; where sizeof(T) is a multiple of 4 and the T's of 128 bytes are a multiple of 2 x g,
//! 31 x s + d x (g - 1) + 2 instead, d = 128 / sizeof(T) / g (T of 4, 8 or 16 bytes and g a
//! power of two below 32, 16 or 8: 48 threads of float too). So raking over 256 floats takes
//! 31 x 9 + 4 x 7 + 2 = 309 values, over 512 doubles 32 x 17 + 1 = 545; a block of one warp
//! takes warp_scans' storage. sizeof(BlockScanStorage) is exact. T: trivially copyable and
//! default constructible; a T with default member initializers or its own default constructor
//! is held as raw bytes, so the storage stays trivial all the same. Trivial: declare it `__shared__`, union it with
//! other storage, or carve it. One instance serves one block_scan call at a time; before reusing it
//! (or its union partners) the block must pass a `__syncthreads()` after the previous call
//! returned.
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm = BlockScanAlgorithm::automatic>
struct BlockScanStorage {
  static_assert(ValidBlockThreads<BlockThreads>, "BlockScanStorage: BlockThreads must be between 1 and 1024");
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "BlockScanStorage: T must be trivially copyable and default constructible to live in shared temp "
                "storage");
  //! The scanned type.
  using value_type = T;
  //! The block size the storage is laid out for.
  static constexpr int block_threads = BlockThreads;
  //! The algorithm block_scan runs with this storage.
  static constexpr BlockScanAlgorithm algorithm = Algorithm;
  //! The algorithm's implementation (an internal type; use block_inclusive_scan and friends).
  using impl = detail::BlockScanImpl<T, BlockThreads, Algorithm>;
  //! The shared words (public only so the type stays an aggregate; do not touch).
  typename impl::Storage storage;
};

//! How many items of a blocked arrangement take part in a partial block_scan: the first
//! `count` (at least 1) in blocked order, i.e. all items of the threads below count / Items and
//! the first count % Items items of the next one; a count of BlockThreads * Items or more takes
//! every item.
struct ValidItems {
  //! Items taking part, counted from the first item of thread 0.
  int count;
};

//! A prefix callback for block_scan (CUB's BlockPrefixCallbackOp contract): called as
//! `callback(block_aggregate)` by every lane of the block's first warp once per scan, it returns
//! the value that precedes the block's first item (lane 0's return value is used) and usually
//! advances a running total kept in the callback, so a block can walk tiles in order.
template <class F, class T>
concept BlockPrefixCallback = !std::is_same_v<std::remove_cvref_t<F>, T> && std::invocable<F&, const T&> &&
                              std::convertible_to<std::invoke_result_t<F&, const T&>, T>;

namespace detail {
template <class T, class Op, std::size_t Items>
struct BlockScanRules {
  static_assert(ReductionOp<Op, T>, "block_scan: op(T, T) must be callable and return something convertible to T");
  static_assert(Items >= 1, "block_scan: a thread must hold at least one item");
  static constexpr bool checked = true;
};
}  // namespace detail

#if defined(__CUDACC__)

namespace detail {
template <bool Exclusive, bool Partial, class T, int BlockThreads, BlockScanAlgorithm Algorithm, std::size_t Items,
          class Op, class Prefix>
TILECRAFT_DEVICE void block_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp, const T (&in)[Items],
                                 T (&out)[Items], Op op, int valid, Prefix prefix, T* aggregate) {
  static_assert(BlockScanRules<T, Op, Items>::checked);
  TILECRAFT_ASSERT(block_threads() == BlockThreads);
  TILECRAFT_ASSERT(!Partial || valid >= 1);
  if constexpr (Partial) {
    // A count past the block's items takes them all (a tile's `n - tile_start` may run past
    // it); one below 1 breaks the rule, and is taken as 1 only so that nothing is read outside
    // the storage.
    constexpr int all = BlockThreads * static_cast<int>(Items);
    valid = valid > all ? all : (valid < 1 ? 1 : valid);
  }
  if constexpr (ReductionOp<Op, T>) {  // a broken rule stops here, with its message alone
    BlockScanStorage<T, BlockThreads, Algorithm>::impl::template scan<Exclusive, Partial>(temp.storage, in, out, op,
                                                                                          valid, prefix, aggregate);
  }
}
}  // namespace detail

//! Inclusive prefix scan of one value per thread, in thread-rank order: thread t receives
//! x_0 op x_1 op ... op x_t (`op` associative; it need not be commutative).
//!
//! The block has BlockThreads threads in any 1D/2D/3D shape; all of them must call this (it
//! contains __syncthreads()). Result: valid in every thread. Barriers: none for a single warp;
//! else 1 (warp_scans) or 2 (two_level, raking, automatic). Shared memory: sizeof(temp).
//! \code
//! __shared__ tilecraft::BlockScanStorage<int, 256> temp;
//! int running = tilecraft::block_inclusive_scan(temp, i, tilecraft::Sum{});   // every thread
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, class Op>
TILECRAFT_DEVICE T block_inclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp,
                                        std::type_identity_t<T> input, Op op) {
  T items[1] = {input};
  detail::block_scan<false, false>(temp, items, items, op, 0, detail::ScanNoPrefix{}, static_cast<T*>(nullptr));
  return items[0];
}

//! As block_inclusive_scan, and every thread receives the block's aggregate (the fold of all
//! inputs) in `block_aggregate`.
//! \code
//! __shared__ tilecraft::BlockScanStorage<int, 256> temp;
//! int total;  // the block's sum, in every thread
//! const int running = tilecraft::block_inclusive_scan(temp, i, tilecraft::Sum{}, total);
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, class Op>
TILECRAFT_DEVICE T block_inclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp,
                                        std::type_identity_t<T> input, Op op, T& block_aggregate) {
  T items[1] = {input};
  detail::block_scan<false, false>(temp, items, items, op, 0, detail::ScanNoPrefix{}, &block_aggregate);
  return items[0];
}

//! As block_inclusive_scan, seeded by a prefix callback: the first warp calls
//! `prefix_callback(block_aggregate)` and every result is prefixed with what lane 0 returned
//! (thread t receives prefix op x_0 op ... op x_t). One barrier more than the plain scan with
//! warp_scans in blocks of several warps, none more with the others or in a block of one warp.
//! \code
//! struct Running {  // carries the total across the tiles a block walks
//!   int total;
//!   __device__ int operator()(int block_aggregate) {
//!     const int before = total;
//!     total += block_aggregate;
//!     return before;
//!   }
//! };
//! __global__ void scan_tiles(const int* in, int* out, int tiles) {
//!   __shared__ tilecraft::BlockScanStorage<int, 128> temp;
//!   Running running{0};
//!   for (int t = 0; t < tiles; ++t) {
//!     out[t * 128 + threadIdx.x] =
//!         tilecraft::block_inclusive_scan(temp, in[t * 128 + threadIdx.x], tilecraft::Sum{}, running);
//!     __syncthreads();   // before temp is reused
//!   }
//! }
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, class Op, BlockPrefixCallback<T> F>
TILECRAFT_DEVICE T block_inclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp,
                                        std::type_identity_t<T> input, Op op, F& prefix_callback) {
  T items[1] = {input};
  detail::block_scan<false, false>(temp, items, items, op, 0, detail::ScanCallbackPrefix<F>{&prefix_callback},
                                   static_cast<T*>(nullptr));
  return items[0];
}

//! Exclusive prefix scan of one value per thread seeded with `init`: thread 0 receives `init`,
//! thread t receives init op x_0 op ... op x_{t-1}. All threads must call it; barriers and
//! shared memory as block_inclusive_scan.
//! \code
//! __shared__ tilecraft::BlockScanStorage<int, 256> temp;
//! int slot = tilecraft::block_exclusive_scan(temp, i, tilecraft::Sum{}, 0);
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, class Op>
TILECRAFT_DEVICE T block_exclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp,
                                        std::type_identity_t<T> input, Op op, std::type_identity_t<T> init) {
  T items[1] = {input};
  detail::block_scan<true, false>(temp, items, items, op, 0, detail::ScanInitPrefix<T>{init}, static_cast<T*>(nullptr));
  return items[0];
}

//! As block_exclusive_scan with `init`, and every thread receives the block's aggregate (the
//! fold of all inputs, without `init`) in `block_aggregate`.
//! \code
//! // Each kept value's slot among the block's kept values, and how many the block keeps.
//! __shared__ tilecraft::BlockScanStorage<int, 256> temp;
//! int kept;
//! const int slot = tilecraft::block_exclusive_scan(temp, x > 0.0f ? 1 : 0, tilecraft::Sum{}, 0, kept);
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, class Op>
TILECRAFT_DEVICE T block_exclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp,
                                        std::type_identity_t<T> input, Op op, std::type_identity_t<T> init,
                                        T& block_aggregate) {
  T items[1] = {input};
  detail::block_scan<true, false>(temp, items, items, op, 0, detail::ScanInitPrefix<T>{init}, &block_aggregate);
  return items[0];
}

//! Exclusive prefix scan seeded by a prefix callback (see block_inclusive_scan): thread 0
//! receives the callback's value p, thread t receives p op x_0 op ... op x_{t-1}. Barriers as
//! the inclusive scan with a callback (one more than the plain scan with warp_scans in blocks of
//! several warps).
//! \code
//! // Slots across the tiles a block walks: the callback returns what the earlier tiles took.
//! __shared__ tilecraft::BlockScanStorage<int, 128> temp;
//! int taken = 0;
//! auto before = [&taken](int block_total) {
//!   const int b = taken;
//!   taken += block_total;
//!   return b;
//! };
//! for (int t = 0; t < tiles; ++t) {
//!   use(tilecraft::block_exclusive_scan(temp, x > 0.0f ? 1 : 0, tilecraft::Sum{}, before));
//!   __syncthreads();  // before temp is reused
//! }
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, class Op, BlockPrefixCallback<T> F>
TILECRAFT_DEVICE T block_exclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp,
                                        std::type_identity_t<T> input, Op op, F& prefix_callback) {
  T items[1] = {input};
  detail::block_scan<true, false>(temp, items, items, op, 0, detail::ScanCallbackPrefix<F>{&prefix_callback},
                                  static_cast<T*>(nullptr));
  return items[0];
}

//! Inclusive scan of Items values per thread in a blocked arrangement (thread t holds items
//! t * Items ... t * Items + Items - 1 of the block's sequence): out[j] of thread t receives the
//! fold of every item up to and including its own. `out` may be `in`. Each thread folds its
//! items, the block scans the per-thread totals, and each thread rescans its items from its
//! prefix: 2 * Items - 1 operator calls per thread besides the block-wide part. Barriers and
//! shared memory as the one-item form.
//! \code
//! __shared__ tilecraft::BlockScanStorage<float, 128> temp;
//! float v[4] = {in[4 * threadIdx.x], in[4 * threadIdx.x + 1], in[4 * threadIdx.x + 2], in[4 * threadIdx.x + 3]};
//! tilecraft::block_inclusive_scan(temp, v, v, tilecraft::Sum{});
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, std::size_t Items, class Op>
TILECRAFT_DEVICE void block_inclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp, const T (&in)[Items],
                                           T (&out)[Items], Op op) {
  detail::block_scan<false, false>(temp, in, out, op, 0, detail::ScanNoPrefix{}, static_cast<T*>(nullptr));
}

//! The blocked inclusive scan, with the block's aggregate in every thread (barriers and shared
//! memory as the blocked inclusive scan).
//! \code
//! __shared__ tilecraft::BlockScanStorage<float, 128> temp;
//! float v[2] = {x, 2.0f * x}, total;
//! tilecraft::block_inclusive_scan(temp, v, v, tilecraft::Sum{}, total);
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, std::size_t Items, class Op>
TILECRAFT_DEVICE void block_inclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp, const T (&in)[Items],
                                           T (&out)[Items], Op op, T& block_aggregate) {
  detail::block_scan<false, false>(temp, in, out, op, 0, detail::ScanNoPrefix{}, &block_aggregate);
}

//! The blocked inclusive scan seeded by a prefix callback (the first warp calls it with the
//! block's aggregate; one barrier more than the plain blocked scan with warp_scans in blocks of
//! several warps).
//! \code
//! __shared__ tilecraft::BlockScanStorage<int, 128> temp;
//! int running = 0;  // carried across calls, as in the one-item form's example
//! auto carry = [&running](int block_total) {
//!   const int b = running;
//!   running += block_total;
//!   return b;
//! };
//! int v[4] = {1, 2, 3, 4};
//! tilecraft::block_inclusive_scan(temp, v, v, tilecraft::Sum{}, carry);
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, std::size_t Items, class Op,
          BlockPrefixCallback<T> F>
TILECRAFT_DEVICE void block_inclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp, const T (&in)[Items],
                                           T (&out)[Items], Op op, F& prefix_callback) {
  detail::block_scan<false, false>(temp, in, out, op, 0, detail::ScanCallbackPrefix<F>{&prefix_callback},
                                   static_cast<T*>(nullptr));
}

//! The blocked exclusive scan seeded with `init`: thread 0's out[0] is `init`, out[j] of thread
//! t the fold of `init` and every item before its own. Barriers and shared memory as the
//! blocked inclusive scan.
//! \code
//! __shared__ tilecraft::BlockScanStorage<float, 128> temp;
//! float v[2] = {in[2 * threadIdx.x], in[2 * threadIdx.x + 1]};
//! tilecraft::block_exclusive_scan(temp, v, v, tilecraft::Sum{}, 0.0f);
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, std::size_t Items, class Op>
TILECRAFT_DEVICE void block_exclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp, const T (&in)[Items],
                                           T (&out)[Items], Op op, std::type_identity_t<T> init) {
  detail::block_scan<true, false>(temp, in, out, op, 0, detail::ScanInitPrefix<T>{init}, static_cast<T*>(nullptr));
}

//! The blocked exclusive scan seeded with `init`, with the block's aggregate (without `init`)
//! in every thread. Barriers and shared memory as the blocked inclusive scan.
//! \code
//! __shared__ tilecraft::BlockScanStorage<int, 128> temp;
//! int v[2] = {i, i}, total;
//! tilecraft::block_exclusive_scan(temp, v, v, tilecraft::Sum{}, 0, total);
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, std::size_t Items, class Op>
TILECRAFT_DEVICE void block_exclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp, const T (&in)[Items],
                                           T (&out)[Items], Op op, std::type_identity_t<T> init, T& block_aggregate) {
  detail::block_scan<true, false>(temp, in, out, op, 0, detail::ScanInitPrefix<T>{init}, &block_aggregate);
}

//! The blocked exclusive scan seeded by a prefix callback (barriers as the blocked inclusive
//! scan with a callback).
//! \code
//! __shared__ tilecraft::BlockScanStorage<int, 128> temp;
//! int running = 100;  // the first tile's items start at 100
//! auto carry = [&running](int block_total) {
//!   const int b = running;
//!   running += block_total;
//!   return b;
//! };
//! int v[2] = {1, 1};
//! tilecraft::block_exclusive_scan(temp, v, v, tilecraft::Sum{}, carry);  // thread 0: 100, 101
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, std::size_t Items, class Op,
          BlockPrefixCallback<T> F>
TILECRAFT_DEVICE void block_exclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp, const T (&in)[Items],
                                           T (&out)[Items], Op op, F& prefix_callback) {
  detail::block_scan<true, false>(temp, in, out, op, 0, detail::ScanCallbackPrefix<F>{&prefix_callback},
                                  static_cast<T*>(nullptr));
}

//! Inclusive scan of a partial block: only the first `valid.count` items in blocked order take
//! part (at least 1; BlockThreads * Items or more: all); the outputs of the others are
//! unspecified and their inputs are never passed to `op`. `block_aggregate` receives the fold
//! of the valid items. The same barriers as the full-block scan, so the last tile of an array
//! costs no more than the others.
//! \code
//! __shared__ tilecraft::BlockScanStorage<int, 128> temp;
//! int v[2] = {1, 1}, total;
//! tilecraft::block_inclusive_scan(temp, v, v, tilecraft::Sum{}, tilecraft::ValidItems{200}, total);   // 200
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, std::size_t Items, class Op>
TILECRAFT_DEVICE void block_inclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp, const T (&in)[Items],
                                           T (&out)[Items], Op op, ValidItems valid, T& block_aggregate) {
  detail::block_scan<false, true>(temp, in, out, op, valid.count, detail::ScanNoPrefix{}, &block_aggregate);
}

//! The partial inclusive scan seeded by a prefix callback (called with the valid items' fold;
//! barriers as the full-block scan with a callback).
//! \code
//! __shared__ tilecraft::BlockScanStorage<int, 128> temp;
//! int running = 0;
//! auto carry = [&running](int valid_total) {
//!   const int b = running;
//!   running += valid_total;
//!   return b;
//! };
//! int v[2] = {1, 1};
//! tilecraft::block_inclusive_scan(temp, v, v, tilecraft::Sum{}, tilecraft::ValidItems{rows}, carry);
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, std::size_t Items, class Op,
          BlockPrefixCallback<T> F>
TILECRAFT_DEVICE void block_inclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp, const T (&in)[Items],
                                           T (&out)[Items], Op op, ValidItems valid, F& prefix_callback) {
  detail::block_scan<false, true>(temp, in, out, op, valid.count, detail::ScanCallbackPrefix<F>{&prefix_callback},
                                  static_cast<T*>(nullptr));
}

//! The partial exclusive scan seeded with `init`; `block_aggregate` receives the valid items'
//! fold (without `init`).
//! \code
//! __shared__ tilecraft::BlockScanStorage<int, 128> temp;
//! int v[2] = {1, 1}, total;  // total: rows, or 256 where rows >= 256
//! tilecraft::block_exclusive_scan(temp, v, v, tilecraft::Sum{}, 0, tilecraft::ValidItems{rows}, total);
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, std::size_t Items, class Op>
TILECRAFT_DEVICE void block_exclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp, const T (&in)[Items],
                                           T (&out)[Items], Op op, std::type_identity_t<T> init, ValidItems valid,
                                           T& block_aggregate) {
  detail::block_scan<true, true>(temp, in, out, op, valid.count, detail::ScanInitPrefix<T>{init}, &block_aggregate);
}

//! The partial exclusive scan seeded by a prefix callback (called with the valid items' fold;
//! barriers as the full-block scan with a callback).
//! \code
//! __shared__ tilecraft::BlockScanStorage<int, 128> temp;
//! int running = 0;
//! auto carry = [&running](int valid_total) {
//!   const int b = running;
//!   running += valid_total;
//!   return b;
//! };
//! int v[2] = {1, 1};
//! tilecraft::block_exclusive_scan(temp, v, v, tilecraft::Sum{}, tilecraft::ValidItems{rows}, carry);
//! \endcode
template <class T, int BlockThreads, BlockScanAlgorithm Algorithm, std::size_t Items, class Op,
          BlockPrefixCallback<T> F>
TILECRAFT_DEVICE void block_exclusive_scan(BlockScanStorage<T, BlockThreads, Algorithm>& temp, const T (&in)[Items],
                                           T (&out)[Items], Op op, ValidItems valid, F& prefix_callback) {
  detail::block_scan<true, true>(temp, in, out, op, valid.count, detail::ScanCallbackPrefix<F>{&prefix_callback},
                                 static_cast<T*>(nullptr));
}

#endif  // __CUDACC__

}  // namespace tilecraft
