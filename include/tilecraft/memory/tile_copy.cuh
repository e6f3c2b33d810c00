//! \file memory/tile_copy.cuh
//! Cooperative, coalesced copies of a tile between a global matrix (MatrixRef) and a shared
//! tile (SharedMatrix): copy_tile (both directions, through registers), copy_tile_async
//! (global -> shared with cp.async), and load_fragment / store_fragment (the two halves of the
//! register load, for software pipelining).
//!
//! Every copy is the same skeleton over three separate parts:
//!   - the partition (memory/copy_partition.cuh): which thread moves which vector, and which
//!     vectors lie inside the matrix, for any origin: negative, inside or past the end;
//!   - the transfer (memory/transfer_registers.cuh, memory/transfer_async.cuh): how one
//!     vector moves;
//!   - the analysis (memory/copy_analysis.cuh): the copy's bank-conflict factor.
//! Loads write `fill` where the tile lies outside the matrix; stores write only the elements
//! inside it. A tile wholly inside takes a branch-free path with one 64-bit address per thread;
//! a tile across an edge checks each vector's bounds.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "../util/concepts.cuh"
#include "../util/thread.cuh"
#include "copy_analysis.cuh"
#include "copy_partition.cuh"
#include "global_word.cuh"
#include "matrix_ref.cuh"
#include "shared_tile.cuh"
#include "transfer_async.cuh"
#include "transfer_registers.cuh"

