//! \file memory/copy_partition.cuh
//! The partition of a tile copy: which thread moves which vector of a tile, and which of those
//! vectors lie inside the global matrix. Shared by every transfer (registers, cp.async) and by
//! the bank-conflict analysis; knows nothing of how a vector moves.
//!
//! Mapping (TileCopy's TileMapping): the tile is cut into vectors along its rows.
//!   - lines (default): vectors of up to 16 bytes; consecutive threads take consecutive
//!     vectors of one 128-byte row segment, so a warp moves four whole 128-byte lines with
//!     16-byte vectors.
//!   - rows: one warp instruction moves one whole row, each lane row_bytes / 32 of it (rows of
//!     32 to 512 bytes).
//!   - wide: the widest vectors, consecutive threads along whole rows, so a warp instruction
//!     moves 32 contiguous vectors (two 256-byte rows of floats with 16-byte vectors).
//!   - transposed_blocks (stores of a transposed(tile) view only): each thread reads a V x V
//!     block of the tile (V = 16 / sizeof(T)) with V 16-byte shared loads, transposes it in
//!     registers and writes V 16-byte vectors: one shared access per 16 bytes instead of V.
//! Vector i of thread `rank` is vector number i * Threads + rank of the tile.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../config.cuh"
#include "../util/concepts.cuh"
#include "../util/math.cuh"
#include "../util/thread.cuh"
#include "bank_model.cuh"
#include "global_word.cuh"
#include "layout.cuh"
#include "matrix_ref.cuh"
#include "shared_tile.cuh"

namespace tilecraft {

//! How a tile copy cuts a tile into per-thread vectors (see the file comment).
enum class TileMapping {
  //! Widest vectors (<= 16 bytes) that tile a row; a warp covers 128-byte line segments.
  lines,
  //! One warp instruction per row: each lane moves row_bytes / 32 (rows of 32 ... 512 bytes).
  rows,
  //! Widest vectors (<= 16 bytes) that tile a row; consecutive threads walk whole rows.
  wide,
  //! Storing a transposed(tile) view: V x V blocks (V = 16 / sizeof(T), 4- or 8-byte T)
  //! transposed in registers. The tile must keep 16-byte chunks (vector_bytes == 16) and have
  //! rows and columns that are multiples of V; Swizzled<16, V> makes the block reads
  //! conflict-free.
  transposed_blocks,
};

//! A tile copy's policy: cache behaviour of the global accesses and the thread mapping.
//! `TileCopy<>` (normal, lines) is the default of every copy.
//! \code
//! using RowsCopy = tilecraft::TileCopy<tilecraft::CacheHint::normal, tilecraft::TileMapping::rows>;
//! tilecraft::copy_tile<128, RowsCopy>(tile, src, r0, c0);
//! \endcode
template <CacheHint Hint = CacheHint::normal, TileMapping Mapping = TileMapping::lines>
struct TileCopy {
  //! The cache hint of the global accesses.
  static constexpr CacheHint hint = Hint;
  //! The thread mapping.
  static constexpr TileMapping mapping = Mapping;
};

//! True for every TileCopy instantiation (the copies' policy parameter must be one).
template <class>
inline constexpr bool is_tile_copy_v = false;
//! \cond SPECIALIZATIONS
template <CacheHint H, TileMapping M>
inline constexpr bool is_tile_copy_v<TileCopy<H, M>> = true;
//! \endcond

namespace detail {

//! How a copy walks a Rows x Cols tile of ElemBytes-wide elements.
template <int Rows, int Cols, int ElemBytes, TileMapping Mapping = TileMapping::lines>
struct CopyShape {
  static constexpr std::size_t row_bytes = static_cast<std::size_t>(Cols) * ElemBytes;
  static constexpr bool rows_fit = row_bytes % warp_threads == 0 &&
                                   row_bytes / warp_threads >= static_cast<std::size_t>(ElemBytes) &&
                                   row_bytes / warp_threads <= max_vector_bytes && is_pow2(row_bytes / warp_threads);
  static_assert(Mapping != TileMapping::rows || rows_fit,
                "TileMapping::rows: a row must be 32 lanes x (a power of two from sizeof(T) to 16) bytes, "
                "i.e. 32 ... 512 bytes, so one warp instruction moves it whole");
  //! Global-memory vector width. lines: the widest power of two <= 16 bytes that tiles a row;
  //! rows: a row's 32nd part (one element when the rule above is broken, so that the rule's
  //! message is the only error).
  static constexpr int vector_bytes =
      Mapping == TileMapping::rows ? (rows_fit ? static_cast<int>(row_bytes / warp_threads) : ElemBytes)
      : largest_vector_dividing(row_bytes) < ElemBytes ? ElemBytes
                                                       : largest_vector_dividing(row_bytes);
  static constexpr int vector_elems = vector_bytes / ElemBytes;
  static constexpr int row_vectors = Cols / vector_elems;
  // Vectors per 128-byte line; a row narrower than a line (or not a multiple of one) is a
  // single segment. rows and wide: the whole row is one segment.
  static constexpr int line_vectors = smem_wavefront_bytes / vector_bytes;
  static constexpr int segment_vectors = Mapping == TileMapping::rows || Mapping == TileMapping::wide ? row_vectors
                                         : row_vectors % line_vectors == 0                            ? line_vectors
                                                                                                      : row_vectors;
  static constexpr int total_vectors = Rows * row_vectors;

