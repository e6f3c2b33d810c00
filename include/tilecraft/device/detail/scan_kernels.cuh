//! \file device/detail/scan_kernels.cuh
//! tilecraft::inclusive_scan / exclusive_scan's kernels and the tile staging they share with
//! select_if and partition (internal; include device/scan.cuh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <vector_types.h>

#include "../../arch/griddepcontrol.cuh"
#include "../../arch/grid_sync.cuh"
#include "../../arch/prefetch.cuh"
#include "../../block/block_reduce.cuh"
#include "../../block/block_scan.cuh"
#include "../../config.cuh"
#include "../../memory/copy_async.cuh"
#include "../../memory/global_word.cuh"
#include "../../util/shared_slot.cuh"
#include "../../util/math.cuh"
#include "../../warp/shuffle.cuh"
#include "../../warp/warp_reduce.cuh"
#include "scan_tile_state.cuh"

namespace tilecraft::detail {

//! The 16-byte chunk a tile's chunk `c` is stored at in shared memory. XOR-ing the chunk's
//! position within its 128-byte row with (c / period) mod 8 makes both accesses of the staging
//! conflict-free: the striped one (8 consecutive threads, 8 consecutive chunks of one row) and
//! the blocked one (thread t reads chunks t * V ... t * V + V - 1). Period 8 (the row number)
//! serves V = 1, 2, 4 and 8: the 8 threads of a 16-byte-load phase hit 8 different positions;
//! V a multiple of 8 takes period V (the thread number).
TILECRAFT_HOST_DEVICE constexpr int swizzle_chunk(int c, int period = 8) { return c ^ ((c / period) & 7); }

//! A tile of Threads * Items elements of T staged in shared memory.
template <class T, int Threads, int Items>
struct TileStage {
  static constexpr int elems = Threads * Items;
  static constexpr std::size_t bytes = static_cast<std::size_t>(elems) * sizeof(T);
  //! Each thread's run is whole 16-byte chunks and no element straddles two: the staging moves
  //! 16-byte vectors (swizzled); otherwise elements, in order.
  static constexpr bool chunked = sizeof(T) <= 16 && 16 % sizeof(T) == 0 && (Items * sizeof(T)) % 16 == 0;
  static constexpr int chunks_per_thread = chunked ? static_cast<int>(Items * sizeof(T) / 16) : 0;
  static constexpr int swizzle_period = chunks_per_thread > 8 && chunks_per_thread % 8 == 0 ? chunks_per_thread : 8;

#if defined(__CUDACC__)
  TILECRAFT_DEVICE static T* element(unsigned char* s, int e) {
    if constexpr (chunked) {
      const int b = e * static_cast<int>(sizeof(T));
      return reinterpret_cast<T*>(s + (swizzle_chunk(b >> 4, swizzle_period) << 4) + (b & 15));
    } else {
      return reinterpret_cast<T*>(s) + e;
    }
  }
  TILECRAFT_DEVICE static uint4* chunk(unsigned char* s, int c) {
    return reinterpret_cast<uint4*>(s + (swizzle_chunk(c, swizzle_period) << 4));
  }

  // Global (the tile's first element at src, `valid` of them) -> this thread's Items elements in
  // blocked order. vector: src is 16-byte aligned (a full tile then moves as 16-byte vectors; a
  // run-time flag, uniform across the grid: one kernel serves aligned and unaligned arrays).
  // Elements past `valid` repeat the last valid one, so that an operator never sees garbage.
  // Ends with the barrier after which every thread may read its run; the caller must not write
  // `s` again before a barrier that follows every thread's return.
  template <CacheHint Hint>
  TILECRAFT_DEVICE static void load(bool vector, const T* src, int valid, unsigned char* s,
                                    T (&x)[static_cast<std::size_t>(Items)]) {
    stage_in<Hint>(vector, src, valid, s);
    const int t = static_cast<int>(threadIdx.x);
    if constexpr (chunked) {
#pragma unroll
      for (int k = 0; k < chunks_per_thread; ++k) {
        const uint4 w = *chunk(s, t * chunks_per_thread + k);
        std::memcpy(reinterpret_cast<unsigned char*>(x) + 16 * k, &w, 16);
      }
    } else {
#pragma unroll
      for (int j = 0; j < Items; ++j) x[j] = *element(s, t * Items + j);
    }
  }

  // Global -> shared without waiting: stage_in's copies issued, cp.async for a whole tile of
  // vectors (the caller commits the group), elements through registers otherwise (done on
  // return). The caller waits for the group and passes a barrier before any thread reads `s`.
  template <CacheHint Hint>
  TILECRAFT_DEVICE static void issue_in(bool vector, const T* src, int valid, unsigned char* s) {
    const int t = static_cast<int>(threadIdx.x);
    if (chunked && vector && valid == elems) {
      const uint4* g = reinterpret_cast<const uint4*>(src);
#pragma unroll
      for (int k = 0; k < chunks_per_thread; ++k) copy_async<16>(chunk(s, k * Threads + t), g + k * Threads + t);
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int e = k * Threads + t;
        *element(s, e) = src[e < valid ? e : valid - 1];
      }
    }
  }

