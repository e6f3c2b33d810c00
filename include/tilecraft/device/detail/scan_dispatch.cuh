//! \file device/detail/scan_dispatch.cuh
//! tilecraft::inclusive_scan / exclusive_scan's dispatch: type rules, argument checks, the tile
//! shape, temp storage, launches (internal; include device/scan.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../../config.cuh"
#include "../../util/concepts.cuh"
#include "../../util/device_cache.cuh"
#include "../../util/launch.cuh"
#include "../../util/math.cuh"
#include "../../util/status.cuh"
#include "../scan_policy.cuh"
#include "scan_kernels.cuh"
#include "scan_tile_state.cuh"

namespace tilecraft::detail {

// The accumulator: what op(out_value, in_value) returns for the inclusive scan (a u8 input
// scanned into an i64 output accumulates in i64), what op(init, in_value) returns for the
// exclusive one (CUB's rule); void when op cannot be called so.
template <class Op, class First, class In>
struct ScanAccumulator {
  using type = void;
};
template <class Op, class First, class In>
requires std::invocable<Op&, const First&, const In&>
struct ScanAccumulator<Op, First, In> {
  using type = std::decay_t<std::invoke_result_t<Op&, const First&, const In&>>;
};

// The most bytes a single-pass tile may stage in static shared memory (48 KiB per block, less
// the block scan's storage and the look-back's).
inline constexpr std::size_t max_tile_stage_bytes = 40960;

// Bytes at the start of the temp storage: the tile counter (16 keeps the states aligned).
inline constexpr std::size_t scan_header_bytes = 16;

// True when [a, a + a_bytes) and [b, b + b_bytes) overlap without being the very same range of
// the same element width (the one overlap a tile-by-tile algorithm can serve: in place).
inline bool partially_overlapping(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes,
                                  bool same_width) {
  return bytes_overlap(a, a_bytes, b, b_bytes) && !(a == b && same_width);
}

// Temp bytes of a single-pass algorithm over `tiles` tiles (Acc states; one at least: a lone
// tile publishes its state too).
template <class Acc>
constexpr std::size_t single_pass_temp_bytes(std::int64_t tiles) {
  return scan_header_bytes + tile_status_bytes<Acc>(tiles > 1 ? tiles : 1);
}

// What a single-pass scan over Policy's tiles checks before it launches, and its size query:
// host code, so that a host compiler's form answers the query and refuses what nvcc's refuses.
// Sets `tiles` to the tiles to launch, 0 where nothing is launched (the size query, no items).
template <class Policy, class In, class Out, class Acc>
[[nodiscard]] cudaError_t scan_check(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                                     const Out* d_out, std::int64_t num_items, std::int64_t& tiles) {
  static_assert(stage_bytes_of<Policy, In, Out>() <= max_tile_stage_bytes,
                "tilecraft scan: a tile (Policy threads * items * the wider of the input and output types) must fit 40 "
                "KiB of static shared memory: take fewer threads or items (the default tiles take items of up to 480 "
                "bytes)");
  tiles = 0;
  const std::int64_t all_tiles = ceil_div<std::int64_t>(num_items, Policy::tile_items);
  if (all_tiles > INT_MAX) return cudaErrorInvalidValue;
  std::size_t needed = single_pass_temp_bytes<Acc>(all_tiles);
  if constexpr (scan_sums_eligible<In, Out, Acc>) {
    // Room for the tile sums of the finest tiles the other forms may take over these items
    // (scan_run): the one wave's small register tile up to one_wave_small_max_bytes moved, the
    // two passes' above (finer than the one wave's larger tiles).
    const std::int64_t moved = static_cast<std::int64_t>(sizeof(In) + sizeof(Out)) * num_items;
    const std::int64_t finest = moved <= one_wave_small_max_bytes ? DefaultScanPolicyOneWaveSmall<In, Out>::tile_items
                                                                  : DefaultScanPolicySums<In, Out>::tile_items;
    const std::size_t sums =
        scan_header_bytes + static_cast<std::size_t>(ceil_div<std::int64_t>(num_items, finest)) * sizeof(Acc);
    needed = needed > sums ? needed : sums;
  }
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return cudaSuccess;
  }
  if (temp_storage_bytes < needed || reinterpret_cast<std::uintptr_t>(d_temp_storage) % 16 != 0) {
    return cudaErrorInvalidValue;
  }
  if (num_items == 0) return cudaSuccess;
  if (d_in == nullptr || d_out == nullptr || !element_aligned(d_in) || !element_aligned(d_out)) {
    return cudaErrorInvalidValue;
  }
  const std::size_t in_bytes = static_cast<std::size_t>(num_items) * sizeof(In);
  const std::size_t out_bytes = static_cast<std::size_t>(num_items) * sizeof(Out);
  if (partially_overlapping(d_in, in_bytes, d_out, out_bytes, sizeof(In) == sizeof(Out))) return cudaErrorInvalidValue;
  // The tile states are written while every tile runs.
  if (bytes_overlap(d_temp_storage, needed, d_in, in_bytes) ||
      bytes_overlap(d_temp_storage, needed, d_out, out_bytes)) {
    return cudaErrorInvalidValue;
  }
  // Streaming loads take the read-only path: the input must not be written while the scan runs.
  if (Policy::hint == CacheHint::streaming && static_cast<const void*>(d_in) == static_cast<const void*>(d_out)) {
    return cudaErrorInvalidValue;
  }
  tiles = all_tiles;
  return cudaSuccess;
}

