//! \file gemm/detail/operand_fill.cuh
//! Filling one stage's A or B tile (K-major, TK x L) from global memory with asynchronous
//! copies: the GEMM's partition (GemmShape::FillRows / FillScatter decide which thread moves
//! which element) bound to one operand's addressing. Elements outside the operand (past M, N
//! or K) become zeros, so they add nothing to the accumulators and the mainloop needs no
//! bounds of its own.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../config.cuh"
#include "../../memory/copy_async.cuh"
#include "../gemm_shape.cuh"

namespace tilecraft::detail {

#if defined(__CUDACC__)

//! The fill of one operand tile. KContiguous: the operand's K index is its contiguous one (A
//! row-major, B column-major): element-wise copies, transposed into the K-major tile.
//! Otherwise rows of the tile are contiguous in global memory and move in vectors of Width
//! floats (4 when the operand is 16-byte aligned with ld % 4 == 0, else 1).
//! A thread keeps the global offset and tile position of its first element only; the others
//! are compile-time steps away (GemmShape::FillRows / FillScatter). issue() takes a fast path
//! without predicates when the whole K step lies inside the operand.
template <class Shape, class Tile, bool KContiguous, int Width>
class OperandFill {
  static constexpr int l_tile = Tile::cols;
  static constexpr int tk = Shape::tile_k;
  static_assert(!KContiguous || Width == 1, "OperandFill: a K-contiguous operand is filled element by element");
  using Map = std::conditional_t<KContiguous, typename Shape::template FillScatter<l_tile>,
                                 typename Shape::template FillRows<l_tile, Width>>;
  static constexpr int per_thread = Map::per_thread;
  // A ragged last pass: some threads' last element lies past the tile.
  static constexpr bool ragged = per_thread * Shape::threads != tk * l_tile / (KContiguous ? 1 : Width);

 public:
  //! `base`: element (0, 0) of the operand (A: M x K, B: K x N); `ld`: its leading dimension;
  //! `l_count`, `k_count`: its extent along L (M for A, N for B) and K; `l0`: the tile's first
  //! L index; `thread`: the calling thread's rank in the block.
  TILECRAFT_DEVICE OperandFill(const float* base, std::int64_t ld, std::int64_t l_count, std::int64_t k_count,
                               std::int64_t l0, int thread)
      : base_(base), ld_(ld), k_count_(k_count), row_(Map::row(thread)) {
    const int col = Map::col(thread);
    tile_offset_ = Tile::offset(row_, col);
    offset_ = KContiguous ? (l0 + col) * ld + row_ : row_ * ld + (l0 + col);
    const std::int64_t left = l_count - (l0 + col);
    l_left_ = static_cast<int>(left < 0 ? 0 : (left > l_tile ? l_tile : left));
    full_l_ = l0 + l_tile <= l_count;
  }

  //! Issues the copies of the K step starting at `k0` into `tile` (no commit).
  TILECRAFT_DEVICE void issue(Tile& tile, std::int64_t k0) const {
    float* const dst = tile.data() + tile_offset_;
    const std::int64_t k_offset = KContiguous ? k0 : k0 * ld_;
    // Block-uniform: the step lies inside the operand along K and the tile along L.
    if (full_l_ && k0 + tk <= k_count_) {
#pragma unroll
      for (int i = 0; i < per_thread; ++i) {
        if (ragged && row_ + Map::row_step(i) >= tk) break;
        copy_async<4 * Width>(dst + Tile::offset(Map::row_step(i), Map::col_step(i)),
                              base_ + (offset_ + k_offset + global_step(i)));
      }
      return;
    }
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const int row = row_ + Map::row_step(i);
      if (ragged && row >= tk) break;
      float* const d = dst + Tile::offset(Map::row_step(i), Map::col_step(i));
      const bool k_in = k0 + row < k_count_;
      const int left = l_left_ - Map::col_step(i);
      const int n = !k_in || left <= 0 ? 0 : (left < Width ? left : Width);
      const float* const src = base_ + (offset_ + k_offset + global_step(i));
      if constexpr (Width == 4) {
        if (n == 4) {
          copy_async<16>(d, src);
        } else if (n == 0) {
          copy_async<16>(d, base_, false);
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j) copy_async<4>(d + j, j < n ? src + j : base_, j < n);
        }
      } else {
        copy_async<4>(d, n > 0 ? src : base_, n > 0);
      }
    }
  }

 private:
  // Global offset of element i from element 0 of this thread.
  TILECRAFT_DEVICE std::int64_t global_step(int i) const {
    return KContiguous ? Map::col_step(i) * ld_ + Map::row_step(i) : Map::row_step(i) * ld_ + Map::col_step(i);
  }

  const float* base_;
  std::int64_t ld_;
  std::int64_t k_count_;
  std::int64_t offset_;  // global offset of this thread's first element at k0 = 0
  int row_;              // its tile row
  int tile_offset_;      // its offset in the tile
  int l_left_;           // operand columns from its first element to the edge along L (<= L)
  bool full_l_;          // the whole tile lies inside the operand along L
};

#endif  // __CUDACC__

}  // namespace tilecraft::detail
