//! \file device/detail/gemm_kernels.cuh
//! The device GEMM's kernels: one C tile per block through the block-level tiled_gemm (in a
//! grouped block order), the split-K reduction, and the epilogue adapter both apply.
#pragma once

#include <cstdint>

#include "../../config.cuh"
#include "../../gemm/tiled_gemm.cuh"
#include "../../memory/matrix_ref.cuh"

namespace tilecraft::detail {

//! The user's epilogue as the launcher's kernels apply it. A column-major C is computed as the
//! row-major C^T, so the epilogue gets its own coordinates back (transposed); a K slice stores
//! its raw product (raw); a panel of C (see pack_plan) starts at (row0, col0) of the whole.
//! Run-time fields rather than more types: one set of kernels serves all.
template <class T, class Epilogue>
struct LauncherEpilogue {
  Epilogue epi;
  bool transposed = false;
  bool raw = false;
  std::int64_t row0 = 0;
  std::int64_t col0 = 0;
  TILECRAFT_HOST_DEVICE bool reads_c() const { return !raw && epi.reads_c(); }
  TILECRAFT_HOST_DEVICE T operator()(T acc, T c_old, std::int64_t r, std::int64_t col) const {
    if (raw) return acc;
    r += row0;
    col += col0;
    return transposed ? epi(acc, c_old, col, r) : epi(acc, c_old, r, col);
  }
};

//! Where K is split: slices of k_slice, the raw product of slice s going to the M x N block s
//! of `partial`; partial == nullptr: K whole, the product through the epilogue into C.
template <class T>
struct KSlices {
  std::int64_t k_slice;
  T* partial;
};

//! A C tile's coordinates in tiles.
struct TileCoord {
  std::int64_t m, n;
};

//! The tile block `block` computes in grouped order: blocks [g * G * tiles_n, (g + 1) * G *
//! tiles_n) cover tile rows [g * G, g * G + G) column by column, so a wave of blocks shares
//! the A tiles of G rows and the B tiles of its columns in L2.
TILECRAFT_HOST_DEVICE constexpr TileCoord grouped_tile(std::int64_t block, std::int64_t tiles_m, std::int64_t tiles_n,
                                                       std::int64_t group_m) {
  const std::int64_t per_group = group_m * tiles_n;
  const std::int64_t first_m = block / per_group * group_m;
  const std::int64_t rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
  const std::int64_t in_group = block % per_group;
  return {first_m + in_group % rows, in_group / rows};
}

#if defined(__CUDACC__)

//! One C tile per block (blockIdx.x, in grouped order) and K slice (blockIdx.y).
template <class Policy, Order OA, Order OB, bool VectorFill, class Epilogue>
__global__ void __launch_bounds__(Policy::tiled::threads, Policy::min_blocks_per_sm)
    gemm_kernel(MatrixRef<const typename Policy::element_type, OA> a,
                MatrixRef<const typename Policy::element_type, OB> b, MatrixRef<typename Policy::element_type> c,
                Epilogue epi, std::int64_t tiles_m, std::int64_t tiles_n,
                KSlices<typename Policy::element_type> slices) {
  using Tiled = typename Policy::tiled;
  using T = typename Policy::element_type;
  extern __shared__ __align__(16) unsigned char gemm_smem[];
  auto& storage = *reinterpret_cast<typename Tiled::TempStorage*>(gemm_smem);
  const TileCoord tile = grouped_tile(blockIdx.x, tiles_m, tiles_n, Policy::group_m);
  // K slice [k0, k0 + k_slice) of both operands. The vector fills stay aligned: an operand
  // filled in vectors moves by k0 * ld with ld a multiple of a 16-byte vector's elements, a
  // K-contiguous one is filled element by element.
  const std::int64_t k0 = blockIdx.y * slices.k_slice;
  const std::int64_t k_len = a.cols - k0 < slices.k_slice ? a.cols - k0 : slices.k_slice;
  const MatrixRef<const T, OA> a_slice{OA == Order::row_major ? a.data + k0 : a.data + k0 * a.ld, a.rows, k_len, a.ld};
  const MatrixRef<const T, OB> b_slice{OB == Order::row_major ? b.data + k0 * b.ld : b.data + k0, k_len, b.cols, b.ld};
  const MatrixRef<T> out = slices.partial != nullptr
                               ? MatrixRef<T>{slices.partial + blockIdx.y * c.rows * c.cols, c.rows, c.cols, c.cols}
                               : c;
  Tiled::template run<VectorFill>(storage, a_slice, b_slice, out, tile.m * Tiled::shape::tile_m,
                                  tile.n * Tiled::shape::tile_n, epi);
}

//! C = epi(sum of the K slices' products, C), summing the slices in order (deterministic).
template <class T, class Epilogue>
__global__ void gemm_split_k_reduce_kernel(const T* partial, int slices, MatrixRef<T> c, Epilogue epi) {
  const std::int64_t elements = c.rows * c.cols;
  const bool reads = epi.reads_c();
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < elements;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    T sum = partial[e];
    for (int s = 1; s < slices; ++s) sum += partial[s * elements + e];
    const std::int64_t r = e / c.cols;
    const std::int64_t col = e - r * c.cols;
    T& dst = c(r, col);
    dst = epi(sum, reads ? dst : T(0), r, col);
  }
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
