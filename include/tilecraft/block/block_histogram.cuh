//! \file block/block_histogram.cuh
//! Block-wide histograms with caller-owned shared counters: threads add bin indices (one item or
//! an array), the counters are privatized in shared memory as the algorithm says, and the block's
//! totals are merged into a global histogram with one atomicAdd per non-zero bin, or stored.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "../util/concepts.cuh"
#include "../util/thread.cuh"
#include "detail/histogram_counters.cuh"

namespace tilecraft {

//! The algorithm BlockHistogramStorage picks when none is named: `lanes` up to 256 bins
//! (conflict-free whatever the data, 128 bytes a bin), `warps` above.
template <int Bins>
inline constexpr BlockHistogramAlgorithm default_block_histogram_algorithm =
    Bins <= 256 ? BlockHistogramAlgorithm::lanes : BlockHistogramAlgorithm::warps;

//! The copies BlockHistogramStorage keeps when none are named: one for `block` and `lanes`;
//! for `warps`, one per warp up to 32 KiB of counters (at least one).
template <int Bins, int BlockThreads, BlockHistogramAlgorithm Algorithm>
inline constexpr int default_block_histogram_copies = [] {
  if (Algorithm != BlockHistogramAlgorithm::warps) return 1;
  const int warps = (BlockThreads + warp_threads - 1) / warp_threads;
  const int fit = Bins > 0 ? 8192 / Bins : 1;
  return fit < 1 ? 1 : (fit < warps ? fit : warps);
}();

//! The shared counters of a block histogram of Bins bins (bin indices 0 ... Bins - 1) for a
//! block of BlockThreads threads: Copies sub-histograms of 32-bit counters laid out as
//! Algorithm says (BlockHistogramAlgorithm). Bins: 1 to 65536; Copies: 1 to the block's warp
//! count (checked for every algorithm, also block, which keeps one copy whatever it says).
//! Trivial: declare it `__shared__`, union it with other storage, or carve it from dynamic
//! shared memory; it must live in shared memory (the adds are shared-memory atomics by
//! shared-window address). Shared memory: `bytes` = 4 x Bins (block), 4 x Copies x Bins
//! (warps) or 128 x Copies x Bins (lanes). A block may add at most 2^32 - 1 items to one bin
//! between block_histogram_init and the merge (counters are 32 bits). The block must have
//! BlockThreads threads (the zeroing and the merge stride by BlockThreads: another count leaves
//! counters unzeroed or merges bins twice); like the storage's shared address, that is checked only under
//! TILECRAFT_ENABLE_DEVICE_ASSERTIONS. A `__shared__` variable holds at most 48 KiB; more
//! (up to the 227 KiB rule) must be carved from dynamic shared memory.
template <int Bins, int BlockThreads, BlockHistogramAlgorithm Algorithm = default_block_histogram_algorithm<Bins>,
          int Copies = default_block_histogram_copies<Bins, BlockThreads, Algorithm>>
struct BlockHistogramStorage {
  static_assert(ValidBlockThreads<BlockThreads>, "BlockHistogramStorage: BlockThreads must be between 1 and 1024");
  static_assert(Bins >= 1 && Bins <= 65536, "BlockHistogramStorage: Bins must be between 1 and 65536");
  static_assert(Copies >= 1 && Copies <= (BlockThreads + warp_threads - 1) / warp_threads,
                "BlockHistogramStorage: Copies must be between 1 and the block's warp count");
  static_assert(detail::histogram_counter_words(Algorithm, Bins, Copies) * 4 <= 227 * 1024,
                "BlockHistogramStorage: the counters take more shared memory than one sm_90 block can have (227 KiB): "
                "fewer Bins or Copies, or another algorithm");
  //! Bins counted.
  static constexpr int bins = Bins;
  //! The block size the storage is laid out for.
  static constexpr int block_threads = BlockThreads;
  //! The privatization.
  static constexpr BlockHistogramAlgorithm algorithm = Algorithm;
  //! Sub-histograms kept (1 for `block`).
  static constexpr int copies = Algorithm == BlockHistogramAlgorithm::block ? 1 : Copies;
  //! Shared memory the counters take.
  static constexpr std::size_t bytes =
      static_cast<std::size_t>(detail::histogram_counter_words(Algorithm, Bins, Copies)) * 4;
  //! The counters (public only so the type stays an aggregate; do not touch).
  unsigned counters[static_cast<std::size_t>(detail::histogram_counter_words(Algorithm, Bins, Copies))];
};

namespace detail {
template <class Item>
struct BlockHistogramItemRule {
  static_assert(std::integral<Item> && !std::is_same_v<Item, bool> && sizeof(Item) <= 8,
                "block_histogram_add: items are bin indices and must have an integer type of at most 64 bits (they "
                "are compared as long long)");
  static constexpr bool checked = true;
};
template <class Counter>
inline constexpr bool histogram_counter_ok =
    std::is_same_v<Counter, unsigned> || std::is_same_v<Counter, unsigned long long>;
template <class Counter>
struct BlockHistogramCounterRule {
  static_assert(histogram_counter_ok<Counter>,
                "block_histogram: the output counters must be unsigned int or unsigned long long");
  static constexpr bool checked = true;
};
// Whether an integer item is a bin of [0, Bins), compared in 64 bits (cut to 32 first, a bin of
// 2^32 + 3 would pass as bin 3; an unsigned one of 2^63 or more turns negative and fails).
template <int Bins, class Item>
TILECRAFT_HOST_DEVICE constexpr bool histogram_bin_valid(Item bin) {
  return static_cast<long long>(bin) >= 0 && static_cast<long long>(bin) < static_cast<long long>(Bins);
}
#if defined(__CUDACC__)
template <class Storage>
TILECRAFT_DEVICE HistogramSlot block_histogram_slot(Storage& temp) {
  return histogram_slot(temp.counters, Storage::algorithm, Storage::bins, Storage::copies, thread_rank());
}
#endif
}  // namespace detail

#if defined(__CUDACC__)

//! Zeroes the counters (the storage's `bytes` of shared memory, no other). All BlockThreads
//! threads must call it; it ends with __syncthreads(), so every thread may add items when it
//! returns. Before calling it again (a second histogram with
//! the same storage) the block must pass a barrier after the previous merge or store.
//! \code
//! __shared__ tilecraft::BlockHistogramStorage<256, 128> hist;
//! tilecraft::block_histogram_init(hist);
//! \endcode
template <int Bins, int BlockThreads, BlockHistogramAlgorithm Algorithm, int Copies>
TILECRAFT_DEVICE void block_histogram_init(BlockHistogramStorage<Bins, BlockThreads, Algorithm, Copies>& temp) {
  TILECRAFT_ASSERT(block_threads() == BlockThreads);
  detail::histogram_zero(temp.counters, detail::histogram_counter_words(Algorithm, Bins, Copies), thread_rank(),
                         BlockThreads);
  __syncthreads();
}

//! Counts one item: bin index `bin`, not counted unless 0 <= bin < Bins. Any subset of the
//! threads may call it, any number of times; no barrier. Shared memory: one atomicAdd.
//! \code
//! __shared__ tilecraft::BlockHistogramStorage<64, 256> hist;
//! tilecraft::block_histogram_init(hist);
//! tilecraft::block_histogram_add(hist, i % 64);
//! \endcode
template <int Bins, int BlockThreads, BlockHistogramAlgorithm Algorithm, int Copies, class Item>
TILECRAFT_DEVICE void block_histogram_add(BlockHistogramStorage<Bins, BlockThreads, Algorithm, Copies>& temp,
                                          Item bin) {
  static_assert(detail::BlockHistogramItemRule<Item>::checked);
  if constexpr (std::integral<Item>) {
    if (detail::histogram_bin_valid<Bins>(bin)) detail::block_histogram_slot(temp).add(static_cast<unsigned>(bin), 1);
  }
}

//! Counts Items items of the calling thread (bin indices; those outside [0, Bins) are not
//! counted). With the `block` and `warps` algorithms, runs of equal neighbouring items go in
//! with one atomicAdd (sorted or skewed data cost a fraction of uniform data). No barrier.
//! \code
//! __shared__ tilecraft::BlockHistogramStorage<256, 128> hist;
//! tilecraft::block_histogram_init(hist);
//! const unsigned char items[4] = {1, 1, 2, 255};
//! tilecraft::block_histogram_add(hist, items);
//! \endcode
template <int Bins, int BlockThreads, BlockHistogramAlgorithm Algorithm, int Copies, class Item, std::size_t Items>
TILECRAFT_DEVICE void block_histogram_add(BlockHistogramStorage<Bins, BlockThreads, Algorithm, Copies>& temp,
                                          const Item (&bins)[Items]) {
  static_assert(detail::BlockHistogramItemRule<Item>::checked);
  if constexpr (std::integral<Item>) {
    const detail::HistogramSlot slot = detail::block_histogram_slot(temp);
    auto valid = [](Item bin) { return detail::histogram_bin_valid<Bins>(bin); };
    if constexpr (Algorithm == BlockHistogramAlgorithm::lanes) {
#pragma unroll
      for (std::size_t i = 0; i < Items; ++i) {
        if (valid(bins[i])) slot.add(static_cast<unsigned>(bins[i]), 1);
      }
    } else {
      detail::HistogramRun run;
      auto add = [&](unsigned b, unsigned count) {
        if (b < static_cast<unsigned>(Bins)) slot.add(b, count);
      };
#pragma unroll
      for (std::size_t i = 0; i < Items; ++i) run.push(valid(bins[i]) ? static_cast<unsigned>(bins[i]) : ~0u, 1u, add);
      run.flush(add);
    }
  }
}

//! Adds the block's counts into `histogram` (Bins counters in global or shared memory that the
//! caller initialized, e.g. zeroed once before the kernel): one atomicAdd per bin with a non-zero
//! count. All BlockThreads threads must call it; it begins with __syncthreads() (so every add
//! before it is counted) and leaves the shared counters as they were; it reads the storage's
//! counters and uses no other shared memory. Counter: unsigned int or unsigned long long.
//! \code
//! __global__ void count_bytes(const unsigned char* in, int n, unsigned* d_hist) {
//!   __shared__ tilecraft::BlockHistogramStorage<256, 256> hist;
//!   tilecraft::block_histogram_init(hist);
//!   for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += gridDim.x * 256)
//!     tilecraft::block_histogram_add(hist, in[i]);
//!   tilecraft::block_histogram_merge(hist, d_hist);
//! }
//! \endcode
template <int Bins, int BlockThreads, BlockHistogramAlgorithm Algorithm, int Copies, class Counter>
TILECRAFT_DEVICE void block_histogram_merge(const BlockHistogramStorage<Bins, BlockThreads, Algorithm, Copies>& temp,
                                            Counter* histogram) {
  using Storage = BlockHistogramStorage<Bins, BlockThreads, Algorithm, Copies>;
  static_assert(detail::BlockHistogramCounterRule<Counter>::checked);
  TILECRAFT_ASSERT(block_threads() == BlockThreads);
  __syncthreads();
  if constexpr (detail::histogram_counter_ok<Counter>) {  // a broken rule stops here, with its message alone
    for (int b = thread_rank(); b < Bins; b += BlockThreads) {
      const std::uint64_t total = detail::histogram_total(temp.counters, Algorithm, Bins, Storage::copies, b);
      if (total != 0) detail::histogram_global_add(histogram + b, total);
    }
  }
}

//! Writes the block's count of every bin to `out[0 ... Bins - 1]` (global or shared memory;
//! zeros too), Counter unsigned int or unsigned long long. All BlockThreads threads must call
//! it; it begins with __syncthreads() and uses no shared memory besides the storage's counters
//! (and `out`, where that is shared). To read `out` from other threads of the block, pass
//! another barrier first.
//! \code
//! __shared__ tilecraft::BlockHistogramStorage<16, 128> hist;
//! __shared__ unsigned counts[16];
//! tilecraft::block_histogram_init(hist);
//! tilecraft::block_histogram_add(hist, threadIdx.x % 16);
//! tilecraft::block_histogram_store(hist, counts);
//! \endcode
template <int Bins, int BlockThreads, BlockHistogramAlgorithm Algorithm, int Copies, class Counter>
TILECRAFT_DEVICE void block_histogram_store(const BlockHistogramStorage<Bins, BlockThreads, Algorithm, Copies>& temp,
                                            Counter* out) {
  using Storage = BlockHistogramStorage<Bins, BlockThreads, Algorithm, Copies>;
  static_assert(detail::BlockHistogramCounterRule<Counter>::checked);
  TILECRAFT_ASSERT(block_threads() == BlockThreads);
  __syncthreads();
  for (int b = thread_rank(); b < Bins; b += BlockThreads) {
    out[b] = static_cast<Counter>(detail::histogram_total(temp.counters, Algorithm, Bins, Storage::copies, b));
  }
}

#endif  // __CUDACC__

}  // namespace tilecraft