  //! Tile coordinate of the first element of vector `idx` (idx >= 0; unsigned arithmetic, so
  //! the power-of-two divisions are shifts and masks).
  TILECRAFT_HOST_DEVICE static constexpr bank::Coord coord(int idx) {
    const unsigned u = static_cast<unsigned>(idx);
    const unsigned v = u % segment_vectors;
    const unsigned t = u / segment_vectors;
    const unsigned r = t % Rows;
    const unsigned segment = t / Rows;
    return {static_cast<int>(r), static_cast<int>((segment * segment_vectors + v) * vector_elems)};
  }

  //! True when vector i * Threads + rank lies at coord(rank) + coord(i * Threads) for every
  //! rank < Threads: a block's pass over the tile moves whole rows (or whole segments), so a
  //! thread's vectors sit at compile-time offsets from its first one. Copies then compute one
  //! 64-bit address per thread and fold the rest into immediate offsets and one multiply of ld,
  //! instead of 64-bit index arithmetic per vector (registers are what limits copy kernels'
  //! occupancy).
  template <int Threads>
  static constexpr bool separable = [] {
    if (Rows == 1) return true;  // one row: vector idx is at column idx * vector_elems
    if (Threads % segment_vectors != 0) return false;
    // Rows (segments) one pass moves; >= 1 here (the guard keeps the compiler from seeing a 0).
    constexpr int pass_rows = Threads >= segment_vectors ? Threads / segment_vectors : 1;
    return Rows % pass_rows == 0 || pass_rows % Rows == 0;
  }();

  //! Coordinate of this thread's i-th vector (idx = i * Threads + rank), given mine = coord(rank).
  template <int Threads>
  TILECRAFT_HOST_DEVICE static constexpr bank::Coord coord(int i, int rank, bank::Coord mine) {
    if constexpr (separable<Threads>) {
      const bank::Coord k = coord(i * Threads);
      return {mine.row + k.row, mine.col + k.col};
    } else {
      return coord(i * Threads + rank);
    }
  }

