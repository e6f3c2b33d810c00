//! \file device/detail/select_dispatch.cuh
//! tilecraft::select_if / partition's dispatch: type rules, argument checks, temp storage,
//! launches (internal; include device/select.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../../config.cuh"
#include "../../util/device_cache.cuh"
#include "../../util/launch.cuh"
#include "../../util/math.cuh"
#include "../../util/status.cuh"
#include "../scan_policy.cuh"
#include "scan_dispatch.cuh"
#include "scan_tile_state.cuh"
#include "select_kernels.cuh"

namespace tilecraft::detail {

// select_if's default tiles: the scan's up to 32 MiB of input; above, for items wider than 4
// bytes, 256 bytes a thread (64 items at most, as ScanPolicy allows) in a 32 KiB tile of fewer
// threads (128 for 8- and 16-byte items); items of up to 4 bytes keep the scan's register tile
// (below). Measured on the H200 at 2^28 items,
// half kept, ratio to cub::DeviceSelect::If, when the look-back waited in place: f32 0.86 (256 x 32) -> 0.94 (128 x
// 64), f64 (2^27) 0.77 (256 x 16) -> 0.84 (128 x 32), i8 1.47 (256 x 64) -> 1.59 (512 x 64); at 2^22 f32 the scan's
// 256 x 32 is the faster (0.91 against 0.84: 512 tiles of 128 threads leave SMs idle). benchmarks/TUNING.md, "Scan".
// Since it walks, the register tile is the faster for 4- and 1-byte items (below).
template <class In>
struct DefaultSelectShape {
  static constexpr int size = static_cast<int>(sizeof(In));
  static constexpr int whole_vectors = DefaultScanShape<In, In>::whole_vectors;
  static constexpr int items = scan_min(64, scan_max(whole_vectors, scan_max(1, 256 / size)));
  static constexpr int by_bytes = 32768 / (items * size) / 32 * 32;  // (0 above 1 KiB: then 64)
  static constexpr int threads = scan_min(512, scan_max(64, by_bytes));
};
// Items of up to 4 bytes keep the register tile above 512 KiB (the small tile below), past 32 MiB too, since the
// look-back walks back over the aggregates at every size. H200, half kept: floats (256 x 32) 2^28 518-519 us against
// 128 x 64's 528-531 (1.14x against 1.12x CUB), 2^26 141-142 against 144-145; bytes (256 x 64) 2^28 194.5 us against
// 512 x 64's 210.8 (2.65x against 2.44x), 2^30 740 against 805; 2-byte items take 256 x 64 either way. 8- and 16-byte
// items keep the 32 KiB tile: doubles at 2^27 509 us against 702 (256 x 16), pairs of doubles at 2^26 799 against 819
// (benchmarks/TUNING.md, "Tile shapes with the walk"). Items of 3 bytes (a user's struct) take the register tile too,
// the one they take from 512 KiB to 32 MiB: not measured above that.
template <class In>
using DefaultSelectPolicyHuge =
    std::conditional_t<sizeof(In) <= 4, DefaultScanPolicyRegisters<In, In>,
                       ScanPolicy<DefaultSelectShape<In>::threads, DefaultSelectShape<In>::items>>;
template <class In>
using DefaultSelectPolicyLarge = DefaultScanPolicyRegisters<In, In>;
template <class In>
using DefaultSelectPolicySmall = DefaultScanPolicySmall<In, In>;
// Inputs above this many bytes take DefaultSelectPolicyHuge.
inline constexpr std::int64_t huge_select_min_bytes = std::int64_t{32} << 20;

// What select_run checks before it launches, and its size query: host code, so that a host
// compiler's form answers the query and refuses what nvcc's refuses. Offset: the kept counts'
// type (32-bit below 2^32 items: one 8-byte word per tile state). Sets `tiles` to the tiles to
// launch, 0 where nothing is launched (the size query); num_items == 0 passes with one tile.
template <class Policy, bool Partition, class Offset, class In, class NumSelected>
[[nodiscard]] cudaError_t select_check(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                                       const In* d_out, const NumSelected* d_num_selected, std::int64_t num_items,
                                       std::int64_t& tiles) {
  tiles = 0;
  const std::int64_t all_tiles = ceil_div<std::int64_t>(num_items, Policy::tile_items);
  if (all_tiles > INT_MAX) return cudaErrorInvalidValue;
  const std::size_t needed = scan_header_bytes + tile_status_bytes<Offset>(all_tiles > 1 ? all_tiles : 1);
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return cudaSuccess;
  }
  if (temp_storage_bytes < needed || reinterpret_cast<std::uintptr_t>(d_temp_storage) % 16 != 0) {
    return cudaErrorInvalidValue;
  }
  if (d_num_selected == nullptr || !element_aligned(d_num_selected)) return cudaErrorInvalidValue;
  if (num_items > 0 && (d_in == nullptr || d_out == nullptr)) return cudaErrorInvalidValue;
  if (!element_aligned(d_in) || !element_aligned(d_out)) return cudaErrorInvalidValue;
  const std::size_t bytes = static_cast<std::size_t>(num_items) * sizeof(In);
  // select_if may run in place (d_out == d_in: a tile writes only below its own end, over items
  // that it or earlier tiles, which published their counts first, have read); partition may not
  // (its rejected items go to the end, over tiles not yet read).
  const bool in_place = d_in == d_out;
  if (num_items > 0 && partially_overlapping(d_in, bytes, d_out, bytes, !Partition)) return cudaErrorInvalidValue;
  // Streaming loads take the read-only path: the input must not be written while they run.
  if (num_items > 0 && in_place && Policy::hint == CacheHint::streaming) return cudaErrorInvalidValue;
  // The count is written while other tiles still read and write the arrays, and the tile states
  // while every tile runs: none of them may share a byte with another.
  constexpr std::size_t count_bytes = sizeof(NumSelected);
  if (bytes_overlap(d_num_selected, count_bytes, d_in, bytes) ||
      bytes_overlap(d_num_selected, count_bytes, d_out, bytes) || bytes_overlap(d_temp_storage, needed, d_in, bytes) ||
      bytes_overlap(d_temp_storage, needed, d_out, bytes) ||
      bytes_overlap(d_temp_storage, needed, d_num_selected, count_bytes)) {
    return cudaErrorInvalidValue;
  }
  tiles = all_tiles > 1 ? all_tiles : 1;
  return cudaSuccess;
}

