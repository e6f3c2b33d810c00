//! \file gemm/gemm_shape.cuh
//! Every divisibility rule of a block-tiled GEMM (float or double on FMAs or TF32 tensor cores,
//! __half or __nv_bfloat16 on the 16-bit tensor cores) in one place: the block
//! tile TM x TN with K step TK, the thread's RegBlock, the warp's lane arrangement, the stages
//! and the element type, and what follows from them (warps, threads, shared memory, the lane ->
//! fragment map, which thread fills which shared element), checked with static_asserts whose
//! messages state the rule. Host-usable (constexpr), so tests and the launcher can reason about
//! a configuration without a GPU.
//!
//! Layout of the shared tiles (per stage): A as TK x TM (K-major: a k-row holds TM elements of
//! A's column k), B as TK x TN, each row padded (see operand_pad) so that a fill that walks
//! down K (an operand stored with K contiguous) writes every bank once. At step k a lane reads
//! its A fragment from row k of the A tile and its B fragment from row k of the B tile. Warp w
//! covers a WM x WN warp tile (WM = LanesM * RM, WN = LanesN * RN); lane l sits at
//! (l / LanesN, l % LanesN) of the LanesM x LanesN lane grid; fragment group g along M starts
//! at column warp_m0 + lane_m * VM + g * LanesM * VM of the A row (VM = min(RM, V), where V =
//! 16 / sizeof(T) elements make one 16-byte vector: 4 floats, 2 doubles), and likewise for B
//! (SIMT; the tensor-core warp levels read MMA fragments instead, see WarpMmaTf32, WarpMma16).
//! With LanesN >= 8 a quarter-warp (what one phase of a 16-byte access serves) reads one A
//! address (a broadcast) and eight consecutive B vectors: conflict-free, which the
//! static_asserts prove with the bank model.
//! With tensor-core math, an operand stored with K contiguous (A row-major, B column-major)
//! fills the same bytes of its stage as an L x TK tile with K contiguous instead (TileAk,
//! TileBk, rows of TK + 4 floats), in 16-byte copies along K (FillKRows), which the warp level
//! reads through a TransposedView: a K-major tile would take single-element copies there.
//! With 16-bit operands (GemmMath::mma16) the same two layouts hold __half or __nv_bfloat16,
//! their rows padded to an odd number of 16-byte chunks (rows of TK + 8 elements for TileAk),
//! which every 8 x 8 matrix the warp level's ldmatrix reads needs to be conflict-free.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../config.cuh"
#include "../memory/bank_model.cuh"
#include "../memory/shared_tile.cuh"
#include "../util/math.cuh"
#include "gemm_math.cuh"
#include "register_block.cuh"

