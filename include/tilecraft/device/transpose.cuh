//! \file device/transpose.cuh
//! Whole-matrix, out-of-place transpose built on SharedMatrix and copy_tile.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "../memory/copy_analysis.cuh"
#include "../memory/layout.cuh"
#include "../memory/shared_tile.cuh"
#include "../memory/tile_copy.cuh"
#include "../util/nvtx.cuh"
#include "../util/status.cuh"
#include "detail/transpose_dispatch.cuh"

namespace tilecraft {

//! How tilecraft::transpose tiles a matrix (CUB's custom-policy idea): TileRows x TileCols
//! tiles of T in the shared-memory Layout, Threads per block, one block per tile; the TileCopy
//! policies of the fill (global -> tile) and of the drain (transposed tile -> global);
//! MinBlocksPerSm for __launch_bounds__ (a register cap). The static_asserts prove with the
//! bank model that fill and drain are conflict-free (the model takes whole warps).
//! Rules: Threads a multiple of 32, Threads * MinBlocksPerSm <= 1024 (what an sm_75
//! multiprocessor holds), Fill and Drain are TileCopy policies, both copies conflict-free, the
//! tile at most 48 KiB (static shared memory).
//! \code
//! using Mine = tilecraft::TransposePolicy<float, 32, 32, 128, tilecraft::Padded<1>>;
//! TILECRAFT_THROW_IF_ERROR(tilecraft::transpose<Mine>(d_in, N, d_out, M, M, N, stream));
//! \endcode
template <class T, int TileRows, int TileCols, int Threads, class Layout = Padded<1>, class Fill = TileCopy<>,
          class Drain = Fill, int MinBlocksPerSm = 1>
struct TransposePolicy {
  static_assert(Threads >= 32 && Threads % 32 == 0,
                "TransposePolicy: Threads must be a multiple of 32 (whole warps: the bank model that proves the "
                "copies conflict-free groups a block's accesses by whole warps)");
  static_assert(MinBlocksPerSm >= 1 && Threads * MinBlocksPerSm <= 1024,
                "TransposePolicy: MinBlocksPerSm must be >= 1 and Threads * MinBlocksPerSm <= 1024 "
                "(the threads an sm_75 multiprocessor holds; every binary carries sm_75 code)");
  static_assert(is_tile_copy_v<Fill> && is_tile_copy_v<Drain>,
                "TransposePolicy: Fill and Drain must be tilecraft::TileCopy<Hint, Mapping> policies");
  //! The element type the policy is for.
  using value_type = T;
  //! __launch_bounds__' minimum blocks per multiprocessor.
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
  //! Rows of a tile.
  static constexpr int tile_rows = TileRows;
  //! Columns of a tile.
  static constexpr int tile_cols = TileCols;
  //! Threads per block.
  static constexpr int threads = Threads;
  //! The fill's copy policy.
  using fill_policy = Fill;
  //! The drain's copy policy.
  using drain_policy = Drain;
  //! The shared tile.
  using Tile = SharedMatrix<T, tile_rows, tile_cols, Layout>;
  static_assert(sizeof(Tile) <= 48 * 1024,
                "TransposePolicy: the shared tile (TileRows x TileCols elements with the layout's padding) must fit "
                "the 48 KiB of static shared memory a block may declare");
  static_assert(copy_tile_conflict_factor<Tile, Fill::mapping>() == 1,
                "transpose: the tile fill must be bank-conflict free");
  static_assert(copy_tile_conflict_factor<TransposedView<const Tile>, Drain::mapping>() == 1,
                "transpose: the transposed drain must be bank-conflict free");
};

//! tilecraft::transpose's default policy (measured: benchmarks/TUNING.md), one block per tile:
//!   4-byte elements: 64 x 64 tiles, 64 threads, Swizzled<16, 4>: the fill moves whole
//!     256-byte rows with 16-byte vectors (16 loads in flight a thread), the drain reads 4 x 4
//!     blocks with 16-byte shared loads and transposes them in registers
//!     (TileMapping::transposed_blocks);
//!   8-byte elements: 32 x 32 tiles, 64 threads, Padded<1>, TileMapping::rows: one warp
//!     instruction moves one whole 256-byte row on both sides, 16 rows a thread.
template <class T>
using DefaultTransposePolicy =
    std::conditional_t<sizeof(T) == 4,
                       TransposePolicy<T, 64, 64, 64, Swizzled<16, 4>, TileCopy<CacheHint::normal, TileMapping::wide>,
                                       TileCopy<CacheHint::normal, TileMapping::transposed_blocks>>,
                       TransposePolicy<T, 32, 32, 64, Padded<1>, TileCopy<CacheHint::normal, TileMapping::rows>>>;

//! True for every TransposePolicy instantiation.
template <class>
inline constexpr bool is_transpose_policy_v = false;
//! \cond SPECIALIZATIONS
template <class T, int R, int C, int N, class L, class F, class D, int M>
inline constexpr bool is_transpose_policy_v<TransposePolicy<T, R, C, N, L, F, D, M>> = true;
//! \endcond

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

//! Out-of-place transpose: out(c, r) = in(r, c) for an M x N row-major matrix `in` (leading
//! dimension ld_in >= N) into the N x M row-major matrix `out` (ld_out >= M); `rows` = M and
//! `cols` = N describe `in`. Inputs first, as every tilecraft whole-array algorithm: (in, ld_in,
//! out, ld_out, rows, cols, stream). Any M and N (edge tiles are predicated), element types of
//! 4 or 8 bytes, asynchronous on `stream`. Under a host compiler (a .cpp file) it checks its
//! arguments as below and returns cudaErrorInvalidDeviceFunction where it would launch.
//!
//! Returns cudaErrorInvalidValue, launching nothing, when M or N is negative, a pointer is
//! null while the matrix is not empty or not aligned to T, a leading dimension is too small,
//! the extents overflow 64-bit indexing or the grid's limits (2^31 - 1 tile columns, 65535^2
//! tile rows), or `in` and `out` overlap (in-place transpose is not supported).
//! M == 0 or N == 0 is a successful no-op. Otherwise returns the launch status.
//! `Policy` (default DefaultTransposePolicy<T>) is a TransposePolicy for T.
//! \code
//! TILECRAFT_THROW_IF_ERROR(tilecraft::transpose(d_in, N, d_out, M, M, N, stream));  // N x M <- M x N
//! \endcode
template <class Policy = void, class T>
[[nodiscard]] cudaError_t transpose(const T* in, std::int64_t ld_in, T* out, std::int64_t ld_out, std::int64_t rows,
                                    std::int64_t cols, cudaStream_t stream = nullptr) {
  TILECRAFT_NVTX_RANGE("tilecraft::transpose");
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "tilecraft::transpose: element type must be 4 or 8 bytes wide");
  static_assert(std::is_trivially_copyable_v<T>, "tilecraft::transpose: element type must be trivially copyable");
  using P = std::conditional_t<std::is_void_v<Policy>, DefaultTransposePolicy<T>, Policy>;
  static_assert(std::is_void_v<Policy> || is_transpose_policy_v<Policy>,
                "tilecraft::transpose<Policy>: Policy must be a tilecraft::TransposePolicy");
  if constexpr ((sizeof(T) == 4 || sizeof(T) == 8) && std::is_trivially_copyable_v<T> &&
                (std::is_void_v<Policy> || is_transpose_policy_v<Policy>)) {
    static_assert(std::is_same_v<typename P::value_type, T>,
                  "tilecraft::transpose<Policy>: the policy's element type must be the matrix's");
    return detail::transpose_with<P>(in, ld_in, out, ld_out, rows, cols, stream);
  } else {
    return cudaErrorInvalidValue;
  }
}

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft
