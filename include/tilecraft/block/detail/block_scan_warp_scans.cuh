//! \file block/detail/block_scan_warp_scans.cuh
//! The algorithms behind block_scan: every warp scans its threads' partials with shuffles and
//! publishes its total in shared memory; the totals are combined into one prefix per warp either
//! by every thread folding the totals of the warps before its own (BlockScanAlgorithm::
//! warp_scans, one barrier) or by warp 0 scanning them (BlockScanAlgorithm::two_level,
//! two barriers, two shared loads per thread).
#pragma once

#include <cstddef>
#include <type_traits>

#include "../../config.cuh"
#include "../../util/functional.cuh"
#include "../../util/math.cuh"
#include "../../util/shared_slot.cuh"
#include "../../util/thread.cuh"
#include "../../warp/shuffle.cuh"
#include "../../warp/warp_scan.cuh"

namespace tilecraft::detail {

// What the scan is seeded with: nothing, an initial value, or a prefix callback called by the
// first warp with the block's aggregate.
struct ScanNoPrefix {};
template <class T>
struct ScanInitPrefix {
  T value;
};
template <class F>
struct ScanCallbackPrefix {
  F* callback;
};

// Sum over an arithmetic type has an exact identity: 0, and -0.0 for floating types (-0.0 + x
// is x for every x, zeros of either sign included). A scan that starts thread 0 from it runs
// the same operations in every thread, with no predicate for the thread that has no prefix,
// and gives the same bits.
template <class T, class Op>
inline constexpr bool sum_with_identity = std::is_same_v<Op, Sum>&& std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
template <class T>
TILECRAFT_HOST_DEVICE constexpr T sum_identity() {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(-0.0);
  } else {
    return T{0};
  }
}

#if defined(__CUDACC__)
// The last step of every block_scan algorithm: a thread scans its own Items items from its
// exclusive prefix (has_prefix false: thread 0 without a seed, nothing precedes it). Each input
// is read before its output slot is written (out may be in); Partial: only the first my_valid
// items are combined (none, and op is not called, where my_valid <= 0).
template <bool Exclusive, bool Partial, class T, std::size_t Items, class Op>
TILECRAFT_DEVICE void scan_thread_items(const T (&in)[Items], T (&out)[Items], Op op, const T& thread_prefix,
                                        bool has_prefix, int my_valid) {
  constexpr int items = static_cast<int>(Items);
  if (Partial && my_valid <= 0) has_prefix = false;  // (its outputs are unspecified)
  if constexpr (Exclusive) {
    T x = in[0];
    if (has_prefix) x = static_cast<T>(op(thread_prefix, x));
    // Without a prefix thread 0's first output gets its own input back (nothing precedes it).
    out[0] = has_prefix ? thread_prefix : in[0];
#pragma unroll
    for (int j = 1; j < items; ++j) {
      const T next = in[j];
      out[j] = x;
      if (!Partial || j < my_valid) x = static_cast<T>(op(x, next));
    }
  } else {
    T x = has_prefix ? static_cast<T>(op(thread_prefix, in[0])) : in[0];
    out[0] = x;
#pragma unroll
    for (int j = 1; j < items; ++j) {
      if (!Partial || j < my_valid) x = static_cast<T>(op(x, in[j]));
      out[j] = x;
    }
  }
}

// The in-order fold of in[Begin ... Begin + Count - 1] as a balanced tree (the left half's
// fold on the left: op need not be commutative), expanded at compile time.
template <std::size_t Begin, std::size_t Count, class T, std::size_t Items, class Op>
TILECRAFT_DEVICE T fold_tree(const T (&in)[Items], Op op) {
  if constexpr (Count == 1) {
    return in[Begin];
  } else {
    constexpr std::size_t half = Count / 2;
    return static_cast<T>(op(fold_tree<Begin, half>(in, op), fold_tree<Begin + half, Count - half>(in, op)));
  }
}

// A thread's fold of its valid items (Partial: the first my_valid; at least in[0]). A full
// thread folds them as a balanced tree: a chain of log2(Items) operator calls instead of
// Items - 1, and an association unlike that of the rescan in scan_thread_items, so the compiler
// does not keep the fold's intermediates as thread 0's outputs and branch around the rescan for
// every other thread (which cost more than it saved).
template <bool Partial, class T, std::size_t Items, class Op>
TILECRAFT_DEVICE T fold_thread_items(const T (&in)[Items], Op op, int my_valid) {
  if constexpr (Partial) {
    T partial = in[0];
#pragma unroll
    for (int j = 1; j < static_cast<int>(Items); ++j) {
      if (j < my_valid) partial = static_cast<T>(op(partial, in[j]));
    }
    return partial;
  } else {
    (void)my_valid;
    return fold_tree<0, Items>(in, op);
  }
}
#endif

template <class T, int BlockThreads, bool FoldTotals>
struct BlockScanWarpScans {
  static constexpr int warps = ceil_div(BlockThreads, warp_threads);
  //! Lanes in a partially populated last warp (BlockThreads not a multiple of 32), else 0.
  static constexpr int tail_lanes = BlockThreads % warp_threads;
  static constexpr unsigned tail_mask = tail_lanes == 0 ? full_warp_mask : (1u << tail_lanes) - 1u;

  struct Storage {
    SharedSlot<T> warp_totals[static_cast<std::size_t>(warps)];  // warp w's total; two_level: its prefix
    SharedSlot<T> block_total;                                   // two_level: the block's aggregate
    SharedSlot<T> block_prefix;                                  // what the prefix callback returned
  };

#if defined(__CUDACC__)
  // Scans Items values per thread in blocked order (thread t holds items t * Items ... t * Items
  // + Items - 1). Partial: only the first `valid` items take part (the others' outputs are
  // unspecified and they are never passed to op). Writes out[] (may alias in[]), and the block's
  // aggregate (without any prefix) to *aggregate when non-null.
  template <bool Exclusive, bool Partial, std::size_t Items, class Op, class Prefix>
  TILECRAFT_DEVICE static void scan(Storage& s, const T (&in)[Items], T (&out)[Items], Op op, int valid, Prefix prefix,
                                    T* aggregate) {
    constexpr int items = static_cast<int>(Items);
    const int rank = thread_rank();
    const int warp = rank / warp_threads;
    const int lane = rank & (warp_threads - 1);
    // Threads holding at least one valid item form a prefix of the block.
    const int valid_threads = Partial ? ceil_div(valid, items) : BlockThreads;
    const int my_valid = Partial ? valid - rank * items : items;

    const T partial = fold_thread_items<Partial>(in, op, my_valid);
    T* const warp_totals = slots<T>(s.warp_totals);
    T& shared_total = *slots<T>(&s.block_total);
    T& shared_prefix = *slots<T>(&s.block_prefix);

    // Warp scan. Lanes past the valid threads keep their partials (op never sees an ignored
    // item) and only feed lanes after them, which are not valid either; lanes of a partial last
    // warp that do not exist are never read (shuffle_up reads lower lanes only).
    const unsigned mask = (tail_lanes != 0 && warp == warps - 1) ? tail_mask : full_warp_mask;
    const bool active = !Partial || my_valid > 0;  // holds a valid item
    const T inclusive = shuffle_inclusive_scan<warp_threads>(
        partial, op, lane, mask, Partial ? valid_threads - warp * warp_threads : warp_threads);
    const T previous = shuffle_up(inclusive, 1, warp_threads, mask);

    // The last valid lane of each warp publishes the warp's total.
    int warp_last = warp == warps - 1 && tail_lanes != 0 ? tail_lanes - 1 : warp_threads - 1;
    if constexpr (Partial) {
      const int rest = valid_threads - 1 - warp * warp_threads;
      warp_last = rest < warp_last ? rest : warp_last;
    }
    const int valid_warps = Partial ? ceil_div(valid_threads, warp_threads) : warps;

    T warp_prefix = partial;  // overwritten for every warp but 0
    T block_total;
    T block_prefix = partial;  // the callback's result (callback prefixes only)
    if constexpr (warps == 1) {
      block_total = shuffle_index(inclusive, warp_last, warp_threads, mask);
      if constexpr (requires { prefix.callback; }) {
        block_prefix = shuffle_index((*prefix.callback)(block_total), 0, warp_threads, mask);
      }
    } else if constexpr (FoldTotals) {
      if (lane == warp_last) warp_totals[warp] = inclusive;
      __syncthreads();
      // Every thread folds the totals in warp order: the prefix of its warp on the way, the
      // block's total at the end (broadcast loads: every lane reads the same word).
      block_total = warp_totals[0];
#pragma unroll
      for (int w = 1; w < warps; ++w) {
        if (w == warp) warp_prefix = block_total;
        if (!Partial || w < valid_warps) block_total = static_cast<T>(op(block_total, warp_totals[w]));
      }
      if constexpr (requires { prefix.callback; }) {
        if (warp == 0) {
          const T p = (*prefix.callback)(block_total);
          if (lane == 0) shared_prefix = p;
        }
        __syncthreads();
        block_prefix = shared_prefix;
      }
    } else {
      if (lane == warp_last) warp_totals[warp] = inclusive;
      __syncthreads();
      if (warp == 0) {
        // Warp 0 scans the totals (warps <= 32): lane w ends with the prefix of warp w. (Lanes
        // past the valid warps read the last valid total: no total of this call is unwritten.)
        T total = warp_totals[lane < valid_warps ? lane : valid_warps - 1];
        // Every lane has read before any lane overwrites a total (the shuffles order them too,
        // but only __syncwarp orders shared memory for the tools that check it).
        __syncwarp();
        const T scanned = shuffle_inclusive_scan<warp_threads>(total, op, lane, full_warp_mask, valid_warps);
        const T before = shuffle_up(scanned, 1);
        total = shuffle_index(scanned, valid_warps - 1);
        if (lane < warps && lane > 0) warp_totals[lane] = before;
        if (lane == 0) shared_total = total;
        if constexpr (requires { prefix.callback; }) {
          const T p = (*prefix.callback)(total);
          if (lane == 0) shared_prefix = p;
        }
      }
      __syncthreads();
      if (warp > 0) warp_prefix = warp_totals[warp];
      block_total = shared_total;
      if constexpr (requires { prefix.callback; }) block_prefix = shared_prefix;
    }
    if (aggregate != nullptr) *aggregate = block_total;

    // The exclusive prefix of this thread within the block (none for thread 0).
    T local = previous;
    if (warp > 0 && active) local = lane == 0 ? warp_prefix : static_cast<T>(op(warp_prefix, previous));
    bool has_prefix = rank > 0;
    T thread_prefix = local;
    if constexpr (requires { prefix.value; }) {
      thread_prefix = rank == 0 || !active ? prefix.value : static_cast<T>(op(prefix.value, local));
      has_prefix = true;
    } else if constexpr (requires { prefix.callback; }) {
      thread_prefix = rank == 0 || !active ? block_prefix : static_cast<T>(op(block_prefix, local));
      has_prefix = true;
    }

    scan_thread_items<Exclusive, Partial>(in, out, op, thread_prefix, has_prefix, my_valid);
  }
#endif
};

}  // namespace tilecraft::detail