//! The forms a scan of scan_sums_eligible types may take besides the single pass (scan_run's
//! template argument, so that a caller's policy compiles no kernel it never runs):
//! - single_pass: that alone (a caller's policy; tests of the single pass);
//! - by_size: the default dispatch: one wave where its tiles fit one wave of resident blocks,
//!   the tile in registers (scan_one_wave_registers_kernel), else in shared memory
//!   (scan_one_wave_kernel), else split between the two (scan_one_wave_split_kernel, at least
//!   one_wave_split_min_blocks an SM) where input and output together take
//!   one_wave_scan_min_bytes or more; otherwise two passes where they take from
//!   two_pass_scan_min_bytes to half the L2;
//! - two_pass: two passes wherever they make two tiles of the sums policy or more (tests);
//! - one_wave: one wave, the tile in shared memory, wherever its tiles fit one (two or more of
//!   them; tests);
//! - one_wave_registers: one wave, the tile in registers (scan_one_wave_registers_kernel), of
//!   32 or 128 bytes a thread as by_size takes them, wherever its tiles fit one wave (tests);
//! - one_wave_split: one wave, each tile split between shared memory and registers
//!   (scan_one_wave_split_kernel), wherever its tiles fit one wave (two or more; tests).
//! Elsewhere the single pass.
enum class ScanForms : int {
  single_pass = 0,
  by_size = 1,
  two_pass = 2,
  one_wave = 3,
  one_wave_registers = 4,
  one_wave_split = 5
};

#if defined(__CUDACC__)
// Launches `kernel` (a one-wave scan: one tile a block, every block resident at once, with
// dynamic_bytes of dynamic shared memory) over `tiles` tiles by a cooperative launch, where they
// fit one wave of its resident blocks (the occupancy calculator's, resident_blocks_once), and
// the device holds min_resident of them or more. False,
// nothing launched, where they do not, where the device cannot give a block dynamic_bytes
// (opt_in_once: sm_75 opts in to 64 KiB at most), where the query fails (both take their
// runtime errors out of the last-error slot) or where the launch is refused before it runs:
// where the GPU gives this process fewer SMs than it reports (MPS, green contexts) or has no
// cooperative launches (a refusal that a stream capture defers to the graph's instantiation
// fails there). True otherwise, with the launch's result in `launched`.
template <class... Params, class... Args>
[[nodiscard]] bool launch_in_one_wave(void (*kernel)(Params...), int threads, std::size_t dynamic_bytes,
                                      std::int64_t tiles, std::int64_t min_resident, cudaStream_t stream,
                                      cudaError_t& launched, Args... args) {
  if (dynamic_bytes > 0 && opt_in_once(kernel, dynamic_bytes) != cudaSuccess) return false;
  int resident = 0;
  if (resident_blocks_once(kernel, threads, dynamic_bytes, resident) != cudaSuccess || tiles > resident ||
      resident < min_resident) {
    return false;
  }
  launched = launch_cooperative(kernel, dim3(static_cast<unsigned>(tiles)), dim3(static_cast<unsigned>(threads)),
                                dynamic_bytes, stream, args...);
  return !cooperative_refused(launched);
}
#endif

#if defined(__CUDACC__)
// scan_kernel's static shared memory: the stage, block_scan's storage, the look-back's
// accumulators (32 a window it walks back, look_back_far) and the ticket (with room for their
// alignment). At most 48 KiB (scan_run's rule;
// DefaultScanShape::fits keeps the default tiles within it).
template <class Policy, class In, class Out, class Acc>
constexpr std::size_t scan_kernel_smem_bytes() {
  return stage_bytes_of<Policy, In, Out>() + sizeof(BlockScanStorage<Acc, Policy::threads, Policy::block_algorithm>) +
         far_windows<Acc> * warp_threads * sizeof(Acc) + 64;
}

// by_block_allowed: false takes every tile from the counter, however few; far_allowed: false
// waits in place for the inclusive prefixes (look_back) instead of walking back over the
// aggregates (tests compare the paths).
template <class Policy, bool Exclusive, ScanForms Forms = ScanForms::single_pass, class In, class Out, class Acc,
          class Op>
[[nodiscard]] cudaError_t scan_run(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, Out* d_out,
                                   std::int64_t num_items, Op op, Acc init, cudaStream_t stream,
                                   bool by_block_allowed = true, bool far_allowed = true) {
  static_assert(
      stage_bytes_of<Policy, In, Out>() > max_tile_stage_bytes ||  // (scan_check's message alone)
          scan_kernel_smem_bytes<Policy, In, Out, Acc>() <= 48 * 1024,
      "tilecraft scan: a tile's shared memory (the staging buffer of Policy threads * items of the wider of "
      "the input and output types, block_scan's storage and the look-back's buffer: 2 KiB, or 32 accumulators "
      "wider than 8 bytes) must fit 48 "
      "KiB of static shared memory: take fewer threads or items, or a narrower accumulator (the default "
      "tiles take items of up to 480 bytes)");
  std::int64_t tiles = 0;
  // (A refusal returned as it is: it is not the runtime's last error, which stays in its slot
  // for its owner even where it has the same code.)
  if (const cudaError_t invalid =
          scan_check<Policy, In, Out, Acc>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, tiles);
      invalid != cudaSuccess) {
    return invalid;
  }
  if (tiles == 0) return cudaSuccess;
  const bool vector =
      reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(d_out) % 16 == 0;
  DeviceLimits limits;
  TILECRAFT_RETURN_IF_ERROR(device_limits(limits));
  constexpr bool one_wave_forms = Forms == ScanForms::by_size || Forms == ScanForms::one_wave ||
                                  Forms == ScanForms::one_wave_registers || Forms == ScanForms::one_wave_split;
  if constexpr (one_wave_forms && scan_sums_eligible<In, Out, Acc>) {
    const std::int64_t moved = static_cast<std::int64_t>(sizeof(In) + sizeof(Out)) * num_items;
    // One wave: every tile resident at once, a grid barrier instead of the look-back; two tiles
    // or more (one needs no prefix). The tile in registers where its tiles fit one wave
    // (scan_one_wave_registers_kernel): 32 bytes a thread up to one_wave_small_max_bytes moved
    // (or where those do not fit, a GPU of few SMs) 128, and only where a thread's accumulators
    // take at most 128 bytes (more spill at its registers: 4-byte items with 8-byte
    // accumulators); past that the tile in shared memory, twice the tiles an SM, from
    // one_wave_scan_min_bytes (scan_one_wave_kernel); past its wave each tile split between the
    // two (scan_one_wave_split_kernel). Their tile sums take the temp storage's first bytes
    // after the header (scan_check leaves room for the finest tiles' sums).
    Acc* sums = reinterpret_cast<Acc*>(static_cast<unsigned char*>(d_temp_storage) + scan_header_bytes);
    cudaError_t launched = cudaSuccess;
    using OneWave = DefaultScanPolicyOneWave<In, Out>;
    const std::int64_t wave_tiles = ceil_div<std::int64_t>(num_items, OneWave::tile_items);
    if constexpr (Forms == ScanForms::by_size || Forms == ScanForms::one_wave_registers) {
      using Small = DefaultScanPolicyOneWaveSmall<In, Out>;
      const std::int64_t small_tiles = ceil_div<std::int64_t>(num_items, Small::tile_items);
      if (moved <= one_wave_small_max_bytes && small_tiles >= 2 &&
          launch_in_one_wave(
              scan_one_wave_registers_kernel<Small, one_wave_small_min_blocks<Acc>, Exclusive, In, Out, Acc, Op>,
              Small::threads, 0, small_tiles, 1, stream, launched, d_in, d_out, num_items, op, init, sums, vector)) {
        return launched;
      }
      if constexpr (OneWave::items * sizeof(Acc) <= 128) {
        if (wave_tiles >= 2 &&
            launch_in_one_wave(
                scan_one_wave_registers_kernel<OneWave, one_wave_registers_min_blocks, Exclusive, In, Out, Acc, Op>,
                OneWave::threads, 0, wave_tiles, 1, stream, launched, d_in, d_out, num_items, op, init, sums, vector)) {
          return launched;
        }
      }
    }
    if constexpr (Forms == ScanForms::by_size || Forms == ScanForms::one_wave) {
      if (wave_tiles >= 2 && (Forms == ScanForms::one_wave || moved >= one_wave_scan_min_bytes) &&
          launch_in_one_wave(scan_one_wave_kernel<OneWave, Exclusive, In, Out, Acc, Op>, OneWave::threads, 0,
                             wave_tiles, 1, stream, launched, d_in, d_out, num_items, op, init, sums, vector)) {
        return launched;
      }
    }
    using Split = DefaultScanPolicyOneWaveSplit<In, Out>;
    if constexpr ((Forms == ScanForms::by_size || Forms == ScanForms::one_wave_split) &&
                  OneWave::items * sizeof(Acc) <= 128 && two_pass_tile<Split, In, Out, Acc>) {
      // Past the tile in shared memory's wave: each tile split, a shared part and a register
      // part (the register tile's), three an SM (scan_one_wave_split_kernel). The default
      // dispatch takes it from one_wave_scan_min_bytes and only where the GPU holds
      // one_wave_split_min_blocks of its tiles an SM (measured so on the H200; a GPU that opts a
      // block in to less shared memory holds fewer).
      const std::int64_t split_tiles = ceil_div<std::int64_t>(num_items, Split::tile_items + OneWave::tile_items);
      const bool forced = Forms != ScanForms::by_size;
      if (split_tiles >= 2 && (forced || moved >= one_wave_scan_min_bytes) &&
          launch_in_one_wave(
              scan_one_wave_split_kernel<Split, OneWave, one_wave_split_min_blocks, Exclusive, In, Out, Acc, Op>,
              Split::threads, stage_bytes_of<Split, In, Out>(), split_tiles,
              forced ? 1 : std::int64_t{one_wave_split_min_blocks} * limits.sms, stream, launched, d_in, d_out,
              num_items, op, init, sums, vector)) {
        return launched;
      }
    }
  }
  if constexpr ((Forms == ScanForms::by_size || Forms == ScanForms::two_pass) && scan_sums_eligible<In, Out, Acc>) {
    // Two passes where the input stays in L2 between them: pass 1 sums every tile but the last,
    // pass 2 (its programmatic dependent) folds the sums before its tile and scans the tile
    // from L2. Measured on the H200 against this single pass, in one process (benchmarks/TUNING.md,
    // "Mid-size scans in two passes, the second from L2"): 1-2 us faster (5-10%) from 2^17 to
    // 2^21 floats or ints and at 2^20 int64; even at 2^22 floats (input and output 32 MiB), 2-4%
    // slower at 2^23, 19% at 2^22 int64 exclusive (64 MiB moved: the output evicts the input
    // pass 2 rereads); at 2^14 ints (2 us of launch latency in a 6 us scan) 12% slower. Hence
    // input and output together from 1 MiB (two_pass_scan_min_bytes) to half the L2.
    // The sums take the temp storage's first bytes after the header: fewer than the single
    // pass's tile states (its query's answer), so the same storage serves both.
    using Sums = DefaultScanPolicySums<In, Out>;
    const std::int64_t sums_tiles = ceil_div<std::int64_t>(num_items, Sums::tile_items);
    const std::size_t sums_bytes = scan_header_bytes + static_cast<std::size_t>(sums_tiles) * sizeof(Acc);
    const std::int64_t moved = static_cast<std::int64_t>(sizeof(In) + sizeof(Out)) * num_items;
    const bool by_size = Forms == ScanForms::by_size && two_pass_scan_by_size(moved, limits.l2);
    if (sums_tiles >= 2 && sums_bytes <= single_pass_temp_bytes<Acc>(tiles) &&
        (Forms == ScanForms::two_pass || by_size)) {
      Acc* sums = reinterpret_cast<Acc*>(static_cast<unsigned char*>(d_temp_storage) + scan_header_bytes);
      TILECRAFT_RETURN_IF_ERROR(launch_kernel(
          scan_sums_kernel<Sums, In, Acc, Op>, dim3(static_cast<unsigned>(sums_tiles - 1)), dim3(Sums::threads), 0,
          stream, d_in, op, sums, reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0));
      auto pass2 = scan_from_sums_kernel<Sums, Exclusive, In, Out, Acc, Op>;
      const Acc* done = sums;
      if (waits_for_dependency(reinterpret_cast<const void*>(pass2))) {
        return launch_dependent(pass2, dim3(static_cast<unsigned>(sums_tiles)), dim3(Sums::threads), 0, stream, d_in,
                                d_out, num_items, op, init, done, vector);
      }
      return launch_kernel(pass2, dim3(static_cast<unsigned>(sums_tiles)), dim3(Sums::threads), 0, stream, d_in, d_out,
                           num_items, op, init, done, vector);
    }
  }
  // At most one tile per SM: tiles may follow the block index (scan_kernel's by_block). A block
  // waits only for lower-indexed blocks, and the hardware starts a grid's blocks in index order
  // (CUB's DeviceScan, whose tiles follow the block index, makes the same assumption:
  // undocumented, never seen broken), so the block waited for is running or done, whatever holds the other
  // SMs (other grids, fewer usable SMs than the attribute reports under MPS or green
  // contexts). With one tile per SM the whole grid is usually resident at once besides; one per
  // SM, not the occupancy, so that a GPU shared with other work still has room.
  const bool by_block = tiles == 1 || (by_block_allowed && tiles <= limits.sms);
  // Past several waves of tiles, each block prefetches the tile one SM's worth of tickets past
  // its own into L2 (scan_kernel). Measured on the H200 at 2^28 items (the GPU check of
  // 5e8bc54, against the check before it): time down 5-15% for 1-, 4- and 8-byte inputs (f32
  // 0.778 -> 0.816x memcpy, i32 0.769 -> 0.872, i64 0.847 -> 0.908, i8 0.450 -> 0.530), up 1.7x
  // for 2-byte ones (i16 343 -> 585 us): a register cliff, not the prefetch. Its loop, then of a
  // run-time count and inlined, took the 2-byte register tile from 40 to 180 registers (one
  // block an SM); with a fixed count (arch::prefetch_l2_block) every default tile keeps its
  // registers of before, and i16 gains like the others (the check of 4adccc9: 1.58 -> 1.76x CUB).
  const std::int64_t prefetch_ahead = tiles > 8 * static_cast<std::int64_t>(limits.sms) ? limits.sms : 0;
  // The look-back walks back over the aggregates to the nearest inclusive prefix rather than
  // wait for the inclusive prefixes to reach it 32 tiles a hop (look_back_far; operators that
  // reassociate walk anyway). Measured on the H200 for floats (benchmarks/TUNING.md, "The walk
  // at every size"): 2^22 22.4 -> 19.5 us, 2^28 626 -> 569 us (1.10 -> 1.20x CUB), the same bits.
  const bool far = far_allowed;
  auto* counter = static_cast<unsigned*>(d_temp_storage);
  const TileStatus<Acc> status(static_cast<unsigned char*>(d_temp_storage) + scan_header_bytes, tiles > 1 ? tiles : 1);
  if (tiles > 1) {
    TILECRAFT_RETURN_IF_ERROR(launch_kernel(scan_init_kernel<TileStatus<Acc>>,
                                            dim3(static_cast<unsigned>(ceil_div<std::int64_t>(tiles, 256))), dim3(256),
                                            0, stream, status, tiles, counter));
  }
  auto kernel = scan_kernel<Policy, Exclusive, In, Out, Acc, Op>;
  if (tiles > 1 && waits_for_dependency(reinterpret_cast<const void*>(kernel))) {
    // A programmatic dependent of the reset: its blocks launch while the reset runs and wait
    // for it inside (griddepcontrol.wait), which hides the second launch's latency.
    return launch_dependent(kernel, dim3(static_cast<unsigned>(tiles)), dim3(Policy::threads), 0, stream, d_in, d_out,
                            num_items, op, init, status, counter, vector, by_block, prefetch_ahead, far);
  }
  return launch_kernel(kernel, dim3(static_cast<unsigned>(tiles)), dim3(Policy::threads), 0, stream, d_in, d_out,
                       num_items, op, init, status, counter, vector, by_block, prefetch_ahead, far);
}
#endif

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

