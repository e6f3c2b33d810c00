//! \file device/detail/transpose_kernels.cuh
//! tilecraft::transpose's kernel (internal; include device/transpose.cuh).
#pragma once

#include <cstdint>

#include "../../config.cuh"
#include "../../memory/matrix_ref.cuh"
#include "../../memory/shared_tile.cuh"
#include "../../memory/tile_copy.cuh"

namespace tilecraft::detail {

#if defined(__CUDACC__)

//! One block per tile: blockIdx.x walks the tile columns, blockIdx.y (+ blockIdx.z * gridDim.y
//! past 65535) the tile rows, so blocks that run at the same time read whole rows of `in`
//! (the best DRAM order; measured: benchmarks/TUNING.md) and no thread divides. Loop-free,
//! straight-line load -> barrier -> drain: nothing stays live across tiles, which keeps the
//! register count (and so the blocks per multiprocessor) where a hand-written kernel has it.
template <class T, class Policy>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks_per_sm)
    transpose_tiles_kernel(MatrixRef<const T> in, MatrixRef<T> out, std::int64_t tile_rows_count) {
  __shared__ typename Policy::Tile tile;
  const std::int64_t tr = blockIdx.y + static_cast<std::int64_t>(blockIdx.z) * gridDim.y;
  if (tr >= tile_rows_count) return;
  const std::int64_t r0 = tr * Policy::tile_rows;
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.x) * Policy::tile_cols;
  copy_tile<Policy::threads, typename Policy::fill_policy>(tile, in, r0, c0);
  __syncthreads();
  copy_tile<Policy::threads, typename Policy::drain_policy>(out, c0, r0, transposed(tile));
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