namespace tilecraft {

namespace detail {

// RM and RN of a RegBlock, read without instantiating it, and whether RegBlock's own rules
// (register_block.cuh) hold: GemmShape stops once RegBlock has stated a broken one.
template <class>
struct RegBlockParams {
  static constexpr int rows = 1;
  static constexpr int cols = 1;
  static constexpr bool ok = false;
};
template <int RM, int RN>
struct RegBlockParams<RegBlock<RM, RN>> {
  static constexpr int rows = RM;
  static constexpr int cols = RN;
  static constexpr bool ok = is_pow2(RM) && RM <= 16 && is_pow2(RN) && RN <= 16 && RM * RN <= 128;
};

// x, or 1 where x is 0: a divisor that keeps a broken configuration's rules computable.
constexpr long long nonzero(long long x) { return x == 0 ? 1 : x; }

// Whether a and b (both > 0) divide one another.
constexpr bool divide_one_another(int a, int b) { return a > 0 && b > 0 && (a % b == 0 || b % a == 0); }

// The worst wavefront count of one TF32 MMA fragment register's loads from Tile (K-major),
// over the origins a warp reads: every group of 4 rows (k0 = 0, 4, ...) and every 8 columns
// (what a warp tile at any multiple-of-8 origin covers). 1: conflict-free.
template <class Tile>
constexpr int tf32_fragment_wavefronts() {
  int worst = 1;
  for (int k0 = 0; k0 + 4 <= Tile::rows; k0 += 4) {
    for (int c0 = 0; c0 + 8 <= Tile::cols; c0 += 8) {
      const int w = bank::fragment_tf32_wavefronts<Tile>(k0, c0);
      if (w > worst) worst = w;
    }
  }
  return worst;
}

// The worst wavefront count of one ldmatrix matrix (8 rows of 16 bytes) read from Tile (16-bit
// elements), over every origin a warp reads: each group of 8 rows and each 8 columns. The
// m16n8k16 fragments are made of such matrices (x4, x2, .trans or not: one phase each), so 1
// here makes every fragment load of the 16-bit warp level (WarpMma16) conflict-free.
template <class Tile>
constexpr int ldmatrix_tile_wavefronts() {
  int worst = 1;
  for (int r0 = 0; r0 + 8 <= Tile::rows; r0 += 8) {
    for (int c0 = 0; c0 + 8 <= Tile::cols; c0 += 8) {
      const int w = bank::tile_ldmatrix_wavefronts<Tile>([&](int lane) { return bank::Coord{r0 + lane % 8, c0}; }, 1);
      if (w > worst) worst = w;
    }
  }
  return worst;
}

// GemmShape::operand_pad (see there) for E elements in a bank row and K-runs of R rows.
constexpr int gemm_operand_pad(int l, int e, int r) { return ((e / r - l % e) % e + e) % e; }

// The padding of a 16-bit tensor-core tile's rows of l elements: rows of an odd number of
// 16-byte chunks, so that the 8 rows of an ldmatrix matrix fall in 8 different 16-byte bank
// groups (l is a multiple of 8).
constexpr int mma16_operand_pad(int l) { return (l / 8) % 2 == 0 ? 8 : 0; }

// GemmShape's configuration rules, each computable whatever the parameters, and for each the
// conjunction of the rules before it (before_*): GemmShape checks a rule only when those before
// it hold, so a broken configuration reports its first broken rule alone.
template <int TM, int TN, class RegBlockT, int TK, int LanesM, int Stages, class T, GemmMath Math>
struct GemmShapeRules {
  using Rb = RegBlockParams<RegBlockT>;
  static constexpr bool tensor = Math != GemmMath::simt;
  static constexpr bool half = is_gemm_16bit_v<T>;
  static constexpr bool wide = std::is_same_v<T, float> || std::is_same_v<T, double>;
  static constexpr bool element = wide || half;
  // simt: float or double; tf32, tf32x3: float; mma16: the 16-bit types.
  static constexpr bool tf32_math = Math == GemmMath::tf32 || Math == GemmMath::tf32x3;
  static constexpr bool math =
      half ? Math == GemmMath::mma16 : (Math == GemmMath::simt || (tf32_math && std::is_same_v<T, float>));
  // The element type the sizes are computed with (float while T is not allowed, or not with
  // the math), and the accumulators' type.
  using Value = std::conditional_t<element && math, T, float>;
  using Acc = gemm_output_t<Value>;
  // With 16-bit operands (mma16): rows padded to odd 16-byte counts (mma16_operand_pad).
  static constexpr bool mma16 = half && math;
  static constexpr int vector_elems = static_cast<int>(16 / sizeof(Value));
  static constexpr bool reg_block_type = is_reg_block_v<RegBlockT>;
  static constexpr bool accumulators = static_cast<long long>(Rb::rows) * Rb::cols * sizeof(Acc) <= 512;
  static constexpr bool lanes = is_pow2(LanesM) && LanesM <= warp_threads;
  static constexpr int mma_k = mma16 ? 16 : 8;
  static constexpr bool k_step = tensor ? TK > 0 && TK % mma_k == 0
                                        : TK == 1 || TK == 2 || TK == 4 || (TK > 0 && TK % 8 == 0);
  static constexpr bool stages = Stages >= 2 && Stages <= 8;
  static constexpr bool tile = TM > 0 && TN > 0 && TM % vector_elems == 0 && TN % vector_elems == 0;
  // 16-bit K-major tiles: a phase of a warp's 16-byte fill (8 lanes, 8 chunks) must stay in one
  // row, whose padding (an odd chunk count, for ldmatrix) would otherwise wrap its second row
  // onto the first's banks: rows of whole 128-byte lines, TM and TN multiples of 64.
  static constexpr bool mma16_tile = !mma16 || (TM % 64 == 0 && TN % 64 == 0);
  // (64-bit and nonzero: parameters far out of range must not stop the count itself.)
  static constexpr long long warp_m = static_cast<long long>(LanesM) * Rb::rows;
  static constexpr long long warp_n = warp_threads / nonzero(LanesM) * Rb::cols;
  static constexpr bool warp_tile_m = warp_m != 0 && TM % nonzero(warp_m) == 0;
  static constexpr bool warp_tile_n = warp_n != 0 && TN % nonzero(warp_n) == 0;
  static constexpr long long warps = warp_tile_m && warp_tile_n ? TM / nonzero(warp_m) * (TN / nonzero(warp_n)) : 0;
  static constexpr bool warps_ok = warps >= 1 && warps <= max_block_threads / warp_threads;
  static constexpr bool mma_tile = !tensor || (warp_m % 16 == 0 && warp_n % 8 == 0);