#if defined(__CUDACC__)
template <class Policy, bool Partition, class Offset, class In, class Pred, class NumSelected>
[[nodiscard]] cudaError_t select_run(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, In* d_out,
                                     NumSelected* d_num_selected, std::int64_t num_items, Pred pred,
                                     cudaStream_t stream) {
  std::int64_t tiles = 0;
  // (A refusal returned as it is: it is not the runtime's last error, which stays in its slot
  // for its owner even where it has the same code.)
  if (const cudaError_t invalid = select_check<Policy, Partition, Offset>(d_temp_storage, temp_storage_bytes, d_in,
                                                                          d_out, d_num_selected, num_items, tiles);
      invalid != cudaSuccess) {
    return invalid;
  }
  if (tiles == 0) return cudaSuccess;
  const bool in_place = d_in == d_out;
  if (num_items == 0) return returned_status(cudaMemsetAsync(d_num_selected, 0, sizeof(NumSelected), stream));
  // The tile a block prefetches into L2: one ticket an SM past its own (a quarter of the
  // resident blocks at four an SM; an eighth to three quarters measured alike on the H200).
  DeviceLimits limits;
  TILECRAFT_RETURN_IF_ERROR(device_limits(limits));
  const std::int64_t prefetch_ahead = tiles > 1 ? limits.sms : 0;
  auto* counter = static_cast<unsigned*>(d_temp_storage);
  const TileStatus<Offset> status(static_cast<unsigned char*>(d_temp_storage) + scan_header_bytes,
                                  tiles > 1 ? tiles : 1);
  if (tiles > 1) {
    TILECRAFT_RETURN_IF_ERROR(launch_kernel(scan_init_kernel<TileStatus<Offset>>,
                                            dim3(static_cast<unsigned>(ceil_div<std::int64_t>(tiles, 256))), dim3(256),
                                            0, stream, status, tiles, counter));
  }
  const bool vector = reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0;
  return launch_kernel(select_kernel<Policy, Partition, In, Offset, Pred, NumSelected>,
                       dim3(static_cast<unsigned>(tiles)), dim3(Policy::threads), 0, stream, d_in, d_out, num_items,
                       pred, d_num_selected, status, counter, vector, tiles == 1, in_place && tiles > 1,
                       prefetch_ahead);
}
#endif

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

