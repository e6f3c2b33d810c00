//! \file device/transpose.cuh
//! Whole-matrix, out-of-place transpose built on SharedMatrix and copy_tile.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "../memory/layout.cuh"
#include "../memory/shared_tile.cuh"
#include "../memory/tile_copy.cuh"
#include "../util/error.cuh"
#include "../util/math.cuh"

namespace tilecraft {

namespace detail {

//! Shape of a transpose kernel: TileRows x TileCols tiles padded by one element (the
//! static_asserts prove with the bank model that both the row-wise fill and the column-wise
//! drain are then conflict-free for the chosen mapping), Threads per block, and the TileCopy
//! policy of both copies. Persistent: a grid of BlocksPerSm blocks per multiprocessor loops
//! over the tiles and loads the next tile into registers while draining the current one;
//! otherwise one block per tile. MinBlocksPerSm goes to __launch_bounds__: it caps registers
//! so that many blocks (and their loads) fit on a multiprocessor at once.
template <class T, int TileRows, int TileCols, int Threads, bool Persistent = false, int BlocksPerSm = 8,
          class Copy = TileCopy<>, int MinBlocksPerSm = 1>
struct TransposePolicy {
  static_assert(MinBlocksPerSm >= 1 && Threads * MinBlocksPerSm <= 1024,
                "TransposePolicy: MinBlocksPerSm must be >= 1 and Threads * MinBlocksPerSm <= 1024 "
                "(the threads an sm_75 multiprocessor holds; every binary carries sm_75 code)");
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
  static constexpr int tile_rows = TileRows;
  static constexpr int tile_cols = TileCols;
  static constexpr int threads = Threads;
  static constexpr bool persistent = Persistent;
  static constexpr int blocks_per_sm = BlocksPerSm;
  using copy_policy = Copy;
  using Tile = SharedMatrix<T, tile_rows, tile_cols, Padded<1>>;
  static_assert(copy_tile_conflict_factor<Tile, Copy::mapping>() == 1,
                "transpose: the tile fill must be bank-conflict free");
  static_assert(copy_tile_conflict_factor<TransposedView<const Tile>, Copy::mapping>() == 1,
                "transpose: the transposed drain must be bank-conflict free");
};

//! The defaults, chosen by measurement on an H200 (benchmarks/TUNING.md), one block per tile,
//! TileMapping::lines:
//!   4-byte elements: 64 x 64 tiles, 128 threads: eight independent 16-byte loads per thread and
//!     256-byte row runs on both sides (0.88-0.92 of cudaMemcpy across runs);
//!   8-byte elements: 32 x 32 tiles, 128 threads (0.93-0.94). A hand-written one-row-per-warp
//!     kernel reached 0.96; through copy_tile the rows mapping needs 90 registers a thread and
//!     measured 0.85-0.91, so it is not the default yet.
template <class T>
using DefaultTransposePolicy = TransposePolicy<T, sizeof(T) == 4 ? 64 : 32, sizeof(T) == 4 ? 64 : 32, 128>;

template <class T, class Policy>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks_per_sm)
    transpose_kernel(MatrixRef<T> out, MatrixRef<const T> in, std::int64_t tile_cols_count, std::int64_t tiles) {
  using Copy = typename Policy::copy_policy;
  __shared__ typename Policy::Tile tile;
  // Tile t's top-left corner in `in`: row-major order over the tiles (blocks that run at the
  // same time read whole rows of `in`; walking bands of tiles column-wise measured slower).
  struct Origin {
    std::int64_t row, col;
  };
  auto origin = [&](std::int64_t t) {
    return Origin{(t / tile_cols_count) * Policy::tile_rows, (t % tile_cols_count) * Policy::tile_cols};
  };
  TileFragment<Policy::threads, typename Policy::Tile, Copy> frag;
  std::int64_t t = blockIdx.x;
  if (t < tiles) load_fragment(frag, in, origin(t).row, origin(t).col);
  for (; t < tiles; t += gridDim.x) {
    const auto [r0, c0] = origin(t);
    store_fragment(tile, frag);
    __syncthreads();
    // The next tile's loads fly while this tile drains.
    if (t + gridDim.x < tiles) load_fragment(frag, in, origin(t + gridDim.x).row, origin(t + gridDim.x).col);
    copy_tile<Policy::threads, Copy>(out, c0, r0, transposed(tile));
    __syncthreads();  // the next tile overwrites what this one's drain is reading
  }
}

template <class Policy, class T>
[[nodiscard]] cudaError_t transpose_with(T* out, std::int64_t ld_out, const T* in, std::int64_t ld_in,
                                         std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  if (rows < 0 || cols < 0) return cudaErrorInvalidValue;
  if (rows == 0 || cols == 0) return cudaSuccess;
  if (out == nullptr || in == nullptr) return cudaErrorInvalidValue;
  if (ld_in < cols || ld_out < rows) return cudaErrorInvalidValue;
  constexpr std::int64_t max_elems = INT64_MAX / static_cast<std::int64_t>(sizeof(T));
  if (ld_in > max_elems / rows || ld_out > max_elems / cols) return cudaErrorInvalidValue;
  // Overlap of the byte ranges each matrix spans.
  const auto in_begin = reinterpret_cast<std::uintptr_t>(in);
  const auto in_end = reinterpret_cast<std::uintptr_t>(in + (rows - 1) * ld_in + cols);
  const auto out_begin = reinterpret_cast<std::uintptr_t>(out);
  const auto out_end = reinterpret_cast<std::uintptr_t>(out + (cols - 1) * ld_out + rows);
  if (in_begin < out_end && out_begin < in_end) return cudaErrorInvalidValue;

  const std::int64_t tile_cols_count = ceil_div<std::int64_t>(cols, Policy::tile_cols);
  const std::int64_t tiles = ceil_div<std::int64_t>(rows, Policy::tile_rows) * tile_cols_count;
  std::int64_t grid = tiles < INT_MAX ? tiles : INT_MAX;
  if constexpr (Policy::persistent) {
    int device = 0, sms = 0;
    TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
    TILECRAFT_RETURN_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const std::int64_t resident = static_cast<std::int64_t>(sms) * Policy::blocks_per_sm;
    grid = grid < resident ? grid : resident;
  }
  transpose_kernel<T, Policy><<<static_cast<unsigned>(grid), Policy::threads, 0, stream>>>(
      MatrixRef<T>{out, cols, rows, ld_out}, MatrixRef<const T>{in, rows, cols, ld_in}, tile_cols_count, tiles);
  return last_launch_error();
}

}  // namespace detail