  static constexpr bool before_math = element;
  static constexpr bool before_reg_block = before_math && math;
  static constexpr bool before_accumulators = before_reg_block && reg_block_type && Rb::ok;
  static constexpr bool before_lanes = before_accumulators && accumulators;
  static constexpr bool before_k_step = before_lanes && lanes;
  static constexpr bool before_stages = before_k_step && k_step;
  static constexpr bool before_tile = before_stages && stages;
  static constexpr bool before_mma16_tile = before_tile && tile;
  static constexpr bool before_warp_tile_m = before_mma16_tile && mma16_tile;
  static constexpr bool before_warp_tile_n = before_warp_tile_m && warp_tile_m;
  static constexpr bool before_warps = before_warp_tile_n && warp_tile_n;
  static constexpr bool before_mma_tile = before_warps && warps_ok;
  static constexpr bool before_smem = before_mma_tile && mma_tile;
  // Shared memory of the stages (GemmShape::smem_bytes, counted without building the tiles, once
  // the rules before hold: then every factor is in range).
  // (Tensor-core tiles take runs of 4: see GemmShape::fill_k_run.)
  static constexpr int fill_k_run_max = tensor ? 4 : 8;
  static constexpr int fill_k_run = TK < 1 ? 1 : TK < fill_k_run_max ? TK : fill_k_run_max;
  static constexpr int bank_row_elems = static_cast<int>(smem_wavefront_bytes / sizeof(Value));
  // With tensor-core math a stage holds each operand's tile in one of two layouts (K-major, or
  // L x TK with K contiguous, rows padded by 4: GemmShape::TileAk), in the same bytes.
  static constexpr int k_major_pad(int l) {
    return mma16 ? mma16_operand_pad(l) : gemm_operand_pad(l, bank_row_elems, fill_k_run);
  }
  // The padding of an L x TK tile's rows (GemmShape::TileAk): 4 floats, or 8 16-bit elements.
  static constexpr int k_inner_pad = mma16 ? 8 : 4;
  static constexpr long long k_major_elems(int l) { return static_cast<long long>(TK) * (l + k_major_pad(l)); }
  static constexpr long long operand_elems(int l) {
    const long long k_inner = static_cast<long long>(l) * (TK + k_inner_pad);
    return tensor && k_inner > k_major_elems(l) ? k_inner : k_major_elems(l);
  }
  static constexpr long long smem_bytes = !before_smem ? 0
                                                       : static_cast<long long>(Stages) *
                                                             (operand_elems(TM) + operand_elems(TN)) *
                                                             static_cast<long long>(sizeof(Value));
  static constexpr bool smem = smem_bytes <= max_smem_per_block;
  // Every rule up to shared memory holds: the configuration's own values are safe to use.
  static constexpr bool parameters = before_smem && smem;
};

}  // namespace detail

//! A GEMM block configuration, in TiledGemm's parameter order. TM x TN: the C tile one block
//! computes; RegBlockT: the thread's RegBlock<RM, RN>; TK: the K step (one stage of the A and
//! B tiles); LanesM: rows of the warp's lane grid (LanesN = 32 / LanesM); Stages: A/B tile
//! pairs in flight; T: the element type of A and B, float, double, __half or __nv_bfloat16 (C
//! and the accumulators: T, or float for the 16-bit types: output_type);
//! Math: FMAs (GemmMath::simt) or the tensor cores (GemmMath::tf32, tf32x3: float only;
//! GemmMath::mma16: the 16-bit types only, and their default), on the
//! same block and warp tiles (fills in runs of min(TK, 4) rows, rows of 8 (mod 32) floats; an
//! operand stored with K contiguous fills TileAk / TileBk, rows of TK + 4 floats; 16-bit rows
//! padded to an odd number of 16-byte chunks).
//! Rules (each a static_assert, in this order): T is float, double, __half or __nv_bfloat16;
//! the math suits T (simt: float or double; tf32, tf32x3: float; mma16: 16-bit); RegBlockT is a
//! RegBlock (whose own rules hold) with RM * RN * sizeof(accumulator) at most 512 bytes (64
//! double accumulators);
//! LanesM is a power of two from 1 to 32; TK is 1, 2, 4 or a multiple of 8 (with tensor-core
//! math a multiple of 8, with mma16 of 16); 2 <= Stages <= 8; TM and TN are positive multiples
//! of V = 16 / sizeof(T); with GemmMath::mma16, TM and TN are multiples of 64; TM is a multiple
//! of WM = LanesM * RM and TN of WN = LanesN * RN; the
//! block has 1 to 32 warps; with tensor-core math WM and WN are multiples of 16 and 8; the
//! stages fit one block's shared
//! memory (227 KiB); the thread count and each fill's vectors per tile row (TM / V, TN / V, TM,
//! TN) divide one another, as do threads / min(TK, 8) and TM, TN (so a thread's fill elements
//! are compile-time steps apart); every fragment load and every shared write of the fills is
//! bank-conflict free; with tensor-core math threads and 8 * TK / V and 8 * TK divide one
//! another (FillKRows). A rule is checked only when those before
//! it hold, so a broken configuration reports its first broken rule alone; past a broken parameter rule the members
//! describe a valid stand-in (64 x 64, RegBlock<4, 4>, TK 8, LanesM 4, 3 stages), so that
//! nothing built on the shape fails after the rule's message. rules_ok says whether all hold.
//! \code
//! using Shape = tilecraft::GemmShape<128, 128, tilecraft::RegBlock<8, 8>, 8>;
//! static_assert(Shape::threads == 256 && Shape::warp_m == 32 && Shape::warp_n == 64);
//! using Dgemm = tilecraft::GemmShape<128, 64, tilecraft::RegBlock<4, 8>, 8, 4, 3, double>;
//! static_assert(Dgemm::threads == 256 && Dgemm::vector_elems == 2 && Dgemm::smem_bytes <= 48 * 1024);
//! // bfloat16 on the tensor cores (GemmMath::mma16, the default for it): 4 warps of 64 x 64
//! using Bf16 = tilecraft::GemmShape<128, 128, tilecraft::RegBlock<16, 8>, 32, 4, 3, __nv_bfloat16>;
//! static_assert(Bf16::threads == 128 && Bf16::mma16_math && std::is_same_v<Bf16::output_type, float>);
//! \endcode
template <int TM, int TN, class RegBlockT, int TK = 8, int LanesM = 4, int Stages = 3, class T = float,
          GemmMath Math = default_gemm_math_v<T>>
struct GemmShape {
 private:
  using Rules = detail::GemmShapeRules<TM, TN, RegBlockT, TK, LanesM, Stages, T, Math>;
  static constexpr bool own = Rules::parameters;  // else the stand-in configuration

 public:
  //! T is float, double, __half or __nv_bfloat16.
  static constexpr bool element_rule = Rules::element;
  static_assert(element_rule, "GemmShape: T (the element type) must be float, double, __half or __nv_bfloat16");
  //! The math suits T: simt takes float or double, tf32 and tf32x3 float, mma16 (the only math
  //! of the 16-bit types) __half or __nv_bfloat16.
  static constexpr bool math_rule = Rules::math;
  static_assert(!Rules::before_math || math_rule || Rules::half || !Rules::tf32_math,
                "GemmShape: GemmMath::tf32 and GemmMath::tf32x3 multiply float elements (T must be float)");
  static_assert(!Rules::before_math || math_rule || Rules::half || Rules::tf32_math,
                "GemmShape: GemmMath::mma16 multiplies __half or __nv_bfloat16 elements (T must be one of them)");
  static_assert(!Rules::before_math || math_rule || !Rules::half,
                "GemmShape: __half and __nv_bfloat16 elements multiply on the tensor cores: Math must be "
                "GemmMath::mma16 (their default)");
  static_assert(!Rules::before_reg_block || Rules::reg_block_type,
                "GemmShape: RegBlockT must be a tilecraft::RegBlock<RM, RN>");
  //! RegBlockT is a RegBlock whose own rules hold (RegBlock states them itself).
  static constexpr bool reg_block_rule = Rules::reg_block_type && Rules::Rb::ok;

