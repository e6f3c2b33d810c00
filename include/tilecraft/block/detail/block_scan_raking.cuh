//! \file block/detail/block_scan_raking.cuh
//! BlockScanAlgorithm::raking (CUB's BLOCK_SCAN_RAKING): every thread stores the fold of its
//! items in shared memory; the first warp alone rakes them, each lane folding a segment of
//! ceil(BlockThreads / 32) consecutive threads' partials, scans the 32 segment totals with
//! shuffles and writes every thread's exclusive prefix back. Two barriers, and the block-wide
//! shuffles run in one warp instead of all: the fewest instructions per scan, which is what a
//! GPU full of blocks pays for.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../../config.cuh"
#include "../../util/math.cuh"
#include "../../util/shared_slot.cuh"
#include "../../util/thread.cuh"
#include "../../warp/shuffle.cuh"
#include "../../warp/warp_scan.cuh"
#include "block_scan_warp_scans.cuh"

namespace tilecraft::detail {

template <class T, int BlockThreads>
struct BlockScanRaking {
  static constexpr int warps = ceil_div(BlockThreads, warp_threads);
  //! Threads whose partials one raking lane folds.
  static constexpr int segment = ceil_div(BlockThreads, warp_threads);
  //! Lane l's segment starts at element l * stride: an odd stride (a padding element after an
  //! even segment) puts the 32 lanes' reads of one step in 32 different banks (for 4-byte T; a
  //! wider T is read in phases of 32 / words lanes, conflict-free for the same reason).
  static constexpr int stride = segment % 2 == 0 ? segment + 1 : segment;
  //! Element j of a segment sits at j * spread. With consecutive elements (spread 1), a warp's
  //! partials (the store before the first barrier, the load after the second, in every warp)
  //! are 32 / segment segments of `segment` words `stride` apart: 36 words at 256 threads, so
  //! banks 0-2 take two words each and both accesses two passes (CUB's layout does the same).
  //! A spread of (T's per 128-byte pass) / segment lays the warp's segments over each other,
  //! one word in each bank of every pass (stride odd, spread a power of two: the offsets
  //! stride * a + spread * j are distinct modulo the pass for a < pass / segment, j < segment),
  //! and keeps the raking reads one word a bank (lane l's step j is stride * l + spread * j).
  //! The raking row stays lane * stride and its steps immediate offsets, so no instruction is
  //! added; the grid grows by (spread - 1) * (segment - 1) - 1 elements (20 at 256 threads).
  static constexpr int words = static_cast<int>(sizeof(T) / 4);
  // (words is 0 for types under 4 bytes: the modulo takes 1 then, never 0, which nvcc would
  // warn about even behind the first test.)
  static constexpr int per_pass = sizeof(T) % 4 == 0 && 32 % (words > 0 ? words : 1) == 0 ? 32 / words : 0;
  static constexpr int spread = per_pass > 0 && per_pass % segment == 0 ? per_pass / segment : 1;
  static_assert(spread == 1 || (stride % 2 == 1 && (spread & (spread - 1)) == 0 && segment * spread == per_pass),
                "BlockScanRaking: spread segments need an odd stride and a power-of-two spread filling one 128-byte "
                "pass, or two slots could share a word");
  static constexpr int grid_size =
      spread == 1 ? warp_threads * stride : (warp_threads - 1) * stride + spread * (segment - 1) + 1;
  //! One warp has nothing to rake: the warp-scan path without shared memory serves it.
  using OneWarp = BlockScanWarpScans<T, BlockThreads, true>;

  struct RakingStorage {
    SharedSlot<T> grid[static_cast<std::size_t>(grid_size)];  // the partials, then the prefixes
    SharedSlot<T> block_total;                                // for threads asking for the aggregate
  };
  using Storage = std::conditional_t<warps == 1, typename OneWarp::Storage, RakingStorage>;

#if defined(__CUDACC__)
  TILECRAFT_DEVICE static int slot(int rank) { return rank / segment * stride + rank % segment * spread; }

