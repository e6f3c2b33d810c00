//! \file memory/transfer_async.cuh
//! The asynchronous transfer of a tile load: each of a thread's vectors goes from global to
//! shared memory with copy_async (cp.async on sm_80+, no register stage), so a thread issues
//! its whole share and runs on. Same interface as the register transfers
//! (memory/transfer_registers.cuh), called by the same copy skeleton (memory/tile_copy.cuh).
//!
//! Per vector: a whole vector inside the matrix with aligned rows moves as copy_async chunks
//! of min(vector, tile's contiguous run) bytes; otherwise element by element (cp.async of one
//! element for naturally aligned 4-, 8- and 16-byte types; a synchronous load for 1- and 2-byte
//! types, which cp.async cannot move, and for types aligned below their size). Elements outside the matrix get `fill`
//! with a plain shared store: any fill value works, and no global address outside the matrix is formed.
#pragma once

#include <cstddef>

#include "../config.cuh"
#include "copy_async.cuh"
#include "copy_partition.cuh"
#include "shared_tile.cuh"

namespace tilecraft {

#if defined(__CUDACC__)

namespace detail {

template <int Threads, class Tile, class Copy>
struct AsyncLoad {
  using Shape = CopyShapeOf<Tile, Copy::mapping>;
  using T = typename Tile::value_type;
  static constexpr int walk_rows = 1;
  static constexpr bool edge_unrolled = false;
  static constexpr int elem_bytes = static_cast<int>(sizeof(T));
  // One async copy of a whole vector: the partition's vector, narrowed to what the tile's
  // layout keeps contiguous and aligned in shared memory.
  static constexpr int chunk_bytes =
      Shape::vector_bytes < Tile::vector_bytes ? Shape::vector_bytes : Tile::vector_bytes;
  static constexpr int chunk_elems = chunk_bytes / elem_bytes;
  Tile& dst;
  T fill;

  // Elements move one cp.async each when the type's alignment guarantees what cp.async needs
  // (an address aligned to the copy size); a 16-byte struct of floats may sit 4-byte aligned.
  static constexpr bool async_elements =
      AsyncCopyBytes<elem_bytes> && alignof(T) >= static_cast<std::size_t>(elem_bytes);

  // One element of the tile from global memory.
  TILECRAFT_DEVICE void element(int r, int c, const T* src) {
    if constexpr (async_elements) {
      copy_async<elem_bytes>(&dst(r, c), src);
    } else {
      dst(r, c) = *src;
    }
  }
  // A whole vector at tile (r, c) from global memory at src, aligned to the vector.
  TILECRAFT_DEVICE void vector(int r, int c, const T* src) {
    if constexpr (AsyncCopyBytes<chunk_bytes>) {
#pragma unroll
      for (int k = 0; k < Shape::vector_elems; k += chunk_elems) copy_async<chunk_bytes>(&dst(r, c + k), src + k);
    } else {
#pragma unroll
      for (int k = 0; k < Shape::vector_elems; ++k) element(r, c + k, src + k);
    }
  }

  template <class Walk, bool V>
  TILECRAFT_DEVICE void full(const Walk& walk, int rank, bank::Coord mine, std::integral_constant<bool, V>) {
    for_each_vector<Threads, Shape>(rank, [&](int i) {
      const bank::Coord rc = Shape::template coord<Threads>(i, rank, mine);
      const T* src = walk(i);
      if constexpr (V) {
        vector(rc.row, rc.col, src);
      } else {
#pragma unroll
        for (int k = 0; k < Shape::vector_elems; ++k) element(rc.row, rc.col + k, src + k);
      }
    });
  }
  template <class Window>
  TILECRAFT_DEVICE void edge(const Window& w, int, bank::Coord rc) {
    if (w.vector_global && w.inside(rc.row, rc.col, Shape::vector_elems)) {
      vector(rc.row, rc.col, w.at(rc.row, rc.col));
      return;
    }
#pragma unroll
    for (int k = 0; k < Shape::vector_elems; ++k) {
      if (w.inside(rc.row, rc.col + k)) {
        element(rc.row, rc.col + k, w.at(rc.row, rc.col + k));
      } else {
        dst(rc.row, rc.col + k) = fill;
      }
    }
  }
};

}  // namespace detail

#endif  // __CUDACC__

}  // namespace tilecraft
