//! \file device/detail/select_kernels.cuh
//! tilecraft::select_if / partition's kernel: a single-pass scan of the kept counts with
//! decoupled look-back, and a compaction through shared memory (internal; include
//! device/select.cuh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <vector_types.h>

#include "../../arch/prefetch.cuh"
#include "../../config.cuh"
#include "../../memory/global_word.cuh"
#include "../../util/functional.cuh"
#include "../../warp/warp_scan.cuh"
#include "scan_tile_state.cuh"

namespace tilecraft::detail {

//! How a select tile's elements are spread over the block: warp w holds the tile's elements
//! w * 32 * Items ... (w + 1) * 32 * Items - 1 as Items / vec rows of 32 * vec consecutive
//! elements, lane l holding elements l * vec ... l * vec + vec - 1 of each row (one 16-byte
//! vector when the type packs into 16 bytes and Items is a multiple of vec; vec = 1 otherwise).
//! Warp-striped rows rather than a blocked run per thread: a warp's loads are coalesced
//! without staging, a lane's rank within the warp comes from a few independent warp scans of
//! per-row counts packed `fields` to a word (`words` scans: 4 for floats at 64 items, instead of
//! one a row), and the kept items of a row land at nearby shared addresses (a blocked run would
//! put lanes ~Items / 2 elements apart: 16-way bank conflicts for floats kept half the time).
template <class In, int Items>
struct SelectArrangement {
  // Elements of In in a 16-byte vector (0: In does not pack into one).
  static constexpr int per_vector = sizeof(In) <= 16 && 16 % sizeof(In) == 0 ? static_cast<int>(16 / sizeof(In)) : 0;
  static constexpr bool chunked = per_vector > 0 && Items % (per_vector > 0 ? per_vector : 1) == 0;
  //! Elements a lane holds per row.
  static constexpr int vec = chunked ? per_vector : 1;
  //! Rows per warp.
  static constexpr int rows = Items / vec;
  //! A row's kept count over a warp is at most 32 * vec: fields of field_bits bits hold it, so
  //! `fields` rows' counts share one 32-bit word of the warp scan.
  static constexpr int field_bits = log2_floor(32 * vec) + 1;
  static constexpr int fields = 32 / field_bits;
  static constexpr int words = (rows + fields - 1) / fields;
};

#if defined(__CUDACC__)

// Stores src[0 .. count) (shared memory, 16-byte aligned, readable up to 16 bytes past count)
// to dst[0 .. count) (aligned to In only): scalar stores up to dst's next 16-byte boundary, then
// one 16-byte vector a thread, taken from two aligned shared vectors by the head's byte shift,
// then scalar stores for the rest. For naturally aligned items of 1, 2, 4 or 8 bytes (a 16-byte
// store carries 16, 8, 4 or 2 of them); a vector a thread instead of an item a thread costs a
// quarter of the store instructions for floats (measured on the H200: select_if of 2^28 floats
// 1.3-2.3% faster, benchmarks/TUNING.md, "select_if's tile in pieces").
template <int Threads, class In>
TILECRAFT_DEVICE void store_run(In* dst, const In* src, int count) {
  constexpr int size = static_cast<int>(sizeof(In));
  // (Only naturally aligned items: dst is aligned to alignof(In) alone, so an item of 8 bytes
  // and 4-byte alignment, say, may sit 4 bytes off every whole-item step to a 16-byte boundary.)
  if constexpr (size <= 8 && 16 % size == 0 && alignof(In) == sizeof(In)) {
    constexpr int per_vector = 16 / size;
    const auto misaligned = static_cast<int>(reinterpret_cast<std::uintptr_t>(dst) % 16);
    const int to_boundary = misaligned == 0 ? 0 : (16 - misaligned) / size;
    const int head = to_boundary < count ? to_boundary : count;
    const int thread = static_cast<int>(threadIdx.x);
    if (thread < head) dst[thread] = src[thread];
    const int vectors = (count - head) / per_vector;
    // src[head + per_vector q] starts `shift` bytes into src's vector q.
    const int shift = head * size;
    const auto* from = reinterpret_cast<const uint4*>(src);
    auto* to = reinterpret_cast<uint4*>(dst + head);
    const int word = shift / 4;
    const unsigned bits = 8u * static_cast<unsigned>(shift % 4);
    for (int q = thread; q < vectors; q += Threads) {
      const uint4 a = from[q];
      uint4 r = a;
      if (shift != 0) {
        const uint4 b = from[q + 1];
        unsigned w[5];
        // The five words from which the result's four are cut (word .. word + 4 of a, b).
        if (word == 0) {
          w[0] = a.x, w[1] = a.y, w[2] = a.z, w[3] = a.w, w[4] = b.x;
        } else if (word == 1) {
          w[0] = a.y, w[1] = a.z, w[2] = a.w, w[3] = b.x, w[4] = b.y;
        } else if (word == 2) {
          w[0] = a.z, w[1] = a.w, w[2] = b.x, w[3] = b.y, w[4] = b.z;
        } else {
          w[0] = a.w, w[1] = b.x, w[2] = b.y, w[3] = b.z, w[4] = b.w;
        }
        r = make_uint4(__funnelshift_r(w[0], w[1], bits), __funnelshift_r(w[1], w[2], bits),
                       __funnelshift_r(w[2], w[3], bits), __funnelshift_r(w[3], w[4], bits));
      }
      to[q] = r;
    }
    const int done = head + per_vector * vectors;
    for (int k = done + thread; k < count; k += Threads) dst[k] = src[k];
  } else {
    for (int k = static_cast<int>(threadIdx.x); k < count; k += Threads) dst[k] = src[k];
  }
}

// Makes every bit of v an operand of one shared-memory store of the calling thread (into its own
// byte, `slot`): the hardware issues a store only once its operands have arrived, so all of the
// thread's loads of v have returned before it passes the next barrier. (The words, or bytes for
// items of sizes other than multiples of 4, are folded by exclusive or, in which every input bit
// moves an output bit: no register can be dropped. Not by a std::memcpy of v into words: at -O1,
// ptxas's code for that copy raised an illegal instruction in the partition kernel, which never
// calls this. A struct's padding folds in too: C++ calls arithmetic on its indeterminate bits
// undefined, as it does CUB's word-wise shuffles of any T; here they are moved and XORed into a
// byte that nothing reads.) The order this gives rests on the hardware (no store is issued
// before the loads its address depends on; a loaded register cannot change), not on the PTX
// memory model, which orders the loads before the state only with a release (select_kernel's
// comment).
template <class T, std::size_t N>
TILECRAFT_DEVICE void retire_loads(const T (&v)[N], unsigned char* slot) {
  unsigned fold = 0u;
  if constexpr (sizeof(T) % 4 == 0) {
    // Whole words of each item, as values (no copy through memory). (The compiler's builtin,
    // which cuda::std::bit_cast wraps: <cuda/std/bit> and <cuda/std/array> added about 3 s to
    // every one-architecture compile of a unit that includes select.cuh, 5 s at three: more
    // than the rest of select.cuh.)
    struct Words {
      unsigned word[sizeof(T) / 4];
    };
#pragma unroll
    for (std::size_t i = 0; i < N; ++i) {
      const Words w = __builtin_bit_cast(Words, v[i]);
#pragma unroll
      for (std::size_t k = 0; k < sizeof(T) / 4; ++k) fold ^= w.word[k];
    }
  } else {
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(v);  // (bytes may alias anything)
#pragma unroll
    for (std::size_t i = 0; i < sizeof(T) * N; ++i) fold ^= static_cast<unsigned>(bytes[i]) << (8 * (i % 4));
  }
  fold ^= fold >> 16;
  fold ^= fold >> 8;
  *static_cast<volatile unsigned char*>(slot) = static_cast<unsigned char>(fold);
}

// One tile of select_if (Partition false) or partition (true), one block per tile taken from
// the counter. Each warp loads and flags its rows (SelectArrangement) and ranks its kept items
// with warp scans of packed per-row counts; the block adds the warps' counts, the first warp publishes the
// tile's count and looks back for the kept items before the tile; meanwhile every warp
// compacts its kept items (and, for partition, the rejected ones after all the tile's kept
// ones) into shared memory in order, and the block writes them out coalesced: kept item k of
// the tile to out[prefix + k]; rejected item q (global rank) to out[n - 1 - q]. The last tile
// writes the kept count.
// In place (out == in, select_if only; not with streaming loads, which the dispatch refuses):
// tile t writes below its own end, over items that it read before its barrier or that an
// earlier tile read before publishing its count, which t's prefix waited for, directly or
// through the inclusive prefixes of the tiles between. The order rests on what a load and a store
// cannot do, as CUB's in-place select with loads through shared memory does, not on fences (two
// fences a tile cost half the in-place throughput, release/acquire tile states a fifth:
// benchmarks/TUNING.md): each thread's loads have returned before the barrier that precedes the
// tile's states (retire_loads: a loaded value cannot change afterwards), and a later tile's stores
// go to addresses computed from the prefix it read, so none is issued before the states it
// depends on have been published.
// prefetch_ahead > 0: each block first prefetches into L2 the tile prefetch_ahead tickets past its
// own, which a block starting later will take, so that DRAM keeps reading while tiles wait for
// their prefixes with nothing in flight (select_if of 2^28 floats on an H200: 8% faster from an
// eighth to three quarters of the resident blocks ahead; benchmarks/TUNING.md, "select_if's tile
// in pieces"), by one bulk prefetch where it can (sm_90, an aligned input: 1% faster than 256
// line prefetches at 2^26 and 2^28 floats; the scan measured the two the same and keeps its
// lines). A prefetch only moves lines into L2, where every later write lands too: in place, a
// line it brings in early is still the line the tile's own loads read.
template <class Policy, bool Partition, class In, class Offset, class Pred, class NumSelected>
__global__ void __launch_bounds__(Policy::threads)
    select_kernel(const In* in, In* out, std::int64_t n, Pred pred, NumSelected* num_selected,
                  TileStatus<Offset> status, unsigned* counter, bool vector, bool single_tile, bool in_place,
                  std::int64_t prefetch_ahead) {
  constexpr int threads = Policy::threads;
  constexpr int warps = threads / warp_threads;
  constexpr int items = Policy::items;
  constexpr int elems = Policy::tile_items;
  using Arr = SelectArrangement<In, items>;
  constexpr int vec = Arr::vec;
  constexpr int rows = Arr::rows;
  constexpr unsigned field_mask = (1u << Arr::field_bits) - 1u;
  // (16 bytes past the tile: store_run reads up to one vector past its items. Aligned for its
  // vectors, or for the items where they ask for more.)
  __shared__ alignas(alignof(In) > 16 ? alignof(In)
                                      : 16) unsigned char stage[static_cast<std::size_t>(elems) * sizeof(In) + 16];
  __shared__ int warp_kept[warps];
  __shared__ unsigned ticket;
  __shared__ Offset tile_prefix;
  __shared__ Offset look_back_buf[far_windows<Offset> * warp_threads];
  // select_dispatch's 40 KiB rule on the stage leaves room for the rest (the look-back's 2 KiB
  // included): stated here, where the arrays are.
  static_assert(sizeof(stage) + sizeof(warp_kept) + sizeof(ticket) + sizeof(tile_prefix) + sizeof(look_back_buf) + 64 <=
                    48 * 1024,
                "select_kernel: its static shared memory (the stage, the warps' counts and the look-back's buffer) "
                "must fit 48 KiB");
  if (threadIdx.x == 0) ticket = single_tile ? 0u : atomicAdd(counter, 1u);
  __syncthreads();
  const std::int64_t tile = ticket;
  const std::int64_t base = tile * elems;
  const std::int64_t left = n - base;
  const int valid = left < elems ? static_cast<int>(left) : elems;
  const int warp = static_cast<int>(threadIdx.x) / warp_threads;
  const int lane = static_cast<int>(threadIdx.x) % warp_threads;
  // Tile index of this lane's first element in row 0; row j adds j * 32 * vec.
  const int first = warp * warp_threads * items + lane * vec;
  if (prefetch_ahead > 0 && (tile + prefetch_ahead) * elems + elems <= n) {
    arch::prefetch_l2_bulk<threads, static_cast<std::size_t>(elems) * sizeof(In)>(in + (tile + prefetch_ahead) * elems,
                                                                                  static_cast<int>(threadIdx.x));
  }

  // Load and flag: bit c of kept[j] says element c of the lane's run in row j is kept.
  In x[items];
  unsigned kept[rows];
  const In* src = in + base;
  if (Arr::chunked && vector && valid == elems) {
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      const uint4 w =
          load_global_word<Policy::hint>(reinterpret_cast<const uint4*>(src + first + j * warp_threads * vec));
      std::memcpy(&x[j * vec], &w, 16);
    }
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      kept[j] = 0u;
#pragma unroll
      for (int c = 0; c < vec; ++c)
        kept[j] |= static_cast<bool>(pred(static_cast<const In&>(x[j * vec + c]))) ? 1u << c : 0u;
    }
  } else {
#pragma unroll
    for (int j = 0; j < rows; ++j) {
      kept[j] = 0u;
#pragma unroll
      for (int c = 0; c < vec; ++c) {
        const int e = first + j * warp_threads * vec + c;
        x[j * vec + c] = e < valid ? src[e] : In{};
        // (Short-circuit: the predicate never sees an element past the end.)
        kept[j] |= (e < valid && static_cast<bool>(pred(static_cast<const In&>(x[j * vec + c])))) ? 1u << c : 0u;
      }
    }
  }

  // In place: the loads done before any state of this tile is published (see above).
  if (in_place) retire_loads(x, stage + threadIdx.x);

  // Each row's kept count in a field of a packed word: one warp scan ranks every row at once.
  unsigned packed[Arr::words] = {};