  // Global -> shared: the first half of load. Ends with the barrier after which every thread
  // may read the tile from `s`.
  template <CacheHint Hint>
  TILECRAFT_DEVICE static void stage_in(bool vector, const T* src, int valid, unsigned char* s) {
    const int t = static_cast<int>(threadIdx.x);
    if (chunked && vector && valid == elems) {
      const uint4* g = reinterpret_cast<const uint4*>(src);
      if constexpr (chunks_per_thread > 8) {
        // Long runs go by asynchronous copies: a thread holds no registers for its vectors in
        // flight, so the registers do not cap the resident tiles (the hint does not apply).
#pragma unroll
        for (int k = 0; k < chunks_per_thread; ++k) copy_async<16>(chunk(s, k * Threads + t), g + k * Threads + t);
        copy_async_commit();
        copy_async_wait<0>();
      } else {
        uint4 w[chunks_per_thread > 0 ? chunks_per_thread : 1];
#pragma unroll
        for (int k = 0; k < chunks_per_thread; ++k) w[k] = load_global_word<Hint>(g + k * Threads + t);
#pragma unroll
        for (int k = 0; k < chunks_per_thread; ++k) *chunk(s, k * Threads + t) = w[k];
      }
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int e = k * Threads + t;
        *element(s, e) = src[e < valid ? e : valid - 1];
      }
    }
    __syncthreads();
  }

  // This thread's Items elements (blocked order) -> global, the first `valid` of the tile. The
  // caller guarantees that every thread has finished reading `s` (a barrier since).
  template <CacheHint Hint>
  TILECRAFT_DEVICE static void store(bool vector, T* dst, int valid, unsigned char* s,
                                     const T (&y)[static_cast<std::size_t>(Items)]) {
    const int t = static_cast<int>(threadIdx.x);
    if constexpr (chunked) {
#pragma unroll
      for (int k = 0; k < chunks_per_thread; ++k) {
        uint4 w;
        std::memcpy(&w, reinterpret_cast<const unsigned char*>(y) + 16 * k, 16);
        *chunk(s, t * chunks_per_thread + k) = w;
      }
    } else {
#pragma unroll
      for (int j = 0; j < Items; ++j) *element(s, t * Items + j) = y[j];
    }
    __syncthreads();
    stage_out<Hint>(vector, dst, valid, s);
  }

  // Shared -> global: the second half of store. The caller guarantees that the whole tile is in
  // `s` (a barrier since every thread wrote its part).
  template <CacheHint Hint>
  TILECRAFT_DEVICE static void stage_out(bool vector, T* dst, int valid, unsigned char* s) {
    const int t = static_cast<int>(threadIdx.x);
    if (chunked && vector && valid == elems) {
      uint4* g = reinterpret_cast<uint4*>(dst);
#pragma unroll
      for (int k = 0; k < chunks_per_thread; ++k)
        store_global_word<Hint>(g + k * Threads + t, *chunk(s, k * Threads + t));
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int e = k * Threads + t;
        if (e < valid) dst[e] = *element(s, e);
      }
    }
  }
#endif
};

// The staging buffer of a tile of In read and Out written (one buffer, used in turn).
template <class Policy, class In, class Out>
TILECRAFT_HOST_DEVICE constexpr std::size_t stage_bytes_of() {
  const std::size_t in_bytes = TileStage<In, Policy::threads, Policy::items>::bytes;
  const std::size_t out_bytes = TileStage<Out, Policy::threads, Policy::items>::bytes;
  return in_bytes > out_bytes ? in_bytes : out_bytes;
}

// The staging buffer's alignment: 16 bytes for the vectors it moves, or the items' own where
// they ask for more (an alignas(32) struct staged as In or Out).
template <class... T>
TILECRAFT_HOST_DEVICE constexpr std::size_t stage_align_of() {
  std::size_t align = 16;
  ((align = alignof(T) > align ? alignof(T) : align), ...);
  return align;
}

#if defined(__CUDACC__)

// Whether a scan's tile runs in two passes over shared memory (scan_tile_two_pass) instead of
// from registers: a thread's items would take more than 128 bytes of accumulators in registers
// (where they cap the resident tiles), its run is whole 16-byte vectors, and input and output
// have one size (each output element is written where its input was read). H200, 2^28
// elements, ratio to CUB: f32 0.94 -> 1.06 (128 x 64), i16 (int accumulators) 0.85 -> 1.60
// (256 x 64), i8 (int accumulators, 256 x 64: 80 -> 40 registers a thread, 48 -> 128 KiB of
// tiles in flight an SM) 2.14 -> 2.87 standalone, 2.83 in the GPU check of 24f3422
// (benchmarks/TUNING.md, "1-byte scans in two passes").
template <class Policy, class In, class Out, class Acc = In>
inline constexpr bool two_pass_tile = TileStage<In, Policy::threads, Policy::items>::chunked &&
                                      sizeof(In) == sizeof(Out) && Policy::items * sizeof(Acc) > 128;

//! A block scan's prefix callback that returns a prefix known before the scan (block_scan
//! applies what thread 0 returns).
template <class Acc>
struct KnownPrefix {
  Acc prefix;
  TILECRAFT_DEVICE Acc operator()(const Acc&) const { return prefix; }
};

// Where a tile held in shared memory (scan_tile_two_pass) takes the prefix of the tiles before
// it. Three calls, each made by every thread of the block: arrive(tile, total) once the
// thread's run is folded (total: its fold), before any tile state is touched; first(value),
// tile 0 only, with what tile 0 passes on (init op its fold, or its fold); exclusive(temp, tile,
// total), every other tile, returning each thread's exclusive prefix (thread 0: the tiles'
// before).
// LookBackPrefix: the single pass's decoupled look-back over the tile states.
template <class Acc, class Status, class Op>
struct LookBackPrefix {
  const Status& status;
  Op op;
  Acc* buf;  // the look-back's shared buffer (32 a window, far_windows)
  bool far;
  TILECRAFT_DEVICE void arrive(std::int64_t, const Acc&) const {
    // A block that took its tile by index loaded it while the state reset may still run: wait
    // for that grid now (returns at once when already waited for).
    arch::wait_for_dependencies();
  }
  TILECRAFT_DEVICE void first(const Acc& passed_on) const {
    if (threadIdx.x == 0) status.publish(0, tile_inclusive, passed_on);
  }
  template <class Temp>
  TILECRAFT_DEVICE Acc exclusive(Temp& temp, std::int64_t tile, const Acc& total) const {
    using LookBack = LookBackCallback<Acc, Status, Op, reassociable_v<Op, Acc>>;
    LookBack look_back{status, tile, op, buf, nullptr, nullptr, far};
    return block_exclusive_scan(temp, total, op, look_back);
  }
};

