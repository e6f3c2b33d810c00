//! \file block/detail/histogram_counters.cuh
//! The shared-memory counters behind block_histogram and the device histograms (internal;
//! include block/block_histogram.cuh): `copies` sub-histograms of `bins` 32-bit counters in one
//! of three layouts, a thread's view of its own sub-histogram, and the per-bin totals.
#pragma once

#include <cstdint>

#include "../../arch/shared_atomic.cuh"
#include "../../arch/smem_address.cuh"
#include "../../config.cuh"
#include "../block_histogram_algorithm.cuh"

namespace tilecraft {

namespace detail {

//! Words of shared memory that `copies` sub-histograms of `bins` counters take in `algorithm`.
TILECRAFT_HOST_DEVICE constexpr std::int64_t histogram_counter_words(BlockHistogramAlgorithm algorithm,
                                                                     std::int64_t bins, int copies) {
  const std::int64_t per_copy = algorithm == BlockHistogramAlgorithm::lanes ? bins * 32 : bins;
  return per_copy * (algorithm == BlockHistogramAlgorithm::block ? 1 : copies);
}

#if defined(__CUDACC__)

//! One thread's sub-histogram in shared memory: bin b's counter is at shared-window address
//! base + b * stride (bytes). 32-bit addresses and a named shared atomic (arch::red_shared_add):
//! a generic pointer chosen at run time would make every add a generic atomic.
struct HistogramSlot {
  std::uint32_t base;
  std::uint32_t stride;

  //! Adds `count` to bin `bin` (< the bin count: the caller checks).
  TILECRAFT_DEVICE void add(unsigned bin, unsigned count) const { arch::red_shared_add(base + bin * stride, count); }
};

//! The sub-histogram of the thread of rank `rank` (runtime layout: the device kernels choose it
//! per launch). `counters` must point to shared memory.
TILECRAFT_DEVICE HistogramSlot histogram_slot(unsigned* counters, BlockHistogramAlgorithm algorithm, int bins,
                                              int copies, int rank) {
  const int warp = rank / warp_threads;
  const int lane = rank % warp_threads;
  const std::uint32_t base = arch::smem_address(counters);
  switch (algorithm) {
    case BlockHistogramAlgorithm::lanes:
      return {base + static_cast<std::uint32_t>(((warp % copies) * bins * warp_threads + lane) * 4), warp_threads * 4};
    case BlockHistogramAlgorithm::warps:
      return {base + static_cast<std::uint32_t>((warp % copies) * bins * 4), 4};
    default:
      return {base, 4};
  }
}

//! Zeroes `words` counters, threads of rank `rank` of `threads` striding (no barrier).
TILECRAFT_DEVICE void histogram_zero(unsigned* counters, std::int64_t words, int rank, int threads) {
  for (std::int64_t i = rank; i < words; i += threads) counters[i] = 0;
}

//! The block's total of bin `bin` over every sub-histogram. Lane columns are summed starting at
//! lane `bin % 32`, so the threads of a warp, which read consecutive bins, hit 32 different banks.
TILECRAFT_DEVICE std::uint64_t histogram_total(const unsigned* counters, BlockHistogramAlgorithm algorithm, int bins,
                                               int copies, int bin) {
  std::uint64_t total = 0;
  if (algorithm == BlockHistogramAlgorithm::lanes) {
    for (int c = 0; c < copies; ++c) {
      const unsigned* column = counters + (static_cast<std::int64_t>(c) * bins + bin) * warp_threads;
      unsigned sum = 0;  // one copy of one bin of one block: below 2^32 (the launchers flush before)
      for (int l = 0; l < warp_threads; ++l) sum += column[(l + bin) % warp_threads];
      total += sum;
    }
  } else {
    const int n = algorithm == BlockHistogramAlgorithm::warps ? copies : 1;
    for (int c = 0; c < n; ++c) total += counters[static_cast<std::int64_t>(c) * bins + bin];
  }
  return total;
}

//! Adds `count` to a global counter (32- or 64-bit).
TILECRAFT_DEVICE void histogram_global_add(unsigned* counter, std::uint64_t count) {
  atomicAdd(counter, static_cast<unsigned>(count));
}
TILECRAFT_DEVICE void histogram_global_add(unsigned long long* counter, std::uint64_t count) {
  atomicAdd(counter, static_cast<unsigned long long>(count));
}

//! Feeds a thread's bins to `add(bin, count)` with runs of equal neighbours combined: one
//! atomic for a run instead of one per item (skewed and sorted data, all-equal input).
struct HistogramRun {
  unsigned bin = ~0u;
  unsigned count = 0;

  template <class Add>
  TILECRAFT_DEVICE void push(unsigned b, unsigned n, Add&& add) {
    if (b == bin) {
      count += n;
    } else {
      if (count != 0) add(bin, count);
      bin = b;
      count = n;
    }
  }
  template <class Add>
  TILECRAFT_DEVICE void flush(Add&& add) {
    if (count != 0) add(bin, count);
    count = 0;
    bin = ~0u;
  }
};

#endif  // __CUDACC__

}  // namespace detail
}  // namespace tilecraft