  //! Vectors per thread, and whether every thread has the same number (no index test).
  template <int Threads>
  static constexpr int per_thread = ceil_div(total_vectors, Threads);
  template <int Threads>
  static constexpr bool exact = total_vectors % Threads == 0;
};

template <class Tile, TileMapping Mapping = TileMapping::lines>
using CopyShapeOf = CopyShape<Tile::rows, Tile::cols, static_cast<int>(sizeof(typename Tile::value_type)), Mapping>;

template <class>
inline constexpr bool is_transposed_view_v = false;
template <class Tile>
inline constexpr bool is_transposed_view_v<TransposedView<Tile>> = true;

//! TileMapping::transposed_blocks over a Rows x Cols view (a transposed tile) of ElemBytes-wide
//! elements: the view is cut into bands of V rows, each band into V x V blocks; `bands` walks
//! the blocks as 16-byte vectors of a (Rows / V) x Cols matrix, consecutive threads along a band.
template <int Rows, int Cols, int ElemBytes>
struct BlockShape {
  static_assert(ElemBytes == 4 || ElemBytes == 8,
                "TileMapping::transposed_blocks: elements must be 4 or 8 bytes wide (4 x 4 or 2 x 2 blocks of "
                "16-byte rows)");
  static constexpr int v = max_vector_bytes / ElemBytes;
  static_assert(Rows % v == 0 && Cols % v == 0,
                "TileMapping::transposed_blocks: the tile's rows and columns must be multiples of "
                "V = 16 / sizeof(T)");
  using bands = CopyShape<Rows / v, Cols, ElemBytes, TileMapping::wide>;
  static_assert(bands::vector_bytes == max_vector_bytes);
  static constexpr int total_blocks = bands::total_vectors;
};

template <class View>
using BlockShapeOf = BlockShape<View::rows, View::cols, static_cast<int>(sizeof(typename View::value_type))>;

// Where [x0, x0 + n) meets [0, extent): the offsets from x0 of its first and end elements inside,
// each clamped to [0, n]. For every x0 (no signed overflow: the origin may be anywhere).
TILECRAFT_HOST_DEVICE constexpr int window_lo(std::int64_t x0, int n) {
  return x0 >= 0 ? 0 : (x0 <= -static_cast<std::int64_t>(n) ? n : static_cast<int>(-x0));
}
TILECRAFT_HOST_DEVICE constexpr int window_hi(std::int64_t extent, std::int64_t x0, int n) {
  if (x0 >= extent) return 0;
  const std::uint64_t inside = static_cast<std::uint64_t>(extent) - static_cast<std::uint64_t>(x0);  // > 0, exact
  return inside >= static_cast<std::uint64_t>(n) ? n : static_cast<int>(inside);
}

//! Where a TileRows x TileCols tile whose element (0, 0) sits at (row0, col0) of a global
//! matrix meets the matrix: tile rows [row_lo, row_hi) and columns [col_lo, col_hi) are
//! inside. Origins may be anywhere, negative or past the end on either axis. The origin's
//! address is kept as an integer, computed in wrapping unsigned arithmetic: at() makes pointers
//! for elements inside only. (A copy's GlobalWalk forms a per-thread base pointer from a full
//! tile's origin even for threads that move nothing; it dereferences addresses inside only.)
template <class Shape, class T, int TileRows, int TileCols>
struct TileWindow {
  std::uintptr_t origin_address;  // address of tile element (0, 0), wrapped modulo 2^64
  std::int64_t ld;
  int row_lo, row_hi, col_lo, col_hi;
  //! Every row of the tile starts aligned to Shape::vector_bytes (the origin's address and, for
  //! tiles of more than one row, the row pitch are multiples of it), so whole vectors may be
  //! moved at once. (A one-row tile never steps by ld: a 1 x n array of odd n, as stencil_1d
  //! reads it, keeps its vectors.)
  bool vector_global;

