//! \file gemm/gemm_shape.cuh
//! Every divisibility rule of a block-tiled FP32 GEMM in one place: the block tile TM x TN with
//! K step TK, the thread's RegBlock, the warp's lane arrangement and the stages, and what
//! follows from them (warps, threads, shared memory, the lane -> fragment map), checked with
//! static_asserts whose messages state the rule. Host-usable (constexpr), so tests and the
//! launcher can reason about a configuration without a GPU.
//!
//! Layout of the shared tiles (per stage): A as TK x TM (K-major: a k-row holds TM elements of
//! A's column k), B as TK x TN. At step k a lane reads its A fragment from row k of the A tile
//! and its B fragment from row k of the B tile. Warp w covers a WM x WN warp tile
//! (WM = LanesM * RM, WN = LanesN * RN); lane l sits at (l / LanesN, l % LanesN) of the
//! LanesM x LanesN lane grid; fragment group g along M starts at column
//! warp_m0 + lane_m * VM + g * LanesM * VM of the A row (VM = min(RM, 4)), and likewise for B.
//! With LanesN >= 8 a quarter-warp (what one phase of a 16-byte access serves) reads one A
//! address (a broadcast) and eight consecutive B vectors: conflict-free, which the static_asserts
//! prove with the bank model.
#pragma once

#include <cstddef>

#include "../config.cuh"
#include "../memory/bank_model.cuh"
#include "../memory/shared_tile.cuh"
#include "../util/math.cuh"
#include "register_block.cuh"

namespace tilecraft {

//! A GEMM block configuration. TM x TN: the C tile one block computes; TK: the K step (one
//! stage of the A and B tiles); RegBlockT: the thread's RegBlock<RM, RN>; LanesM: rows of the
//! warp's lane grid (LanesN = 32 / LanesM); Stages: A/B tile pairs in flight.
//! Rules (each a static_assert): RegBlockT is a RegBlock; LanesM is a power of two from 1 to
//! 32; TM is a multiple of WM = LanesM * RM and TN of WN = LanesN * RN; the block has 1 to 32
//! warps; TK >= 1; 1 <= Stages <= 8; every fragment load is bank-conflict free.
//! \code
//! using Shape = tilecraft::GemmShape<128, 128, 8, tilecraft::RegBlock<8, 8>>;
//! static_assert(Shape::threads == 256 && Shape::warp_m == 32 && Shape::warp_n == 64);
//! \endcode
template <int TM, int TN, int TK, class RegBlockT, int LanesM = 4, int Stages = 3>
struct GemmShape {
  static_assert(is_reg_block_v<RegBlockT>, "GemmShape: RegBlockT must be a tilecraft::RegBlock<RM, RN>");
  static_assert(is_pow2(LanesM) && LanesM <= warp_threads,
                "GemmShape: LanesM (rows of a warp's lane grid) must be a power of two from 1 to 32");
  static_assert(TK >= 1, "GemmShape: TK (the K step) must be >= 1");
  static_assert(Stages >= 1 && Stages <= 8, "GemmShape: Stages must be between 1 and 8");

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
  static_assert(TM % warp_m == 0, "GemmShape: TM must be a multiple of the warp tile's rows (LanesM * RM)");
  static_assert(TN % warp_n == 0, "GemmShape: TN must be a multiple of the warp tile's columns (LanesN * RN)");
  //! Warps along M.
  static constexpr int warps_m = TM / warp_m;
  //! Warps along N.
  static constexpr int warps_n = TN / warp_n;
  //! Warps per block.
  static constexpr int warps = warps_m * warps_n;
  static_assert(TM % warp_m != 0 || TN % warp_n != 0 || (warps >= 1 && warps <= max_block_threads / warp_threads),
                "GemmShape: the block must have 1 to 32 warps ((TM / WM) * (TN / WN))");
  //! Threads per block.
  static constexpr int threads = warps * warp_threads;

  //! One stage's A tile: TK x TM, K-major.
  using TileA = SharedMatrix<float, TK, TM>;
  //! One stage's B tile: TK x TN.
  using TileB = SharedMatrix<float, TK, TN>;
  //! Shared memory of all stages, in bytes.
  static constexpr std::size_t smem_bytes = static_cast<std::size_t>(Stages) * (TileA::bytes + TileB::bytes);

  //! Row of lane l in the lane grid.
  TILECRAFT_HOST_DEVICE static constexpr int lane_m(int lane) { return lane / lanes_n; }
  //! Column of lane l in the lane grid.
  TILECRAFT_HOST_DEVICE static constexpr int lane_n(int lane) { return lane % lanes_n; }
  //! Column of the A tile's row where fragment group g of lane l in warp w begins.
  TILECRAFT_HOST_DEVICE static constexpr int fragment_col_a(int warp, int lane, int g) {
    return (warp / warps_n) * warp_m + lane_m(lane) * RegBlockT::vector_m + g * lanes_m * RegBlockT::vector_m;
  }
  //! Column of the B tile's row where fragment group g of lane l in warp w begins.
  TILECRAFT_HOST_DEVICE static constexpr int fragment_col_b(int warp, int lane, int g) {
    return (warp % warps_n) * warp_n + lane_n(lane) * RegBlockT::vector_n + g * lanes_n * RegBlockT::vector_n;
  }

  //! The worst conflict factor (wavefronts over the conflict-free minimum) of a warp's fragment
  //! load from the A tile (WhichB == false) or the B tile (true), over its groups; 1 means
  //! conflict-free. Warp 0 at k = 0 stands for all: other warps and other k add the same offset
  //! to every lane's address, which maps banks one-to-one onto banks and so keeps the conflicts.
  template <bool WhichB>
  static constexpr int fragment_conflict_factor() {
    using Tile = std::conditional_t<WhichB, TileB, TileA>;
    constexpr int vector = WhichB ? RegBlockT::vector_n : RegBlockT::vector_m;
    constexpr int groups = WhichB ? RegBlockT::groups_n : RegBlockT::groups_m;
    constexpr int access = vector * static_cast<int>(sizeof(float));
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
  //! The rules above hold (so the analysis below is worth running).
  static constexpr bool shape_ok =
      TM % warp_m == 0 && TN % warp_n == 0 && warps >= 1 && warps <= max_block_threads / warp_threads;
  static_assert(!shape_ok || fragment_conflict_factor<false>() == 1,
                "GemmShape: the A fragment loads must be bank-conflict free (choose LanesM so that a "
                "quarter-warp reads one A vector or consecutive ones)");
  static_assert(!shape_ok || fragment_conflict_factor<true>() == 1,
                "GemmShape: the B fragment loads must be bank-conflict free (choose LanesM so that a "
                "quarter-warp reads consecutive B vectors)");
};

}  // namespace tilecraft