// The fold, in order, of sums[0, tile) (written by other blocks before a grid barrier or by an
// earlier kernel), with a fixed association: threads fold runs of consecutive sums, which
// block_reduce combines in rank order. Thread 0 holds it; tile > 0. Up to 4 * Threads sums
// (one-wave grids of up to 1024 blocks: every one on the H200), thread t takes [4 t, 4 t + 4):
// its loads all in flight at once and no division on the way from the grid barrier to the
// prefix, which every block of a one-wave scan waits for (the prototype of the tile in
// registers, whose prefix took 4 sums a thread so, ran 0.5-0.8 us ahead of the library's kernel
// with the general form; benchmarks/TUNING.md, "Scans in one wave with the tile in registers").
// Past that, each thread folds a run of about tile / Threads, thread t [tile t / Threads,
// tile (t + 1) / Threads) (none empty), eight loads in flight at a time.
template <int Threads, class Acc, class Op>
TILECRAFT_DEVICE Acc fold_sums_before(const Acc* sums, std::int64_t tile, Op op,
                                      BlockReduceStorage<Acc, Threads>& temp) {
  if (tile <= 4 * Threads) {
    const int count = static_cast<int>(tile);
    const int first = 4 * static_cast<int>(threadIdx.x);
    Acc v[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      if (first + q < count) v[q] = sums[first + q];
    }
    Acc run{};  // (threads past the sums hold none: block_reduce leaves them out)
    if (first < count) run = v[0];
#pragma unroll
    for (int q = 1; q < 4; ++q) {
      if (first + q < count) run = static_cast<Acc>(op(run, v[q]));
    }
    return block_reduce(temp, run, op, (count + 3) / 4);
  }
  const auto t = static_cast<std::int64_t>(threadIdx.x);
  const std::int64_t k = tile < Threads ? tile : Threads;
  const std::int64_t first = tile * t / k, last = t < k ? tile * (t + 1) / k : first;
  Acc run{};
  for (std::int64_t i = first; i < last; i += 8) {
    Acc v[8];
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      if (i + q < last) v[q] = sums[i + q];
    }
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      if (i + q < last) run = i + q == first ? v[q] : static_cast<Acc>(op(run, v[q]));
    }
  }
  return block_reduce(temp, run, op, static_cast<int>(k));
}

// The prefix of tile `tile` (> 0) from the tiles' sums: the fold of the sums before it
// (fold_sums_before), init first for an exclusive scan. Thread 0's is the prefix (the block scans
// read thread 0's alone); every thread of the block calls it (fold_sums_before's barriers).
template <bool Exclusive, int Threads, class Acc, class Op>
TILECRAFT_DEVICE KnownPrefix<Acc> prefix_from_sums(const Acc* sums, std::int64_t tile, Op op, const Acc& init,
                                                   BlockReduceStorage<Acc, Threads>& temp) {
  KnownPrefix<Acc> prefix{fold_sums_before<Threads>(sums, tile, op, temp)};
  if constexpr (Exclusive) {
    if (threadIdx.x == 0) prefix.prefix = static_cast<Acc>(op(init, prefix.prefix));
  }
  return prefix;
}

// GridPrefix: every tile of the grid resident at once (a cooperative launch,
// scan_one_wave_kernel). Each block publishes its tile's fold in sums[tile] and meets every
// other block at the grid barrier; then each folds the sums of the tiles before its own
// (fold_sums_before: the same bits on every run). No tile waits for a chain of predecessors:
// the barrier costs one round of arrivals. (The last tile's sum is never read; a ragged last
// tile folds its last element repeated to the tile's end, TileStage::stage_in.)
template <bool Exclusive, int Threads, class Acc, class Op>
struct GridPrefix {
  Acc* sums;
  Op op;
  Acc init;
  BlockReduceStorage<Acc, Threads>& temp;
  TILECRAFT_DEVICE void arrive(std::int64_t tile, const Acc& total) const {
    const Acc tile_sum = block_reduce(temp, total, op);
    if (threadIdx.x == 0) sums[tile] = tile_sum;
    arch::grid_sync();  // (its barriers free `temp` again, too)
  }
  TILECRAFT_DEVICE void first(const Acc&) const {}
  template <class Temp>
  TILECRAFT_DEVICE Acc exclusive(Temp& scan_temp, std::int64_t tile, const Acc& total) const {
    KnownPrefix<Acc> prefix = prefix_from_sums<Exclusive>(sums, tile, op, init, temp);
    return block_exclusive_scan(scan_temp, total, op, prefix);
  }
};