//! Out-of-place transpose: out(c, r) = in(r, c) for an M x N row-major matrix `in` (leading
//! dimension ld_in >= N) into the N x M row-major matrix `out` (ld_out >= M). Any M and N
//! (edge tiles are predicated), element types of 4 or 8 bytes, asynchronous on `stream`.
//!
//! Returns cudaErrorInvalidValue, launching nothing, when M or N is negative, a pointer is
//! null while the matrix is not empty, a leading dimension is too small, the extents overflow
//! 64-bit indexing, or `in` and `out` overlap (in-place transpose is not supported).
//! M == 0 or N == 0 is a successful no-op. Otherwise returns the launch status.
//! \code
//! TILECRAFT_THROW_IF_ERROR(tilecraft::transpose(d_out, M, d_in, N, M, N, stream));
//! \endcode
template <class T>
[[nodiscard]] cudaError_t transpose(T* out, std::int64_t ld_out, const T* in, std::int64_t ld_in, std::int64_t rows,
                                    std::int64_t cols, cudaStream_t stream = nullptr) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "tilecraft::transpose: element type must be 4 or 8 bytes wide");
  static_assert(std::is_trivially_copyable_v<T>, "tilecraft::transpose: element type must be trivially copyable");
  return detail::transpose_with<detail::DefaultTransposePolicy<T>>(out, ld_out, in, ld_in, rows, cols, stream);
}

}  // namespace tilecraft
