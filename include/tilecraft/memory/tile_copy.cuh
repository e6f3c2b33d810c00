//! \file memory/tile_copy.cuh
//! Cooperative, coalesced copies of a tile between global memory and a SharedMatrix.
//!
//! Mapping (TileCopy's TileMapping): the tile is cut into vectors along its rows.
//!   - lines (default): vectors of up to 16 bytes; consecutive threads take consecutive
//!     vectors of one 128-byte row segment, so a warp moves four whole 128-byte lines with
//!     16-byte vectors.
//!   - rows: one warp instruction moves one whole row, each lane row_bytes / 32 of it (rows of
//!     32 to 512 bytes). Measured faster for 8-byte transposes (benchmarks/TUNING.md).
//! Vector accesses are used when the global origin and leading dimension are aligned;
//! otherwise, and for vectors that straddle the matrix edge, the same threads move single
//! elements with bounds checks. Elements outside the matrix are filled (loads) or skipped
//! (stores), so partial tiles at the matrix edges need no special code.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <vector_types.h>

#include "../arch/global_access.cuh"
#include "../config.cuh"
#include "../util/math.cuh"
#include "../util/thread.cuh"
#include "bank_model.cuh"
#include "layout.cuh"
#include "shared_tile.cuh"

namespace tilecraft {

//! A row-major matrix in global memory: `rows x cols` elements, row r starting at
//! `data + r * ld` (ld >= cols, in elements). T may be const for read-only sources.
template <class T>
struct MatrixRef {
  T* data;
  std::int64_t rows;
  std::int64_t cols;
  std::int64_t ld;

  TILECRAFT_HOST_DEVICE T& operator()(std::int64_t r, std::int64_t c) const { return data[r * ld + c]; }
};

//! How a tile copy's vector accesses to global memory use the caches.
enum class CacheHint {
  //! Plain loads and stores: lines are allocated in L1 (loads) and L2 as usual.
  normal,
  //! Data touched once: loads take the read-only path without allocating in L1 and let L2
  //! fetch 256-byte blocks (sm_80+); stores are evict-first. The source must not be written by
  //! any thread while the kernel runs (see arch/global_access.cuh). Measured slower than normal
  //! for whole-GPU streams on an H200 (benchmarks/TUNING.md): opt in only after measuring.
  streaming,
};

//! How a tile copy cuts a tile into per-thread vectors (see the file comment).
enum class TileMapping {
  //! Widest vectors (<= 16 bytes) that tile a row; a warp covers 128-byte line segments.
  lines,
  //! One warp instruction per row: each lane moves row_bytes / 32 (rows of 32 ... 512 bytes).
  rows,
};

//! A tile copy's policy: cache behaviour and thread mapping. `TileCopy<>` is the default.
template <CacheHint Hint = CacheHint::normal, TileMapping Mapping = TileMapping::lines>
struct TileCopy {
  static constexpr CacheHint hint = Hint;
  static constexpr TileMapping mapping = Mapping;
};

template <class>
inline constexpr bool is_tile_copy_v = false;
template <CacheHint H, TileMapping M>
inline constexpr bool is_tile_copy_v<TileCopy<H, M>> = true;

namespace detail {

template <int Bytes>
struct VectorWord;
template <>
struct VectorWord<1> {
  using type = unsigned char;
};
template <>
struct VectorWord<2> {
  using type = unsigned short;
};
template <>
struct VectorWord<4> {
  using type = unsigned int;
};
template <>
struct VectorWord<8> {
  using type = uint2;
};
template <>
struct VectorWord<16> {
  using type = uint4;
};

//! How copy_tile walks a Rows x Cols tile of ElemBytes-wide elements.
template <int Rows, int Cols, int ElemBytes, TileMapping Mapping = TileMapping::lines>
struct CopyShape {
  static constexpr std::size_t row_bytes = static_cast<std::size_t>(Cols) * ElemBytes;
  static_assert(Mapping != TileMapping::rows ||
                    (row_bytes % warp_threads == 0 && row_bytes / warp_threads >= static_cast<std::size_t>(ElemBytes) &&
                     row_bytes / warp_threads <= max_vector_bytes && is_pow2(row_bytes / warp_threads)),
                "TileMapping::rows: a row must be 32 lanes x (a power of two from sizeof(T) to 16) bytes, "
                "i.e. 32 ... 512 bytes, so one warp instruction moves it whole");
  //! Global-memory vector width. lines: the widest power of two <= 16 bytes that tiles a row;
  //! rows: a row's 32nd part.
  static constexpr int vector_bytes = Mapping == TileMapping::rows ? static_cast<int>(row_bytes / warp_threads)
                                      : largest_vector_dividing(row_bytes) < ElemBytes
                                          ? ElemBytes
                                          : largest_vector_dividing(row_bytes);
  static constexpr int vector_elems = vector_bytes / ElemBytes;
  static constexpr int row_vectors = Cols / vector_elems;
  // Vectors per 128-byte line; a row narrower than a line (or not a multiple of one) is a
  // single segment. rows: the whole row is one segment.
  static constexpr int line_vectors = smem_wavefront_bytes / vector_bytes;
  static constexpr int segment_vectors = Mapping == TileMapping::rows      ? row_vectors
                                         : row_vectors % line_vectors == 0 ? line_vectors
                                                                           : row_vectors;
  static constexpr int total_vectors = Rows * row_vectors;

  //! Tile coordinate of the first element of vector `idx`.
  TILECRAFT_HOST_DEVICE static constexpr bank::Coord coord(int idx) {
    const int v = idx % segment_vectors;
    const int t = idx / segment_vectors;
    const int r = t % Rows;
    const int segment = t / Rows;
    return {r, (segment * segment_vectors + v) * vector_elems};
  }
};

template <class Tile, TileMapping Mapping = TileMapping::lines>
using CopyShapeOf = CopyShape<Tile::rows, Tile::cols, static_cast<int>(sizeof(typename Tile::value_type)), Mapping>;

}  // namespace detail

//! The worst shared-memory conflict factor (wavefronts over the conflict-free minimum) of any
//! shared-memory instruction copy_tile issues for this tile or view with this mapping,
//! assuming whole warps. 1 means every access of the copy is conflict-free. constexpr: use it
//! in static_assert.
template <class Tile, TileMapping Mapping = TileMapping::lines>
constexpr int copy_tile_conflict_factor() {
  using Shape = detail::CopyShapeOf<Tile, Mapping>;
  using T = typename Tile::value_type;
  const bool vector_smem = Tile::vector_bytes >= Shape::vector_bytes;
  const int access = vector_smem ? Shape::vector_bytes : static_cast<int>(sizeof(T));
  const int steps = vector_smem ? 1 : Shape::vector_elems;
  int worst = 1;
  for (int base = 0; base < Shape::total_vectors; base += warp_threads) {
    for (int j = 0; j < steps; ++j) {
      const int w = bank::tile_wavefronts<Tile>(
          [&](int lane) {
            const int idx = base + lane;
            if (idx >= Shape::total_vectors) return bank::Coord{-1, 0};
            const bank::Coord rc = Shape::coord(idx);
            return bank::Coord{rc.row, rc.col + j};
          },
          access);
      const int factor = ceil_div(w, bank::ideal_wavefronts(access));
      if (factor > worst) worst = factor;
    }
  }
  return worst;
}

//! One thread's share of a tile in registers, between a global load and a shared store.
//! Splitting copy_tile in two lets a kernel issue the loads of its next tile before it works
//! on the current one (software pipelining through registers, the pre-cp.async way to keep
//! memory busy). Trivial; holds ceil(tile vectors / Threads) vectors of up to 16 bytes.
template <int Threads, class Tile, class Copy = TileCopy<>>
struct TileFragment {
  static_assert(ValidBlockThreads<Threads>,
                "TileFragment: Threads must be between 1 and 1024 (the threads of one block)");
  static_assert(is_tile_copy_v<Copy>, "TileFragment: Copy must be a tilecraft::TileCopy<Hint, Mapping>");
  using copy_policy = Copy;
  using Shape = detail::CopyShapeOf<Tile, Copy::mapping>;
  using Word = typename detail::VectorWord<Shape::vector_bytes>::type;
  static constexpr int vectors = ceil_div(Shape::total_vectors, Threads);
  //! True when every thread has the same number of vectors (no bounds test on the index).
  static constexpr bool exact = Shape::total_vectors % Threads == 0;
  Word staged[vectors];
};

#if defined(__CUDACC__)

namespace detail {

// One vector of a tile copy from or to global memory, with the requested cache behaviour.
template <CacheHint Hint, class Word>
TILECRAFT_DEVICE Word load_global_word(const Word* p) {
  if constexpr (Hint == CacheHint::streaming && requires { arch::ld_global_stream(p); }) {
    return arch::ld_global_stream(p);
  } else {
    return *p;
  }
}
template <CacheHint Hint, class Word>
TILECRAFT_DEVICE void store_global_word(Word* p, const Word& v) {
  if constexpr (Hint == CacheHint::streaming && requires { arch::st_global_stream(p, v); }) {
    arch::st_global_stream(p, v);
  } else {
    *p = v;
  }
}

template <class T>
TILECRAFT_DEVICE bool is_aligned(const T* p, int bytes) {
  return (reinterpret_cast<std::uintptr_t>(p) & static_cast<std::uintptr_t>(bytes - 1)) == 0;
}

// Clamp (extent - origin) to [0, tile_extent]: how much of a tile lies inside the matrix.
TILECRAFT_DEVICE int valid_extent(std::int64_t extent, std::int64_t origin, int tile_extent) {
  const std::int64_t left = extent - origin;
  return left <= 0 ? 0 : (left >= tile_extent ? tile_extent : static_cast<int>(left));
}

}  // namespace detail

//! Global -> registers half of copy_tile: loads this thread's share of the tile at (row0, col0)
//! of src into `frag` (elements outside src read as `fill`). Ranks >= Threads do nothing.
//! No barrier; all loads are issued before any is used. The fragment's TileCopy policy sets
//! the mapping and the cache hint of the vector loads.
template <int Threads, class Tile, class Copy, class S>
TILECRAFT_DEVICE void load_fragment(TileFragment<Threads, Tile, Copy>& frag, MatrixRef<S> src, std::int64_t row0,
                                    std::int64_t col0, typename Tile::value_type fill = {}) {
  static_assert(std::is_same_v<std::remove_const_t<S>, typename Tile::value_type>,
                "load_fragment: the source matrix must hold the tile's element type");
  constexpr CacheHint Hint = Copy::hint;
  using Frag = TileFragment<Threads, Tile, Copy>;
  using Shape = typename Frag::Shape;
  using Word = typename Frag::Word;
  using T = typename Tile::value_type;
  constexpr int vec = Shape::vector_elems;
  const int rank = thread_rank();
  if (rank >= Threads) return;
  TILECRAFT_ASSERT(block_threads() >= Threads);
  const int valid_rows = detail::valid_extent(src.rows, row0, Tile::rows);
  const int valid_cols = detail::valid_extent(src.cols, col0, Tile::cols);
  const T* origin = src.data + (valid_rows > 0 && valid_cols > 0 ? row0 * src.ld + col0 : 0);
  const bool vector_global = detail::is_aligned(origin, Shape::vector_bytes) &&
                             (src.ld * static_cast<std::int64_t>(sizeof(T))) % Shape::vector_bytes == 0;
  if (vector_global && valid_rows == Tile::rows && valid_cols == Tile::cols) {
#pragma unroll
    for (int i = 0; i < Frag::vectors; ++i) {
      const int idx = i * Threads + rank;
      if (Frag::exact || idx < Shape::total_vectors) {
        const bank::Coord rc = Shape::coord(idx);
        frag.staged[i] =
            detail::load_global_word<Hint>(reinterpret_cast<const Word*>(origin + rc.row * src.ld + rc.col));
      }
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < Frag::vectors; ++i) {
    const int idx = i * Threads + rank;
    if (Frag::exact || idx < Shape::total_vectors) {
      const bank::Coord rc = Shape::coord(idx);
      if (vector_global && rc.row < valid_rows && rc.col + vec <= valid_cols) {
        frag.staged[i] =
            detail::load_global_word<Hint>(reinterpret_cast<const Word*>(origin + rc.row * src.ld + rc.col));
      } else {
        T v[vec];
#pragma unroll
        for (int j = 0; j < vec; ++j) {
          v[j] = (rc.row < valid_rows && rc.col + j < valid_cols) ? origin[rc.row * src.ld + rc.col + j] : fill;
        }
        std::memcpy(&frag.staged[i], v, sizeof(Word));
      }
    }
  }
}

//! Registers -> shared half of copy_tile: stores `frag` into its place in `dst`.
//! Ranks >= Threads do nothing. No barrier: `__syncthreads()` before other threads read dst.
template <int Threads, class Tile, class Copy>
TILECRAFT_DEVICE void store_fragment(Tile& dst, const TileFragment<Threads, Tile, Copy>& frag) {
  using Frag = TileFragment<Threads, Tile, Copy>;
  using Shape = typename Frag::Shape;
  using Word = typename Frag::Word;
  using T = typename Tile::value_type;
  constexpr int vec = Shape::vector_elems;
  const int rank = thread_rank();
  if (rank >= Threads) return;
#pragma unroll
  for (int i = 0; i < Frag::vectors; ++i) {
    const int idx = i * Threads + rank;
    if (Frag::exact || idx < Shape::total_vectors) {
      const bank::Coord rc = Shape::coord(idx);
      if constexpr (Tile::vector_bytes >= Shape::vector_bytes) {
        *reinterpret_cast<Word*>(&dst(rc.row, rc.col)) = frag.staged[i];
      } else {
        T v[vec];
        std::memcpy(v, &frag.staged[i], sizeof(Word));
#pragma unroll
        for (int j = 0; j < vec; ++j) dst(rc.row, rc.col + j) = v[j];
      }
    }
  }
}

//! Block-cooperative load: dst(r, c) = src(row0 + r, col0 + c) for every element of the tile
//! inside src, and `fill` for elements outside it.
//!
//! Threads: threads with rank 0 ... Threads-1 of the block take part (thread_rank order);
//! others return at once. Barriers: none; call `__syncthreads()` before any thread reads
//! elements another thread wrote. Vectorized (up to 16 bytes) when `src.data`, `src.ld` and
//! `col0` keep the tile's rows aligned; correct for any alignment. Each thread issues all of
//! its global loads before its first shared-memory store (load_fragment + store_fragment).
//! `Copy` (default TileCopy<>): the thread mapping and cache hint, e.g.
//! `copy_tile<128, TileCopy<CacheHint::normal, TileMapping::rows>>(...)`.
//! \code
//! __shared__ tilecraft::SharedTile<float, 32, 1> tile;
//! tilecraft::copy_tile<256>(tile, tilecraft::MatrixRef<const float>{in, rows, cols, ld}, r0, c0);
//! __syncthreads();
//! \endcode
template <int Threads, class Copy = TileCopy<>, class T, int Rows, int Cols, class Layout, class S>
TILECRAFT_DEVICE void copy_tile(SharedMatrix<T, Rows, Cols, Layout>& dst, MatrixRef<S> src, std::int64_t row0,
                                std::int64_t col0, T fill = T{}) {
  static_assert(std::is_same_v<std::remove_const_t<S>, T>,
                "copy_tile: the source matrix must hold the tile's element type");
  static_assert(ValidBlockThreads<Threads>, "copy_tile: Threads must be between 1 and 1024 (the threads of one block)");
  static_assert(is_tile_copy_v<Copy>, "copy_tile: Copy must be a tilecraft::TileCopy<Hint, Mapping>");
  TileFragment<Threads, SharedMatrix<T, Rows, Cols, Layout>, Copy> frag;
  load_fragment(frag, src, row0, col0, fill);
  store_fragment(dst, frag);
}

//! Block-cooperative store: dst(row0 + r, col0 + c) = src(r, c) for every element of the tile
//! (or transposed view) that lies inside dst; elements outside dst are not written.
//!
//! Threads and barriers as for the load: ranks 0 ... Threads-1 take part, no barrier inside;
//! the threads that wrote `src` must have passed a `__syncthreads()` first. Each thread reads
//! its whole share from shared memory before its first global store. `Copy`: the thread
//! mapping and cache hint, as for the load.
//! \code
//! __syncthreads();
//! tilecraft::copy_tile<256>(tilecraft::MatrixRef<float>{out, cols, rows, ld}, c0, r0,
//!                           tilecraft::transposed(tile));
//! \endcode
template <int Threads, class Copy = TileCopy<>, class T, class Tile>
TILECRAFT_DEVICE void copy_tile(MatrixRef<T> dst, std::int64_t row0, std::int64_t col0, const Tile& src) {
  static_assert(std::is_same_v<std::remove_const_t<T>, typename Tile::value_type>,
                "copy_tile: the destination matrix must hold the tile's element type");
  static_assert(ValidBlockThreads<Threads>, "copy_tile: Threads must be between 1 and 1024 (the threads of one block)");
  static_assert(is_tile_copy_v<Copy>, "copy_tile: Copy must be a tilecraft::TileCopy<Hint, Mapping>");
  constexpr CacheHint Hint = Copy::hint;
  using Shape = detail::CopyShapeOf<Tile, Copy::mapping>;
  using Word = typename detail::VectorWord<Shape::vector_bytes>::type;
  using E = typename Tile::value_type;
  constexpr int vec = Shape::vector_elems;
  constexpr int iters = ceil_div(Shape::total_vectors, Threads);
  constexpr bool exact = Shape::total_vectors % Threads == 0;

  const int rank = thread_rank();
  if (rank >= Threads) return;
  const int valid_rows = detail::valid_extent(dst.rows, row0, Tile::rows);
  const int valid_cols = detail::valid_extent(dst.cols, col0, Tile::cols);
  if (valid_rows == 0 || valid_cols == 0) return;
  T* origin = dst.data + row0 * dst.ld + col0;
  const bool vector_global = detail::is_aligned(origin, Shape::vector_bytes) &&
                             (dst.ld * static_cast<std::int64_t>(sizeof(T))) % Shape::vector_bytes == 0;

  Word staged[iters];
#pragma unroll
  for (int i = 0; i < iters; ++i) {
    const int idx = i * Threads + rank;
    if (exact || idx < Shape::total_vectors) {
      const bank::Coord rc = Shape::coord(idx);
      if constexpr (Tile::vector_bytes >= Shape::vector_bytes) {
        staged[i] = *reinterpret_cast<const Word*>(&src(rc.row, rc.col));
      } else {
        E v[vec];
#pragma unroll
        for (int j = 0; j < vec; ++j) v[j] = src(rc.row, rc.col + j);
        std::memcpy(&staged[i], v, sizeof(Word));
      }
    }
  }
  const bool full = vector_global && valid_rows == Tile::rows && valid_cols == Tile::cols;
#pragma unroll
  for (int i = 0; i < iters; ++i) {
    const int idx = i * Threads + rank;
    if (exact || idx < Shape::total_vectors) {
      const bank::Coord rc = Shape::coord(idx);
      T* out = origin + rc.row * dst.ld + rc.col;
      if (full || (vector_global && rc.row < valid_rows && rc.col + vec <= valid_cols)) {
        detail::store_global_word<Hint>(reinterpret_cast<Word*>(out), staged[i]);
      } else if (rc.row < valid_rows) {
        E v[vec];
        std::memcpy(v, &staged[i], sizeof(Word));
#pragma unroll
        for (int j = 0; j < vec; ++j) {
          if (rc.col + j < valid_cols) out[j] = v[j];
        }
      }
    }
  }
}

#endif  // __CUDACC__

}  // namespace tilecraft