// Tile `tile` of a multi-tile scan, resident in shared memory: the tile arrives by
// asynchronous copies where a thread's run is more than 8 vectors (no registers held for it;
// shorter runs pass through registers, see TileStage::stage_in), each thread folds its run there (pass 1),
// the block takes each thread's prefix from prefix_of (the look-back as block_scan's prefix
// callback, LookBackPrefix; or the grid's tile sums, GridPrefix), and each thread rescans its
// run from its prefix in place (pass 2) before the block stores the tile. A thread holds one
// vector at a time, so registers do not cap the resident tiles; shared memory does (H200: 6
// tiles of 32 KiB per SM).
// in, out: the tile's first element, `valid` of them (1 to the tile's size); tile: its index
// among the scan's tiles (tile 0 starts the scan). Staged: the caller has put the tile in `stage`
// already (and passed a barrier since).
template <class Policy, bool Exclusive, bool Staged = false, class In, class Out, class Acc, class Op, class Prefix>
TILECRAFT_DEVICE void scan_tile_two_pass(bool vector, const In* in, Out* out, int valid, std::int64_t tile, Op op,
                                         const Acc& init, const Prefix& prefix_of, unsigned char* stage,
                                         BlockScanStorage<Acc, Policy::threads, Policy::block_algorithm>& temp,
                                         Acc* warp_buf) {
  using InStage = TileStage<In, Policy::threads, Policy::items>;
  using OutStage = TileStage<Out, Policy::threads, Policy::items>;
  constexpr int chunks = InStage::chunks_per_thread;
  constexpr int per_chunk = static_cast<int>(16 / sizeof(In));
  static_assert(OutStage::chunks_per_thread == chunks && OutStage::swizzle_period == InStage::swizzle_period,
                "two_pass_tile: the output must sit where its input was read");
  const int t = static_cast<int>(threadIdx.x);
  if constexpr (!Staged) InStage::template stage_in<Policy::hint>(vector, in, valid, stage);

  // Pass 1, in order (op need not be commutative): each vector's elements, then the vectors'
  // folds, as balanced trees.
  Acc part[chunks];
#pragma unroll
  for (int k = 0; k < chunks; ++k) {
    const uint4 w = *InStage::chunk(stage, t * chunks + k);
    In x[per_chunk];
    std::memcpy(x, &w, 16);
    Acc v[per_chunk];
#pragma unroll
    for (int j = 0; j < per_chunk; ++j) v[j] = static_cast<Acc>(x[j]);
    part[k] = fold_tree<0, per_chunk>(v, op);
  }
  const Acc total = fold_tree<0, chunks>(part, op);
  prefix_of.arrive(tile, total);

  Acc prefix;
  bool seeded = true;  // false only for the first thread of an inclusive scan's first tile
  if (tile == 0) {
    if constexpr (Exclusive) {
      // P_0 = init op a_0, published by thread 0. (Not through FirstTileCallback as the block
      // scan's prefix callback, which makes the same fold: with it, ptxas gave the 2-byte tile,
      // 256 x 64 with int accumulators, 222 registers a thread instead of 40.)
      Acc aggregate;
      prefix = block_exclusive_scan(temp, total, op, init, aggregate);
      prefix_of.first(static_cast<Acc>(op(init, aggregate)));
    } else {
      // No initial value: thread t's prefix is thread t - 1's inclusive total.
      Acc aggregate;
      const Acc inclusive = block_inclusive_scan(temp, total, op, aggregate);
      prefix_of.first(aggregate);
      const Acc up = shuffle_up(inclusive, 1);
      const int lane = t % warp_threads, warp = t / warp_threads;
      if (lane == warp_threads - 1) warp_buf[warp] = inclusive;
      __syncthreads();
      prefix = lane > 0 ? up : warp_buf[warp > 0 ? warp - 1 : 0];
      seeded = t > 0;
    }
  } else {
    prefix = prefix_of.exclusive(temp, tile, total);
  }

  Acc run = prefix;
#pragma unroll
  for (int k = 0; k < chunks; ++k) {
    uint4* p = InStage::chunk(stage, t * chunks + k);
    const uint4 w = *p;
    In x[per_chunk];
    Out y[per_chunk];
    std::memcpy(x, &w, 16);
#pragma unroll
    for (int j = 0; j < per_chunk; ++j) {
      if constexpr (Exclusive) {
        y[j] = static_cast<Out>(run);
        run = static_cast<Acc>(op(run, static_cast<Acc>(x[j])));
      } else {
        run = (k > 0 || j > 0 || seeded) ? static_cast<Acc>(op(run, static_cast<Acc>(x[j]))) : static_cast<Acc>(x[j]);
        y[j] = static_cast<Out>(run);
      }
    }
    uint4 v;
    std::memcpy(&v, y, 16);
    *p = v;
  }
  __syncthreads();
  OutStage::template stage_out<Policy::hint>(vector, out, valid, stage);
}

// How many of n elements tile `tile` of Policy's tiles holds (1 to its size, for a tile of the grid).
template <class Policy>
TILECRAFT_DEVICE int tile_valid(std::int64_t n, std::int64_t tile) {
  const std::int64_t left = n - tile * Policy::tile_items;
  return left < Policy::tile_items ? static_cast<int>(left) : Policy::tile_items;
}

// The blocked register tiles' way in and out (scan_tile, scan_from_sums_kernel): tile `tile` of
// n elements into this thread's Items accumulators (TileStage::load: elements past the end
// repeat the last one), returning how many of the tile's elements exist; and the accumulators
// back out as Out, the first `valid` of the tile.
template <class Policy, class In, class Acc>
TILECRAFT_DEVICE int load_tile_as(bool vector, const In* in, std::int64_t n, std::int64_t tile, unsigned char* stage,
                                  Acc (&a)[static_cast<std::size_t>(Policy::items)]) {
  constexpr int elems = Policy::tile_items;
  const std::int64_t left = n - tile * elems;
  const int valid = left < elems ? static_cast<int>(left) : elems;
  In x[Policy::items];
  TileStage<In, Policy::threads, Policy::items>::template load<Policy::hint>(vector, in + tile * elems, valid, stage,
                                                                             x);
#pragma unroll
  for (int j = 0; j < Policy::items; ++j) a[j] = static_cast<Acc>(x[j]);
  return valid;
}

template <class Policy, class Out, class Acc>
TILECRAFT_DEVICE void store_tile_as(bool vector, Out* out, std::int64_t tile, int valid, unsigned char* stage,
                                    const Acc (&a)[static_cast<std::size_t>(Policy::items)]) {
  Out y[Policy::items];
#pragma unroll
  for (int j = 0; j < Policy::items; ++j) y[j] = static_cast<Out>(a[j]);
  TileStage<Out, Policy::threads, Policy::items>::template store<Policy::hint>(vector, out + tile * Policy::tile_items,
                                                                               valid, stage, y);
}

// Tile `tile` of a multi-tile scan: load, scan with the look-back as block_scan's prefix
// callback, store.
template <class Policy, bool Exclusive, class In, class Out, class Acc, class Op, class Status>
TILECRAFT_DEVICE void scan_tile(bool vector, const In* in, Out* out, std::int64_t n, std::int64_t tile, Op op,
                                const Acc& init, const Status& status, unsigned char* stage,
                                BlockScanStorage<Acc, Policy::threads, Policy::block_algorithm>& temp,
                                Acc* look_back_buf, bool far) {
  Acc a[Policy::items];
  const int valid = load_tile_as<Policy>(vector, in, n, tile, stage, a);
  arch::wait_for_dependencies();  // (see scan_tile_two_pass)
  if (tile == 0) {
    if constexpr (Exclusive) {
      FirstTileCallback<Acc, Status, Op> first{status, op, init, nullptr, nullptr};
      block_exclusive_scan(temp, a, a, op, first);
    } else {
      Acc aggregate;
      block_inclusive_scan(temp, a, a, op, aggregate);
      if (threadIdx.x == 0) status.publish(0, tile_inclusive, aggregate);
    }
  } else {
    using LookBack = LookBackCallback<Acc, Status, Op, reassociable_v<Op, Acc>>;
    LookBack look_back{status, tile, op, look_back_buf, nullptr, nullptr, far};
    if constexpr (Exclusive) {
      block_exclusive_scan(temp, a, a, op, look_back);
    } else {
      block_inclusive_scan(temp, a, a, op, look_back);
    }
  }
  store_tile_as<Policy>(vector, out, tile, valid, stage, a);
}

// One block per tile. In general each block takes its tile from the counter: tickets are
// handed out in the order blocks start, so a block only ever waits for tiles whose blocks are
// running, however the blocks are scheduled. by_block: the grid has at most one block per SM
// (scan_dispatch.cuh) and the tile is the block's index: a block waits only for lower-indexed
// blocks, which the hardware starts first. Such a block loads its tile at once, beside the state
// reset it depends on, and waits for that grid only before it touches a state (the tile
// functions); no ticket round trip either. A single tile (one block, nothing to wait for) needs
// no reset kernel.
// prefetch_ahead > 0: each block first prefetches into L2 the tile prefetch_ahead tickets past its
// own, which a block starting later will take, so that DRAM keeps reading while tiles wait for
// their prefixes with nothing in flight (select_kernel's measurement; a prefetch only moves lines
// into L2, where an in-place scan's later writes land too). A loop of a fixed count: one of a
// run-time count, inlined here, took the 2-byte register tile from 40 to 180 registers.
template <class Policy, bool Exclusive, class In, class Out, class Acc, class Op>
__global__ void __launch_bounds__(Policy::threads)
    scan_kernel(const In* in, Out* out, std::int64_t n, Op op, Acc init, TileStatus<Acc> status, unsigned* counter,
                bool vector, bool by_block, std::int64_t prefetch_ahead, bool far) {
  __shared__ alignas(stage_align_of<In, Out>()) unsigned char stage[stage_bytes_of<Policy, In, Out>()];
  __shared__ BlockScanStorage<Acc, Policy::threads, Policy::block_algorithm> temp;
  __shared__ SharedSlot<Acc> look_back_buf[far_windows<Acc> * warp_threads];
  __shared__ unsigned ticket;
  Acc* const look_back = slots<Acc>(look_back_buf);
  // Launched as scan_init_kernel's programmatic dependent (sm_90), the block may start before
  // the counter and the states are cleared: wait for that grid before taking a ticket (a no-op
  // otherwise).
  if (!by_block) arch::wait_for_dependencies();
  if (threadIdx.x == 0) ticket = by_block ? blockIdx.x : atomicAdd(counter, 1u);
  __syncthreads();
  constexpr std::int64_t tile_items = Policy::tile_items;
  const std::int64_t later = (static_cast<std::int64_t>(ticket) + prefetch_ahead) * tile_items;
  if (prefetch_ahead > 0 && later + tile_items <= n) {
    arch::prefetch_l2_block<Policy::threads, static_cast<std::size_t>(tile_items) * sizeof(In)>(
        in + later, static_cast<int>(threadIdx.x));
  }
  if constexpr (two_pass_tile<Policy, In, Out, Acc>) {
    const LookBackPrefix<Acc, TileStatus<Acc>, Op> prefix_of{status, op, look_back, far};
    const auto tile = static_cast<std::int64_t>(ticket);
    scan_tile_two_pass<Policy, Exclusive>(vector, in + tile * tile_items, out + tile * tile_items,
                                          tile_valid<Policy>(n, tile), tile, op, init, prefix_of, stage, temp,
                                          look_back);
  } else {
    scan_tile<Policy, Exclusive>(vector, in, out, n, static_cast<std::int64_t>(ticket), op, init, status, stage, temp,
                                 look_back, far);
  }
}

// ---- Scans in two passes: tile sums, then each tile from L2 ---------------------------------

// The fold, in order, of Rows rows of Threads 16-byte vectors of In, thread t holding vector t
// of each row (w[r]: striped, as coalesced loads leave them), so that every row's vectors are
// in rank order and the rows in order make the whole. Each warp folds each row's 32 vectors in
// lane order (the rows' chains independent) and writes its partial to part (shared, Rows *
// Threads / 32 accumulators); after a barrier warp 0 folds the (row, warp) partials in that
// order, each lane a run of consecutive ones: the whole's order, for any associative op. Thread 0
// holds the fold. Barriers: one; part is read by warp 0 after it (the caller passes a barrier
// before writing part again).
template <int Threads, int Rows, class In, class Acc, class Op>
TILECRAFT_DEVICE Acc fold_striped_rows(const uint4 (&w)[static_cast<std::size_t>(Rows)], Op op, Acc* part) {
  constexpr int per_vector = 16 / static_cast<int>(sizeof(In));
  constexpr int warps = Threads / warp_threads;
  constexpr int partials = Rows * warps;
  constexpr int per_lane = (partials + warp_threads - 1) / warp_threads;
  static_assert(16 % sizeof(In) == 0 && Threads % warp_threads == 0,
                "fold_striped_rows: whole 16-byte vectors of In, whole warps");
  const int t = static_cast<int>(threadIdx.x), lane = t % warp_threads, warp = t / warp_threads;
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    In x[per_vector];
    std::memcpy(x, &w[r], 16);
    Acc v[per_vector];
#pragma unroll
    for (int j = 0; j < per_vector; ++j) v[j] = static_cast<Acc>(x[j]);
    const Acc row = warp_reduce(fold_tree<0, per_vector>(v, op), op);
    if (lane == 0) part[r * warps + warp] = row;
  }
  __syncthreads();
  Acc total{};
  if (warp == 0) {
    const int first = lane * per_lane;
    Acc run = part[first < partials ? first : 0];
#pragma unroll
    for (int q = 1; q < per_lane; ++q) {
      if (first + q < partials) run = static_cast<Acc>(op(run, part[first + q]));
    }
    total = warp_reduce(run, op, (partials + per_lane - 1) / per_lane);
  }
  return total;
}

// Pass 1 of a scan in two passes: the fold of tile blockIdx.x (a whole tile: the last tile's
// sum is never read, so the grid leaves it out), in order, into sums[blockIdx.x]. It lets pass
// 2 launch at once (griddepcontrol.launch_dependents): pass 2's blocks load their tiles while
// it runs and wait for it before they read a sum.
// The tile is `rows` rows of `threads` 16-byte vectors, thread t holding vector t of each row,
// so every row's vectors are in rank order and the rows in order make the tile. Each warp folds
// each row's 32 vectors in lane order (the rows' chains independent), and warp 0 folds the
// (row, warp) partial sums in that order: the tile's order, for any associative op. An aligned
// tile comes straight from global memory (coalesced, no staging buffer's store, barrier and
// reload); a misaligned one through the staging buffer, read back as the same vectors: the same
// association either way, so a float tile's sum has the same bits wherever the input lies.
template <class Policy, class In, class Acc, class Op>
__global__ void __launch_bounds__(Policy::threads) scan_sums_kernel(const In* in, Op op, Acc* sums, bool vector) {
  arch::launch_dependents();
  constexpr int threads = Policy::threads;
  constexpr int per_vector = 16 / static_cast<int>(sizeof(In));
  constexpr int rows = Policy::items / per_vector;
  constexpr int warps = threads / warp_threads;
  using InStage = TileStage<In, threads, Policy::items>;
  static_assert(InStage::chunked, "scan_sums_kernel: a thread's items must be whole 16-byte vectors");
  __shared__ alignas(16) unsigned char stage[InStage::bytes];
  __shared__ SharedSlot<Acc> part[rows * warps];
  const int t = static_cast<int>(threadIdx.x);
  const In* tile = in + static_cast<std::int64_t>(blockIdx.x) * Policy::tile_items;
  uint4 w[rows];
  if (vector) {
    const uint4* g = reinterpret_cast<const uint4*>(tile);
#pragma unroll
    for (int r = 0; r < rows; ++r) w[r] = load_global_word<Policy::hint>(g + r * threads + t);
  } else {
    InStage::template stage_in<Policy::hint>(false, tile, Policy::tile_items, stage);  // (ends with a barrier)
#pragma unroll
    for (int r = 0; r < rows; ++r) w[r] = *InStage::chunk(stage, r * threads + t);
  }
  const Acc total = fold_striped_rows<threads, rows, In>(w, op, slots<Acc>(part));
  if (t == 0) sums[blockIdx.x] = total;
}

// A register tile (blocked: thread t holds items t * Items ...) scanned in place once the sums
// of every tile before it are written and visible (pass 2 of two passes after its wait; the one
// wave in registers after its grid barrier): tile 0 from init (exclusive) or from nothing, every
// other tile from the fold of the sums before it (fold_sums_before: the same association on
// every run; thread 0 holds it and KnownPrefix applies it, init first for an exclusive scan).
template <bool Exclusive, class Acc, int Threads, BlockScanAlgorithm Algorithm, std::size_t Items, class Op>
TILECRAFT_DEVICE void scan_registers_after_sums(BlockScanStorage<Acc, Threads, Algorithm>& temp,
                                                BlockReduceStorage<Acc, Threads>& sums_temp, Acc (&a)[Items],
                                                std::int64_t tile, const Acc* sums, Op op, const Acc& init) {
  if (tile == 0) {
    if constexpr (Exclusive) {
      KnownPrefix<Acc> first{init};
      block_exclusive_scan(temp, a, a, op, first);
    } else {
      block_inclusive_scan(temp, a, a, op);
    }
  } else {
    KnownPrefix<Acc> prefix = prefix_from_sums<Exclusive>(sums, tile, op, init, sums_temp);
    if constexpr (Exclusive) {
      block_exclusive_scan(temp, a, a, op, prefix);
    } else {
      block_inclusive_scan(temp, a, a, op, prefix);
    }
  }
}

// Pass 2 of a scan in two passes: tile blockIdx.x loaded (beside pass 1 where it was launched
// as its programmatic dependent; from L2, where pass 1 left it), then, once pass 1 is done, the
// fold of the sums of the tiles before it (each thread a run of consecutive sums, the runs
// combined in order: the same association on every run), and the tile scanned with that prefix
// in front (init first for an exclusive scan) and stored. Each block reads only its own tile
// before it writes it, and writes only after pass 1 has read everything: in place is safe.
template <class Policy, bool Exclusive, class In, class Out, class Acc, class Op>
__global__ void __launch_bounds__(Policy::threads)
    scan_from_sums_kernel(const In* in, Out* out, std::int64_t n, Op op, Acc init, const Acc* sums, bool vector) {
  constexpr int threads = Policy::threads;
  __shared__ alignas(16) unsigned char stage[stage_bytes_of<Policy, In, Out>()];
  __shared__ BlockScanStorage<Acc, threads, Policy::block_algorithm> temp;
  __shared__ BlockReduceStorage<Acc, threads> sums_temp;
  const std::int64_t tile = blockIdx.x;
  Acc a[Policy::items];
  const int valid = load_tile_as<Policy>(vector, in, n, tile, stage, a);
  arch::wait_for_dependencies();  // pass 1's sums
  scan_registers_after_sums<Exclusive>(temp, sums_temp, a, tile, sums, op, init);
  store_tile_as<Policy>(vector, out, tile, valid, stage, a);
}

// ---- Scans in one wave: every tile resident, a grid barrier instead of a look-back -----------

// A scan whose tiles all fit one wave of resident blocks (launched cooperatively, one tile a
// block, the tile held in shared memory: scan_tile_two_pass with GridPrefix). Each block reads
// its tile once and writes it once, as in the single pass, but the prefixes come after one grid
// barrier instead of a chain of look-backs: at 2^22 floats on the H200 16.93 us against 19.84
// for the single pass and 20.03 for CUB (benchmarks/TUNING.md, "Scans in one wave"). The whole
// input is read before the barrier and written after it: in place is safe. sums: a
// tile's fold each (temp storage; every tile writes its own before it is read).
template <class Policy, bool Exclusive, class In, class Out, class Acc, class Op>
__global__ void __launch_bounds__(Policy::threads)
    scan_one_wave_kernel(const In* in, Out* out, std::int64_t n, Op op, Acc init, Acc* sums, bool vector) {
  __shared__ alignas(stage_align_of<In, Out>()) unsigned char stage[stage_bytes_of<Policy, In, Out>()];
  __shared__ BlockScanStorage<Acc, Policy::threads, Policy::block_algorithm> temp;
  __shared__ BlockReduceStorage<Acc, Policy::threads> sums_temp;
  __shared__ SharedSlot<Acc> warp_buf[Policy::threads / warp_threads];
  const GridPrefix<Exclusive, Policy::threads, Acc, Op> prefix_of{sums, op, init, sums_temp};
  const std::int64_t tile = blockIdx.x, base = tile * Policy::tile_items;
  scan_tile_two_pass<Policy, Exclusive>(vector, in + base, out + base, tile_valid<Policy>(n, tile), tile, op, init,
                                        prefix_of, stage, temp, slots<Acc>(warp_buf));
}

// The same with the tile in registers (scan_one_wave_registers_kernel): each thread loads its
// items (TileStage::load, through the staging buffer), the block folds them (block_reduce, in
// rank order) and publishes the tile's fold, meets the others at the grid barrier, and scans its
// items with the prefix of the tiles before it (scan_registers_after_sums), as pass 2 of the two
// passes does from L2; one read and one write. Registers set the tiles an SM (MinBlocks asked:
// three 256 x 32-float tiles on the H200, 396 tiles, 2^21.6 floats), and where they fit one
// wave this form is the fastest: at 2^20 floats 8.42 us against 9.66 for the tile held in shared
// memory and 9.54 for the two passes (benchmarks/TUNING.md, "Scans in one wave"): the items wait
// across the barrier in registers, with no second pass over shared memory after it.
template <class Policy, int MinBlocks, bool Exclusive, class In, class Out, class Acc, class Op>
__global__ void __launch_bounds__(Policy::threads, MinBlocks)
    scan_one_wave_registers_kernel(const In* in, Out* out, std::int64_t n, Op op, Acc init, Acc* sums, bool vector) {
  __shared__ alignas(stage_align_of<In, Out>()) unsigned char stage[stage_bytes_of<Policy, In, Out>()];
  __shared__ BlockScanStorage<Acc, Policy::threads, Policy::block_algorithm> temp;
  __shared__ BlockReduceStorage<Acc, Policy::threads> sums_temp;
  const std::int64_t tile = blockIdx.x;
  Acc a[Policy::items];
  const int valid = load_tile_as<Policy>(vector, in, n, tile, stage, a);
  // (A ragged last tile folds its last element repeated to the tile's end: its sum is never read.)
  const Acc tile_sum = block_reduce(sums_temp, a, op);
  if (threadIdx.x == 0) sums[tile] = tile_sum;
  arch::grid_sync();  // (every tile's sum visible; its barriers free sums_temp again, too)
  scan_registers_after_sums<Exclusive>(temp, sums_temp, a, tile, sums, op, init);
  store_tile_as<Policy>(vector, out, tile, valid, stage, a);
}

// ---- One wave with the tile split between shared memory and registers -----------------------

// Rows 16-byte vectors of In (one thread's, in order) as Rows * 16 / sizeof(In) accumulators.
template <class In, std::size_t Rows, class Acc, std::size_t Items>
TILECRAFT_DEVICE void split_vectors_to(const uint4 (&w)[Rows], Acc (&a)[Items]) {
  constexpr int per_vector = static_cast<int>(16 / sizeof(In));
  static_assert(Items == Rows * (16 / sizeof(In)), "split_vectors_to: the vectors' elements, all");
#pragma unroll
  for (int k = 0; k < static_cast<int>(Rows); ++k) {
    In x[per_vector];
    std::memcpy(x, &w[k], 16);
#pragma unroll
    for (int j = 0; j < per_vector; ++j) a[k * per_vector + j] = static_cast<Acc>(x[j]);
  }
}

// SplitGridPrefix: GridPrefix for scan_one_wave_split_kernel's tiles, whose shared part
// (scan_tile_two_pass) comes first and whose register part follows it. The tile's sum is the
// fold of both parts (the register part's fold, registers_sum, held by thread 0); and thread 0
// keeps in registers_prefix what comes before the register part: the tiles before, init first
// for an exclusive scan, and the shared part.
template <bool Exclusive, int Threads, class Acc, class Op>
struct SplitGridPrefix {
  Acc* sums;
  Op op;
  Acc init;
  BlockReduceStorage<Acc, Threads>& temp;
  const Acc& registers_sum;  // thread 0's
  bool registers;            // the tile has a register part
  Acc& shared_sum;           // thread 0's: the shared part's fold, once arrived
  Acc& registers_prefix;     // thread 0's: set by first or exclusive
  TILECRAFT_DEVICE void arrive(std::int64_t tile, const Acc& total) const {
    const Acc folded = block_reduce(temp, total, op);
    if (threadIdx.x == 0) {
      shared_sum = folded;
      sums[tile] = registers ? static_cast<Acc>(op(folded, registers_sum)) : folded;
    }
    arch::grid_sync();  // (its barriers free `temp` again, too)
  }
  // Tile 0: what the shared part passes on (init op its fold, or its fold).
  TILECRAFT_DEVICE void first(const Acc& passed_on) const {
    if (threadIdx.x == 0) registers_prefix = passed_on;
  }
  template <class Temp>
  TILECRAFT_DEVICE Acc exclusive(Temp& scan_temp, std::int64_t tile, const Acc& total) const {
    KnownPrefix<Acc> prefix = prefix_from_sums<Exclusive>(sums, tile, op, init, temp);
    if (threadIdx.x == 0) registers_prefix = static_cast<Acc>(op(prefix.prefix, shared_sum));
    return block_exclusive_scan(scan_temp, total, op, prefix);
  }
};

