//! \file memory/transfer_registers.cuh
//! The register transfers of a tile copy: how one thread's vectors move between global and
//! shared memory through registers (ld.global + st.shared, or ld.shared + st.global). The copy
//! skeleton in memory/tile_copy.cuh calls them; they know the partition's coordinates but not
//! how the tile is walked or bounded.
//!
//! A transfer provides:
//!   - `full(walk, rank, mine, vector)`: this thread's whole share of a tile that lies inside
//!     the matrix (`vector`: std::true_type when rows are aligned for whole-vector accesses);
//!   - `edge(window, i, rc)`: vector i (at tile coordinate rc) of a tile across the matrix edge;
//!   - `walk_rows` (global rows per walk row) and `edge_unrolled` (unroll the edge loop: the
//!     transfer keeps per-vector state in registers);
//!   - optionally `edge_finish(rank, mine)`, called after an edge tile's last edge(): where
//!     edge() only staged its vector.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../config.cuh"
#include "../util/concepts.cuh"
#include "../util/math.cuh"
#include "copy_partition.cuh"
#include "global_word.cuh"
#include "shared_tile.cuh"

namespace tilecraft {

//! One thread's share of a tile in registers, between a global load (load_fragment) and a
//! shared store (store_fragment). Splitting copy_tile in two lets a kernel issue the loads of
//! its next tile before it works on the current one (software pipelining through registers,
//! the pre-cp.async way to keep memory busy). Trivial; holds ceil(tile vectors / Threads)
//! vectors of up to 16 bytes in `staged`.
//! \code
//! tilecraft::TileFragment<128, Tile> next;
//! tilecraft::load_fragment(next, src, r0, c0);   // loads in flight
//! /* ... compute on the current tile ... */
//! __syncthreads();
//! tilecraft::store_fragment(tile, next);
//! \endcode
template <int Threads, class Tile, class Copy = TileCopy<>>
struct TileFragment {
  static_assert(ValidBlockThreads<Threads>,
                "TileFragment: Threads must be between 1 and 1024 (the threads of one block)");
  static_assert(is_tile_copy_v<Copy>, "TileFragment: Copy must be a tilecraft::TileCopy<Hint, Mapping>");
  static_assert(Copy::mapping != TileMapping::transposed_blocks,
                "TileMapping::transposed_blocks only stores transposed(tile) views to global memory; "
                "load tiles with lines, rows or wide");
  //! The fragment's copy policy.
  using copy_policy = Copy;
  //! The partition of the tile (detail).
  using Shape = detail::CopyShapeOf<Tile, Copy::mapping>;
  //! The register type of one vector.
  using Word = detail::vector_word_t<Shape::vector_bytes>;
  //! Vectors this thread holds (the last ones may be unused when !exact).
  static constexpr int vectors = Shape::template per_thread<Threads>;
  //! True when every thread has the same number of vectors (no bounds test on the index).
  static constexpr bool exact = Shape::template exact<Threads>;
  //! The staged vectors.
  Word staged[static_cast<std::size_t>(vectors)];
};

#if defined(__CUDACC__)

namespace detail {

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

// A vector of a tile across the matrix edge: one access when it lies inside and rows are
// aligned, else the elements inside (the rest read as `fill`).
template <CacheHint Hint, class Shape, class Word, class Window, class U>
TILECRAFT_DEVICE Word read_edge_vector(const Window& w, bank::Coord rc, U fill) {
  if (w.vector_global && w.inside(rc.row, rc.col, Shape::vector_elems)) {
    return load_global_word<Hint>(reinterpret_cast<const Word*>(w.at(rc.row, rc.col)));
  }
  U v[Shape::vector_elems];
#pragma unroll
  for (int j = 0; j < Shape::vector_elems; ++j) v[j] = w.inside(rc.row, rc.col + j) ? *w.at(rc.row, rc.col + j) : fill;
  Word word;
  std::memcpy(&word, v, sizeof(Word));
  return word;
}
// Writes the elements of a vector that lie inside the matrix.
template <CacheHint Hint, class Shape, class Word, class Window>
TILECRAFT_DEVICE void write_edge_vector(const Window& w, bank::Coord rc, const Word& word) {
  if (!w.row_inside(rc.row)) return;
  if (w.vector_global && w.inside(rc.row, rc.col, Shape::vector_elems)) {
    store_global_word<Hint>(reinterpret_cast<Word*>(w.at(rc.row, rc.col)), word);
    return;
  }
  std::remove_const_t<std::remove_pointer_t<decltype(w.at(0, 0))>> v[Shape::vector_elems];
  std::memcpy(v, &word, sizeof(Word));
#pragma unroll
  for (int j = 0; j < Shape::vector_elems; ++j) {
    if (w.inside(rc.row, rc.col + j)) *w.at(rc.row, rc.col + j) = v[j];
  }
}

// global -> registers: a TileFragment's load.
template <int Threads, class Tile, class Copy>
struct FragmentLoad {
  using Frag = TileFragment<Threads, Tile, Copy>;
  using Shape = typename Frag::Shape;
  using Word = typename Frag::Word;
  static constexpr int walk_rows = 1;
  static constexpr bool edge_unrolled = true;  // the fragment lives in registers
  Frag& frag;
  typename Tile::value_type fill;