template <class Policy, bool Partition, class In, class Pred, class NumSelected>
[[nodiscard]] cudaError_t select_with(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, In* d_out,
                                      NumSelected* d_num_selected, std::int64_t num_items, Pred pred,
                                      cudaStream_t stream) {
  static_assert(std::is_trivially_copyable_v<In> && std::is_default_constructible_v<In>,
                "tilecraft::select_if / partition: the item type must be trivially copyable and default constructible");
  static_assert(std::predicate<Pred&, const In&>,
                "tilecraft::select_if / partition: pred(*d_in) must be callable and return something convertible to "
                "bool");
  static_assert(std::is_integral_v<NumSelected> && sizeof(NumSelected) >= 4,
                "tilecraft::select_if / partition: the kept count is written to an integer of at least 4 bytes");
  static_assert(!std::is_const_v<NumSelected> && !std::is_volatile_v<NumSelected>,
                "tilecraft::select_if / partition: d_num_selected must point to a writable, non-volatile integer");
  if constexpr (std::is_trivially_copyable_v<In> && std::is_default_constructible_v<In> &&
                std::predicate<Pred&, const In&> && std::is_integral_v<NumSelected> && sizeof(NumSelected) >= 4 &&
                !std::is_const_v<NumSelected> && !std::is_volatile_v<NumSelected>) {
    if (num_items < 0 || num_items > INT64_MAX / 64) return cudaErrorInvalidValue;
    // Every item may be kept: the count must fit NumSelected (an int takes up to 2^31 - 1 items).
    if (static_cast<std::uint64_t>(num_items) > static_cast<std::uint64_t>(std::numeric_limits<NumSelected>::max())) {
      return cudaErrorInvalidValue;
    }
    // One policy's select in this compiler's form: nvcc's runs it; a host compiler's checks the
    // arguments, answers the size query and returns cudaErrorInvalidDeviceFunction where it
    // would launch.
    auto run = [&]<class P>() -> cudaError_t {
      constexpr bool fits = static_cast<std::size_t>(P::tile_items) * sizeof(In) <= max_tile_stage_bytes;
      static_assert(fits,
                    "tilecraft::select_if / partition: a tile (Policy threads * items * sizeof(item)) must fit 40 KiB "
                    "of static shared memory: take fewer threads or items (the default tiles take items of up to 640 "
                    "bytes)");
      if constexpr (fits) {
        const bool narrow = num_items <= static_cast<std::int64_t>(UINT_MAX);
#if defined(__CUDACC__)
        if (narrow) {
          return select_run<P, Partition, unsigned>(d_temp_storage, temp_storage_bytes, d_in, d_out, d_num_selected,
                                                    num_items, pred, stream);
        }
        return select_run<P, Partition, unsigned long long>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                                            d_num_selected, num_items, pred, stream);
#else
        (void)pred, (void)stream;
        std::int64_t tiles = 0;
        const cudaError_t invalid =
            narrow ? select_check<P, Partition, unsigned>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                                          d_num_selected, num_items, tiles)
                   : select_check<P, Partition, unsigned long long>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                                                    d_num_selected, num_items, tiles);
        if (invalid != cudaSuccess) return invalid;  // (as it is: see select_run)
        return tiles == 0 ? cudaSuccess : cudaErrorInvalidDeviceFunction;
#endif
      } else {
        return cudaErrorInvalidValue;
      }
    };
    if constexpr (!std::is_void_v<Policy>) {
      return run.template operator()<Policy>();
    } else {
      constexpr auto size = static_cast<std::int64_t>(sizeof(In));
      if (num_items <= small_scan_max_bytes / size) return run.template operator()<DefaultSelectPolicySmall<In>>();
      if (num_items <= huge_select_min_bytes / size) return run.template operator()<DefaultSelectPolicyLarge<In>>();
      return run.template operator()<DefaultSelectPolicyHuge<In>>();
    }
  } else {
    return cudaErrorInvalidValue;
  }
}

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft::detail