  TILECRAFT_HOST_DEVICE static TileWindow make(MatrixRef<T> m, std::int64_t row0, std::int64_t col0) {
    TileWindow w;
    w.ld = m.ld;
    w.row_lo = window_lo(row0, TileRows);
    w.row_hi = window_hi(m.rows, row0, TileRows);
    w.col_lo = window_lo(col0, TileCols);
    w.col_hi = window_hi(m.cols, col0, TileCols);
    // Unsigned arithmetic wraps, which keeps the address exact for every element inside and
    // the low bits (all alignment needs) exact everywhere.
    const std::uint64_t offset =
        static_cast<std::uint64_t>(row0) * static_cast<std::uint64_t>(m.ld) + static_cast<std::uint64_t>(col0);
    w.origin_address = reinterpret_cast<std::uintptr_t>(m.data) + static_cast<std::uintptr_t>(offset) * sizeof(T);
    constexpr std::uintptr_t mask = static_cast<std::uintptr_t>(Shape::vector_bytes) - 1;
    const std::uintptr_t pitch = TileRows == 1 ? 0 : static_cast<std::uintptr_t>(m.ld) * sizeof(T);
    w.vector_global = ((w.origin_address | pitch) & mask) == 0;
    return w;
  }
  //! The whole tile lies inside the matrix.
  TILECRAFT_HOST_DEVICE constexpr bool full() const {
    return row_lo == 0 && col_lo == 0 && row_hi == TileRows && col_hi == TileCols;
  }
  //! No element of the tile lies inside the matrix.
  TILECRAFT_HOST_DEVICE constexpr bool empty() const { return row_lo >= row_hi || col_lo >= col_hi; }
  TILECRAFT_HOST_DEVICE constexpr bool row_inside(int r) const { return r >= row_lo && r < row_hi; }
  TILECRAFT_HOST_DEVICE constexpr bool inside(int r, int c) const { return row_inside(r) && c >= col_lo && c < col_hi; }
  //! The `count` elements from tile (r, c) along the row all lie inside.
  TILECRAFT_HOST_DEVICE constexpr bool inside(int r, int c, int count) const {
    return row_inside(r) && c >= col_lo && c + count <= col_hi;
  }
  //! Address of tile element (r, c), which must be inside.
  TILECRAFT_HOST_DEVICE T* at(int r, int c) const {
    return reinterpret_cast<T*>(origin_address +
                                static_cast<std::uintptr_t>(static_cast<std::int64_t>(r) * ld + c) * sizeof(T));
  }
  //! Address of tile element (0, 0) of a full() tile.
  TILECRAFT_HOST_DEVICE T* origin() const { return reinterpret_cast<T*>(origin_address); }
};

//! Global address of this thread's vector i (vector number i * Threads + rank) of a full tile
//! whose element (0, 0) is at `origin`. Separable shapes step from one per-thread base address
//! by compile-time row and column offsets: one 64-bit multiply per thread instead of one per
//! vector.
template <int Threads, class Shape, class T>
struct GlobalWalk {
  T* origin;
  T* base;
  std::int64_t ld;
  int rank;

#if defined(__CUDACC__)
  TILECRAFT_DEVICE GlobalWalk(T* origin_, std::int64_t ld_, int rank_, bank::Coord mine)
      : origin(origin_), base(origin_ + (mine.row * ld_ + mine.col)), ld(ld_), rank(rank_) {}

  TILECRAFT_DEVICE T* operator()(int i) const {
    if constexpr (Shape::template separable<Threads>) {
      const bank::Coord k = Shape::coord(i * Threads);
      return base + (k.row * ld + k.col);
    } else {
      const bank::Coord rc = Shape::coord(i * Threads + rank);
      return origin + (rc.row * ld + rc.col);
    }
  }
#endif
};

#if defined(__CUDACC__)
//! Calls f(i) for each of this thread's vectors i (vector number i * Threads + rank exists),
//! fully unrolled: what register staging needs.
template <int Threads, class Shape, class F>
TILECRAFT_DEVICE void for_each_vector(int rank, F&& f) {
#pragma unroll
  for (int i = 0; i < Shape::template per_thread<Threads>; ++i) {
    if (Shape::template exact<Threads> || i * Threads + rank < Shape::total_vectors) f(i);
  }
}
//! The same, not unrolled: for edge tiles, where code size and registers matter more.
template <int Threads, class Shape, class F>
TILECRAFT_DEVICE void for_each_vector_rolled(int rank, F&& f) {
#pragma unroll 1
  for (int i = 0; i < Shape::template per_thread<Threads>; ++i) {
    if (Shape::template exact<Threads> || i * Threads + rank < Shape::total_vectors) f(i);
  }
}
#endif

}  // namespace detail
}  // namespace tilecraft
