//! \file gemm/warp_mma_16bit.cuh
//! The warp level of a GEMM on the tensor cores for 16-bit operands (__half, __nv_bfloat16;
//! GemmMath::mma16): a warp's WM x WN tile of C as (WM / 16) x (WN / 8) m16n8k16 MMAs per 16
//! rows of K (arch/mma.cuh), FP32 accumulators, every fragment loaded by `ldmatrix`
//! (arch/ldmatrix.cuh) from the stage's shared tiles: `.trans` from a K-major tile (row k holds
//! element k of every column of A, or of every row of B), plain from an L x TK tile with K
//! contiguous (read through a TransposedView). One ldmatrix.x4 gives an A fragment (16 x 16)
//! or the B fragments of two MMA tiles (2 x 16 x 8): on a 64 x 64 warp tile 8 loads per 32 MMAs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../arch/ldmatrix.cuh"
#include "../arch/mma.cuh"
#include "../config.cuh"
#include "../memory/shared_tile.cuh"
#include "../util/thread.cuh"
#include "gemm_math.cuh"
#include "gemm_shape.cuh"

namespace tilecraft {

#if defined(__CUDACC__)

//! Warp level on the tensor cores for 16-bit operands: one warp's WM x WN tile of C, starting
//! at column `m0` of TileA and column `n0` of TileB, accumulated over all TileA::rows rows of K
//! of one stage. TileA is a K x M SharedMatrix and TileB a K x N one (K-major, as GemmShape lays
//! out a stage) of __half or __nv_bfloat16, K a multiple of 16, or either one the TransposedView
//! that multiply() reads of a K-contiguous tile (as WarpMmaTf32's second snippet shows).
//! Rules (static_asserts): 16-bit tiles of one type, WM a multiple of 16 and WN of 8, K a
//! multiple of 16, and every 8 x 8 matrix a warp's ldmatrix reads conflict-free by the bank
//! model (rows of an odd number of 16-byte chunks, as GemmShape pads them, or unpadded rows
//! whose 16-byte chunks are swizzled: Swizzled<16, RowGroup>, RowGroup 128 / row bytes for rows
//! under 128 bytes).
//! Accumulator acc[i][j][r] is C element (row(i, r), col(j, r)) of the block tile. No
//! barriers; reads shared memory only; every lane of the warp must call it (mma.sync).
//! \code
//! using TileA = tilecraft::SharedMatrix<__half, 32, 128, tilecraft::Padded<8>>;  // K x M
//! using TileB = tilecraft::SharedMatrix<__half, 32, 64, tilecraft::Padded<8>>;   // K x N
//! using Mma = tilecraft::WarpMma16<TileA, TileB, 64, 32>;
//! __device__ void step(const TileA& a, const TileB& b, Mma::Accumulators& acc) {
//!   const int warp = threadIdx.x / 32;  // 4 warps: 2 x 2 warp tiles of 64 x 32
//!   const Mma mma((warp / 2) * 64, (warp % 2) * 32);
//!   mma.multiply(a, b, acc);
//! }
//! \endcode
template <class TileA, class TileB, int WM, int WN>
class WarpMma16 {
  static_assert(detail::is_tile_or_view_v<TileA> && detail::is_tile_or_view_v<TileB>,
                "WarpMma16: TileA and TileB must be SharedMatrix tiles (K x M and K x N) or TransposedViews of M x K "
                "and N x K ones");
  using T = typename TileA::value_type;
  static_assert(is_gemm_16bit_v<T> && std::is_same_v<typename TileB::value_type, T>,
                "WarpMma16: the tiles must hold one 16-bit type, __half or __nv_bfloat16");
  static_assert(WM > 0 && WM % 16 == 0 && WN > 0 && WN % 8 == 0,
                "WarpMma16: the warp tile must be a multiple of the MMA's 16 x 8 (WM of 16, WN of 8)");
  static_assert(TileA::rows == TileB::rows && TileA::rows % 16 == 0,
                "WarpMma16: TileA and TileB must have the same rows (K), a multiple of 16 (the MMA's k)");
  static_assert(WM <= TileA::cols && WN <= TileB::cols, "WarpMma16: the warp tile must fit the tiles' columns");

 public:
  //! MMA tiles along M (16 rows each).
  static constexpr int tiles_m = WM / 16;
  //! MMA tiles along N (8 columns each).
  static constexpr int tiles_n = WN / 8;
  //! The lane's accumulators: 4 per 16 x 8 MMA tile.
  using Accumulators = float[static_cast<std::size_t>(tiles_m)][static_cast<std::size_t>(tiles_n)][4];

  //! The warp tile whose first element is (m0, n0) of the block tile (multiples of 8).
  TILECRAFT_DEVICE WarpMma16(int m0, int n0) : m0_(m0), n0_(n0) {
    TILECRAFT_ASSERT(m0 >= 0 && n0 >= 0 && m0 % 8 == 0 && n0 % 8 == 0 &&
                     "WarpMma16: the warp tile's origin (m0, n0) must be non-negative multiples of 8");
  }

  //! Block-tile row of accumulator [i][.][r].
  TILECRAFT_DEVICE int row(int i, int r) const { return m0_ + 16 * i + lane_id() / 4 + 8 * (r / 2); }
  //! Block-tile column of accumulator [.][j][r].
  TILECRAFT_DEVICE int col(int j, int r) const { return n0_ + 8 * j + 2 * (lane_id() % 4) + r % 2; }

  //! acc += A^T B over the tiles' K rows: the warp's WM x WN product of one stage. `a` and `b`
  //! are TileA and TileB, or K x M and K x N TransposedViews of L x TK tiles (K contiguous, as
  //! tiled_gemm stores an operand that is K-contiguous in global memory), whose ldmatrix reads
  //! must be conflict-free too.
  template <class ViewA, class ViewB>
  TILECRAFT_DEVICE void multiply(const ViewA& a, const ViewB& b, Accumulators& acc) const {
    static_assert(ViewA::rows == TileA::rows && ViewA::cols == TileA::cols && ViewB::rows == TileB::rows &&
                      ViewB::cols == TileB::cols,
                  "WarpMma16::multiply: the operand views must have TileA's and TileB's extents (K x M, K x N)");
    static_assert(std::is_same_v<typename ViewA::value_type, T> && std::is_same_v<typename ViewB::value_type, T>,
                  "WarpMma16::multiply: the operand views must hold the tiles' 16-bit type");
    static_assert(conflict_free<ViewA> && conflict_free<ViewB>,
                  "WarpMma16::multiply: every 8 x 8 matrix ldmatrix reads must be bank-conflict free (rows of an odd "
                  "number of 16-byte chunks, or Swizzled<16> rows)");
    const int l = lane_id();
#pragma unroll
    for (int k = 0; k < TileA::rows; k += 16) {
      std::uint32_t fa[tiles_m][4];
      std::uint32_t fb[tiles_n][2];
#pragma unroll
      for (int i = 0; i < tiles_m; ++i) {
        const int m = m0_ + 16 * i;
        // Matrix q (lanes 8q ... 8q + 7) is a0 ... a3: rows m + 8 (q % 2) ..., k + 8 (q / 2) ...
        if constexpr (k_inner<ViewA>) {
          arch::ldmatrix<4, false>(fa[i], &a.tile(m + l % 8 + 8 * (l / 8 % 2), k + 8 * (l / 16)));
        } else {
          arch::ldmatrix<4, true>(fa[i], &a(k + l % 8 + 8 * (l / 16), m + 8 * (l / 8 % 2)));
        }
      }
#pragma unroll
      for (int j = 0; j < tiles_n; j += 2) {
        const int n = n0_ + 8 * j;
        // Matrix q is b0 or b1 (q % 2: k + 8 (q % 2) ...) of MMA tile j + q / 2.
        if (j + 1 < tiles_n) {
          std::uint32_t r[4];
          if constexpr (k_inner<ViewB>) {
            arch::ldmatrix<4, false>(r, &b.tile(n + l % 8 + 8 * (l / 16), k + 8 * (l / 8 % 2)));
          } else {
            arch::ldmatrix<4, true>(r, &b(k + l % 8 + 8 * (l / 8 % 2), n + 8 * (l / 16)));
          }
          fb[j][0] = r[0];
          fb[j][1] = r[1];
          fb[j + 1][0] = r[2];
          fb[j + 1][1] = r[3];
        } else {  // an odd last tile: .x2 (lanes 0 ... 15 give the rows)
          const int h = l % 16;
          if constexpr (k_inner<ViewB>) {
            arch::ldmatrix<2, false>(fb[j], &b.tile(n + h % 8, k + 8 * (h / 8)));
          } else {
            arch::ldmatrix<2, true>(fb[j], &b(k + h % 8 + 8 * (h / 8), n));
          }
        }
      }
#pragma unroll
      for (int i = 0; i < tiles_m; ++i) {
#pragma unroll
        for (int j = 0; j < tiles_n; ++j) {
          if constexpr (std::is_same_v<T, __half>) {
            arch::mma_m16n8k16_f16(acc[i][j], fa[i], fb[j], acc[i][j]);
          } else {
            arch::mma_m16n8k16_bf16(acc[i][j], fa[i], fb[j], acc[i][j]);
          }
        }
      }
    }
  }

 private:
  // Whether a view is the TransposedView of an L x TK tile (K contiguous: plain ldmatrix on the
  // tile's rows) rather than a K-major tile (ldmatrix.trans).
  template <class View>
  static constexpr bool k_inner = requires {
    typename View::tile_type;
  };

  // The storage a view's ldmatrix rows come from, and whether every 8 x 8 matrix of it reads
  // conflict-free (a variable, so that the bank model runs at compile time).
  template <class View>
  static constexpr bool conflict_free = [] {
    if constexpr (requires { typename View::tile_type; }) {
      return detail::ldmatrix_tile_wavefronts<typename View::tile_type>() == 1;
    } else {
      return detail::ldmatrix_tile_wavefronts<View>() == 1;
    }
  }();

  int m0_;
  int n0_;
};

#endif  // __CUDACC__

}  // namespace tilecraft
