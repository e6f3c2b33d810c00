//! \file gemm/gemm_shape.cuh
//! Every divisibility rule of a block-tiled SIMT GEMM (float or double) in one place: the block
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
//! 16 / sizeof(T) elements make one 16-byte vector: 4 floats, 2 doubles), and likewise for B.
//! With LanesN >= 8 a quarter-warp (what one phase of a 16-byte access serves) reads one A
//! address (a broadcast) and eight consecutive B vectors: conflict-free, which the
//! static_asserts prove with the bank model.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../config.cuh"
#include "../memory/bank_model.cuh"
#include "../memory/shared_tile.cuh"
#include "../util/math.cuh"
#include "register_block.cuh"

namespace tilecraft {

//! A GEMM block configuration, in TiledGemm's parameter order. TM x TN: the C tile one block
//! computes; RegBlockT: the thread's RegBlock<RM, RN>; TK: the K step (one stage of the A and
//! B tiles); LanesM: rows of the warp's lane grid (LanesN = 32 / LanesM); Stages: A/B tile
//! pairs in flight; T: the element type of A, B, C and the accumulators (float or double).
//! Rules (each a static_assert): T is float or double; RegBlockT is a RegBlock whose
//! RM * RN * sizeof(T) is at most 512 bytes (64 double accumulators); LanesM is a power of two
//! from 1 to 32; TM is a multiple of WM = LanesM * RM and TN of WN = LanesN * RN;
//! the block has 1 to 32 warps; TM and TN are multiples of V = 16 / sizeof(T); TK is 1, 2, 4
//! or a multiple of 8; 2 <= Stages <= 8; the thread count and each fill's vectors per tile row
//! (TM / V, TN / V, TM, TN) divide one another, as do threads / min(TK, 8) and TM, TN (so a
//! thread's fill elements are compile-time steps apart); the stages fit one block's shared
//! memory (227 KiB); every fragment load and every shared write of the fills is bank-conflict
//! free.
//! \code
//! using Shape = tilecraft::GemmShape<128, 128, tilecraft::RegBlock<8, 8>, 8>;
//! static_assert(Shape::threads == 256 && Shape::warp_m == 32 && Shape::warp_n == 64);
//! using Dgemm = tilecraft::GemmShape<128, 64, tilecraft::RegBlock<4, 8>, 8, 4, 3, double>;
//! static_assert(Dgemm::threads == 256 && Dgemm::vector_elems == 2 && Dgemm::smem_bytes <= 48 * 1024);
//! \endcode
template <int TM, int TN, class RegBlockT, int TK = 8, int LanesM = 4, int Stages = 3, class T = float>
struct GemmShape {
  //! T is float or double.
  static constexpr bool element_rule = std::is_same_v<T, float> || std::is_same_v<T, double>;
  static_assert(element_rule, "GemmShape: T (the element type) must be float or double");
  //! The element type (of A, B, C and the accumulators).
  using element_type = T;
  //! Elements in one 16-byte vector (V: 4 floats, 2 doubles): the width of the vector fills,
  //! fragment loads (LDS.128) and C stores.
  static constexpr int vector_elems = static_cast<int>(16 / sizeof(T));
  static_assert(is_reg_block_v<RegBlockT>, "GemmShape: RegBlockT must be a tilecraft::RegBlock<RM, RN>");
  //! The accumulators fit in registers: RM * RN * sizeof(T) <= 512 bytes (RegBlock's 128 floats,
  //! or 64 doubles: a double takes two registers).
  static constexpr bool accumulator_rule = [] {
    if constexpr (is_reg_block_v<RegBlockT>) {
      return RegBlockT::accumulators * sizeof(T) <= 512;
    } else {
      return true;  // (the rule above has said why)
    }
  }();
  static_assert(accumulator_rule,
                "GemmShape: RM * RN * sizeof(T) must be <= 512 bytes (at most 64 double accumulators: they must fit "
                "in registers)");
  static_assert(is_pow2(LanesM) && LanesM <= warp_threads,
                "GemmShape: LanesM (rows of a warp's lane grid) must be a power of two from 1 to 32");
  // Each rule once, as a constant: its static_assert below and shape_ok use the same one.
  //! The K-step rule holds: TK is 1, 2, 4 or a multiple of 8.
  static constexpr bool k_step_rule = TK == 1 || TK == 2 || TK == 4 || (TK > 0 && TK % 8 == 0);
  //! The tile rule holds: TM and TN are multiples of vector_elems.
  static constexpr bool tile_rule = TM % vector_elems == 0 && TN % vector_elems == 0;
  static_assert(k_step_rule, "GemmShape: TK (the K step) must be 1, 2, 4 or a multiple of 8");
  static_assert(Stages >= 2 && Stages <= 8,
                "GemmShape: Stages must be between 2 and 8 (one stage is computed on while the next loads)");
  static_assert(tile_rule,
                "GemmShape: TM and TN must be multiples of 16 / sizeof(T) (4 floats, 2 doubles: shared rows are filled "
                "in 16-byte vectors)");

  //! The thread's register block.
  using reg_block = RegBlockT;
  //! Rows of the block's C tile.
  static constexpr int tile_m = TM;
  //! Columns of the block's C tile.
  static constexpr int tile_n = TN;
  //! The K step: columns of A (rows of B) per stage.
  static constexpr int tile_k = TK;
  //! A/B tile pairs in flight.
  static constexpr int stages = Stages;
  //! Rows of the warp's lane grid.
  static constexpr int lanes_m = LanesM;
  //! Columns of the warp's lane grid.
  static constexpr int lanes_n = warp_threads / LanesM;
  //! Rows of the warp tile (WM).
  static constexpr int warp_m = lanes_m * RegBlockT::rows;
  //! Columns of the warp tile (WN).
  static constexpr int warp_n = lanes_n * RegBlockT::cols;
  //! Elements per A-fragment vector: min(RM, vector_elems) (an LDS.128 when equal).
  static constexpr int vector_m = RegBlockT::rows < vector_elems ? RegBlockT::rows : vector_elems;
  //! Elements per B-fragment vector: min(RN, vector_elems).
  static constexpr int vector_n = RegBlockT::cols < vector_elems ? RegBlockT::cols : vector_elems;
  //! A-fragment vectors (groups) per k step: RM / vector_m.
  static constexpr int groups_m = RegBlockT::rows / vector_m;
  //! B-fragment vectors (groups) per k step: RN / vector_n.
  static constexpr int groups_n = RegBlockT::cols / vector_n;
  //! The warp tiles divide the block tile.
  static constexpr bool warp_tile_rule = TM % warp_m == 0 && TN % warp_n == 0;
  static_assert(TM % warp_m == 0, "GemmShape: TM must be a multiple of the warp tile's rows (LanesM * RM)");
  static_assert(TN % warp_n == 0, "GemmShape: TN must be a multiple of the warp tile's columns (LanesN * RN)");
  //! Warps along M.
  static constexpr int warps_m = TM / warp_m;
  //! Warps along N.
  static constexpr int warps_n = TN / warp_n;
  //! Warps per block.
  static constexpr int warps = warps_m * warps_n;
  //! The block has 1 to 32 warps.
  static constexpr bool warps_rule = warps >= 1 && warps <= max_block_threads / warp_threads;
  static_assert(!warp_tile_rule || warps_rule, "GemmShape: the block must have 1 to 32 warps ((TM / WM) * (TN / WN))");
  //! Threads per block.
  static constexpr int threads = warps * warp_threads;

  //! K rows a warp's K-contiguous fill covers at once (min(TK, 8)); see FillScatter.
  static constexpr int fill_k_run = TK < 8 ? TK : 8;
  //! Elements of T in one bank row (32 banks x 4 bytes): 32 floats, 16 doubles.
  static constexpr int bank_row_elems = static_cast<int>(smem_wavefront_bytes / sizeof(T));
  //! Elements of padding after each row of an operand tile with L columns. The K-contiguous
  //! fill writes single elements; one shared-memory phase serves E = bank_row_elems lanes (all
  //! 32 for 4-byte writes, 16 for 8-byte ones), an R x (E / R) block of the tile (R =
  //! fill_k_run, see FillScatter). A row stride of E / R elements (mod E) puts that block's
  //! E elements on E * sizeof(T) / 4 = 32 different banks. The padding is a multiple of
  //! vector_elems (E / R is, for R <= 8, and L is), so rows stay 16-byte aligned for the vector
  //! fill and the LDS.128 fragment loads.
  static constexpr int operand_pad(int l) {
    return ((bank_row_elems / fill_k_run - l % bank_row_elems) % bank_row_elems + bank_row_elems) % bank_row_elems;
  }
  //! One stage's A tile: TK x TM, K-major, padded.
  using TileA = SharedMatrix<T, TK, TM, Padded<operand_pad(TM)>>;
  //! One stage's B tile: TK x TN, padded.
  using TileB = SharedMatrix<T, TK, TN, Padded<operand_pad(TN)>>;
  //! One pipeline stage: the A and B tiles of one K step.
  struct Stage {
    //! The A tile (TK x TM).
    TileA a;
    //! The B tile (TK x TN).
    TileB b;
  };
  //! Shared memory of all stages, in bytes.
  static constexpr std::size_t smem_bytes = static_cast<std::size_t>(Stages) * sizeof(Stage);
  static_assert(smem_bytes <= static_cast<std::size_t>(max_smem_per_block),
                "GemmShape: Stages * TK * (TM + TN + padding) * sizeof(T) bytes must fit one block's shared memory "
                "(227 KiB)");

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
    static_assert(threads % per_row == 0 || per_row % threads == 0,
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
    static_assert(columns % L == 0 || L % columns == 0,
                  "GemmShape: threads / min(TK, 8) and the tile width (TM, TN) must divide one another");
    //! Elements per tile.
    static constexpr int elements = TK * L;
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
  template <bool WhichB>
  static constexpr int fragment_conflict_factor() {
    using Tile = std::conditional_t<WhichB, TileB, TileA>;
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

  //! The rules above hold (so the analysis below is worth running).
  static constexpr bool shape_ok = element_rule && k_step_rule && tile_rule && warp_tile_rule && warps_rule;
  static_assert(!shape_ok || fragment_conflict_factor<false>() == 1,
                "GemmShape: the A fragment loads must be bank-conflict free (choose LanesM so that a "
                "quarter-warp reads one A vector or consecutive ones)");
  static_assert(!shape_ok || fragment_conflict_factor<true>() == 1,
                "GemmShape: the B fragment loads must be bank-conflict free (choose LanesM so that a "
                "quarter-warp reads consecutive B vectors)");
  static_assert(!shape_ok ||
                    (fill_conflict_factor<TileA, false, vector_elems>() == 1 &&
                     fill_conflict_factor<TileB, false, vector_elems>() == 1 &&
                     fill_conflict_factor<TileA, false, 1>() == 1 && fill_conflict_factor<TileB, false, 1>() == 1 &&
                     fill_conflict_factor<TileA, true>() == 1 && fill_conflict_factor<TileB, true>() == 1),
                "GemmShape: the shared writes of the operand fills must be bank-conflict free");
};

}  // namespace tilecraft
