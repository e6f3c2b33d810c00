//! \file device/detail/histogram_dispatch.cuh
//! tilecraft::histogram_even / histogram_range: argument checks, the choice of layout (lane
//! counters, warp sub-histograms or global counters), grid sizing and the launch (internal;
//! include device/histogram.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../../block/detail/histogram_counters.cuh"
#include "../../config.cuh"
#include "../../util/device_cache.cuh"
#include "../../util/launch.cuh"
#include "../../util/math.cuh"
#include "../../util/status.cuh"
#include "histogram_kernels.cuh"

namespace tilecraft::detail {

//! The most bins either launcher counts (bin estimates of 32-bit samples stay within one of
//! the quotient up to here; see EvenBinsWide).
inline constexpr int histogram_max_bins = 1 << 22;

//! Temp storage the launchers ask for: none is used, 16 bytes keep CUB's two-phase protocol.
inline constexpr std::size_t histogram_temp_bytes = 16;

//! The most range bins the lookup cells' 16-bit bin indices address.
inline constexpr int histogram_range_max_cell_bins = 1 << 16;

//! Lookup cells for range bins: twice the bins, as a power of two from 64 to 4096.
constexpr int histogram_range_cells(int bins) {
  int cells = 64;
  while (cells < 2 * bins && cells < 4096) cells *= 2;
  return cells;
}

//! The layout of a launch with `bins` bins: lane counters up to Policy::lane_max_bins, warp
//! sub-histograms while a block's shared memory (`limit` bytes, less `extra_bytes` for range
//! levels) holds one copy, global counters beyond. Copies: one per Policy::warps_per_copy
//! warps, fewer where shared memory runs short.
template <class Policy>
HistogramPlan histogram_plan(int bins, std::int64_t extra_bytes, std::int64_t limit) {
  HistogramPlan plan;
  plan.bins = bins;
  constexpr int warps = Policy::threads / warp_threads;
  const int wanted = warps / Policy::warps_per_copy > 0 ? warps / Policy::warps_per_copy : 1;
  auto fit = [&](BlockHistogramAlgorithm algorithm) {
    for (int copies = wanted; copies >= 1; --copies) {
      if (histogram_counter_words(algorithm, bins, copies) * 4 + extra_bytes <= limit) return copies;
    }
    return 0;
  };
  if (bins <= Policy::lane_max_bins) {
    if (const int copies = fit(BlockHistogramAlgorithm::lanes); copies > 0) {
      plan.algorithm = BlockHistogramAlgorithm::lanes;
      plan.copies = copies;
      return plan;
    }
  }
  if (const int copies = fit(BlockHistogramAlgorithm::warps); copies > 0) {
    plan.algorithm = copies > 1 ? BlockHistogramAlgorithm::warps : BlockHistogramAlgorithm::block;
    plan.copies = copies;
    return plan;
  }
  plan.copies = 0;  // global counters
  return plan;
}

//! Dynamic shared memory of a plan.
template <class Params>
std::int64_t histogram_smem_bytes(const HistogramPlan& plan) {
  if (plan.copies == 0) return 0;
  std::int64_t bytes = histogram_counter_words(plan.algorithm, plan.bins, plan.copies) * 4;
  if constexpr (Params::is_range) bytes += Params::shared_bytes(plan.bins, plan.cells);
  return bytes;
}

#if defined(__CUDACC__)
template <class Policy, bool Shared, bool Aggregate, class Sample, class Counter, class Params>
[[nodiscard]] cudaError_t histogram_launch(const Sample* d_samples, std::int64_t n, Counter* d_histogram, Params params,
                                           HistogramPlan plan, std::int64_t flush_samples, cudaStream_t stream,
                                           bool cooperative_allowed) {
  auto kernel = &histogram_kernel<Policy, Shared, Aggregate, Sample, Counter, Params>;
  DeviceLimits limits;
  TILECRAFT_RETURN_IF_ERROR(device_limits(limits));
  const auto smem = static_cast<std::size_t>(histogram_smem_bytes<Params>(plan));
  // Opt in to the device's whole limit once, so a later launch with more bins than an earlier
  // one never finds the kernel opted in to less.
  if (limits.smem_per_block_optin > max_static_smem_per_block) {
    // (opt_in_once's refusal returned as it is, never through the slot-clearing macro.)
    const cudaError_t opted = opt_in_once(kernel, static_cast<std::size_t>(limits.smem_per_block_optin));
    if (opted != cudaSuccess) return opted;
  }
  int resident = 0;
  TILECRAFT_RETURN_IF_ERROR(resident_blocks_once(kernel, Policy::threads, smem, resident));
  constexpr std::int64_t tile_samples =
      static_cast<std::int64_t>(Policy::threads) * Policy::vectors_per_thread * histogram_vector_elems<Sample>;
  const std::int64_t tiles = n / tile_samples + 1;
  // The blocks also zero the output. With counters in global memory the bins may be many (up to
  // 2^22) for few samples: take at least a block per 2^16 counters, so that zeroing 16 MiB does
  // not fall to the one block a thousand samples need (271 us on an H200). Not more: 65 blocks
  // zero 2^22 counters in a few us, and a block per 8192 counters (every resident block) cost
  // 2^20 samples over 2^22 bins 22 us against 15 (benchmarks/TUNING.md). (Shared counters are
  // few, and every block merges its copy: the samples alone size the grid.)
  const std::int64_t zeroing = Shared ? 1 : plan.bins / (std::int64_t{1} << 16) + 1;
  const std::int64_t blocks = tiles > zeroing ? tiles : zeroing;
  const int grid = static_cast<int>(blocks < resident ? blocks : resident);
  // 32-bit shared counters: a block flushes them after flush_samples (2^31) samples and at most
  // a few more (the array's unaligned ends), well below the 2^32 they hold.
  plan.flush_tiles = flush_samples / tile_samples > 0 ? flush_samples / tile_samples : 1;
  plan.sync_first = (tiles + grid - 1) / grid > plan.flush_tiles;
  if (!plan.sync_first) plan.flush_tiles = std::numeric_limits<std::int64_t>::max();
  if (cooperative_allowed) {
    plan.cooperative = true;
    const cudaError_t launched = launch_cooperative(kernel, dim3(static_cast<unsigned>(grid)), dim3(Policy::threads),
                                                    smem, stream, d_samples, n, d_histogram, params, plan);
    // The grid's barrier orders its zeroing of the output before the first count added to it.
    // Where the GPU refuses the cooperative launch (fewer SMs than it reports, under MPS or
    // green contexts; no cooperative launches), a memset zeroes the output first and the grid
    // runs without the barrier. (A refusal that a stream capture defers to the graph's
    // instantiation fails there.)
    if (!cooperative_refused(launched)) return launched;
  }
  plan.cooperative = false;
  TILECRAFT_RETURN_IF_ERROR(
      cudaMemsetAsync(d_histogram, 0, static_cast<std::size_t>(plan.bins) * sizeof(Counter), stream));
  return launch_kernel(kernel, dim3(static_cast<unsigned>(grid)), dim3(Policy::threads), smem, stream, d_samples, n,
                       d_histogram, params, plan);
}
#endif

//! Sample types the launchers take, and the type their levels have.
template <class Sample>
inline constexpr bool histogram_sample_v =
    std::is_same_v<Sample, std::uint8_t> || std::is_same_v<Sample, std::uint16_t> ||
    std::is_same_v<Sample, std::int32_t> || std::is_same_v<Sample, float>;
template <class Sample>
using histogram_level_t = std::conditional_t<std::is_same_v<Sample, float>, float, int>;

// The type rules, each stopping compilation of the rest so its message comes alone.
template <class Sample, class Counter, class Level>
constexpr bool histogram_types_ok() {
  static_assert(histogram_sample_v<Sample>,
                "tilecraft::histogram: samples must be std::uint8_t, std::uint16_t, std::int32_t or float");
  static_assert(std::is_same_v<Counter, unsigned> || std::is_same_v<Counter, unsigned long long>,
                "tilecraft::histogram: counters must be unsigned int (32-bit, the default) or unsigned long long "
                "(64-bit, for 2^32 or more samples)");
  static_assert(!histogram_sample_v<Sample> || std::is_same_v<Level, histogram_level_t<Sample>>,
                "tilecraft::histogram: levels must be int for integer samples and float for float samples");
  return histogram_sample_v<Sample> &&
         (std::is_same_v<Counter, unsigned> ||
          std::is_same_v<Counter, unsigned long long>)&&std::is_same_v<Level, histogram_level_t<Sample>>;
}

// Checks shared by both launchers; cudaSuccess means "go on".
template <class Sample, class Counter>
cudaError_t histogram_check(const void* d_temp_storage, std::size_t temp_storage_bytes, const Sample* d_samples,
                            const Counter* d_histogram, int num_bins, std::int64_t num_samples) {
  // (The samples' bytes must fit 64 bits: the overlap checks below count them.)
  if (num_samples < 0 || num_samples > INT64_MAX / static_cast<std::int64_t>(sizeof(Sample)) || num_bins < 1 ||
      num_bins > histogram_max_bins) {
    return cudaErrorInvalidValue;
  }
  if (d_temp_storage == nullptr) return cudaSuccess;  // the size query
  if (d_histogram == nullptr || (num_samples > 0 && d_samples == nullptr)) return cudaErrorInvalidValue;
  if (reinterpret_cast<std::uintptr_t>(d_samples) % alignof(Sample) != 0 ||
      reinterpret_cast<std::uintptr_t>(d_histogram) % alignof(Counter) != 0) {
    return cudaErrorInvalidValue;
  }
  if (temp_storage_bytes < histogram_temp_bytes || reinterpret_cast<std::uintptr_t>(d_temp_storage) % 16 != 0) {
    return cudaErrorInvalidValue;
  }
  // The histogram is zeroed while other blocks may still read samples: no sharing of bytes
  // with the samples or the temp storage.
  const std::size_t histogram_bytes = static_cast<std::size_t>(num_bins) * sizeof(Counter);
  if (bytes_overlap(d_histogram, histogram_bytes, d_samples, static_cast<std::size_t>(num_samples) * sizeof(Sample)) ||
      bytes_overlap(d_histogram, histogram_bytes, d_temp_storage, histogram_temp_bytes)) {
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

#if defined(__CUDACC__)
// Plans and launches: shared counters when one copy fits a block, global counters otherwise.
template <class Policy, class Sample, class Counter, class Params>
[[nodiscard]] cudaError_t histogram_run(const Sample* d_samples, std::int64_t n, Counter* d_histogram, Params params,
                                        int bins, std::int64_t flush_samples, cudaStream_t stream,
                                        bool cooperative_allowed) {
  DeviceLimits limits;
  TILECRAFT_RETURN_IF_ERROR(device_limits(limits));
  int cells = 0;
  std::int64_t extra = 0;
  if constexpr (Params::is_range) {
    cells = histogram_range_cells(bins);
    extra = Params::shared_bytes(bins, cells);
    params.cells = cells;
  }
  // Shared memory for Policy::blocks_per_sm blocks per SM (1 KiB of each block's share is the
  // system's), or for one block where that holds no copy.
  const std::int64_t share = limits.smem_per_sm / Policy::blocks_per_sm - 1024;
  const std::int64_t budget = share < limits.smem_per_block_optin ? share : limits.smem_per_block_optin;
  HistogramPlan plan = histogram_plan<Policy>(bins, extra, budget);
  if (plan.copies == 0) plan = histogram_plan<Policy>(bins, extra, limits.smem_per_block_optin);
  // The lookup cells hold 16-bit bin indices: more range bins search the levels in global
  // memory (no device today gives a block the shared memory for that many).
  if (Params::is_range && bins > histogram_range_max_cell_bins) plan.copies = 0;
  plan.cells = cells;
  if (plan.copies == 0) {
    plan.cells = 0;
    return histogram_launch<Policy, false, true>(d_samples, n, d_histogram, params, plan, flush_samples, stream,
                                                 cooperative_allowed);
  }
  if (plan.algorithm == BlockHistogramAlgorithm::lanes) {
    return histogram_launch<Policy, true, false>(d_samples, n, d_histogram, params, plan, flush_samples, stream,
                                                 cooperative_allowed);
  }
  return histogram_launch<Policy, true, true>(d_samples, n, d_histogram, params, plan, flush_samples, stream,
                                              cooperative_allowed);
}

// The 32-bit samples' even bins between int levels (lower < upper).
inline EvenParams<EvenBinsWide> even_bins_wide(int num_bins, int lower, int upper) {
  const auto range = static_cast<std::uint64_t>(static_cast<std::int64_t>(upper) - lower);
  return {{static_cast<unsigned>(lower), static_cast<unsigned>(range), static_cast<unsigned>(num_bins),
           static_cast<float>(num_bins) / static_cast<float>(range)}};
}
#endif

//! Samples a block adds to its 32-bit shared counters between flushes.
inline constexpr std::int64_t histogram_flush_samples = std::int64_t{1} << 31;

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

// histogram_even once its type rules hold.
template <class Policy, class Sample, class Counter, class Level>
[[nodiscard]] cudaError_t histogram_even_with(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                              const Sample* d_samples, Counter* d_histogram, int num_bins, Level lower,
                                              Level upper, std::int64_t num_samples, cudaStream_t stream,
                                              std::int64_t flush_samples = histogram_flush_samples,
                                              bool cooperative_allowed = true) {
  if constexpr (histogram_types_ok<Sample, Counter, Level>()) {
    // (Returned as it is: an error made up here is not the runtime's last error, which stays in
    // its slot for its owner even where it is the same code.)
    if (const cudaError_t invalid =
            histogram_check(d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_bins, num_samples);
        invalid != cudaSuccess) {
      return invalid;
    }
    // The levels: lower < upper (integers: any int levels, as CUB's, past the samples' range
    // too), finite with a finite width and a normal bins-per-unit scale (floats: a width so
    // narrow that num_bins / width overflows would put every sample in the last bin; one so
    // wide that the scale is subnormal would put every sample in bin 0 in a build that flushes
    // subnormals, so it is refused in every build, which then all answer alike).
    if constexpr (std::is_same_v<Sample, float>) {
      if (!(lower < upper) || !std::isfinite(lower) || !std::isfinite(upper) || !std::isfinite(upper - lower) ||
          !std::isnormal(static_cast<float>(num_bins) / (upper - lower))) {
        return cudaErrorInvalidValue;
      }
    } else {
      if (!(lower < upper)) return cudaErrorInvalidValue;
    }
    if (d_temp_storage == nullptr) {
      temp_storage_bytes = histogram_temp_bytes;
      return cudaSuccess;
    }
#if defined(__CUDACC__)
    if constexpr (std::is_same_v<Sample, float>) {
      const float scale = static_cast<float>(num_bins) / (upper - lower);
      const EvenParams<EvenBinsFloat> params{{lower, upper, scale, static_cast<unsigned>(num_bins - 1)}};
      return histogram_run<Policy>(d_samples, num_samples, d_histogram, params, num_bins, flush_samples, stream,
                                   cooperative_allowed);
    } else if constexpr (sizeof(Sample) <= 2) {
      // Levels past the samples' range: x - lower and the width need 32 bits, where the
      // multiply-shift below is exact only for the narrow types' spans; the 32-bit samples' bins
      // serve (their own kernels, so the narrow ones keep theirs).
      if (lower < static_cast<int>(std::numeric_limits<Sample>::lowest()) ||
          static_cast<std::int64_t>(upper) > static_cast<std::int64_t>(std::numeric_limits<Sample>::max()) + 1) {
        return histogram_run<Policy>(d_samples, num_samples, d_histogram, even_bins_wide(num_bins, lower, upper),
                                     num_bins, flush_samples, stream, cooperative_allowed);
      }
      const auto range = static_cast<std::uint64_t>(static_cast<std::int64_t>(upper) - lower);
      const std::uint64_t m = ((static_cast<std::uint64_t>(num_bins) << 32) + range - 1) / range;
      int shift = -1;  // range = bins x 2^shift: a shift instead of the multiplies
      for (int s = 0; s < 17; ++s) {
        if ((static_cast<std::uint64_t>(num_bins) << s) == range) shift = s;
      }
      const EvenParams<EvenBinsNarrow> params{{static_cast<unsigned>(lower), static_cast<unsigned>(range),
                                               static_cast<unsigned>(m), static_cast<unsigned>(m >> 32), shift}};
      return histogram_run<Policy>(d_samples, num_samples, d_histogram, params, num_bins, flush_samples, stream,
                                   cooperative_allowed);
    } else {
      return histogram_run<Policy>(d_samples, num_samples, d_histogram, even_bins_wide(num_bins, lower, upper),
                                   num_bins, flush_samples, stream, cooperative_allowed);
    }
#else
    (void)stream;  // host compilers: argument checks and size queries only
    (void)flush_samples, (void)cooperative_allowed;
    return cudaErrorInvalidDeviceFunction;
#endif
  } else {
    return cudaErrorInvalidValue;
  }
}

// histogram_range once its type rules hold.
template <class Policy, class Sample, class Counter, class Level>
[[nodiscard]] cudaError_t histogram_range_with(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                               const Sample* d_samples, Counter* d_histogram, int num_bins,
                                               const Level* d_levels, std::int64_t num_samples, cudaStream_t stream,
                                               std::int64_t flush_samples = histogram_flush_samples,
                                               bool cooperative_allowed = true) {
  if constexpr (histogram_types_ok<Sample, Counter, Level>()) {
    // (Returned as it is: an error made up here is not the runtime's last error, which stays in
    // its slot for its owner even where it is the same code.)
    if (const cudaError_t invalid =
            histogram_check(d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_bins, num_samples);
        invalid != cudaSuccess) {
      return invalid;
    }
    if (d_temp_storage == nullptr) {
      temp_storage_bytes = histogram_temp_bytes;
      return cudaSuccess;
    }
    if (d_levels == nullptr || reinterpret_cast<std::uintptr_t>(d_levels) % alignof(Level) != 0 ||
        bytes_overlap(d_levels, (static_cast<std::size_t>(num_bins) + 1) * sizeof(Level), d_histogram,
                      static_cast<std::size_t>(num_bins) * sizeof(Counter))) {
      return cudaErrorInvalidValue;
    }
#if defined(__CUDACC__)
    const RangeParams<Level> params{d_levels, num_bins, 0};
    return histogram_run<Policy>(d_samples, num_samples, d_histogram, params, num_bins, flush_samples, stream,
                                 cooperative_allowed);
#else
    (void)stream;  // host compilers: argument checks and size queries only
    (void)flush_samples, (void)cooperative_allowed;
    return cudaErrorInvalidDeviceFunction;
#endif
  } else {
    return cudaErrorInvalidValue;
  }
}

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft::detail