 private:
  // Instantiates RegBlockT once T is right, so that a broken RegBlock states its rule (and
  // GemmShape, seeing reg_block_rule broken, says nothing more).
  static constexpr bool reg_block_instantiated = [] {
    if constexpr (Rules::before_reg_block && Rules::reg_block_type) {
      return sizeof(RegBlockT) > 0;
    } else {
      return true;
    }
  }();
  static_assert(reg_block_instantiated);

 public:
  //! The accumulators fit in registers: RM * RN * sizeof(accumulator) <= 512 bytes (RegBlock's
  //! 128 floats, or 64 doubles: a double takes two registers; 16-bit operands accumulate in float).
  static constexpr bool accumulator_rule = Rules::accumulators;
  static_assert(!Rules::before_accumulators || accumulator_rule,
                "GemmShape: RM * RN * sizeof(T) must be <= 512 bytes (sizeof(float) for 16-bit T, whose accumulators "
                "are float; at most 64 double accumulators: they must fit in registers)");
  static_assert(!Rules::before_lanes || Rules::lanes,
                "GemmShape: LanesM (rows of a warp's lane grid) must be a power of two from 1 to 32");
  //! The K-step rule holds: TK is 1, 2, 4 or a multiple of 8.
  static constexpr bool k_step_rule = Rules::k_step;
  static_assert(!Rules::before_k_step || k_step_rule || Rules::tensor,
                "GemmShape: TK (the K step) must be 1, 2, 4 or a multiple of 8");
  static_assert(!Rules::before_k_step || k_step_rule || !Rules::tensor || Rules::mma16,
                "GemmShape: with tensor-core math TK (the K step) must be a multiple of 8 (the MMA's k)");
  static_assert(!Rules::before_k_step || k_step_rule || !Rules::mma16,
                "GemmShape: with GemmMath::mma16 TK (the K step) must be a multiple of 16 (the MMA's k)");
  static_assert(!Rules::before_stages || Rules::stages,
                "GemmShape: Stages must be between 2 and 8 (one stage is computed on while the next loads)");
  //! The tile rule holds: TM and TN are positive multiples of vector_elems.
  static constexpr bool tile_rule = Rules::tile;
  static_assert(!Rules::before_tile || tile_rule,
                "GemmShape: TM and TN must be positive multiples of 16 / sizeof(T) (4 floats, 2 doubles, 8 16-bit "
                "elements: shared rows are filled in 16-byte vectors)");
  //! With GemmMath::mma16, TM and TN are multiples of 64.
  static constexpr bool mma16_tile_rule = Rules::mma16_tile;
  static_assert(!Rules::before_mma16_tile || mma16_tile_rule,
                "GemmShape: with GemmMath::mma16 TM and TN must be multiples of 64 (a 16-byte fill phase must write "
                "one padded row: 128-byte lines of 16-bit elements)");
  //! The warp tiles divide the block tile.
  static constexpr bool warp_tile_rule = Rules::warp_tile_m && Rules::warp_tile_n;
  static_assert(!Rules::before_warp_tile_m || Rules::warp_tile_m,
                "GemmShape: TM must be a multiple of the warp tile's rows (LanesM * RM)");
  static_assert(!Rules::before_warp_tile_n || Rules::warp_tile_n,
                "GemmShape: TN must be a multiple of the warp tile's columns (LanesN * RN)");
  //! The block has 1 to 32 warps.
  static constexpr bool warps_rule = Rules::warps_ok;
  static_assert(!Rules::before_warps || warps_rule,
                "GemmShape: the block must have 1 to 32 warps ((TM / WM) * (TN / WN))");
  //! With tensor-core math, the warp tile is made of whole 16 x 8 MMA tiles.
  static constexpr bool mma_tile_rule = Rules::mma_tile;
  static_assert(!Rules::before_mma_tile || mma_tile_rule,
                "GemmShape: with tensor-core math the warp tile (WM = LanesM * RM by WN = LanesN * RN) must be a "
                "multiple of the MMA's 16 x 8");
  //! The stages fit one block's shared memory.
  static constexpr bool smem_rule = Rules::smem;
  static_assert(!Rules::before_smem || smem_rule,
                "GemmShape: Stages * TK * (TM + TN + padding) * sizeof(T) bytes must fit one block's shared memory "
                "(227 KiB)");