#pragma unroll
  for (int j = 0; j < rows; ++j) {
    packed[j / Arr::fields] += static_cast<unsigned>(__popc(kept[j])) << (Arr::field_bits * (j % Arr::fields));
  }
  unsigned inclusive[Arr::words], total[Arr::words];
#pragma unroll
  for (int q = 0; q < Arr::words; ++q) inclusive[q] = warp_inclusive_scan(packed[q], Sum{}, total[q]);
  // before[j]: the warp's kept items ahead of this lane's run in row j.
  int before[rows];
  int warp_count = 0;
#pragma unroll
  for (int j = 0; j < rows; ++j) {
    const int shift = Arr::field_bits * (j % Arr::fields);
    const int lanes_up_to_here = static_cast<int>((inclusive[j / Arr::fields] >> shift) & field_mask);
    before[j] = warp_count + lanes_up_to_here - __popc(kept[j]);
    warp_count += static_cast<int>((total[j / Arr::fields] >> shift) & field_mask);
  }
  if (lane == 0) warp_kept[warp] = warp_count;
  __syncthreads();
  int warp_offset = 0;
  int kept_here = 0;
#pragma unroll
  for (int w = 0; w < warps; ++w) {
    const int v = warp_kept[w];
    warp_offset += w < warp ? v : 0;
    kept_here += v;
  }

  // The first warp publishes the tile's count and finds the kept items before the tile.
  if (warp == 0) {
    const Offset aggregate = static_cast<Offset>(kept_here);
    if (tile == 0) {
      FirstTileCallback<Offset, TileStatus<Offset>, Sum> first_tile{status, Sum{}, Offset{0}, &tile_prefix, nullptr};
      (void)first_tile(aggregate);
    } else {
      // The walk over the aggregates (look_back_far): 2^28 floats, half kept, 551 -> 533 us,
      // 2^22 23.0 -> 20.8 us on the H200 (benchmarks/TUNING.md, "The walk at every size").
      LookBackCallback<Offset, TileStatus<Offset>, Sum> look_back{status,       tile,    Sum{},       look_back_buf,
                                                                  &tile_prefix, nullptr, /*far=*/true};
      (void)look_back(aggregate);
    }
  }

  // Compact in tile order: kept items first, then (partition) the rejected ones.
  In* staged = reinterpret_cast<In*>(stage);
#pragma unroll
  for (int j = 0; j < rows; ++j) {
#pragma unroll
    for (int c = 0; c < vec; ++c) {
      const int k = warp_offset + before[j] + __popc(kept[j] & ((1u << c) - 1u));  // kept items ahead
      if ((kept[j] >> c) & 1u) {
        staged[k] = x[j * vec + c];
      } else if constexpr (Partition) {
        const int e = first + j * warp_threads * vec + c;
        if (e < valid) staged[kept_here + e - k] = x[j * vec + c];
      }
    }
  }
  // Publishes the staged items and tile_prefix.
  __syncthreads();
  const std::int64_t prefix = static_cast<std::int64_t>(tile_prefix);
  store_run<threads>(out + prefix, staged, kept_here);
  if constexpr (Partition) {
    // The rejected items, in reverse from the end.
    const std::int64_t rejected_before = base - prefix;
    for (int k = kept_here + static_cast<int>(threadIdx.x); k < valid; k += threads) {
      out[n - 1 - (rejected_before + (k - kept_here))] = staged[k];
    }
  }
  if (base + valid == n && threadIdx.x == 0) *num_selected = static_cast<NumSelected>(prefix + kept_here);
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