// A scan whose tiles fit one wave only with each tile split: the first part, Shared's tile, in
// shared memory (scan_tile_two_pass, its buffer of stage_bytes_of<Shared, In, Out>() dynamic
// shared memory), the second, Registers' tile, in registers; one grid barrier as in
// scan_one_wave_kernel. Shared memory alone holds six 32 KiB tiles an SM on the H200 (2^22.6
// floats in one wave, where the registers hold up to 40 registers a thread of the tile's
// indices and vectors), the registers alone three 32 KiB tiles: together three tiles of 64 KiB
// in shared memory and 32 KiB in registers an SM, 96 KiB a tile, 2^23.2 floats in one wave.
// Both parts are read before the barrier (the shared part by cp.async where it is whole and
// aligned, by synchronous copies otherwise; the register part's rows by coalesced 16-byte loads
// beside it, folded in order as they lie: fold_striped_rows) and
// written after it: in place is safe. The register part's rows pass through the shared
// buffer, once the shared part is stored, into blocked order for the block scan and out again.
// Its vectors: In and Out of one size, whole 16-byte vectors in both parts, the shared part's
// rows by cp.async (more than 8 vectors a thread). sums: a tile's fold each (temp storage).
// (Its register part loaded and stored blocked, straight from and to global memory, with no
// spills and no pass through the buffer, ran 22-25% slower on the H200: benchmarks/TUNING.md,
// "One wave with each tile split".)
template <class Shared, class Registers, int MinBlocks, bool Exclusive, class In, class Out, class Acc, class Op>
__global__ void __launch_bounds__(Shared::threads, MinBlocks)
    scan_one_wave_split_kernel(const In* in, Out* out, std::int64_t n, Op op, Acc init, Acc* sums, bool vector) {
  constexpr int threads = Shared::threads;
  using SharedIn = TileStage<In, threads, Shared::items>;
  using RegistersIn = TileStage<In, threads, Registers::items>;
  using RegistersOut = TileStage<Out, threads, Registers::items>;
  constexpr int rows = RegistersIn::chunks_per_thread;
  constexpr int per_vector = static_cast<int>(16 / sizeof(In));
  static_assert(Registers::threads == threads && sizeof(In) == sizeof(Out) && two_pass_tile<Shared, In, Out, Acc> &&
                    SharedIn::chunks_per_thread > 8 && RegistersIn::chunked && RegistersOut::chunked &&
                    stage_bytes_of<Registers, In, Out>() <= stage_bytes_of<Shared, In, Out>(),
                "scan_one_wave_split_kernel: both parts of one thread count; In and Out of one size; the shared "
                "part a two-pass tile of more than 8 vectors a thread, the register part whole 16-byte vectors, "
                "staged in the shared part's buffer");
  extern __shared__ uint4 split_stage[];
  unsigned char* const stage = reinterpret_cast<unsigned char*>(split_stage);
  __shared__ BlockScanStorage<Acc, threads, Shared::block_algorithm> temp;
  __shared__ BlockReduceStorage<Acc, threads> sums_temp;
  __shared__ SharedSlot<Acc> warp_buf[threads / warp_threads];
  __shared__ SharedSlot<Acc> part[rows * threads / warp_threads];
  constexpr std::int64_t shared_items = Shared::tile_items, tile_items = shared_items + Registers::tile_items;
  const std::int64_t tile = blockIdx.x, base = tile * tile_items;
  const std::int64_t left = n - base, registers_left = left - shared_items;
  const int shared_valid = left < shared_items ? static_cast<int>(left) : static_cast<int>(shared_items);
  const int registers_valid = registers_left <= 0                      ? 0
                              : registers_left < Registers::tile_items ? static_cast<int>(registers_left)
                                                                       : Registers::tile_items;
  const int t = static_cast<int>(threadIdx.x);
  // The shared part in flight (cp.async where whole and aligned: no registers held), then the
  // register part's rows, striped.
  SharedIn::template issue_in<Shared::hint>(vector, in + base, shared_valid, stage);
  copy_async_commit();
  uint4 w[rows];
  Acc registers_sum{};
  if (registers_valid > 0) {
    const In* src = in + base + shared_items;
    // (Vector r of thread t: r * threads + t, striped.)
    if (vector && registers_valid == Registers::tile_items) {
      const uint4* g = reinterpret_cast<const uint4*>(src);
#pragma unroll
      for (int r = 0; r < rows; ++r) w[r] = load_global_word<Registers::hint>(g + r * threads + t);
    } else {
      // (Elements past the end repeat the last one: the last tile's sum is never read.)
#pragma unroll
      for (int r = 0; r < rows; ++r) {
        In x[per_vector];
#pragma unroll
        for (int j = 0; j < per_vector; ++j) {
          const int e = (r * threads + t) * per_vector + j;
          x[j] = src[e < registers_valid ? e : registers_valid - 1];
        }
        std::memcpy(&w[r], x, 16);
      }
    }
    registers_sum = fold_striped_rows<threads, rows, In>(w, op, slots<Acc>(part));
  }
  copy_async_wait<0>();
  __syncthreads();
  Acc shared_sum{}, registers_prefix{};
  const SplitGridPrefix<Exclusive, threads, Acc, Op> prefix_of{
      sums, op, init, sums_temp, registers_sum, registers_valid > 0, shared_sum, registers_prefix};
  scan_tile_two_pass<Shared, Exclusive, true>(vector, in + base, out + base, shared_valid, tile, op, init, prefix_of,
                                              stage, temp, slots<Acc>(warp_buf));
  if (registers_valid == 0) return;
  __syncthreads();  // (every thread done with the shared part's buffer)
#pragma unroll
  for (int r = 0; r < rows; ++r) *RegistersIn::chunk(stage, r * threads + t) = w[r];
  __syncthreads();
  uint4 v[rows];
#pragma unroll
  for (int k = 0; k < rows; ++k) v[k] = *RegistersIn::chunk(stage, t * rows + k);
  Acc a[Registers::items];
  split_vectors_to<In>(v, a);
  KnownPrefix<Acc> prefix{registers_prefix};
  if constexpr (Exclusive) {
    block_exclusive_scan(temp, a, a, op, prefix);
  } else {
    block_inclusive_scan(temp, a, a, op, prefix);
  }
  // (block_scan's barriers: every thread has read the buffer before store_tile_as writes it.)
  store_tile_as<Registers>(vector, out + base + shared_items, 0, registers_valid, stage, a);
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