  template <class Walk, bool V>
  TILECRAFT_DEVICE void full(const Walk& walk, int rank, bank::Coord, std::integral_constant<bool, V>) {
    for_each_vector<Threads, Shape>(rank,
                                    [&](int i) { frag.staged[i] = read_global_vector<V, Copy::hint, Word>(walk(i)); });
  }
  template <class Window>
  TILECRAFT_DEVICE void edge(const Window& w, int i, bank::Coord rc) {
    frag.staged[i] = read_edge_vector<Copy::hint, Shape, Word>(w, rc, fill);
  }
};

// global -> registers -> shared: copy_tile's load. Every tile stages the thread's share in
// registers: all its loads are issued before the first shared store. (Edge tiles once went a
// vector at a time, each load waited for before the next: a ragged 64 x 64 float tile of a
// transpose took 16 DRAM round trips in a row, and the one wave of a 1100 x 1500 transpose
// 12 us instead of 4.)
template <int Threads, class Tile, class Copy>
struct RegisterLoad {
  using Frag = TileFragment<Threads, Tile, Copy>;
  using Shape = typename Frag::Shape;
  using Word = typename Frag::Word;
  static constexpr int walk_rows = 1;
  static constexpr bool edge_unrolled = true;
  Tile& dst;
  typename Tile::value_type fill;
  Frag edge_frag{};  // an edge tile's vectors, between edge() and edge_finish()

  template <class Walk, bool V>
  TILECRAFT_DEVICE void full(const Walk& walk, int rank, bank::Coord mine, std::integral_constant<bool, V> vector) {
    Frag frag;
    FragmentLoad<Threads, Tile, Copy>{frag, fill}.full(walk, rank, mine, vector);
    for_each_vector<Threads, Shape>(rank, [&](int i) {
      write_tile_vector<Shape>(dst, Shape::template coord<Threads>(i, rank, mine), frag.staged[i]);
    });
  }
  template <class Window>
  TILECRAFT_DEVICE void edge(const Window& w, int i, bank::Coord rc) {
    edge_frag.staged[i] = read_edge_vector<Copy::hint, Shape, Word>(w, rc, fill);
  }
  TILECRAFT_DEVICE void edge_finish(int rank, bank::Coord mine) {
    for_each_vector<Threads, Shape>(rank, [&](int i) {
      write_tile_vector<Shape>(dst, Shape::template coord<Threads>(i, rank, mine), edge_frag.staged[i]);
    });
  }
};

// shared -> registers -> global: copy_tile's store with the vector mappings.
template <int Threads, class Tile, class Copy>
struct RegisterStore {
  using Shape = CopyShapeOf<Tile, Copy::mapping>;
  using Word = vector_word_t<Shape::vector_bytes>;
  static constexpr int walk_rows = 1;
  static constexpr bool edge_unrolled = false;
  const Tile& src;

  template <class Walk, bool V>
  TILECRAFT_DEVICE void full(const Walk& walk, int rank, bank::Coord mine, std::integral_constant<bool, V>) {
    Word staged[Shape::template per_thread<Threads>];
    for_each_vector<Threads, Shape>(rank, [&](int i) {
      staged[i] = read_tile_vector<Shape, Word>(src, Shape::template coord<Threads>(i, rank, mine));
    });
    for_each_vector<Threads, Shape>(rank, [&](int i) { write_global_vector<V, Copy::hint>(walk(i), staged[i]); });
  }
  template <class Window>
  TILECRAFT_DEVICE void edge(const Window& w, int, bank::Coord rc) {
    write_edge_vector<Copy::hint, Shape>(w, rc, read_tile_vector<Shape, Word>(src, rc));
  }
};

// shared -> registers -> global for a transposed view with TileMapping::transposed_blocks:
// V 16-byte shared loads of a V x V block, a transpose in registers, V 16-byte global
// vectors. The partition walks blocks as the 16-byte vectors of the bands matrix, so a walk
// row is V rows of global memory.
template <int Threads, class View, class Copy>
struct TransposedBlockStore {
  static_assert(is_transposed_view_v<View>,
                "TileMapping::transposed_blocks: only a transposed(tile) view is stored this way");
  static_assert(View::tile_type::vector_bytes == max_vector_bytes,
                "TileMapping::transposed_blocks: the tile must keep 16-byte chunks along its rows "
                "(vector_bytes == 16, e.g. Swizzled<16, V> or an unpadded row of a multiple of 16 bytes)");
  using Blocks = BlockShapeOf<View>;
  using Shape = typename Blocks::bands;
  using E = typename View::value_type;
  static constexpr int v = Blocks::v;
  static constexpr int walk_rows = v;
  static constexpr bool edge_unrolled = false;
  const View& src;

  // Block b: band b.row (view rows b.row * V + j, j < V), view columns b.col ... b.col + V - 1;
  // out[j] is the 16-byte vector of view row b.row * V + j.
  TILECRAFT_DEVICE void read_block(bank::Coord b, uint4 (&out)[static_cast<std::size_t>(v)]) const {
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
  }

  template <class Walk, bool V>
  TILECRAFT_DEVICE void full(const Walk& walk, int rank, bank::Coord mine, std::integral_constant<bool, V>) {
    uint4 staged[Shape::template per_thread<Threads>][v];
    for_each_vector<Threads, Shape>(
        rank, [&](int i) { read_block(Shape::template coord<Threads>(i, rank, mine), staged[i]); });
    const std::int64_t ld = walk.ld / v;
    for_each_vector<Threads, Shape>(rank, [&](int i) {
      auto* p = walk(i);
#pragma unroll
      for (int j = 0; j < v; ++j) write_global_vector<V, Copy::hint>(p + j * ld, staged[i][j]);
    });
  }
  template <class Window>
  TILECRAFT_DEVICE void edge(const Window& w, int, bank::Coord b) {
    uint4 out[v];
    read_block(b, out);
#pragma unroll
    for (int j = 0; j < v; ++j) write_edge_vector<Copy::hint, Shape>(w, bank::Coord{b.row * v + j, b.col}, out[j]);
  }
};

}  // namespace detail

#endif  // __CUDACC__

}  // namespace tilecraft