// One policy's scan in this compiler's form: nvcc's runs it; a host compiler's checks the
// arguments, answers the size query and returns cudaErrorInvalidDeviceFunction where it would
// launch.
template <class Policy, bool Exclusive, ScanForms Forms = ScanForms::single_pass, class In, class Out, class Acc,
          class Op>
[[nodiscard]] cudaError_t scan_form(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, Out* d_out,
                                    std::int64_t num_items, Op op, Acc init, cudaStream_t stream) {
#if defined(__CUDACC__)
  return scan_run<Policy, Exclusive, Forms>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, op, init,
                                            stream);
#else
  (void)op, (void)init, (void)stream;
  std::int64_t tiles = 0;
  if (const cudaError_t invalid =
          scan_check<Policy, In, Out, Acc>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, tiles);
      invalid != cudaSuccess) {
    return invalid;  // (as it is: see scan_run)
  }
  return tiles == 0 ? cudaSuccess : cudaErrorInvalidDeviceFunction;
#endif
}

// The scan once its type rules hold: the tile shape (the caller's policy, or the default by
// size) and the run.
template <class Policy, bool Exclusive, class In, class Out, class Acc, class Op>
[[nodiscard]] cudaError_t scan_checked(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                                       Out* d_out, std::int64_t num_items, Op op, Acc init, cudaStream_t stream) {
  constexpr std::int64_t widest = sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out);
  // (num_items * widest, the arrays' bytes, must not overflow either: items wider than 64 bytes.)
  if (num_items < 0 || num_items > INT64_MAX / 64 || num_items > INT64_MAX / widest) return cudaErrorInvalidValue;
  if constexpr (!std::is_void_v<Policy>) {
    return scan_form<Policy, Exclusive>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, op, init, stream);
  } else {
    // (Eligible types run in one wave or in two passes by size: scan_run.)
    constexpr ScanForms by_size = ScanForms::by_size;
    if (num_items * widest <= small_scan_max_bytes) {
      return scan_form<DefaultScanPolicySmall<In, Out>, Exclusive, by_size>(d_temp_storage, temp_storage_bytes, d_in,
                                                                            d_out, num_items, op, init, stream);
    }
    if constexpr (!std::is_same_v<DefaultScanPolicyLarge<In, Out>, DefaultScanPolicyRegisters<In, Out>>) {
      if (num_items * widest <= register_scan_max_bytes) {
        return scan_form<DefaultScanPolicyRegisters<In, Out>, Exclusive, by_size>(
            d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, op, init, stream);
      }
    }
    return scan_form<DefaultScanPolicyLarge<In, Out>, Exclusive, by_size>(d_temp_storage, temp_storage_bytes, d_in,
                                                                          d_out, num_items, op, init, stream);
  }
}

