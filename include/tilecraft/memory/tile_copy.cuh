//! \file memory/tile_copy.cuh
//! Cooperative, coalesced copies of a tile between global memory and a SharedMatrix.
//!
//! Mapping (TileCopy's TileMapping): the tile is cut into vectors along its rows.
//!   - lines (default): vectors of up to 16 bytes; consecutive threads take consecutive
//!     vectors of one 128-byte row segment, so a warp moves four whole 128-byte lines with
//!     16-byte vectors.
//!   - rows: one warp instruction moves one whole row, each lane row_bytes / 32 of it (rows of
//!     32 to 512 bytes). Measured faster for 8-byte transposes (benchmarks/TUNING.md).
//!   - wide: the widest vectors, consecutive threads along whole rows, so a warp instruction
//!     moves 32 contiguous vectors (two 256-byte rows of floats with 16-byte vectors).
//!   - transposed_blocks (stores of a transposed(tile) view only): each thread reads a V x V
//!     block of the tile (V = 16 / sizeof(T)) with V 16-byte shared loads, transposes it in
//!     registers and writes V 16-byte vectors: one shared access per 16 bytes instead of V.
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
  //! Widest vectors (<= 16 bytes) that tile a row; consecutive threads walk whole rows.
  wide,
  //! Storing a transposed(tile) view: V x V blocks (V = 16 / sizeof(T), 4- or 8-byte T)
  //! transposed in registers. The tile must keep 16-byte chunks (vector_bytes == 16) and have
  //! rows and columns that are multiples of V; Swizzled<16, V> makes the block reads
  //! conflict-free.
  transposed_blocks,
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
  static constexpr bool separable = Threads % segment_vectors == 0 && ((Rows % (Threads / segment_vectors)) == 0 ||
                                                                       (Threads / segment_vectors) % Rows == 0);

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

// copy_tile_conflict_factor for the vector mappings (lines, rows, wide).
template <class Tile, TileMapping Mapping>
constexpr int copy_conflict_factor() {
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
}  // namespace detail

//! The worst shared-memory conflict factor (wavefronts over the conflict-free minimum) of any
//! shared-memory instruction copy_tile issues for this tile or view with this mapping,
//! assuming whole warps. 1 means every access of the copy is conflict-free. constexpr: use it
//! in static_assert.
template <class Tile, TileMapping Mapping = TileMapping::lines>
constexpr int copy_tile_conflict_factor() {
  if constexpr (Mapping == TileMapping::transposed_blocks) {
    static_assert(detail::is_transposed_view_v<Tile>,
                  "TileMapping::transposed_blocks: only a transposed(tile) view is stored this way");
    using Under = typename Tile::tile_type;
    using Shape = detail::BlockShapeOf<Tile>;
    static_assert(Under::vector_bytes == max_vector_bytes,
                  "TileMapping::transposed_blocks: the tile must keep 16-byte chunks along its rows "
                  "(vector_bytes == 16, e.g. Swizzled<16, V> or an unpadded row of a multiple of 16 bytes)");
    int worst = 1;
    // Shared load k of a block: tile row (view column) bc + k, 16 bytes from tile column band * V.
    for (int base = 0; base < Shape::total_blocks; base += warp_threads) {
      for (int k = 0; k < Shape::v; ++k) {
        const int w = bank::tile_wavefronts<Under>(
            [&](int lane) {
              const int idx = base + lane;
              if (idx >= Shape::total_blocks) return bank::Coord{-1, 0};
              const bank::Coord b = Shape::bands::coord(idx);
              return bank::Coord{b.col + k, b.row * Shape::v};
            },
            max_vector_bytes);
        const int factor = ceil_div(w, bank::ideal_wavefronts(max_vector_bytes));
        if (factor > worst) worst = factor;
      }
    }
    return worst;
  } else {
    return detail::copy_conflict_factor<Tile, Mapping>();
  }
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
  static_assert(Copy::mapping != TileMapping::transposed_blocks,
                "TileMapping::transposed_blocks only stores transposed(tile) views to global memory; "
                "load tiles with lines, rows or wide");
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

// A vector of global memory as one access (Vector) or element by element (rows not aligned).
template <bool Vector, CacheHint Hint, class Word, class T>
TILECRAFT_DEVICE Word read_global_vector(const T* p) {
  if constexpr (Vector) {
    return load_global_word<Hint>(reinterpret_cast<const Word*>(p));
  } else {
    T v[sizeof(Word) / sizeof(T)];
#pragma unroll
    for (std::size_t j = 0; j < sizeof(Word) / sizeof(T); ++j) v[j] = p[j];
    Word w;
    std::memcpy(&w, v, sizeof(Word));
    return w;
  }
}
template <bool Vector, CacheHint Hint, class Word, class T>
TILECRAFT_DEVICE void write_global_vector(T* p, const Word& w) {
  if constexpr (Vector) {
    store_global_word<Hint>(reinterpret_cast<Word*>(p), w);
  } else {
    T v[sizeof(Word) / sizeof(T)];
    std::memcpy(v, &w, sizeof(Word));
#pragma unroll
    for (std::size_t j = 0; j < sizeof(Word) / sizeof(T); ++j) p[j] = v[j];
  }
}

// A vector of a shared tile (or view): one access when the tile's rows allow it, else elements.
template <class Shape, class Word, class Tile>
TILECRAFT_DEVICE Word read_tile_vector(const Tile& tile, bank::Coord rc) {
  if constexpr (Tile::vector_bytes >= Shape::vector_bytes) {
    return *reinterpret_cast<const Word*>(&tile(rc.row, rc.col));
  } else {
    typename Tile::value_type v[Shape::vector_elems];
#pragma unroll
    for (int j = 0; j < Shape::vector_elems; ++j) v[j] = tile(rc.row, rc.col + j);
    Word w;
    std::memcpy(&w, v, sizeof(Word));
    return w;
  }
}
template <class Shape, class Word, class Tile>
TILECRAFT_DEVICE void write_tile_vector(Tile& tile, bank::Coord rc, const Word& w) {
  if constexpr (Tile::vector_bytes >= Shape::vector_bytes) {
    *reinterpret_cast<Word*>(&tile(rc.row, rc.col)) = w;
  } else {
    typename Tile::value_type v[Shape::vector_elems];
    std::memcpy(v, &w, sizeof(Word));
#pragma unroll
    for (int j = 0; j < Shape::vector_elems; ++j) tile(rc.row, rc.col + j) = v[j];
  }
}

// Global address of this thread's vector i (vector index i * Threads + rank) for a tile whose
// top-left element is at `origin`. Separable shapes step from one per-thread base address by
// compile-time row and column offsets: one 64-bit multiply per thread instead of one per
// vector, which is what kept copy kernels' register counts (and occupancy) down.
template <int Threads, class Shape, class T>
struct GlobalWalk {
  T* origin;
  T* base;
  std::int64_t ld;
  int rank;

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
};

template <class T>
TILECRAFT_DEVICE bool is_aligned(const T* p, int bytes) {
  return (reinterpret_cast<std::uintptr_t>(p) & static_cast<std::uintptr_t>(bytes - 1)) == 0;
}

// Clamp (extent - origin) to [0, tile_extent]: how much of a tile lies inside the matrix.
TILECRAFT_DEVICE int valid_extent(std::int64_t extent, std::int64_t origin, int tile_extent) {
  const std::int64_t left = extent - origin;
  return left <= 0 ? 0 : (left >= tile_extent ? tile_extent : static_cast<int>(left));
}

// Where a TileRows x TileCols tile at (row0, col0) meets a global matrix: the part of the
// tile inside it, the address of the tile's first element (the matrix's first when no element
// is inside), and whether every row of the tile starts vector-aligned.
template <class Shape, class T, int TileRows, int TileCols>
struct TileWindow {
  int valid_rows;
  int valid_cols;
  T* origin;
  bool vector_global;

  TILECRAFT_DEVICE static TileWindow make(MatrixRef<T> m, std::int64_t row0, std::int64_t col0) {
    TileWindow w;
    w.valid_rows = valid_extent(m.rows, row0, TileRows);
    w.valid_cols = valid_extent(m.cols, col0, TileCols);
    w.origin = m.data + (w.valid_rows > 0 && w.valid_cols > 0 ? row0 * m.ld + col0 : 0);
    w.vector_global = is_aligned(w.origin, Shape::vector_bytes) &&
                      (m.ld * static_cast<std::int64_t>(sizeof(T))) % Shape::vector_bytes == 0;
    return w;
  }
  TILECRAFT_DEVICE bool full() const { return valid_rows == TileRows && valid_cols == TileCols; }
};

// Loads this thread's vectors of a tile that lies wholly inside the matrix: all loads first,
// unrolled, no bounds checks. Vector: rows are aligned for whole-vector accesses.
template <bool Vector, CacheHint Hint, int Threads, class Shape, class Word, int N, class T>
TILECRAFT_DEVICE void load_full_tile(Word (&staged)[N], const GlobalWalk<Threads, Shape, T>& walk) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if (Shape::total_vectors % Threads == 0 || i * Threads + walk.rank < Shape::total_vectors) {
      staged[i] = read_global_vector<Vector, Hint, Word>(walk(i));
    }
  }
}
template <bool Vector, CacheHint Hint, int Threads, class Shape, class Word, int N, class T>
TILECRAFT_DEVICE void store_full_tile(const GlobalWalk<Threads, Shape, T>& walk, const Word (&staged)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if (Shape::total_vectors % Threads == 0 || i * Threads + walk.rank < Shape::total_vectors) {
      write_global_vector<Vector, Hint>(walk(i), staged[i]);
    }
  }
}

// One vector of a tile at rc that may cross the matrix edge: a vector access when it lies
// inside and rows are aligned, else the elements inside (the rest read as `fill`).
template <CacheHint Hint, class Shape, class Word, class T, int R, int C, class U>
TILECRAFT_DEVICE Word read_edge_vector(const TileWindow<Shape, T, R, C>& w, std::int64_t ld, bank::Coord rc, U fill) {
  const T* p = w.origin + (rc.row * ld + rc.col);
  if (w.vector_global && rc.row < w.valid_rows && rc.col + Shape::vector_elems <= w.valid_cols) {
    return load_global_word<Hint>(reinterpret_cast<const Word*>(p));
  }
  U v[Shape::vector_elems];
#pragma unroll
  for (int j = 0; j < Shape::vector_elems; ++j) {
    v[j] = (rc.row < w.valid_rows && rc.col + j < w.valid_cols) ? p[j] : fill;
  }
  Word word;
  std::memcpy(&word, v, sizeof(Word));
  return word;
}
template <CacheHint Hint, class Shape, class Word, class T, int R, int C>
TILECRAFT_DEVICE void write_edge_vector(const TileWindow<Shape, T, R, C>& w, std::int64_t ld, bank::Coord rc,
                                        const Word& word) {
  if (rc.row >= w.valid_rows) return;
  T* p = w.origin + (rc.row * ld + rc.col);
  if (w.vector_global && rc.col + Shape::vector_elems <= w.valid_cols) {
    store_global_word<Hint>(reinterpret_cast<Word*>(p), word);
    return;
  }
  std::remove_const_t<T> v[Shape::vector_elems];
  std::memcpy(v, &word, sizeof(Word));
#pragma unroll
  for (int j = 0; j < Shape::vector_elems; ++j) {
    if (rc.col + j < w.valid_cols) p[j] = v[j];
  }
}

// copy_tile of a transposed view with TileMapping::transposed_blocks (see TileMapping).
template <int Threads, CacheHint Hint, class T, class View>
TILECRAFT_DEVICE void copy_transposed_blocks(MatrixRef<T> dst, std::int64_t row0, std::int64_t col0, const View& src) {
  static_assert(is_transposed_view_v<View>,
                "TileMapping::transposed_blocks: only a transposed(tile) view is stored this way");
  static_assert(View::tile_type::vector_bytes == max_vector_bytes,
                "TileMapping::transposed_blocks: the tile must keep 16-byte chunks along its rows "
                "(vector_bytes == 16, e.g. Swizzled<16, V> or an unpadded row of a multiple of 16 bytes)");
  using Shape = BlockShapeOf<View>;
  using Bands = typename Shape::bands;
  using E = typename View::value_type;
  constexpr int v = Shape::v;
  constexpr int iters = ceil_div(Shape::total_blocks, Threads);
  constexpr bool exact = Shape::total_blocks % Threads == 0;

  const int rank = thread_rank();
  if (rank >= Threads) return;
  const auto w = TileWindow<Bands, T, View::rows, View::cols>::make(dst, row0, col0);
  if (w.valid_rows == 0 || w.valid_cols == 0) return;
  const bank::Coord mine = Bands::coord(rank);
  // Block b: band b.row (view rows b.row * V + j, j < V), view columns b.col ... b.col + V - 1.
  // V 16-byte shared loads of tile rows b.col + k, a V x V transpose in registers; out[j] is
  // the 16-byte vector of view row b.row * V + j.
  auto read_block = [&](bank::Coord b, uint4(&out)[v]) {
    E block[v][v];  // block[k][j] = tile(b.col + k, b.row * V + j) = view(b.row * V + j, b.col + k)
#pragma unroll
    for (int k = 0; k < v; ++k) {
      const uint4 q = *reinterpret_cast<const uint4*>(&src.tile(b.col + k, b.row * v));
      std::memcpy(block[k], &q, sizeof(uint4));
    }
#pragma unroll
    for (int j = 0; j < v; ++j) {
      E row[v];
#pragma unroll
      for (int k = 0; k < v; ++k) row[k] = block[k][j];
      std::memcpy(&out[j], row, sizeof(uint4));
    }
  };
  if (w.full()) {
    uint4 staged[iters][v];
#pragma unroll
    for (int i = 0; i < iters; ++i) {
      if (exact || i * Threads + rank < Shape::total_blocks)
        read_block(Bands::template coord<Threads>(i, rank, mine), staged[i]);
    }
    // Bands are V rows apart: the walk steps by V * ld, each row of a block by ld.
    const GlobalWalk<Threads, Bands, T> walk(w.origin, dst.ld * v, rank, mine);
    auto store_all = [&](auto vector) {
#pragma unroll
      for (int i = 0; i < iters; ++i) {
        if (exact || i * Threads + rank < Shape::total_blocks) {
          T* p = walk(i);
#pragma unroll
          for (int j = 0; j < v; ++j) write_global_vector<decltype(vector)::value, Hint>(p + j * dst.ld, staged[i][j]);
        }
      }
    };
    if (w.vector_global) {
      store_all(std::true_type{});
    } else {
      store_all(std::false_type{});
    }
    return;
  }
  // Across the matrix edge: a block at a time (no staging, so no registers held for it).
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
    if (exact || i * Threads + rank < Shape::total_blocks) {
      const bank::Coord b = Bands::template coord<Threads>(i, rank, mine);
      uint4 out[v];
      read_block(b, out);
#pragma unroll
      for (int j = 0; j < v; ++j) write_edge_vector<Hint, Bands>(w, dst.ld, bank::Coord{b.row * v + j, b.col}, out[j]);
    }
  }
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
  const int rank = thread_rank();
  if (rank >= Threads) return;
  TILECRAFT_ASSERT(block_threads() >= Threads);
  const auto w = detail::TileWindow<Shape, S, Tile::rows, Tile::cols>::make(src, row0, col0);
  const bank::Coord mine = Shape::coord(rank);
  if (w.full()) {
    const detail::GlobalWalk<Threads, Shape, S> walk(w.origin, src.ld, rank, mine);
    if (w.vector_global) {
      detail::load_full_tile<true, Hint>(frag.staged, walk);
    } else {
      detail::load_full_tile<false, Hint>(frag.staged, walk);
    }
    return;
  }
  // A tile across the matrix edge. Unrolled: the fragment lives in registers.
#pragma unroll
  for (int i = 0; i < Frag::vectors; ++i) {
    if (Frag::exact || i * Threads + rank < Shape::total_vectors) {
      frag.staged[i] =
          detail::read_edge_vector<Hint, Shape, Word>(w, src.ld, Shape::template coord<Threads>(i, rank, mine), fill);
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
  const int rank = thread_rank();
  if (rank >= Threads) return;
  const bank::Coord mine = Shape::coord(rank);
#pragma unroll
  for (int i = 0; i < Frag::vectors; ++i) {
    if (Frag::exact || i * Threads + rank < Shape::total_vectors) {
      detail::write_tile_vector<Shape>(dst, Shape::template coord<Threads>(i, rank, mine), frag.staged[i]);
    }
  }
}

//! Block-cooperative load: dst(r, c) = src(row0 + r, col0 + c) for every element of the tile
//! inside src, and `fill` for elements outside it.
//!
//! Threads: threads with rank 0 ... Threads-1 of the block take part (thread_rank order);
//! others return at once. Barriers: none; call `__syncthreads()` before any thread reads
//! elements another thread wrote. Vectorized (up to 16 bytes) when `src.data`, `src.ld` and
//! `col0` keep the tile's rows aligned; correct for any alignment. For a tile wholly inside
//! src each thread issues all of its global loads before its first shared-memory store
//! (load_fragment + store_fragment); a tile across the edge is copied a vector at a time, so
//! that its bounds checks cost no registers in the common case.
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
  using Tile = SharedMatrix<T, Rows, Cols, Layout>;
  using Frag = TileFragment<Threads, Tile, Copy>;
  using Shape = typename Frag::Shape;
  using Word = typename Frag::Word;
  const int rank = thread_rank();
  if (rank >= Threads) return;
  const auto w = detail::TileWindow<Shape, S, Rows, Cols>::make(src, row0, col0);
  const bank::Coord mine = Shape::coord(rank);
  if (w.full()) {
    Frag frag;
    const detail::GlobalWalk<Threads, Shape, S> walk(w.origin, src.ld, rank, mine);
    if (w.vector_global) {
      detail::load_full_tile<true, Copy::hint>(frag.staged, walk);
    } else {
      detail::load_full_tile<false, Copy::hint>(frag.staged, walk);
    }
    store_fragment(dst, frag);
    return;
  }
#pragma unroll 1
  for (int i = 0; i < Frag::vectors; ++i) {
    if (Frag::exact || i * Threads + rank < Shape::total_vectors) {
      const bank::Coord rc = Shape::template coord<Threads>(i, rank, mine);
      detail::write_tile_vector<Shape>(dst, rc, detail::read_edge_vector<Copy::hint, Shape, Word>(w, src.ld, rc, fill));
    }
  }
}

namespace detail {
// copy_tile to global memory with the vector mappings (lines, rows, wide).
template <int Threads, class Copy, class T, class Tile>
TILECRAFT_DEVICE void copy_tile_vectors(MatrixRef<T> dst, std::int64_t row0, std::int64_t col0, const Tile& src) {
  using Shape = CopyShapeOf<Tile, Copy::mapping>;
  using Word = typename VectorWord<Shape::vector_bytes>::type;
  constexpr int iters = ceil_div(Shape::total_vectors, Threads);
  constexpr bool exact = Shape::total_vectors % Threads == 0;

  const int rank = thread_rank();
  if (rank >= Threads) return;
  const auto w = TileWindow<Shape, T, Tile::rows, Tile::cols>::make(dst, row0, col0);
  if (w.valid_rows == 0 || w.valid_cols == 0) return;
  const bank::Coord mine = Shape::coord(rank);
  if (w.full()) {
    Word staged[iters];
#pragma unroll
    for (int i = 0; i < iters; ++i) {
      if (exact || i * Threads + rank < Shape::total_vectors) {
        staged[i] = read_tile_vector<Shape, Word>(src, Shape::template coord<Threads>(i, rank, mine));
      }
    }
    const GlobalWalk<Threads, Shape, T> walk(w.origin, dst.ld, rank, mine);
    if (w.vector_global) {
      store_full_tile<true, Copy::hint>(walk, staged);
    } else {
      store_full_tile<false, Copy::hint>(walk, staged);
    }
    return;
  }
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
    if (exact || i * Threads + rank < Shape::total_vectors) {
      const bank::Coord rc = Shape::template coord<Threads>(i, rank, mine);
      write_edge_vector<Copy::hint, Shape>(w, dst.ld, rc, read_tile_vector<Shape, Word>(src, rc));
    }
  }
}
}  // namespace detail

//! Block-cooperative store: dst(row0 + r, col0 + c) = src(r, c) for every element of the tile
//! (or transposed view) that lies inside dst; elements outside dst are not written.
//!
//! Threads and barriers as for the load: ranks 0 ... Threads-1 take part, no barrier inside;
//! the threads that wrote `src` must have passed a `__syncthreads()` first. For a tile wholly
//! inside dst each thread reads its whole share from shared memory before its first global
//! store; across the edge it goes a vector at a time. `Copy`: the thread mapping and cache
//! hint, as for the load.
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
  if constexpr (Copy::mapping == TileMapping::transposed_blocks) {
    detail::copy_transposed_blocks<Threads, Copy::hint>(dst, row0, col0, src);
  } else {
    detail::copy_tile_vectors<Threads, Copy>(dst, row0, col0, src);
  }
}

#endif  // __CUDACC__

}  // namespace tilecraft
