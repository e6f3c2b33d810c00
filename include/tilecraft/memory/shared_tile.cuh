//! \file memory/shared_tile.cuh
//! Shared-memory tiles: `SharedMatrix<T, Rows, Cols, Layout>` and its square, padded case
//! `SharedTile<T, N, Pad>` (the course's `__shared__ float tile[N][N + Pad]`).
#pragma once

#include <cstddef>
#include <type_traits>

#include "../config.cuh"
#include "../util/concepts.cuh"
#include "layout.cuh"

namespace tilecraft {

//! A Rows x Cols matrix of T in shared memory, placed by a layout policy (`Padded<Pad>` or
//! `Swizzled<ChunkBytes>`). T: trivially copyable and trivially default constructible, 1, 2,
//! 4, 8 or 16 bytes wide; Rows, Cols >= 1.
//!
//! The type is trivial (no constructor, no destructor), so it can be declared `__shared__`,
//! put in a union with other temp storage, or carved from `extern __shared__` memory with
//! `tilecraft::SharedCarve`. Its storage is 16-byte aligned so rows can be filled with 16-byte
//! vector (or cp.async) accesses when the layout keeps them contiguous.
//!
//! Shared memory: `bytes` = sizeof(T) * storage_elems, and sizeof(SharedMatrix) that rounded up
//! to 16 (its alignment: what an array of tiles takes each). No member executes a barrier: every
//! write by one thread that another thread reads needs a `__syncthreads()` in between.
//! Declared `__shared__`, a block's tiles may total at most 48 KiB on every architecture; more
//! must be carved from dynamic shared memory (SharedCarve) and the kernel opted in with
//! tilecraft::opt_in_dynamic_smem, up to max_smem_per_block_optin(major, minor) (sm_75 64 KiB,
//! sm_80 163 KiB, sm_90 227 KiB; util/launch.cuh).
//! \code
//! __shared__ tilecraft::SharedMatrix<float, 32, 32, tilecraft::Padded<1>> a;  // 32 x 32 threads
//! a(threadIdx.y, threadIdx.x) = in[threadIdx.y * 32 + threadIdx.x];
//! __syncthreads();
//! out[threadIdx.y * 32 + threadIdx.x] = a(threadIdx.x, threadIdx.y);  // transposed, conflict-free
//! \endcode
template <class T, int Rows, int Cols, class Layout = Padded<0>>
struct SharedMatrix {
  // A static_assert rather than a concept in the template head: nvcc does not name the
  // unsatisfied concept in its message.
  static_assert(TileElement<T>,
                "SharedMatrix: T must be a TileElement: trivially copyable, default constructible, and 1, 2, 4, 8 or "
                "16 bytes wide (what one memory access moves)");
  static_assert(Rows >= 1 && Cols >= 1, "SharedMatrix: Rows and Cols must both be >= 1");
  static_assert(std::is_trivially_default_constructible_v<T>,
                "SharedMatrix: T must be trivially default constructible to live in __shared__ memory");

  //! The element type.
  using value_type = T;
  //! The layout policy (Padded<Pad> or Swizzled<ChunkBytes, RowGroup>).
  using layout_policy = Layout;
  //! The policy bound to this tile's shape: offset(r, c), storage_elems, vector_bytes.
  using layout = typename Layout::template bind<T, Rows, Cols>;

  //! Rows of the tile.
  static constexpr int rows = Rows;
  //! Columns of the tile.
  static constexpr int cols = Cols;
  //! Elements of storage, padding included.
  static constexpr int storage_elems = layout::storage_elems;
  //! Shared-memory bytes of the tile's elements, padding included (sizeof(SharedMatrix), this
  //! rounded up to 16, is what a tile takes in an array of tiles or a dynamic carve).
  static constexpr std::size_t bytes = sizeof(T) * static_cast<std::size_t>(storage_elems);
  //! Widest contiguous, aligned access along a row (bytes); copies vectorize up to this.
  static constexpr int vector_bytes = layout::vector_bytes;