  //! The element type of A and B.
  using element_type = T;
  //! The type of C and of the accumulators: T, or float for the 16-bit types.
  using output_type = gemm_output_t<T>;
  //! The math of the multiply-adds.
  static constexpr GemmMath math = Math;
  //! Whether the math runs on the tensor cores (GemmMath::tf32, tf32x3, mma16).
  static constexpr bool tensor_math = Rules::tensor;
  //! Whether A and B are 16-bit (GemmMath::mma16: fragments by ldmatrix, WarpMma16).
  static constexpr bool mma16_math = Rules::mma16;
  //! Elements in one 16-byte vector (V: 4 floats, 2 doubles, 8 16-bit): the width of the vector
  //! fills, fragment loads (LDS.128) and C stores.
  static constexpr int vector_elems = Rules::vector_elems;
  //! The thread's register block.
  using reg_block = std::conditional_t<own, RegBlockT, RegBlock<4, 4>>;
  //! Rows of the block's C tile.
  static constexpr int tile_m = own ? TM : 64;
  //! Columns of the block's C tile.
  static constexpr int tile_n = own ? TN : 64;
  //! The K step: columns of A (rows of B) per stage.
  static constexpr int tile_k = own ? TK : 8;
  //! A/B tile pairs in flight.
  static constexpr int stages = own ? Stages : 3;
  //! Rows of the warp's lane grid.
  static constexpr int lanes_m = own ? LanesM : 4;
  //! Columns of the warp's lane grid.
  static constexpr int lanes_n = warp_threads / lanes_m;
  //! Rows of the warp tile (WM).
  static constexpr int warp_m = lanes_m * reg_block::rows;
  //! Columns of the warp tile (WN).
  static constexpr int warp_n = lanes_n * reg_block::cols;
  //! Elements per A-fragment vector: min(RM, vector_elems) (an LDS.128 when equal).
  static constexpr int vector_m = reg_block::rows < vector_elems ? reg_block::rows : vector_elems;
  //! Elements per B-fragment vector: min(RN, vector_elems).
  static constexpr int vector_n = reg_block::cols < vector_elems ? reg_block::cols : vector_elems;
  //! A-fragment vectors (groups) per k step: RM / vector_m.
  static constexpr int groups_m = reg_block::rows / vector_m;
  //! B-fragment vectors (groups) per k step: RN / vector_n.
  static constexpr int groups_n = reg_block::cols / vector_n;
  //! Warps along M.
  static constexpr int warps_m = tile_m / warp_m;
  //! Warps along N.
  static constexpr int warps_n = tile_n / warp_n;
  //! Warps per block.
  static constexpr int warps = warps_m * warps_n;
  //! Threads per block.
  static constexpr int threads = warps * warp_threads;

  //! K rows a warp's K-contiguous fill covers at once (min(TK, 8); with tensor-core math
  //! min(TK, 4), which with the padding below leaves rows of 8 (mod 32) floats, what the
  //! tensor-core fragment loads need to be conflict-free); see FillScatter.
  static constexpr int fill_k_run = tile_k < Rules::fill_k_run_max ? tile_k : Rules::fill_k_run_max;
  //! Elements of T in one bank row (32 banks x 4 bytes): 32 floats, 16 doubles.
  static constexpr int bank_row_elems = static_cast<int>(smem_wavefront_bytes / sizeof(typename Rules::Value));
  //! Elements of padding after each row of an operand tile with L columns. The K-contiguous
  //! fill writes single elements; one shared-memory phase serves E = bank_row_elems lanes (all
  //! 32 for 4-byte writes, 16 for 8-byte ones), an R x (E / R) block of the tile (R =
  //! fill_k_run, see FillScatter). A row stride of E / R elements (mod E) puts that block's
  //! E elements on E * sizeof(T) / 4 = 32 different banks. The padding is a multiple of
  //! vector_elems (E / R is, for R <= 8, and L is), so rows stay 16-byte aligned for the vector
  //! fill and the LDS.128 fragment loads.
  //! With GemmMath::mma16 (no element-wise K-contiguous fill: such operands fill TileAk, TileBk)
  //! the rows are padded to an odd number of 16-byte chunks instead, which keeps the 8 rows of
  //! every ldmatrix matrix in 8 different bank groups.
  static constexpr int operand_pad(int l) { return Rules::k_major_pad(l); }
  //! One stage's A tile: TK x TM, K-major, padded.
  using TileA = SharedMatrix<typename Rules::Value, tile_k, tile_m, Padded<operand_pad(tile_m)>>;
  //! One stage's B tile: TK x TN, padded.
  using TileB = SharedMatrix<typename Rules::Value, tile_k, tile_n, Padded<operand_pad(tile_n)>>;
  //! With tensor-core math, the A tile of an operand stored with K contiguous (A row-major): TM x
  //! TK, K contiguous, so that it fills in 16-byte vectors as B's K-major tile does; the warp
  //! level reads it through a TransposedView (K x TM). Rows of TK + 4 floats (4 mod 8): a warp's
  //! fragment reads (8 rows by 4 consecutive k) and the fill's writes (FillKRows) touch every
  //! bank once.
  //! With GemmMath::mma16, rows of TK + 8 16-bit elements (an odd number of 16-byte chunks).
  using TileAk = SharedMatrix<typename Rules::Value, tile_m, tile_k, Padded<Rules::k_inner_pad>>;
  //! With tensor-core math, the B tile of an operand stored with K contiguous (B column-major):
  //! TN x TK, as TileAk.
  using TileBk = SharedMatrix<typename Rules::Value, tile_n, tile_k, Padded<Rules::k_inner_pad>>;

 private:
  struct SimtStage {
    TileA a;
    TileB b;
  };
  struct TensorStage {
    union {
      TileA a;
      TileAk a_k;
    };
    union {
      TileB b;
      TileBk b_k;
    };
  };

