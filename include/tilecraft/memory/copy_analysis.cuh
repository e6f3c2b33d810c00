//! \file memory/copy_analysis.cuh
//! The bank-conflict analysis of a tile copy: for a tile (or transposed view), a mapping and
//! the partition in memory/copy_partition.cuh, the worst number of shared-memory wavefronts
//! any warp instruction of the copy needs, over the conflict-free minimum. constexpr host
//! functions, so copies and users can `static_assert` on them in host code or at namespace or
//! class scope; inside device code, `copy_tile_conflict_factor_v`.
#pragma once

#include "../config.cuh"
#include "../util/math.cuh"
#include "bank_model.cuh"
#include "copy_partition.cuh"

namespace tilecraft {

namespace detail {
// The phases of a warp access `access_bytes` wide (1 up to 4 bytes, 2 of 16 lanes for 8, 4 of
// 8 lanes for 16) that its first `lanes` lanes (all: 32 or more) occupy: the fewest wavefronts
// those lanes could need. A warp's last instruction may fill fewer phases than a whole warp, and
// its wavefronts over that minimum are its conflict factor.
constexpr int active_phases(int lanes, int access_bytes) {
  const int phases = bank::ideal_wavefronts(access_bytes);
  const int lanes_per_phase = warp_threads / phases;
  return ceil_div(lanes < warp_threads ? lanes : warp_threads, lanes_per_phase);
}

// copy_tile_conflict_factor for the vector mappings (lines, rows, wide): the shared side
// moves whole vectors when the tile's rows allow it, else one element at a time.
template <class Tile, TileMapping Mapping>
constexpr int copy_conflict_factor() {
  using Shape = CopyShapeOf<Tile, Mapping>;
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
      const int factor = ceil_div(w, active_phases(Shape::total_vectors - base, access));
      if (factor > worst) worst = factor;
    }
  }
  return worst;
}

// The same for TileMapping::transposed_blocks: shared load k of a block reads tile row
// (view column) b.col + k, 16 bytes from tile column b.row * V.
template <class View>
constexpr int transposed_blocks_conflict_factor() {
  static_assert(is_transposed_view_v<View>,
                "TileMapping::transposed_blocks: only a transposed(tile) view is stored this way");
  using Under = typename View::tile_type;
  using Shape = BlockShapeOf<View>;
  static_assert(Under::vector_bytes == max_vector_bytes,
                "TileMapping::transposed_blocks: the tile must keep 16-byte chunks along its rows "
                "(vector_bytes == 16, e.g. Swizzled<16, V> or an unpadded row of a multiple of 16 bytes)");
  int worst = 1;
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
      const int factor = ceil_div(w, active_phases(Shape::total_blocks - base, max_vector_bytes));
      if (factor > worst) worst = factor;
    }
  }
  return worst;
}
}  // namespace detail

//! The worst shared-memory conflict factor (wavefronts over the conflict-free minimum) of any
//! shared-memory instruction copy_tile issues for this tile or view with this mapping, assuming
//! whole warps. copy_tile_async's shared side is the same where the layout keeps the
//! partition's whole vectors contiguous; where it keeps fewer bytes contiguous, cp.async moves
//! chunks of that width (which this model does not count) and copy_tile single elements. 1 means every access
//! of the copy is conflict-free. constexpr, host only: inside device code (a kernel's
//! static_assert) use the variable copy_tile_conflict_factor_v.
//! \code
//! using Tile = tilecraft::SharedMatrix<float, 64, 64, tilecraft::Swizzled<16, 4>>;
//! static_assert(tilecraft::copy_tile_conflict_factor_v<Tile> == 1);
//! \endcode
template <class Tile, TileMapping Mapping = TileMapping::lines>
constexpr int copy_tile_conflict_factor() {
  if constexpr (Mapping == TileMapping::transposed_blocks) {
    return detail::transposed_blocks_conflict_factor<Tile>();
  } else {
    return detail::copy_conflict_factor<Tile, Mapping>();
  }
}

//! copy_tile_conflict_factor<Tile, Mapping>() as a constant, usable in device code too.
template <class Tile, TileMapping Mapping = TileMapping::lines>
inline constexpr int copy_tile_conflict_factor_v = copy_tile_conflict_factor<Tile, Mapping>();

}  // namespace tilecraft