  // As BlockScanWarpScans::scan: Items values per thread in blocked order, the first `valid`
  // taking part when Partial; the block's aggregate (without any prefix) to *aggregate when
  // non-null.
  template <bool Exclusive, bool Partial, std::size_t Items, class Op, class Prefix>
  TILECRAFT_DEVICE static void scan(Storage& s, const T (&in)[Items], T (&out)[Items], Op op, int valid, Prefix prefix,
                                    T* aggregate) {
    if constexpr (warps == 1) {
      OneWarp::template scan<Exclusive, Partial>(s, in, out, op, valid, prefix, aggregate);
    } else {
      constexpr int items = static_cast<int>(Items);
      const int rank = thread_rank();
      // Threads holding at least one valid item form a prefix of the block.
      const int valid_threads = Partial ? ceil_div(valid, items) : BlockThreads;
      const int my_valid = Partial ? valid - rank * items : items;
      T* const grid = slots<T>(s.grid);
      T& shared_total = *slots<T>(&s.block_total);
      grid[slot(rank)] = fold_thread_items<Partial>(in, op, my_valid);
      __syncthreads();

      constexpr bool seeded = requires { prefix.value; }
      || requires { prefix.callback; };
      // One item a thread, inclusive: the raking warp writes every thread's result (as CUB's
      // raking does), which saves each thread its one operator call.
      constexpr bool one_inclusive = !Exclusive && Items == 1;
      // An inclusive scan's thread 0 starts from the identity where op has an exact one
      // (sum_with_identity): every thread then runs the same operations, with the same bits.
      // Not for one_inclusive, which has no rescan to unify: there raking lane 0 keeps its
      // first partial as it is, a predicated add where the identity cost a select as well.
      constexpr bool from_identity = !seeded && !Exclusive && !one_inclusive && sum_with_identity<T, Op>;
      // Many items a thread: the raking lanes read their segment again from shared memory on
      // the way down instead of holding it in registers through the shuffles, as CUB's raking
      // does. With 16 items the thread's own items already fill most of the registers, and the
      // segment's copies were the last few above 32 (128 x 16 floats: 33, 512 x 16: 47), which
      // cost a quarter of the resident warps or more: measured on the H200, 0.96 -> 0.98x
      // cub::BlockScan at 128 x 16, 1.00 -> 1.23x at 512 x 16. With few items the registers
      // are not short and the reads only add their latency to the raking warp's path (1 to 4
      // items: 2 to 7% slower).
      constexpr bool reread = Items >= 8;
      // Otherwise the lanes hold their segment's running folds (r[0], r[0] op r[1], ...) through
      // the shuffles instead of the partials, and element j goes back as x op fold(j): one
      // operator call after the last shuffle instead of a chain of `segment` dependent ones
      // (at 256 threads 8 FADDs, some 30 cycles on the raking warp's path, which the whole
      // block waits for). The same calls, and no more live values: the running folds are the
      // way up's own intermediates and replace the partials. Not for integers, whose way up
      // folds three partials an instruction (IADD3, VIMNMX3: two instructions more at 8 a
      // segment), nor where raking lane 0's `has` is a run-time select per element (int Max:
      // ISETP + SEL each; double: two FSELs each): only with a compile-time prefix, or for a
      // float sum, where the select is a predicated FADD in place. Floats associate x op (r0 op
      // r1) for (x op r0) op r1: the last bits of a result can differ from CUB's.
      constexpr bool running = !reread && !std::is_integral_v<T> &&
                               (seeded || from_identity || (std::is_same_v<T, float> && std::is_same_v<Op, Sum>));
      if (rank < warp_threads) {
        const int lane = rank;
        // Lane l rakes threads l * segment ... while they exist and hold valid items; lanes
        // past them rake nothing (their shuffle values only reach lanes past them too). Whole
        // blocks (no partial warp, no partial scan) know every count at compile time.
        constexpr bool whole = !Partial && BlockThreads % warp_threads == 0;
        const int left = valid_threads - lane * segment;
        const int count = whole ? segment : (left < segment ? left : segment);
        T* row = grid + (whole || count > 0 ? lane * stride : 0);
        T r[segment];
        r[0] = row[0];
#pragma unroll
        for (int j = 1; j < segment; ++j) {
          if (whole || j < count) r[j] = row[j * spread];
        }
        T sum = r[0];
#pragma unroll
        for (int j = 1; j < segment; ++j) {
          if (whole || j < count) sum = static_cast<T>(op(sum, r[j]));
          if constexpr (running) r[j] = sum;
        }
        const T inclusive = shuffle_inclusive_scan<warp_threads>(sum, op, lane);
        // The segments before this lane's: for an integer sum the inclusive scan less the
        // lane's own total (exact, modulo 2^n; 0 in lane 0), one subtraction for a shuffle.
        T before;
        if constexpr (sum_with_identity<T, Op> && std::is_integral_v<T>) {
          using U = std::make_unsigned_t<T>;
          before = static_cast<T>(static_cast<U>(static_cast<U>(inclusive) - static_cast<U>(sum)));
        } else {
          before = shuffle_up(inclusive, 1);
          if constexpr (from_identity) before = lane == 0 ? sum_identity<T>() : before;
        }
        // The lane raking the last valid threads holds the block's total in `inclusive`.
        const int last = whole ? warp_threads - 1 : ceil_div(valid_threads, segment) - 1;
        // Lanes raking nothing read row 0, which lane 0 writes below: every lane's reads come
        // before any write. In a whole block each lane reads and writes only its own row, so
        // there is nothing to order, and the WARPSYNC (with a NOP after it) would only lengthen
        // the raking warp's path, which the rest of the block waits for.
        if constexpr (!whole) __syncwarp();
        // The running value entering this lane's segment; lane 0 of an unseeded scan has none
        // (thread 0's prefix stays undefined and is never read), or the identity.
        T x = before;
        if constexpr (requires { prefix.value; }) {
          x = lane == 0 ? prefix.value : static_cast<T>(op(prefix.value, before));
        } else if constexpr (requires { prefix.callback; }) {
          const T p = shuffle_index((*prefix.callback)(shuffle_index(inclusive, last)), 0);
          x = lane == 0 ? p : static_cast<T>(op(p, before));
        }
        // Each thread's exclusive prefix back to its slot, or (one_inclusive) its inclusive
        // result, which is then its output: the thread has nothing left to compute.
        const bool has = seeded || from_identity || lane > 0;
        if constexpr (running) {
          // Exclusive: element j takes x op fold(j - 1); one_inclusive: x op fold(j).
          constexpr int shift = one_inclusive ? 0 : 1;
          if constexpr (!one_inclusive) {
            if ((whole || count > 0) && has) row[0] = x;
          }
#pragma unroll
          for (int j = shift; j < segment; ++j) {
            if (whole || j < count) row[j * spread] = has ? static_cast<T>(op(x, r[j - shift])) : r[j - shift];
          }
        } else {
          if (whole || count > 0) {
            const T r0 = reread ? row[0] : r[0];
            if constexpr (one_inclusive) {
              x = has ? static_cast<T>(op(x, r0)) : r0;
              row[0] = x;
            } else {
              if (has) row[0] = x;
              x = has ? static_cast<T>(op(x, r0)) : r0;
            }
          }
#pragma unroll
          for (int j = 1; j < segment; ++j) {
            if (whole || j < count) {
              const T rj = reread ? row[j * spread] : r[j];
              if constexpr (one_inclusive) {
                x = static_cast<T>(op(x, rj));
                row[j * spread] = x;
              } else {
                row[j * spread] = x;
                x = static_cast<T>(op(x, rj));
              }
            }
          }
        }
        // That lane stores the aggregate itself, with no shuffle to lane 0: the compiler keeps
        // a shfl.sync whose result is unused (it is convergent), and ptxas, dropping the SHFL,
        // still leaves its WARPSYNC on the raking warp's path in every scan without aggregate.
        if (lane == last && aggregate != nullptr) shared_total = inclusive;
      }
      __syncthreads();
      if (aggregate != nullptr) *aggregate = shared_total;
      if constexpr (one_inclusive) {
        out[0] = grid[slot(rank)];
      } else {
        const T thread_prefix = grid[slot(rank)];
        scan_thread_items<Exclusive, Partial>(in, out, op, thread_prefix, seeded || from_identity || rank > 0,
                                              my_valid);
      }
    }
  }
#endif
};

}  // namespace tilecraft::detail