 public:
  //! One pipeline stage: the A and B tiles of one K step: members `a` (TK x TM) and `b`
  //! (TK x TN); with tensor-core math, `a_k` (TileAk) shares a's bytes and `b_k` (TileBk) b's,
  //! and an operand stored with K contiguous fills those instead.
  using Stage = std::conditional_t<tensor_math, TensorStage, SimtStage>;
  //! Shared memory of all stages, in bytes.
  static constexpr std::size_t smem_bytes = static_cast<std::size_t>(stages) * sizeof(Stage);
  static_assert(!own || smem_bytes == static_cast<std::size_t>(Rules::smem_bytes),
                "GemmShape: internal: the shared-memory rule must count the tiles' bytes");
  //! The row fills' rule holds: threads and the vectors per tile row of each (TM / V, TN / V,
  //! TM, TN) divide one another.
  static constexpr bool fill_rows_rule = detail::divide_one_another(threads, tile_m / vector_elems) &&
                                         detail::divide_one_another(threads, tile_n / vector_elems) &&
                                         detail::divide_one_another(threads, tile_m) &&
                                         detail::divide_one_another(threads, tile_n);
  static_assert(!own || fill_rows_rule,
                "GemmShape: the block's thread count and the vectors per tile row (TM / V, TN / V, TM or TN, "
                "V = 16 / sizeof(T)) must divide one another");
  //! The K-contiguous fills' rule holds: threads / fill_k_run and TM, TN divide one another.
  static constexpr bool fill_scatter_rule = detail::divide_one_another(threads / fill_k_run, tile_m) &&
                                            detail::divide_one_another(threads / fill_k_run, tile_n);
  static_assert(!(own && fill_rows_rule) || fill_scatter_rule,
                "GemmShape: threads / min(TK, 8) (min(TK, 4) with tensor-core math) and the tile width (TM, TN) must "
                "divide one another");
  //! The rules so far hold (so the bank-conflict analysis below is worth running).
  static constexpr bool shape_ok = own && fill_rows_rule && fill_scatter_rule;

  //! The fill of a Rows x Cols tile whose rows are contiguous in global memory too (the K-major
  //! tile of an operand stored with L contiguous: Rows = TK, Cols = TM or TN), in vectors of
  //! Width elements (vector_elems: 16-byte copies, for aligned operands; 1: single elements):
  //! vector v = thread + i * threads at row v / (Cols / Width), column
  //! Width * (v % (Cols / Width)). A warp writes consecutive words (conflict-free) and reads
  //! contiguous global memory. Because threads and Cols / Width divide one another, a thread's
  //! i-th vector is its first one moved by the compile-time (row_step(i), col_step(i)), so a
  //! thread keeps one address per operand, not one per vector.
  template <int Rows, int Cols, int Width>
  struct FillRows {
    static_assert(Width == 1 || Width == vector_elems,
                  "GemmShape::FillRows: Width must be 1 or vector_elems (16 / sizeof(T)) elements");
    //! Vectors per tile row.
    static constexpr int per_row = Cols / Width;
    static_assert(!shape_ok || detail::divide_one_another(threads, per_row),
                  "GemmShape: the block's thread count and the vectors per tile row (TM / V, TN / V, TM or TN, "
                  "V = 16 / sizeof(T)) must divide one another");
    //! Vectors per tile.
    static constexpr int vectors = Rows * per_row;
    //! Vectors per thread (in a ragged last pass, guard with `row < Rows`).
    static constexpr int per_thread = (vectors + threads - 1) / threads;
    //! Tile row of vector v.
    TILECRAFT_HOST_DEVICE static constexpr int row(int v) { return v / per_row; }
    //! Tile column of vector v's first element.
    TILECRAFT_HOST_DEVICE static constexpr int col(int v) { return Width * (v % per_row); }
    //! row(thread + i * threads) - row(thread), for every thread.
    TILECRAFT_HOST_DEVICE static constexpr int row_step(int i) { return i * threads / per_row; }
    //! col(thread + i * threads) - col(thread), for every thread.
    TILECRAFT_HOST_DEVICE static constexpr int col_step(int i) { return Width * (i * threads % per_row); }
  };
  //! The fill of an operand tile with L columns from global memory where K is contiguous (A
  //! row-major, B column-major): element e = thread + i * threads at row (K) e % R +
  //! R * (e / (R * L)), column e / R % L, with R = fill_k_run. A warp reads R consecutive
  //! elements (for R = 8, a 32-byte sector of floats, two of doubles) of 32 / R columns and
  //! writes them transposed into the K-major tile; the padding keeps those writes
  //! conflict-free. As for FillRows, a thread's i-th element is its first one moved by a
  //! compile-time step.
  template <int L>
  struct FillScatter {
    //! Threads that share one k (one per column of an R x (threads / R) block).
    static constexpr int columns = threads / fill_k_run;
    static_assert(!shape_ok || detail::divide_one_another(columns, L),
                  "GemmShape: threads / min(TK, 8) (min(TK, 4) with tensor-core math) and the tile width (TM, TN) must "
                  "divide one another");
    //! Elements per tile.
    static constexpr int elements = tile_k * L;
    //! Elements per thread (in a ragged last pass, guard with `row < TK`).
    static constexpr int per_thread = (elements + threads - 1) / threads;
    //! Tile row (k) of element e.
    TILECRAFT_HOST_DEVICE static constexpr int row(int e) {
      return e % fill_k_run + fill_k_run * (e / (fill_k_run * L));
    }
    //! Tile column of element e.
    TILECRAFT_HOST_DEVICE static constexpr int col(int e) { return e / fill_k_run % L; }
    //! row(thread + i * threads) - row(thread), for every thread.
    TILECRAFT_HOST_DEVICE static constexpr int row_step(int i) { return fill_k_run * (i * columns / L); }
    //! col(thread + i * threads) - col(thread), for every thread.
    TILECRAFT_HOST_DEVICE static constexpr int col_step(int i) { return i * columns % L; }
  };

