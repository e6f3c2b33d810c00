//! \file device/scan_policy.cuh
//! The tile shape of the single-pass scans (tilecraft::inclusive_scan, exclusive_scan,
//! select_if, partition): CUB's custom-policy idea.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../block/block_scan.cuh"
#include "../config.cuh"
#include "../memory/global_word.cuh"

namespace tilecraft {

namespace detail {
// The block_scan algorithm of a look-back tile when the policy names none: warp_scans up to 4
// warps, two_level above. Not raking, the fastest block_scan of a GPU full of independent
// blocks: a look-back tile's time is its latency (its aggregate is waited for by the tiles
// behind it), and raking's first warp serializes the most work before the aggregate is known
// (f32 2^28, H200: raking 0.86x CUB, two_level 0.94x; benchmarks/TUNING.md, "Scan").
template <int Threads>
inline constexpr BlockScanAlgorithm look_back_block_scan =
    Threads <= 128 ? BlockScanAlgorithm::warp_scans : BlockScanAlgorithm::two_level;
// ScanPolicy's rules.
constexpr bool scan_threads_ok(int threads) { return threads >= 64 && threads <= 1024 && threads % 32 == 0; }
constexpr bool scan_items_ok(int items) { return items >= 1 && items <= 64; }
}  // namespace detail

//! One tile of a single-pass scan: Threads threads, each holding Items consecutive elements
//! (so a tile is Threads * Items elements), scanned with block_scan's Algorithm (by default
//! warp_scans up to 128 threads and two_level above: the lowest latency per tile); the cache
//! hint Hint applies to the tile's 16-byte vector loads where a thread's run is at most 8 vectors
//! (longer runs arrive by cp.async, which takes no hint) and to the scan's 16-byte stores
//! (select_if and partition store with plain stores). Tiles are staged through shared memory (one
//! buffer of Threads * Items elements of the wider of the input and output types): 16-byte
//! vectors go in and out coalesced, and each thread reads its own run of elements back.
//! select_if and partition take Threads and Items (and Hint) only: each warp holds rows of 32
//! 16-byte vectors loaded straight from global memory, ranked without block_scan, and the
//! staging buffer holds the compacted items (device/select.cuh).
//! Rules: Threads a multiple of 32 from 64 to 1024; Items from 1 to 64; the staging buffer at
//! most 40 KiB of static shared memory (checked by the algorithm that uses it). CacheHint::streaming
//! reads the input through the read-only path, so a scan with it cannot run in place (the
//! launcher refuses that with cudaErrorInvalidValue).
//! \code
//! using Narrow = tilecraft::ScanPolicy<256, 8>;
//! TILECRAFT_THROW_IF_ERROR(tilecraft::inclusive_scan<Narrow>(d_in, d_out, n, tilecraft::Sum{}, stream));
//! \endcode
template <int Threads, int Items, BlockScanAlgorithm Algorithm = detail::look_back_block_scan<Threads>,
          CacheHint Hint = CacheHint::normal>
struct ScanPolicy {
  static_assert(detail::scan_threads_ok(Threads), "ScanPolicy: Threads must be a multiple of 32 from 64 to 1024");
  static_assert(detail::scan_items_ok(Items), "ScanPolicy: Items must be from 1 to 64");
  //! Threads per block (one tile per block).
  static constexpr int threads = Threads;
  //! Consecutive elements per thread.
  static constexpr int items = Items;
  //! Elements per tile.
  static constexpr int tile_items = Threads * Items;
  //! The block_scan algorithm of each tile.
  static constexpr BlockScanAlgorithm block_algorithm = Algorithm;
  //! The cache hint of the tile's 16-byte vector loads (runs of up to 8 vectors a thread) and
  //! of the scan's 16-byte vector stores.
  static constexpr CacheHint hint = Hint;
};

//! True for every ScanPolicy instantiation.
template <class>
inline constexpr bool is_scan_policy_v = false;
//! \cond SPECIALIZATIONS
template <int T, int I, BlockScanAlgorithm A, CacheHint H>
inline constexpr bool is_scan_policy_v<ScanPolicy<T, I, A, H>> = true;
//! \endcond

namespace detail {

// Whether a launcher may go on with Policy: none named (void), or a ScanPolicy whose rules hold
// (it stops at a broken one, so that the rule's message comes alone).
template <class>
inline constexpr bool scan_policy_usable_v = false;
template <>
inline constexpr bool scan_policy_usable_v<void> = true;
template <int T, int I, BlockScanAlgorithm A, CacheHint H>
inline constexpr bool scan_policy_usable_v<ScanPolicy<T, I, A, H>> = scan_threads_ok(T) && scan_items_ok(I);

constexpr int scan_max(int a, int b) { return a > b ? a : b; }
constexpr int scan_min(int a, int b) { return a < b ? a : b; }

// The default tiles. Scans whose input and output have one size (4 to 16 bytes, whole 16-byte
// vectors) take 256 bytes a thread (64 four-byte elements), which run in two passes over shared
// memory (scan_kernels.cuh, two_pass_tile; so do 1- and 2-byte scans whose accumulators are wider
// than 2 bytes, as sums' int: 256 bytes a thread); everything else, and select_if's tiles up to
// 32 MiB of input (of items of up to 4 bytes at every size from 512 KiB; select_dispatch.cuh),
// 128 bytes of the wider type per thread (32 four-byte elements, eight 16-byte vectors; at most 64 elements) in
// registers, or as many narrower ones as keep each thread's run whole vectors. 256 threads
// while a tile's staging buffer fits 32 KiB (128 above). Large inputs take the large tile,
// inputs up to register_scan_max_bytes the register tile, inputs up to small_scan_max_bytes a
// quarter of the register tile's items, so that enough blocks share the work. (The H200
// measurements behind the shapes: benchmarks/TUNING.md, "Scan".)
template <class In, class Out>
struct DefaultScanShape {
  static constexpr int widest = static_cast<int>(sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out));
  static constexpr int by_width = scan_min(64, scan_max(1, 128 / widest));
  static constexpr int whole_vectors =
      (16 % sizeof(In) == 0 && sizeof(In) <= 16) ? static_cast<int>(16 / sizeof(In)) : 1;
  static constexpr int register_items = scan_min(64, scan_max(by_width, whole_vectors));
  static constexpr bool two_pass =
      sizeof(In) == sizeof(Out) && sizeof(In) >= 4 && sizeof(In) <= 16 && 16 % sizeof(In) == 0;
  static constexpr int items = two_pass ? scan_min(64, 256 / widest) : register_items;
  // 256 threads while the staging buffer fits 32 KiB, else 128 (40 KiB) or 64, and only where
  // the scan kernel's whole static shared memory fits 48 KiB: the staging buffer, block_scan's
  // storage (warps + 2 accumulators with the look-back's algorithms) and 32 accumulators for
  // the look-back, each accumulator taken as wide as the wider type, and 64 bytes for the ticket
  // and alignment (scan_run asserts the real sizes; the look-back's buffer is 2 KiB for
  // accumulators of up to 8 bytes, which a staging buffer of at most 40 KiB leaves room for). So items of up to 480
  // bytes scan with the default tiles (64 threads from 296 bytes on).
  static constexpr bool fits(int t, int n) {
    return static_cast<long long>(t) * n * widest <= (t == 256 ? 32768 : 40960) &&
           (static_cast<long long>(t) * n + t / 32 + 34) * widest + 64 <= 49152;
  }
  static constexpr int threads_for(int n) { return fits(256, n) ? 256 : fits(128, n) ? 128 : 64; }
  static constexpr int threads = threads_for(items);
  static constexpr int register_threads = threads_for(register_items);
  static constexpr int small_items =
      scan_max(1, register_items / 4 >= whole_vectors ? register_items / 4 : whole_vectors);
  static constexpr int small_threads = threads_for(small_items);
};

template <class In, class Out>
using DefaultScanPolicyLarge = ScanPolicy<DefaultScanShape<In, Out>::threads, DefaultScanShape<In, Out>::items>;
template <class In, class Out>
using DefaultScanPolicyRegisters =
    ScanPolicy<DefaultScanShape<In, Out>::register_threads, DefaultScanShape<In, Out>::register_items>;
template <class In, class Out>
using DefaultScanPolicySmall =
    ScanPolicy<DefaultScanShape<In, Out>::small_threads, DefaultScanShape<In, Out>::small_items>;

//! Scans in two passes (tile sums, then each tile from L2: scan_sums_kernel,
//! scan_from_sums_kernel): input and output of one size, 4 or 8 bytes, accumulators of up to 8
//! bytes; 256 threads over 16 KiB tiles. The default dispatch takes them where input and output
//! together take from two_pass_scan_min_bytes to half the L2 (scan_run) and the one wave (below)
//! does not run: on the H200 (50 MB of L2) floats from 2^17 to about 3.1 million, where the
//! single-pass scan is latency-bound (benchmarks/TUNING.md, "Mid-size scans in two passes, the
//! second from L2"), all of which the one wave in registers holds there; on GPUs of fewer SMs,
//! or where the cooperative launch is refused, the two passes serve.
template <class In, class Out, class Acc>
inline constexpr bool scan_sums_eligible = sizeof(In) == sizeof(Out) && (sizeof(In) == 4 || sizeof(In) == 8) &&
                                           sizeof(Acc) <= 8;
//! The fewest bytes (input and output together) the default dispatch scans in two passes: below,
//! the second launch's latency outweighs what it saves (2^14 ints 12% slower on the H200).
inline constexpr std::int64_t two_pass_scan_min_bytes = std::int64_t{1} << 20;
//! Whether the default dispatch scans in two passes where input and output together take
//! moved_bytes on a GPU with l2_bytes of L2 (for scan_sums_eligible types; scan_run): from
//! two_pass_scan_min_bytes to half the L2, where pass 2 still finds its tile there (past it,
//! the output's writes evict the input: int64 2^22, 64 MiB moved, 19% slower on the H200).
constexpr bool two_pass_scan_by_size(std::int64_t moved_bytes, std::int64_t l2_bytes) {
  return moved_bytes >= two_pass_scan_min_bytes && moved_bytes <= l2_bytes / 2;
}
template <class In, class Out>
using DefaultScanPolicySums = ScanPolicy<256, static_cast<int>(64 / sizeof(In))>;
//! The one-wave scan's tile (scan_one_wave_kernel, for scan_sums_eligible types): 128 bytes a
//! thread, 32 KiB a tile held in shared memory. The registers set the tiles an SM: on the H200
//! six for 4-byte items (40 registers: a wave of 792 tiles, 2^22.6 floats), five for 8-byte
//! sums (48: 660 tiles, 2^21.4 items).
template <class In, class Out>
using DefaultScanPolicyOneWave = ScanPolicy<256, static_cast<int>(128 / sizeof(In))>;
//! The fewest bytes (input and output together) the default dispatch scans in one wave with the
//! tile in shared memory where its tiles fit one (and the tile in registers does not: on the
//! H200 from 2^21.6 floats on): below, too few tiles of 8192 floats to fill the SMs, and the two
//! passes' tiles of half that size run faster. H200, floats, in one process (benchmarks/TUNING.md,
//! "Scans in one wave"): this form against two passes 8.13 / 6.98 us at 2^18, 8.67 / 8.67 at
//! 2^19, 9.44 / 9.63 at 2^20 (8 MiB moved), 14.56 / 16.19 at 2^21.58.
inline constexpr std::int64_t one_wave_scan_min_bytes = std::int64_t{8} << 20;
//! The one-wave scan with its tile in registers (scan_one_wave_registers_kernel): 32 bytes a
//! thread (DefaultScanPolicyOneWaveSmall) where input and output together take at most
//! one_wave_small_max_bytes, 128 bytes (DefaultScanPolicyOneWave, where a thread's accumulators
//! take at most 128 bytes) above; each where its tiles fit one wave, before the tile in shared
//! memory (twice the tiles an SM, but a second pass over shared memory after the barrier). The
//! blocks an SM asked of the compiler: for the small tile 6 (at most 40 registers a thread)
//! with accumulators of up to 4 bytes, 4 (64) with wider ones, which spill at 40 (an int64 tile
//! 36 bytes, a pair of words 68); for the large tile 3 (80). On the H200, floats: 792 tiles of
//! 2048 (2^20.6) and 396 of 8192 (2^21.6); against CUB in one process (benchmarks/TUNING.md,
//! "Scans in one wave with the tile in registers"): 1.20x at 2^16 (1.13x before, the single
//! pass), 1.31x at 2^19 (1.22x, two passes), 1.23x at 2^20 (1.19x, the tile in shared memory).
template <class In, class Out>
using DefaultScanPolicyOneWaveSmall = ScanPolicy<256, static_cast<int>(32 / sizeof(In))>;
template <class Acc>
inline constexpr int one_wave_small_min_blocks = sizeof(Acc) > 4 ? 4 : 6;
inline constexpr int one_wave_registers_min_blocks = 3;
inline constexpr std::int64_t one_wave_small_max_bytes = std::int64_t{4} << 20;
//! The one-wave scan with each tile split (scan_one_wave_split_kernel, where the tile in shared
//! memory does not fit one wave): this policy's tile of 256 bytes a thread in shared memory (64
//! KiB, dynamic shared memory), then DefaultScanPolicyOneWave's in registers, three tiles an SM
//! asked (at most 80 registers a thread). On the H200, floats: 396 tiles of 24576, 2^23.2.
template <class In, class Out>
using DefaultScanPolicyOneWaveSplit = ScanPolicy<256, static_cast<int>(256 / sizeof(In))>;
inline constexpr int one_wave_split_min_blocks = 3;

//! Inputs of at most this many bytes (the wider of input and output) take the small tiles.
inline constexpr std::int64_t small_scan_max_bytes = std::int64_t{512} << 10;
//! Inputs above small_scan_max_bytes and up to this many take the register tiles, not the large
//! two-pass ones (a register tile runs in two passes itself where its accumulators exceed 128
//! bytes a thread, as 4-byte items with 8-byte accumulators do). H200, f32: at 2^20 elements, 128
//! tiles, 256 x 32 in registers 11.6 us against 12.6 for 128 x 64 in two passes; at 2^24 56.8
//! against 54.7, at 2^28 704 against 651.
//! Where the two tiles are one (1- and 2-byte items: 256 x 64) there is no such window: their
//! sums run in two passes from small_scan_max_bytes on (1-byte sums measured from 2^24 only).
inline constexpr std::int64_t register_scan_max_bytes = std::int64_t{4} << 20;

}  // namespace detail

}  // namespace tilecraft
