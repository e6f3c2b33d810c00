//! \file device/histogram.cuh
//! Whole-array histograms built from block_histogram's counters: equal-width bins
//! (histogram_even) or bins between given levels (histogram_range), one cooperative launch,
//! CUB's two-phase temp-storage signature.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../block/block_histogram.cuh"
#include "../config.cuh"
#include "../util/nvtx.cuh"
#include "../util/status.cuh"
#include "detail/histogram_dispatch.cuh"
#include "detail/histogram_kernels.cuh"

namespace tilecraft {

//! How tilecraft::histogram_even and histogram_range sweep their samples: a persistent grid
//! (every block resident) of Threads-thread blocks, each thread issuing VectorsPerThread
//! independent 16-byte loads before it bins any of them. The counters live in shared memory as
//! one sub-histogram per WarpsPerCopy warps: per-lane counters (BlockHistogramAlgorithm::lanes,
//! conflict-free whatever the data) up to LaneMaxBins bins, warp sub-histograms above (runs of
//! equal bins of a thread combined into one atomic), sized so that BlocksPerSm blocks share an
//! SM (one block, then global counters, where that holds no copy). VectorRuns: a 16-byte vector
//! of equal samples is counted with one atomic.
//! The defaults (DefaultHistogramPolicy) and the variants measured beside them are in
//! benchmarks/TUNING.md ("Histogram").
//! Rules: Threads a multiple of 32 up to 1024; VectorsPerThread >= 1; WarpsPerCopy between 1
//! and Threads / 32; LaneMaxBins >= 0 (0: never per-lane); BlocksPerSm >= 1.
//! \code
//! using Wide = tilecraft::HistogramPolicy<512, 4>;
//! const auto* d_bytes = reinterpret_cast<const std::uint8_t*>(d_in);
//! auto* d_hist = reinterpret_cast<unsigned*>(d_out);  // 256 counters
//! std::size_t bytes = 16;                               // from the size query
//! TILECRAFT_THROW_IF_ERROR(tilecraft::histogram_even<Wide>(d_temp, bytes, d_bytes, d_hist, 256, 0, 256, n, stream));
//! \endcode
template <int Threads = 256, int VectorsPerThread = 8, int WarpsPerCopy = 4, int LaneMaxBins = 256, int BlocksPerSm = 3,
          bool VectorRuns = true>
struct HistogramPolicy {
  static_assert(Threads >= 32 && Threads <= 1024 && Threads % 32 == 0,
                "HistogramPolicy: Threads must be a multiple of 32 between 32 and 1024");
  static_assert(VectorsPerThread >= 1, "HistogramPolicy: VectorsPerThread must be >= 1");
  static_assert(WarpsPerCopy >= 1 && WarpsPerCopy <= Threads / 32,
                "HistogramPolicy: WarpsPerCopy must be between 1 and the block's warp count");
  static_assert(LaneMaxBins >= 0, "HistogramPolicy: LaneMaxBins must be >= 0");
  static_assert(BlocksPerSm >= 1, "HistogramPolicy: BlocksPerSm must be >= 1");
  //! Threads per block.
  static constexpr int threads = Threads;
  //! Independent 16-byte loads per thread per tile.
  static constexpr int vectors_per_thread = VectorsPerThread;
  //! Warps sharing one sub-histogram.
  static constexpr int warps_per_copy = WarpsPerCopy;
  //! Most bins counted with per-lane counters.
  static constexpr int lane_max_bins = LaneMaxBins;
  //! Blocks per SM the shared counters are sized for.
  static constexpr int blocks_per_sm = BlocksPerSm;
  //! Count a 16-byte vector of equal samples with one atomic (a few instructions per vector
  //! on any input; all-equal and sorted input then need a fraction of the atomics).
  static constexpr bool vector_runs = VectorRuns;
};

//! The policy of histogram_even and histogram_range when none is given: HistogramPolicy<> for
//! samples wider than a byte; for bytes (one atomic a sample on spread data, so the atomics bound
//! the rate) 512-thread blocks, two a SM, which measured faster there.
template <class Sample>
using DefaultHistogramPolicy =
    std::conditional_t<sizeof(Sample) == 1, HistogramPolicy<512, 8, 4, 256, 2>, HistogramPolicy<>>;

//! True for every HistogramPolicy instantiation.
template <class>
inline constexpr bool is_histogram_policy_v = false;
//! \cond SPECIALIZATIONS
template <int T, int V, int W, int L, int B, bool R>
inline constexpr bool is_histogram_policy_v<HistogramPolicy<T, V, W, L, B, R>> = true;
//! \endcond

//! The level type of a sample type: int for the integer samples, float for float.
template <class Sample>
using histogram_level_t = detail::histogram_level_t<Sample>;

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

//! Counts the num_samples samples at `d_samples` into num_bins equal-width bins between `lower`
//! (inclusive) and `upper` (exclusive) and writes the counts to d_histogram[0 ... num_bins - 1]
//! (overwritten, not added to), asynchronously on `stream`. CUB's `DeviceHistogram::HistogramEven`
//! with the bin count instead of the level count: call once with `d_temp_storage == nullptr` to
//! learn `temp_storage_bytes`, allocate, call again. (Code moved from CUB must pass
//! `num_levels - 1`: given the level count, the call writes num_levels counters, one past the
//! num_levels - 1 that CUB's histogram holds.)
//!
//! - Samples: std::uint8_t, std::uint16_t, std::int32_t or float, the array aligned to its type
//!   (any offset from a 16-byte boundary);
//!   Level: int for integer samples (any lower < upper, as with CUB's int levels: levels past the
//!   samples' range count by the same formula, at the 32-bit samples' bin cost of a float
//!   estimate corrected by a 64-bit multiply; for int32 samples upper is at most INT_MAX, so the
//!   sample INT_MAX is never counted), float for float samples (finite, upper - lower finite, and num_bins / (upper -
//!   lower) a normal float, finite and at least FLT_MIN: a width so narrow that it overflows
//!   would put every sample in the last bin, one so wide that it is subnormal would put every
//!   sample in bin 0 in a build that flushes subnormals; both are refused in every build). Samples outside [lower,
//!   upper) and NaN are not counted.
//! - Bins, integer samples: bin = floor((x - lower) * num_bins / (upper - lower)), exact.
//!   Float samples (the formula to reproduce on the host, in float arithmetic, each operation
//!   rounded to nearest, no fused multiply-add):
//!   `scale = (float)num_bins / (upper - lower); bin = min((int)((x - lower) * scale), num_bins - 1)`.
//!   CUB computes the same product but does not clamp. In a build that flushes subnormals to
//!   zero (`-ftz=true`, `--use_fast_math`) the kernel's float operations flush them too, as every
//!   float operation of that build does: the formula then holds for the flushed values (only
//!   levels, samples, widths or scales below FLT_MIN are affected).
//! - Counter (d_histogram's type): unsigned int (counts wrap modulo 2^32) or unsigned long long. num_bins
//!   from 1 to 2^22; up to what a block's shared memory holds (4096 and more) the counters are
//!   privatized in shared memory, beyond it they are global atomics. num_samples up to
//!   (2^63 - 1) / sizeof(Sample).
//! - One cooperative launch and nothing else enqueued (the kernel zeroes the histogram itself);
//!   the temp storage (16 bytes) is not used. Where the GPU refuses the cooperative launch
//!   (fewer SMs than it reports, under MPS or green contexts; no cooperative launches), a
//!   memset zeroes the histogram and the same grid runs without its barrier.
//!
//! Returns cudaErrorInvalidValue, launching nothing, when num_samples < 0 or its bytes overflow
//! 64 bits, num_bins is outside
//! [1, 2^22], the levels break the rules above, d_histogram is null, d_samples is null while
//! num_samples > 0, a pointer is not aligned to its type, d_histogram shares bytes with the
//! samples or the temp storage's first 16 bytes (the size the query returns), or the temp
//! storage is too small or not 16-byte aligned; the size query (d_temp_storage null) checks
//! the sizes and levels alone and reads no pointer, as CUB's does.
//! Otherwise the first failing CUDA call's status (device queries, the kernel's
//! attributes, the launch) or cudaSuccess. Compiled by a host compiler (a .cpp file) it checks the
//! arguments and answers the size query only, and returns cudaErrorInvalidDeviceFunction where
//! it would launch.
//! \code
//! const auto* d_bytes = reinterpret_cast<const std::uint8_t*>(d_in);  // n bytes
//! auto* d_hist = reinterpret_cast<unsigned*>(d_out);                   // 256 counters
//! std::size_t bytes = 0;
//! TILECRAFT_THROW_IF_ERROR(tilecraft::histogram_even(nullptr, bytes, d_bytes, d_hist, 256, 0, 256, n));
//! TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_temp, bytes));
//! TILECRAFT_THROW_IF_ERROR(tilecraft::histogram_even(d_temp, bytes, d_bytes, d_hist, 256, 0, 256, n, stream));
//! \endcode
template <class Policy = void, class Sample, class Counter, class Level>
[[nodiscard]] cudaError_t histogram_even(void* d_temp_storage, std::size_t& temp_storage_bytes, const Sample* d_samples,
                                         Counter* d_histogram, int num_bins, Level lower, Level upper,
                                         std::int64_t num_samples, cudaStream_t stream = nullptr) {
  TILECRAFT_NVTX_RANGE("tilecraft::histogram_even");
  static_assert(std::is_void_v<Policy> || is_histogram_policy_v<Policy>,
                "tilecraft::histogram_even<Policy>: Policy must be a tilecraft::HistogramPolicy");
  if constexpr (std::is_void_v<Policy> || is_histogram_policy_v<Policy>) {
    using P = std::conditional_t<std::is_void_v<Policy>, DefaultHistogramPolicy<Sample>, Policy>;
    return detail::histogram_even_with<P>(d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_bins, lower,
                                          upper, num_samples, stream);
  } else {
    return cudaErrorInvalidValue;
  }
}

//! Counts the num_samples samples at `d_samples` into the num_bins bins between the num_bins + 1
//! levels at `d_levels` (device memory, non-decreasing, no NaN): bin i holds the samples x with
//! levels[i] <= x < levels[i + 1], compared in the level type; samples below levels[0], at or
//! above levels[num_bins], and NaN are not counted (CUB's `DeviceHistogram::HistogramRange`, with
//! the bin count instead of the level count). Writes d_histogram[0 ... num_bins - 1]
//! (overwritten) asynchronously on `stream`; two-phase temp storage as histogram_even.
//!
//! - Samples and counters as histogram_even; Level is int for integer samples, float for float.
//! - Up to what a block's shared memory holds (4096 bins and more), each block copies the levels
//!   into shared memory with a lookup table over the level range (up to 4096 cells): most samples
//!   find their bin with one table read, the others finish with a short binary search. Beyond
//!   it, a binary search over the levels in global memory and global counters.
//!
//! Returns cudaErrorInvalidValue, launching nothing, on the errors histogram_even rejects and
//! when d_levels is null, misaligned or shares bytes with d_histogram. Otherwise the launch
//! status. The levels' order is not checked (they are in device memory): levels that decrease or
//! hold NaN give unspecified counts, but nothing is read or written out of bounds and no two
//! threads write the same shared-memory bytes (a block that finds the levels out of order searches them all,
//! without its lookup table).
//! \code
//! const auto* d_ints = reinterpret_cast<const std::int32_t*>(d_in);    // n samples
//! const auto* d_levels = reinterpret_cast<const int*>(d_a);            // 2049 levels
//! auto* d_hist = reinterpret_cast<unsigned long long*>(d_out);         // 2048 64-bit counters
//! std::size_t bytes = 0;
//! TILECRAFT_THROW_IF_ERROR(tilecraft::histogram_range(nullptr, bytes, d_ints, d_hist, 2048, d_levels, n));
//! TILECRAFT_THROW_IF_ERROR(cudaMalloc(&d_temp, bytes));
//! TILECRAFT_THROW_IF_ERROR(tilecraft::histogram_range(d_temp, bytes, d_ints, d_hist, 2048, d_levels, n, stream));
//! \endcode
template <class Policy = void, class Sample, class Counter, class Level>
[[nodiscard]] cudaError_t histogram_range(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                          const Sample* d_samples, Counter* d_histogram, int num_bins,
                                          const Level* d_levels, std::int64_t num_samples,
                                          cudaStream_t stream = nullptr) {
  TILECRAFT_NVTX_RANGE("tilecraft::histogram_range");
  static_assert(std::is_void_v<Policy> || is_histogram_policy_v<Policy>,
                "tilecraft::histogram_range<Policy>: Policy must be a tilecraft::HistogramPolicy");
  if constexpr (std::is_void_v<Policy> || is_histogram_policy_v<Policy>) {
    using P = std::conditional_t<std::is_void_v<Policy>, DefaultHistogramPolicy<Sample>, Policy>;
    return detail::histogram_range_with<P>(d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_bins,
                                           d_levels, num_samples, stream);
  } else {
    return cudaErrorInvalidValue;
  }
}

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft
