//! \file gemm/warp_mma_tf32.cuh
//! The warp level of a GEMM on the tensor cores, for float operands: a warp's WM x WN tile of
//! C as (WM / 16) x (WN / 8) m16n8k8 TF32 MMAs per 8 rows of K (arch/mma.cuh), their fragments
//! read from the same K-major shared tiles the SIMT warp level reads (a row k holds element k
//! of every column of A, or of every row of B). The math is a compile-time choice:
//!   - TF32: each operand rounded to TF32 (10 explicit mantissa bits; arch::to_tf32_operand,
//!     whose note on NaN payloads applies), one MMA: about 8x the FFMA throughput, with a
//!     relative error of about 2^-11 per product;
//!   - TF32x3: each operand split into a TF32 big part and a TF32 remainder, x = big + small,
//!     and acc += small_a big_b + big_a small_b + big_a big_b (small_a small_b, below 2^-22 of
//!     the product, is dropped), each k step's three products summed apart and added to the
//!     accumulators in FP32: FP32 accuracy from three MMAs (each product within 3 * 2^-22 of
//!     exact, then FP32 accumulation). Inf and NaN operands give what FP32 products give, and
//!     finite ones near FLT_MAX (whose TF32 rounding is Inf) stay finite: a k step holding any
//!     of them reads and splits its fragments again on an exact path.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../arch/ldmatrix.cuh"
#include "../arch/mma.cuh"
#include "../config.cuh"
#include "../memory/bank_model.cuh"
#include "../memory/shared_tile.cuh"
#include "../util/thread.cuh"
#include "gemm_math.cuh"
#include "gemm_shape.cuh"

namespace tilecraft {

#if defined(__CUDACC__)

//! Warp level on the tensor cores: one warp's WM x WN tile of C, starting at column `m0` of
//! TileA and column `n0` of TileB, accumulated over all TileA::rows rows of K of one stage.
//! TileA is a K x M SharedMatrix<float> and TileB a K x N one (K-major, as GemmShape lays out
//! a stage), with K a multiple of 8, or either one the TransposedView that multiply() reads of
//! a K-contiguous tile (`TransposedView<const SharedMatrix<float, M, K, ...>>`: A's own layout
//! when A is row-major). Math is GemmMath::tf32 or GemmMath::tf32x3.
//! Each lane (g, t) = (lane / 4, lane % 4) reads its fragments with 4-byte loads: row k + t and
//! k + t + 4, columns g and g + 8 of each 16-column A block and g of each 8-column B block; from
//! a TransposedView of a K-contiguous tile (multiply's views) with one `ldmatrix` per fragment
//! instead (.x4 for A's 16 x 8, .x2 for B's 8 x 8), where its rows are 16-byte aligned and the
//! bank model finds its 8-row phases conflict-free.
//! Rules (static_asserts): float tiles, WM a multiple of 16 and WN of 8, K a multiple of 8, and
//! the fragment loads conflict-free by the bank model: rows of 8 or 24 (mod 32) floats (a
//! 128-column tile needs Padded<8>).
//! Accumulator acc[i][j][r] is C element (row(i, r), col(j, r)) of the block tile. No
//! barriers; reads shared memory only; every lane of the warp must call it (mma.sync).
//! \code
//! using TileA = tilecraft::SharedMatrix<float, 16, 128, tilecraft::Padded<8>>;  // K x M
//! using TileB = tilecraft::SharedMatrix<float, 16, 64, tilecraft::Padded<8>>;   // K x N
//! using Mma = tilecraft::WarpMmaTf32<TileA, TileB, 64, 32, tilecraft::GemmMath::tf32x3>;
//! __device__ void step(const TileA& a, const TileB& b, Mma::Accumulators& acc) {
//!   const int warp = threadIdx.x / 32;  // 4 warps: 2 x 2 warp tiles of 64 x 32
//!   const Mma mma((warp / 2) * 64, (warp % 2) * 32);
//!   mma.multiply(a, b, acc);
//! }
//! \endcode
//! A row-major A staged in its own layout (M x K, K contiguous: ldmatrix fragments) is named
//! by the view multiply() reads:
//! \code
//! using TileMK = tilecraft::SharedMatrix<float, 64, 16, tilecraft::Padded<4>>;  // M x K
//! using TileB = tilecraft::SharedMatrix<float, 16, 64, tilecraft::Padded<8>>;   // K x N
//! using Mma = tilecraft::WarpMmaTf32<tilecraft::TransposedView<const TileMK>, TileB, 32, 32>;
//! __device__ void step(const TileMK& a, const TileB& b, Mma::Accumulators& acc) {
//!   const int warp = threadIdx.x / 32;  // 4 warps: 2 x 2 warp tiles of 32 x 32
//!   const Mma mma((warp / 2) * 32, (warp % 2) * 32);
//!   mma.multiply(tilecraft::transposed(a), b, acc);
//! }
//! \endcode
template <class TileA, class TileB, int WM, int WN, GemmMath Math = GemmMath::tf32>
class WarpMmaTf32 {
  static_assert(detail::is_tile_or_view_v<TileA> && detail::is_tile_or_view_v<TileB>,
                "WarpMmaTf32: TileA and TileB must be SharedMatrix tiles (K x M and K x N) or TransposedViews of "
                "M x K and N x K ones");
  static_assert(std::is_same_v<typename TileA::value_type, float> && std::is_same_v<typename TileB::value_type, float>,
                "WarpMmaTf32: the tiles must hold float (TF32 MMAs read FP32 operands)");
  static_assert(Math == GemmMath::tf32 || Math == GemmMath::tf32x3,
                "WarpMmaTf32: Math must be GemmMath::tf32 or GemmMath::tf32x3");
  static_assert(WM > 0 && WM % 16 == 0 && WN > 0 && WN % 8 == 0,
                "WarpMmaTf32: the warp tile must be a multiple of the MMA's 16 x 8 (WM of 16, WN of 8)");
  static_assert(TileA::rows == TileB::rows && TileA::rows % 8 == 0,
                "WarpMmaTf32: TileA and TileB must have the same rows (K), a multiple of 8 (the MMA's k)");
  static_assert(WM <= TileA::cols && WN <= TileB::cols, "WarpMmaTf32: the warp tile must fit the tiles' columns");
  static_assert(detail::tf32_fragment_wavefronts<TileA>() == 1 && detail::tf32_fragment_wavefronts<TileB>() == 1,
                "WarpMmaTf32: the fragment loads must be bank-conflict free: K-major tile rows of 8 or 24 (mod 32) "
                "floats (pad each row, e.g. Padded<8> for 128 or 64 columns); a TransposedView's K-contiguous rows "
                "of 4 (mod 8)");

 public:
  //! MMA tiles along M (16 rows each).
  static constexpr int tiles_m = WM / 16;
  //! MMA tiles along N (8 columns each).
  static constexpr int tiles_n = WN / 8;
  //! The lane's accumulators: 4 per 16 x 8 MMA tile.
  using Accumulators = float[static_cast<std::size_t>(tiles_m)][static_cast<std::size_t>(tiles_n)][4];

  //! The warp tile whose first element is (m0, n0) of the block tile: columns m0 ... m0 + WM - 1
  //! of TileA and n0 ... n0 + WN - 1 of TileB (multiples of 8 keep the bank rule's guarantee).
  TILECRAFT_DEVICE WarpMmaTf32(int m0, int n0) : m0_(m0), n0_(n0) {
    TILECRAFT_ASSERT(m0 >= 0 && n0 >= 0 && "WarpMmaTf32: the warp tile's origin (m0, n0) must be non-negative");
  }

  //! Block-tile row of accumulator [i][.][r].
  TILECRAFT_DEVICE int row(int i, int r) const { return m0_ + 16 * i + lane() / 4 + 8 * (r / 2); }
  //! Block-tile column of accumulator [.][j][r].
  TILECRAFT_DEVICE int col(int j, int r) const { return n0_ + 8 * j + 2 * (lane() % 4) + r % 2; }

  //! acc += A^T B over the tiles' K rows: the warp's WM x WN product of one stage.
  //! `a` and `b` are TileA and TileB, or any K x M and K x N views of the same extents: a
  //! TransposedView of an M x K tile (K contiguous; tiled_gemm stores an operand that is
  //! K-contiguous in global memory so), whose fragment reads must be conflict-free too (for
  //! float tiles: rows of 4 (mod 8) floats).
  template <class ViewA, class ViewB>
  TILECRAFT_DEVICE void multiply(const ViewA& a, const ViewB& b, Accumulators& acc) const {
    static_assert(ViewA::rows == TileA::rows && ViewA::cols == TileA::cols && ViewB::rows == TileB::rows &&
                      ViewB::cols == TileB::cols,
                  "WarpMmaTf32::multiply: the operand views must have TileA's and TileB's extents (K x M, K x N)");
    static_assert(
        std::is_same_v<typename ViewA::value_type, float> && std::is_same_v<typename ViewB::value_type, float>,
        "WarpMmaTf32::multiply: the operand views must hold float");
    static_assert(tf32_conflict_free<ViewA> && tf32_conflict_free<ViewB>,
                  "WarpMmaTf32::multiply: the fragment loads must be bank-conflict free (K-major rows of 8 or 24 (mod "
                  "32) floats; K-contiguous rows of 4 (mod 8))");
    constexpr auto mt = static_cast<std::size_t>(tiles_m);
    constexpr auto nt = static_cast<std::size_t>(tiles_n);
#pragma unroll
    for (int k = 0; k < TileA::rows; k += 8) {
      std::uint32_t a_big[mt][4], a_small[mt][4];
      std::uint32_t b_big[nt][2], b_small[nt][2];
      // Whether an operand of this lane is Inf or NaN, or a finite one whose big part rounded
      // to Inf (within half a TF32 unit of FLT_MAX).
      const bool special = load_split<false>(a, b, k, a_big, a_small, b_big, b_small);
      if constexpr (Math == GemmMath::tf32x3) {
        // An infinite big part would meet the other operand's remainder in a cross term (Inf
        // times 0, or times a remainder of the other sign, is NaN): in a step where any lane
        // holds a non-finite operand, the fragments are read and split again, a finite x near
        // FLT_MAX into the largest finite TF32 value and its exact remainder, and the cross
        // terms take 0 for Inf and NaN parts, so that the big product alone carries the Inf or
        // NaN, as an FP32 product would.
        if (__any_sync(0xffffffffu, special)) {
          (void)load_split<true>(a, b, k, a_big, a_small, b_big, b_small);
          products<true>(a_big, a_small, b_big, b_small, acc);
        } else {
          products<false>(a_big, a_small, b_big, b_small, acc);
        }
      } else {
        products<false>(a_big, a_small, b_big, b_small, acc);
      }
    }
  }

 private:
  // Reads the lane's A and B fragments of k step k and splits them (split<Exact>); returns
  // whether any of them is special (split's result).
  template <bool Exact, class ViewA, class ViewB, class FragA, class FragB>
  TILECRAFT_DEVICE bool load_split(const ViewA& a, const ViewB& b, int k, FragA& a_big, FragA& a_small, FragB& b_big,
                                   FragB& b_small) const {
    const int g = lane() / 4;
    const int t = lane() % 4;
    bool special = false;
#pragma unroll
    for (int i = 0; i < tiles_m; ++i) {
      const int m = m0_ + 16 * i;
      float x[4];
      if constexpr (by_ldmatrix<ViewA>) {
        // One ldmatrix.x4 of the K-contiguous tile: matrix q holds rows m + 8 (q % 2) ...,
        // columns k + 4 (q / 2) ...: lane (g, t) receives (row g, column t) of each, the
        // fragment's (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4).
        std::uint32_t r[4];
        const int l = lane();
        arch::ldmatrix<4>(r, &a.tile(m + l % 8 + 8 * (l / 8 % 2), k + 4 * (l / 16)));
#pragma unroll
        for (int q = 0; q < 4; ++q) std::memcpy(&x[q], &r[q], 4);
      } else {
        x[0] = a(k + t, m + g);
        x[1] = a(k + t, m + g + 8);
        x[2] = a(k + t + 4, m + g);
        x[3] = a(k + t + 4, m + g + 8);
      }
#pragma unroll
      for (int q = 0; q < 4; ++q) special |= split<Exact>(x[q], a_big[i][q], a_small[i][q]);
    }
#pragma unroll
    for (int j = 0; j < tiles_n; ++j) {
      const int n = n0_ + 8 * j;
      float x[2];
      if constexpr (by_ldmatrix<ViewB>) {
        // ldmatrix.x2: rows n ... n + 7, columns k ... k + 3 and k + 4 ... k + 7.
        std::uint32_t r[2];
        const int l = lane() % 16;
        arch::ldmatrix<2>(r, &b.tile(n + l % 8, k + 4 * (l / 8)));
        std::memcpy(&x[0], &r[0], 4);
        std::memcpy(&x[1], &r[1], 4);
      } else {
        x[0] = b(k + t, n + g);
        x[1] = b(k + t + 4, n + g);
      }
      special |= split<Exact>(x[0], b_big[j][0], b_small[j][0]);
      special |= split<Exact>(x[1], b_big[j][1], b_small[j][1]);
    }
    return special;
  }

  // (A variable, so that the host-side bank model runs at compile time, not in device code.)
  template <class View>
  static constexpr bool tf32_conflict_free = detail::tf32_fragment_wavefronts<View>() == 1;

  // Whether a view's fragments come by ldmatrix: a TransposedView of a K-contiguous tile of
  // floats whose rows start 16 bytes apart (ldmatrix reads rows of 16 bytes: 4 floats, a TF32
  // fragment's 4 consecutive k), each phase of 8 rows conflict-free at every fragment origin
  // (rows of 4 (mod 8) floats). Then one ldmatrix.x4 (A) or .x2 (B) replaces 4 or 2 loads.
  template <class View>
  static constexpr bool by_ldmatrix = [] {
    if constexpr (requires { typename View::tile_type; }) {
      using Tile = typename View::tile_type;
      if constexpr (is_shared_matrix_v<Tile>) {
        constexpr int stride = Tile::offset(1, 0) - Tile::offset(0, 0);
        if (Tile::cols % 8 != 0 || stride % 4 != 0 || Tile::offset(0, 1) != Tile::offset(0, 0) + 1) return false;
        for (int r0 = 0; r0 + 8 <= Tile::rows; r0 += 8) {
          for (int c0 = 0; c0 + 4 <= Tile::cols; c0 += 4) {
            const int w = bank::ldmatrix_wavefronts(
                [&](int l) { return static_cast<long long>(Tile::offset(r0 + l % 8, c0)) * 4; }, 1);
            if (w != 1) return false;
          }
        }
        return true;
      } else {
        return false;
      }
    } else {
      return false;
    }
  }();

  TILECRAFT_DEVICE static int lane() { return lane_id(); }

  // x = big + small (+ what TF32x3 drops): big = tf32(x), small = tf32(x - big), as MMA
  // operands (arch::to_tf32_operand: one instruction each). Returns whether x - big is not
  // finite: x is Inf or NaN, or (not Exact) a finite x within half a TF32 unit of FLT_MAX whose
  // big part rounded to Inf. Exact: such an x splits into the largest finite TF32 value of its
  // sign and its exact remainder instead, and a NaN into a NaN the MMA reads as one (a few more
  // instructions: the rare path only). TF32 math needs big only.
  template <bool Exact>
  TILECRAFT_DEVICE static bool split(float x, std::uint32_t& big, std::uint32_t& small) {
    big = arch::to_tf32_operand(x);
    small = 0u;
    if constexpr (Math == GemmMath::tf32x3) {
      std::uint32_t big_bits = big & 0xffffe000u;  // the value the MMA reads
      if constexpr (Exact) {
        std::uint32_t x_bits;
        std::memcpy(&x_bits, &x, 4);
        if (x != x) {
          // (cvt passes a NaN through: one whose payload lies only in the 13 bits the MMA
          // ignores would be read as Inf.)
          big_bits = 0x7fffe000u;
          big = big_bits;
        } else if ((big_bits & 0x7fffffffu) == 0x7f800000u && (x_bits & 0x7f800000u) != 0x7f800000u) {
          big_bits = (x_bits & 0x80000000u) | 0x7f7fe000u;
          big = big_bits;
        }
      }
      float b;
      std::memcpy(&b, &big_bits, 4);
      const float rest = x - b;
      small = arch::to_tf32_operand(rest);
      return !(std::fabs(rest) <= 3.402823466e38f);
    }
    return false;
  }

  // An operand made finite for a cross term: 0 for Inf and NaN.
  TILECRAFT_DEVICE static std::uint32_t finite(std::uint32_t bits) {
    return (bits & 0x7f800000u) == 0x7f800000u ? 0u : bits;
  }

  // acc[i][j] += A_i B_j for every MMA tile. TF32: one product into the accumulators. TF32x3:
  // the three products of the k step summed apart, from zero, the small terms first, and added
  // to the accumulators with one FP32 add each. (The tensor cores' own additions truncate: fed
  // the running sum K / 8 times three, that bias grows with K, to about 30 times an FP32 GEMM's
  // error at K = 4096 on the H200; summed apart, each part stays small and the FP32 adds round
  // to nearest.) Where Clamp says so, the big parts enter the cross terms made finite.
  template <bool Clamp, class FragA, class FragB>
  TILECRAFT_DEVICE static void products(const FragA& a_big, const FragA& a_small, const FragB& b_big,
                                        const FragB& b_small, Accumulators& acc) {
#pragma unroll
    for (int i = 0; i < tiles_m; ++i) {
#pragma unroll
      for (int j = 0; j < tiles_n; ++j) {
        if constexpr (Math == GemmMath::tf32x3) {
          float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
          if constexpr (Clamp) {
            const std::uint32_t ab[4] = {finite(a_big[i][0]), finite(a_big[i][1]), finite(a_big[i][2]),
                                         finite(a_big[i][3])};
            const std::uint32_t as[4] = {finite(a_small[i][0]), finite(a_small[i][1]), finite(a_small[i][2]),
                                         finite(a_small[i][3])};
            const std::uint32_t bb[2] = {finite(b_big[j][0]), finite(b_big[j][1])};
            const std::uint32_t bs[2] = {finite(b_small[j][0]), finite(b_small[j][1])};
            arch::mma_m16n8k8_tf32(part, as, bb, part);
            arch::mma_m16n8k8_tf32(part, ab, bs, part);
          } else {
            arch::mma_m16n8k8_tf32(part, a_small[i], b_big[j], part);
            arch::mma_m16n8k8_tf32(part, a_big[i], b_small[j], part);
          }
          arch::mma_m16n8k8_tf32(part, a_big[i], b_big[j], part);
#pragma unroll
          for (int r = 0; r < 4; ++r) acc[i][j][r] += part[r];
        } else {
          arch::mma_m16n8k8_tf32(acc[i][j], a_big[i], b_big[j], acc[i][j]);
        }
      }
    }
  }

  int m0_;
  int n0_;
};

#endif  // __CUDACC__

}  // namespace tilecraft
