//! \file device/detail/transpose_dispatch.cuh
//! tilecraft::transpose's dispatch: argument checks, grid shape and launch (internal; include
//! device/transpose.cuh). Under a host compiler it checks the arguments and returns
//! cudaErrorInvalidDeviceFunction where nvcc's form would launch.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstddef>
#include <cstdint>

#include "../../config.cuh"
#include "../../memory/matrix_ref.cuh"
#include "../../util/launch.cuh"
#include "../../util/math.cuh"
#include "transpose_kernels.cuh"

namespace tilecraft::detail {

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

template <class Policy, class T>
[[nodiscard]] cudaError_t transpose_with(const T* in, std::int64_t ld_in, T* out, std::int64_t ld_out,
                                         std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  if (rows < 0 || cols < 0) return cudaErrorInvalidValue;
  if (rows == 0 || cols == 0) return cudaSuccess;
  if (out == nullptr || in == nullptr || !detail::element_aligned(in) || !detail::element_aligned(out)) {
    return cudaErrorInvalidValue;
  }
  if (ld_in < cols || ld_out < rows) return cudaErrorInvalidValue;
  constexpr std::int64_t max_elems = INT64_MAX / static_cast<std::int64_t>(sizeof(T));
  if (ld_in > max_elems / rows || ld_out > max_elems / cols) return cudaErrorInvalidValue;
  // Overlap of the byte ranges each matrix spans.
  if (detail::bytes_overlap(in, static_cast<std::size_t>((rows - 1) * ld_in + cols) * sizeof(T), out,
                            static_cast<std::size_t>((cols - 1) * ld_out + rows) * sizeof(T))) {
    return cudaErrorInvalidValue;
  }

  const std::int64_t tile_cols_count = ceil_div<std::int64_t>(cols, Policy::tile_cols);
  const std::int64_t tile_rows_count = ceil_div<std::int64_t>(rows, Policy::tile_rows);
  const MatrixRef<const T> src{in, rows, cols, ld_in};
  const MatrixRef<T> dst{out, cols, rows, ld_out};
  // gridDim.x holds the tile columns (2^31 - 1 of them), gridDim.y and z the tile rows
  // (65535^2 of them): more than any matrix that fits in memory has.
  constexpr std::int64_t max_grid_yz = 65535;
  if (tile_cols_count > INT_MAX || tile_rows_count > max_grid_yz * max_grid_yz) return cudaErrorInvalidValue;
  const std::int64_t grid_y = tile_rows_count < max_grid_yz ? tile_rows_count : max_grid_yz;
  const dim3 grid(static_cast<unsigned>(tile_cols_count), static_cast<unsigned>(grid_y),
                  static_cast<unsigned>(ceil_div(tile_rows_count, grid_y)));
#if defined(__CUDACC__)
  return detail::launch_kernel(transpose_tiles_kernel<T, Policy>, grid, dim3(Policy::threads), 0, stream, src, dst,
                               tile_rows_count);
#else
  (void)src, (void)dst, (void)grid, (void)stream;  // host compilers: the argument checks only
  return cudaErrorInvalidDeviceFunction;
#endif
}

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft::detail