namespace tilecraft {

#if defined(__CUDACC__)

namespace detail {

// The copy skeleton: threads 0 ... Threads-1 of the block each move their vectors of the
// Rows x Cols tile (or view) whose element (0, 0) lies at (row0, col0) of `m`; the transfer
// says how (see transfer_registers.cuh). Stores skip tiles with nothing inside; loads never
// do (their fill must land).
template <int Threads, class Shape, int Rows, int Cols, bool ToGlobal, class T, class Transfer>
TILECRAFT_DEVICE void copy_skeleton(MatrixRef<T> m, std::int64_t row0, std::int64_t col0, Transfer&& transfer) {
  const int rank = thread_rank();
  if (rank >= Threads) return;
  TILECRAFT_ASSERT(block_threads() >= Threads && "tile copy: the block has fewer threads than the copy's Threads");
  using Xfer = std::remove_cvref_t<Transfer>;
  const auto w = TileWindow<Shape, T, Rows, Cols>::make(m, row0, col0);
  const bank::Coord mine = Shape::coord(rank);
  if (w.full()) {
    const GlobalWalk<Threads, Shape, T> walk(w.origin(), m.ld * Xfer::walk_rows, rank, mine);
    if (w.vector_global) {
      transfer.full(walk, rank, mine, std::true_type{});
    } else {
      transfer.full(walk, rank, mine, std::false_type{});
    }
    return;
  }
  if (ToGlobal && w.empty()) return;
  auto edge = [&](int i) { transfer.edge(w, i, Shape::template coord<Threads>(i, rank, mine)); };
  if constexpr (Xfer::edge_unrolled) {
    for_each_vector<Threads, Shape>(rank, edge);
  } else {
    for_each_vector_rolled<Threads, Shape>(rank, edge);
  }
  if constexpr (requires { transfer.edge_finish(rank, mine); }) transfer.edge_finish(rank, mine);
}

// The rules every tile copy's parameters follow; `ok` lets the copy stop after the first message.
template <int Threads, class Copy>
struct CopyParams {
  static_assert(ValidBlockThreads<Threads>, "tile copy: Threads must be between 1 and 1024 (the threads of one block)");
  static_assert(is_tile_copy_v<Copy>, "tile copy: Copy must be a tilecraft::TileCopy<Hint, Mapping>");
  static constexpr bool ok = ValidBlockThreads<Threads> && is_tile_copy_v<Copy>;
};

// The matrix side of every tile copy is row-major: the partition walks rows (16-byte vectors
// along them). A column-major matrix is the row-major view of its transpose (transposed(m)).
template <Order O>
inline constexpr bool copy_order_ok = O == Order::row_major;

}  // namespace detail

//! Global -> registers half of copy_tile: loads this thread's share of the tile at (row0, col0)
//! of src into `frag` (elements outside src read as `fill`; the origin may be negative or past
//! the end). Ranks >= Threads do nothing. No barrier; all loads are issued before any is used.
//! The fragment's TileCopy policy sets the mapping and the cache hint of the vector loads.
//! See TileFragment for a snippet.
template <int Threads, class Tile, class Copy, class S, Order O>
TILECRAFT_DEVICE void load_fragment(TileFragment<Threads, Tile, Copy>& frag, MatrixRef<S, O> src, std::int64_t row0,
                                    std::int64_t col0, typename Tile::value_type fill = {}) {
  static_assert(detail::copy_order_ok<O>,
                "load_fragment: tiles copy to and from row-major MatrixRef<T> views only; for a column-major matrix m, "
                "copy its row-major view transposed(m) at (col0, row0) into a tile of the transposed shape "
                "and read that tile through transposed(tile)");
  static_assert(std::is_same_v<std::remove_const_t<S>, typename Tile::value_type>,
                "load_fragment: the source matrix must hold the tile's element type");
  if constexpr (detail::copy_order_ok<O>) {
    using Frag = TileFragment<Threads, Tile, Copy>;
    detail::copy_skeleton<Threads, typename Frag::Shape, Tile::rows, Tile::cols, false>(
        src, row0, col0, detail::FragmentLoad<Threads, Tile, Copy>{frag, fill});
  }
}

//! Registers -> shared half of copy_tile: stores `frag` into its place in `dst`.
//! Ranks >= Threads do nothing. No barrier: `__syncthreads()` before other threads read dst.
template <int Threads, class Tile, class Copy>
TILECRAFT_DEVICE void store_fragment(Tile& dst, const TileFragment<Threads, Tile, Copy>& frag) {
  using Shape = typename TileFragment<Threads, Tile, Copy>::Shape;
  const int rank = thread_rank();
  if (rank >= Threads) return;
  const bank::Coord mine = Shape::coord(rank);
  detail::for_each_vector<Threads, Shape>(rank, [&](int i) {
    detail::write_tile_vector<Shape>(dst, Shape::template coord<Threads>(i, rank, mine), frag.staged[i]);
  });
}

//! Block-cooperative load: dst(r, c) = src(row0 + r, col0 + c) for every element of the tile
//! inside src, and `fill` for elements outside it. The origin may be anywhere: negative,
//! inside, or past the end of src on either axis. src is a row-major MatrixRef<T> (or
//! MatrixRef<const T>); a column-major matrix m loads as its row-major view transposed(m) at
//! (col0, row0) into a tile of the transposed shape, read back through transposed(tile).
//!
//! Threads: threads with rank 0 ... Threads-1 of the block take part (thread_rank order);
//! others return at once. The block must have at least Threads threads: a smaller one leaves
//! the missing ranks' vectors uncopied (checked only under TILECRAFT_ENABLE_DEVICE_ASSERTIONS;
//! nothing else can tell at run time). Barriers: none; call `__syncthreads()` before any thread reads
//! elements another thread wrote. Vectorized (up to 16 bytes) when `src.data`, `src.ld` and
//! `col0` keep the tile's rows aligned; correct for any alignment. For a tile wholly inside
//! src each thread issues all of its global loads before its first shared-memory store.
//! `Copy` (default TileCopy<>): the thread mapping and cache hint, e.g.
//! `copy_tile<128, TileCopy<CacheHint::normal, TileMapping::rows>>(...)`.
//! \code
//! __shared__ tilecraft::SharedTile<float, 32, 1> tile;
//! tilecraft::copy_tile<256>(tile, tilecraft::MatrixRef<const float>{in, rows, cols, ld}, r0, c0);
//! __syncthreads();
//! \endcode
template <int Threads, class Copy = TileCopy<>, class T, int Rows, int Cols, class Layout, class S, Order O>
TILECRAFT_DEVICE void copy_tile(SharedMatrix<T, Rows, Cols, Layout>& dst, MatrixRef<S, O> src, std::int64_t row0,
                                std::int64_t col0, std::type_identity_t<T> fill = T{}) {
  static_assert(detail::copy_order_ok<O>,
                "copy_tile: tiles copy to and from row-major MatrixRef<T> views only; for a column-major matrix m, "
                "copy its row-major view transposed(m) at (col0, row0) into a tile of the transposed shape "
                "and read that tile through transposed(tile)");
  static_assert(std::is_same_v<std::remove_const_t<S>, T>,
                "copy_tile: the source matrix must hold the tile's element type");
  if constexpr (detail::copy_order_ok<O> && detail::CopyParams<Threads, Copy>::ok) {
    using Tile = SharedMatrix<T, Rows, Cols, Layout>;
    detail::copy_skeleton<Threads, detail::CopyShapeOf<Tile, Copy::mapping>, Rows, Cols, false>(
        src, row0, col0, detail::RegisterLoad<Threads, Tile, Copy>{dst, fill});
  }
}

//! Block-cooperative asynchronous load: the same result as copy_tile's load (dst(r, c) =
//! src(row0 + r, col0 + c) inside src, `fill` outside, any origin), but each thread issues
//! cp.async copies (sm_80+) and returns without waiting: no register holds the data.
//!
//! The bytes are in dst once the calling threads have committed and waited for the copies'
//! group and passed a barrier: `copy_async_commit(); copy_async_wait_block<0>();`, or a
//! Pipeline's producer_commit / consumer_wait. Elements outside src are written with plain
//! shared stores (any fill value works; they too need the barrier). Below sm_80, or with
//! TILECRAFT_DISABLE_CP_ASYNC, the copy is synchronous with the same results. Global vectors
//! are up to 16 bytes (cp.async.cg at 16) when src's rows are 16-byte aligned, as wide as the
//! tile layout's `vector_bytes` allows (a SharedTile<float, N, 1> row takes 4-byte copies);
//! otherwise one element per copy. Where a copy would move fewer than 4 bytes (cp.async's
//! least), or T's alignment is below its size, elements load synchronously, even from aligned
//! rows (SharedTile<__half, N, 1>, or 1- and 2-byte elements of misaligned rows).
//! Threads and `Copy` as for copy_tile (the cache hint does not apply: cp.async has its own).
//! \code
//! __shared__ tilecraft::SharedMatrix<float, 32, 64> tile;
//! tilecraft::copy_tile_async<256>(tile, tilecraft::MatrixRef<const float>{in, rows, cols, ld}, r0, c0);
//! tilecraft::copy_async_commit();
//! tilecraft::copy_async_wait_block<0>();  // wait + __syncthreads()
//! \endcode
template <int Threads, class Copy = TileCopy<>, class T, int Rows, int Cols, class Layout, class S, Order O>
TILECRAFT_DEVICE void copy_tile_async(SharedMatrix<T, Rows, Cols, Layout>& dst, MatrixRef<S, O> src, std::int64_t row0,
                                      std::int64_t col0, std::type_identity_t<T> fill = T{}) {
  static_assert(
      detail::copy_order_ok<O>,
      "copy_tile_async: tiles copy to and from row-major MatrixRef<T> views only; for a column-major matrix m, "
      "copy its row-major view transposed(m) at (col0, row0) into a tile of the transposed shape "
      "and read that tile through transposed(tile)");
  static_assert(std::is_same_v<std::remove_const_t<S>, T>,
                "copy_tile_async: the source matrix must hold the tile's element type");
  if constexpr (detail::copy_order_ok<O> && detail::CopyParams<Threads, Copy>::ok) {
    static_assert(Copy::mapping != TileMapping::transposed_blocks,
                  "copy_tile_async: TileMapping::transposed_blocks only stores transposed(tile) views to global "
                  "memory; load tiles with lines, rows or wide");
    using Tile = SharedMatrix<T, Rows, Cols, Layout>;
    detail::copy_skeleton<Threads, detail::CopyShapeOf<Tile, Copy::mapping>, Rows, Cols, false>(
        src, row0, col0, detail::AsyncLoad<Threads, Tile, Copy>{dst, fill});
  }
}

//! Block-cooperative store: dst(row0 + r, col0 + c) = src(r, c) for every element of the tile
//! (or transposed view) that lies inside dst; elements outside dst are not written, for any
//! origin (negative, inside or past the end). dst is a row-major MatrixRef<T>; into a
//! column-major matrix m, store transposed(tile) into transposed(m) at (col0, row0).
//!
//! Threads and barriers as for the load: ranks 0 ... Threads-1 take part, no barrier inside;
//! the threads that wrote `src` must have passed a `__syncthreads()` first. For a tile wholly
//! inside dst each thread reads its whole share from shared memory before its first global
//! store; across the edge it goes a vector at a time. `Copy`: the thread mapping and cache
//! hint, as for the load; TileMapping::transposed_blocks only for a transposed(tile) view.
//! \code
//! __syncthreads();
//! tilecraft::copy_tile<256>(tilecraft::MatrixRef<float>{out, cols, rows, ld}, c0, r0,
//!                           tilecraft::transposed(tile));
//! \endcode
template <int Threads, class Copy = TileCopy<>, class T, Order O, class Tile>
TILECRAFT_DEVICE void copy_tile(MatrixRef<T, O> dst, std::int64_t row0, std::int64_t col0, const Tile& src) {
  static_assert(detail::copy_order_ok<O>,
                "copy_tile: tiles copy to and from row-major MatrixRef<T> views only; to store into a "
                "column-major matrix m, store transposed(tile) into its row-major view transposed(m) at "
                "(col0, row0)");
  static_assert(!std::is_const_v<T>,
                "copy_tile: cannot store into a MatrixRef<const T>; the destination must be writable");
  static_assert(std::is_same_v<std::remove_const_t<T>, typename Tile::value_type>,
                "copy_tile: the destination matrix must hold the tile's element type");
  if constexpr (detail::copy_order_ok<O> && !std::is_const_v<T> && detail::CopyParams<Threads, Copy>::ok) {
    if constexpr (Copy::mapping == TileMapping::transposed_blocks) {
      using Store = detail::TransposedBlockStore<Threads, Tile, Copy>;
      detail::copy_skeleton<Threads, typename Store::Shape, Tile::rows, Tile::cols, true>(dst, row0, col0, Store{src});
    } else {
      detail::copy_skeleton<Threads, detail::CopyShapeOf<Tile, Copy::mapping>, Tile::rows, Tile::cols, true>(
          dst, row0, col0, detail::RegisterStore<Threads, Tile, Copy>{src});
    }
  }
}

#endif  // __CUDACC__

}  // namespace tilecraft