  static_assert(bytes <= static_cast<std::size_t>(max_smem_per_block),
                "SharedMatrix: the tile needs more shared memory than one sm_90 block can have (227 KiB)");

  //! Element offset of (r, c) from data(); constexpr, usable on the host (bank model, tests).
  TILECRAFT_HOST_DEVICE static constexpr int offset(int r, int c) { return layout::offset(r, c); }

  //! Element (r, c), 0 <= r < rows, 0 <= c < cols (unchecked).
  TILECRAFT_DEVICE T& operator()(int r, int c) { return storage[layout::offset(r, c)]; }
  //! Element (r, c), read-only.
  TILECRAFT_DEVICE const T& operator()(int r, int c) const { return storage[layout::offset(r, c)]; }
  //! The first element of the storage (element (0, 0) lies at data() + offset(0, 0)).
  TILECRAFT_DEVICE T* data() { return storage; }
  //! The first element of the storage, read-only.
  TILECRAFT_DEVICE const T* data() const { return storage; }

  //! The raw storage. Public only so the type stays an aggregate; index it through operator().
  alignas(max_vector_bytes) T storage[static_cast<std::size_t>(storage_elems)];
};

//! The card's square tile: N x N elements of T, every row padded by `Pad` elements.
//! `SharedTile<float, 32, 1>` is `__shared__ float tile[32][33]` with bounds-aware helpers.
template <class T, int N, int Pad = 0>
using SharedTile = SharedMatrix<T, N, N, Padded<Pad>>;

//! True for every SharedMatrix instantiation.
template <class>
inline constexpr bool is_shared_matrix_v = false;
//! \cond SPECIALIZATIONS
template <class T, int R, int C, class L>
inline constexpr bool is_shared_matrix_v<SharedMatrix<T, R, C, L>> = true;
//! \endcond

//! Read-only view of a tile with rows and columns exchanged: view(r, c) == tile(c, r).
//! Storing a transposed view is how a transpose writes its output (see tilecraft::copy_tile).
template <class Tile>
requires is_shared_matrix_v<std::remove_const_t<Tile>>
struct TransposedView {
  //! The viewed tile's type.
  using tile_type = std::remove_const_t<Tile>;
  //! The element type.
  using value_type = typename Tile::value_type;
  //! The viewed tile's layout.
  using layout = typename Tile::layout;
  //! Rows of the view (the tile's columns).
  static constexpr int rows = Tile::cols;
  //! Columns of the view (the tile's rows).
  static constexpr int cols = Tile::rows;
  //! Element offset of view element (r, c) in the underlying tile.
  TILECRAFT_HOST_DEVICE static constexpr int offset(int r, int c) { return Tile::offset(c, r); }
  //! Columns of the view are rows of the tile: never contiguous, so no vector access.
  static constexpr int vector_bytes = 0;

  //! The viewed tile.
  const Tile& tile;
  //! View element (r, c): tile(c, r).
  TILECRAFT_DEVICE const value_type& operator()(int r, int c) const { return tile(c, r); }
};

//! True for every TransposedView instantiation.
template <class>
inline constexpr bool is_transposed_view_v = false;
//! \cond SPECIALIZATIONS
template <class Tile>
inline constexpr bool is_transposed_view_v<TransposedView<Tile>> = true;
//! \endcond

namespace detail {
// A SharedMatrix or a TransposedView of one: what the warp MMA classes take as an operand.
template <class T>
inline constexpr bool is_tile_or_view_v = is_shared_matrix_v<T> || is_transposed_view_v<T>;
}  // namespace detail

//! A transposed, read-only view of `tile`.
template <class T, int R, int C, class L>
TILECRAFT_DEVICE TransposedView<const SharedMatrix<T, R, C, L>> transposed(const SharedMatrix<T, R, C, L>& tile) {
  return {tile};
}

}  // namespace tilecraft