  //! The fill of an L x TK tile with K contiguous (TileAk, TileBk: tensor-core math, an operand
  //! stored with K contiguous) in vectors of Width elements along K: vector v at row
  //! v % 8 + 8 * (v / (8 * P)), column Width * ((v / 8) % P), with P = TK / Width vectors per
  //! row. Eight consecutive lanes (one phase of a 16-byte access; 32 lanes of 4-byte ones cover
  //! 8 rows by 4 columns) write one column of 8 rows, which rows of 4 (mod 8) floats put on
  //! different banks; a warp still reads whole rows of K, 32-byte sectors, from global memory.
  //! Rows must be a multiple of 8, and threads and 8 * P must divide one another (so a thread's
  //! i-th vector is its first one moved by a compile-time step).
  template <int Rows, int Width>
  struct FillKRows {
    static_assert(Width == 1 || Width == vector_elems,
                  "GemmShape::FillKRows: Width must be 1 or vector_elems (16 / sizeof(T)) elements");
    //! Vectors per tile row (TK / Width).
    static constexpr int per_row = tile_k / Width;
    //! Vectors of 8 whole rows.
    static constexpr int group = 8 * per_row;
    // (GemmShape::k_inner_rule states the rule; this only keeps a broken map from compiling.)
    static_assert(Rows % 8 == 0 && detail::divide_one_another(threads, group),
                  "GemmShape::FillKRows: Rows must be a multiple of 8, and threads and 8 * TK / Width must divide "
                  "one another");
    //! Vectors per tile.
    static constexpr int vectors = Rows * per_row;
    //! Vectors per thread (in a ragged last pass, guard with `row < Rows`).
    static constexpr int per_thread = (vectors + threads - 1) / threads;
    //! Tile row of vector v.
    TILECRAFT_HOST_DEVICE static constexpr int row(int v) { return v % 8 + 8 * (v / group); }
    //! Tile column of vector v's first element.
    TILECRAFT_HOST_DEVICE static constexpr int col(int v) { return Width * ((v / 8) % per_row); }
    //! row(thread + i * threads) - row(thread), for every thread.
    TILECRAFT_HOST_DEVICE static constexpr int row_step(int i) { return 8 * (i * threads / group); }
    //! col(thread + i * threads) - col(thread), for every thread.
    TILECRAFT_HOST_DEVICE static constexpr int col_step(int i) { return Width * ((i * threads / 8) % per_row); }
  };

  //! Row of lane l in the lane grid.
  TILECRAFT_HOST_DEVICE static constexpr int lane_m(int lane) { return lane / lanes_n; }
  //! Column of lane l in the lane grid.
  TILECRAFT_HOST_DEVICE static constexpr int lane_n(int lane) { return lane % lanes_n; }
  //! Column of the A tile's row where fragment group g of lane l in warp w begins.
  TILECRAFT_HOST_DEVICE static constexpr int fragment_col_a(int warp, int lane, int g) {
    return (warp / warps_n) * warp_m + lane_m(lane) * vector_m + g * lanes_m * vector_m;
  }
  //! Column of the B tile's row where fragment group g of lane l in warp w begins.
  TILECRAFT_HOST_DEVICE static constexpr int fragment_col_b(int warp, int lane, int g) {
    return (warp % warps_n) * warp_n + lane_n(lane) * vector_n + g * lanes_n * vector_n;
  }

  //! The worst conflict factor (wavefronts over the conflict-free minimum) of a warp's fragment
  //! load from the A tile (WhichB == false) or the B tile (true), over its groups; 1 means
  //! conflict-free. Warp 0 at k = 0 stands for all: other warps and other k add the same offset
  //! to every lane's address, which maps banks one-to-one onto banks and so keeps the conflicts.
  //! With tensor-core math the fragment loads are 4-byte loads of the MMA fragments
  //! (WarpMmaTf32), the worst over every origin a warp reads from.
  template <bool WhichB>
  static constexpr int fragment_conflict_factor() {
    using Tile = std::conditional_t<WhichB, TileB, TileA>;
    if constexpr (mma16_math) {
      return detail::ldmatrix_tile_wavefronts<Tile>();
    } else if constexpr (tensor_math) {
      return detail::tf32_fragment_wavefronts<Tile>();
    } else {
      constexpr int vector = WhichB ? vector_n : vector_m;
      constexpr int groups = WhichB ? groups_n : groups_m;
      constexpr int access = vector * static_cast<int>(sizeof(T));
      int worst = 1;
      for (int g = 0; g < groups; ++g) {
        const int w = bank::tile_wavefronts<Tile>(
            [&](int lane) {
              return bank::Coord{0, WhichB ? fragment_col_b(0, lane, g) : fragment_col_a(0, lane, g)};
            },
            access);
        const int factor = ceil_div(w, bank::ideal_wavefronts(access));
        if (factor > worst) worst = factor;
      }
      return worst;
    }
  }
  //! The worst conflict factor of a warp's shared writes when filling Tile (L columns) with
  //! the row fill in vectors of Width elements (Scatter == false) or the K-contiguous fill, over
  //! the warps of one pass.
  template <class Tile, bool Scatter, int Width = 1>
  static constexpr int fill_conflict_factor() {
    constexpr int l = Tile::cols;
    constexpr int access = static_cast<int>(sizeof(T)) * (Scatter ? 1 : Width);
    constexpr int r = Tile::rows;
    constexpr int total = Scatter ? FillScatter<l>::elements : FillRows<r, l, Width>::vectors;
    int worst = 1;
    for (int w = 0; w < threads / warp_threads; ++w) {
      const int wf = bank::tile_wavefronts<Tile>(
          [&](int lane) {
            const int i = w * warp_threads + lane;
            if (i >= total) return bank::Coord{-1, 0};
            if constexpr (Scatter) {
              return bank::Coord{FillScatter<l>::row(i), FillScatter<l>::col(i)};
            } else {
              return bank::Coord{FillRows<r, l, Width>::row(i), FillRows<r, l, Width>::col(i)};
            }
          },
          access);
      const int factor = ceil_div(wf, bank::ideal_wavefronts(access));
      if (factor > worst) worst = factor;
    }
    return worst;
  }