// The type rules, checked one at a time (each stops the rest, so a broken rule gives its own
// message and not a cascade), then scan_checked. First: the out value (inclusive) or the init
// (exclusive) that decides the accumulator.
template <class Policy, bool Exclusive, class First, class In, class Out, class Op, class Init>
[[nodiscard]] cudaError_t scan_with(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, Out* d_out,
                                    std::int64_t num_items, Op op, const Init& init, cudaStream_t stream) {
  static_assert(!std::is_const_v<Out> && !std::is_volatile_v<Out>,
                "tilecraft scan: d_out must point to writable, non-volatile elements (its type was deduced const or "
                "volatile)");
  static_assert(std::is_trivially_copyable_v<In>, "tilecraft scan: the input type must be trivially copyable");
  static_assert(std::is_trivially_copyable_v<Out>,
                "tilecraft scan: the output type must be trivially copyable (tiles store it as raw bytes)");
  static_assert(std::is_default_constructible_v<In> && std::is_default_constructible_v<Out>,
                "tilecraft scan: the input and output types must be default constructible (tiles hold them in "
                "arrays)");
  static_assert(!Exclusive || std::invocable<Op&, const First&, const In&>,
                "tilecraft::exclusive_scan: op(init, *d_in) must be callable (it decides the accumulator type, as in "
                "CUB)");
  static_assert(Exclusive || std::invocable<Op&, const First&, const In&>,
                "tilecraft::inclusive_scan: op(*d_out, *d_in) must be callable (it decides the accumulator type: the "
                "output type combined with an input)");
  if constexpr (!std::is_const_v<Out> && !std::is_volatile_v<Out> && std::is_trivially_copyable_v<In> &&
                std::is_trivially_copyable_v<Out> && std::is_default_constructible_v<In> &&
                std::is_default_constructible_v<Out> && std::invocable<Op&, const First&, const In&>) {
    using Acc = typename ScanAccumulator<Op, First, In>::type;
    static_assert(Shuffleable<Acc>,
                  "tilecraft scan: the accumulator type (what op returns) must be trivially copyable and default "
                  "constructible (it is shuffled and kept in shared memory)");
    static_assert(ReductionOp<Op, Acc> && std::convertible_to<const In&, Acc> && std::convertible_to<Acc, Out>,
                  "tilecraft scan: op(acc, acc) must be callable on the accumulator type and convertible back to it, "
                  "the input type convertible to the accumulator and the accumulator to the output type");
    constexpr bool init_converts = !Exclusive || std::is_constructible_v<Acc, const Init&>;
    static_assert(init_converts,
                  "tilecraft::exclusive_scan: init must convert to the accumulator type (what op(init, *d_in) "
                  "returns)");
    if constexpr (Shuffleable<Acc> && ReductionOp<Op, Acc> && std::convertible_to<const In&, Acc> &&
                  std::convertible_to<Acc, Out> && init_converts) {
      Acc acc_init{};
      if constexpr (Exclusive) acc_init = static_cast<Acc>(init);
      return scan_checked<Policy, Exclusive>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, op, acc_init,
                                             stream);
    } else {
      return cudaErrorInvalidValue;
    }
  } else {
    return cudaErrorInvalidValue;
  }
}

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft::detail