  //! The A fragment loads are conflict-free (computed only when shape_ok).
  static constexpr bool fragment_a_rule = !shape_ok || fragment_conflict_factor<false>() == 1;
  static_assert(fragment_a_rule || tensor_math,
                "GemmShape: the A fragment loads must be bank-conflict free (choose LanesM so that a "
                "quarter-warp reads one A vector or consecutive ones)");
  static_assert(fragment_a_rule || !tensor_math,
                "GemmShape: the tensor-core fragment loads must be bank-conflict free (tile rows of 8 or 24 (mod 32) "
                "floats; for 16-bit operands, rows of an odd number of 16-byte chunks)");
  //! The B fragment loads are conflict-free (computed only when shape_ok).
  static constexpr bool fragment_b_rule = !shape_ok || fragment_conflict_factor<true>() == 1;
  static_assert(!fragment_a_rule || fragment_b_rule || tensor_math,
                "GemmShape: the B fragment loads must be bank-conflict free (choose LanesM so that a "
                "quarter-warp reads consecutive B vectors)");
  static_assert(!fragment_a_rule || fragment_b_rule || !tensor_math,
                "GemmShape: the tensor-core fragment loads must be bank-conflict free (tile rows of 8 or 24 (mod 32) "
                "floats; for 16-bit operands, rows of an odd number of 16-byte chunks)");
  //! The shared writes of every fill are conflict-free (computed only when shape_ok).
  //! (GemmMath::mma16 has no element-wise K-contiguous fill: those operands fill TileAk, TileBk.)
  static constexpr bool fill_conflict_rule =
      !shape_ok ||
      (fill_conflict_factor<TileA, false, vector_elems>() == 1 &&
       fill_conflict_factor<TileB, false, vector_elems>() == 1 && fill_conflict_factor<TileA, false, 1>() == 1 &&
       fill_conflict_factor<TileB, false, 1>() == 1 &&
       (mma16_math || (fill_conflict_factor<TileA, true>() == 1 && fill_conflict_factor<TileB, true>() == 1)));
  static_assert(!(fragment_a_rule && fragment_b_rule) || fill_conflict_rule,
                "GemmShape: the shared writes of the operand fills must be bank-conflict free");

 private:
  // Wavefronts per ideal of the worst warp of FillKRows<Rows, Width> into Tile (an L x TK tile).
  template <class Tile, int Width>
  static constexpr int k_inner_fill_factor() {
    using Map = FillKRows<Tile::rows, Width>;
    constexpr int access = static_cast<int>(sizeof(T)) * Width;
    int worst = 1;
    for (int w = 0; w < threads / warp_threads; ++w) {
      const int wf = bank::tile_wavefronts<Tile>(
          [&](int lane) {
            const int v = w * warp_threads + lane;
            return v >= Map::vectors ? bank::Coord{-1, 0} : bank::Coord{Map::row(v), Map::col(v)};
          },
          access);
      const int factor = ceil_div(wf, bank::ideal_wavefronts(access));
      if (factor > worst) worst = factor;
    }
    return worst;
  }
  static constexpr bool k_inner_divides =
      detail::divide_one_another(threads, 8 * tile_k / vector_elems) && detail::divide_one_another(threads, 8 * tile_k);

 public:
  //! With tensor-core math, the K-contiguous tiles (TileAk, TileBk) hold: threads and
  //! 8 * TK / V and 8 * TK divide one another (FillKRows' steps), and their fills' writes and
  //! the fragment reads through their TransposedView are bank-conflict free.
  static constexpr bool k_inner_rule = [] {
    if constexpr (tensor_math && shape_ok && fragment_a_rule && fragment_b_rule && fill_conflict_rule) {
      if constexpr (k_inner_divides) {
        const bool fills = k_inner_fill_factor<TileAk, vector_elems>() == 1 && k_inner_fill_factor<TileAk, 1>() == 1 &&
                           k_inner_fill_factor<TileBk, vector_elems>() == 1 && k_inner_fill_factor<TileBk, 1>() == 1;
        if constexpr (mma16_math) {
          return fills && detail::ldmatrix_tile_wavefronts<TileAk>() == 1 &&
                 detail::ldmatrix_tile_wavefronts<TileBk>() == 1;
        } else {
          return fills && detail::tf32_fragment_wavefronts<TransposedView<const TileAk>>() == 1 &&
                 detail::tf32_fragment_wavefronts<TransposedView<const TileBk>>() == 1;
        }
      } else {
        return false;
      }
    } else {
      return true;
    }
  }();
  static_assert(k_inner_rule,
                "GemmShape: with tensor-core math, threads and 8 * TK / V and 8 * TK must divide one another (V = 16 "
                "/ sizeof(T); the fill of an operand stored with K contiguous)");
  //! Every rule holds: code built on the shape (tiled_gemm) compiles its algorithm only then.
  static constexpr bool rules_ok = shape_ok && fragment_a_rule && fragment_b_rule && fill_conflict_rule && k_inner_rule;
};

}  // namespace tilecraft
