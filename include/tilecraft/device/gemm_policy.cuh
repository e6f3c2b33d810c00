//! \file device/gemm_policy.cuh
//! The device GEMM's vocabulary: Op (BLAS's 'N' and 'T') and its configurations, the policies.
//! Host code (g++) can include it, so host tests and planners name the real policies.
//!
//! A policy is a struct of named members, as CUB's tuning policies are: derive from
//! GemmPolicyDefaults<T> and set what differs, then wrap it in GemmPolicyOf, which checks every
//! rule and adds the block level (`tiled`):
//! \code
//! struct MyTile : tilecraft::GemmPolicyDefaults<double> {
//!   static constexpr int tile_m = 64, tile_n = 64, tile_k = 16;
//!   using reg_block = tilecraft::RegBlock<4, 4>;
//! };
//! using MyPolicy = tilecraft::GemmPolicyOf<MyTile>;
//! static_assert(MyPolicy::tiled::threads == 256 && MyPolicy::max_split_k == 16);
//! \endcode
//! The positional form GemmPolicy<TM, TN, RegBlock, TK, LanesM, Stages, MinBlocksPerSm, GroupM,
//! MaxSplitK, T> names the same members in that order.
#pragma once

#include <type_traits>

#include "../config.cuh"
#include "../gemm/register_block.cuh"
#include "../gemm/tiled_gemm.cuh"

namespace tilecraft {

//! What a GEMM operand goes through before the product: itself or its transpose (BLAS's
//! 'N' and 'T').
enum class Op {
  none,      //!< op(X) = X
  transpose  //!< op(X) = X^T
};

//! The defaults of a GEMM policy's members, for matrices of T (float or double). A policy
//! derives from it and sets at least tile_m, tile_n and reg_block:
//!   - tile_m x tile_n: the C tile of one block; tile_k: the K step; reg_block: each thread's
//!     RegBlock<RM, RN>; lanes_m: rows of a warp's lane grid; stages: pipeline depth (the
//!     block level, TiledGemm, states the rules between them);
//!   - min_blocks_per_sm: the occupancy the kernel is compiled for (__launch_bounds__ caps the
//!     registers so that many blocks fit on an SM);
//!   - group_m: block order; group_m consecutive blocks walk down group_m tile rows before the
//!     next tile column, so a wave of blocks shares A and B tiles in L2;
//!   - max_split_k: when C has fewer tiles than the GPU has block slots (or its tiles leave a
//!     partial last wave: those tiles), K is split into up to this many slices
//!     (1: never), computed by separate blocks into a stream-ordered workspace and summed in a
//!     fixed order (deterministic) by a second kernel that applies the epilogue.
template <class T = float>
struct GemmPolicyDefaults {
  using element_type = T;                      //!< the matrices' element type (float or double)
  static constexpr int tile_k = 8;             //!< K step
  static constexpr int lanes_m = 4;            //!< rows of a warp's lane grid
  static constexpr int stages = 3;             //!< pipeline depth
  static constexpr int min_blocks_per_sm = 1;  //!< __launch_bounds__ minimum blocks per SM
  static constexpr int group_m = 8;            //!< tile rows per block group (L2 rasterization)
  static constexpr int max_split_k = 16;       //!< the most K slices (1: never split)
};

//! The named members a GEMM policy has (GemmPolicyDefaults lists them).
template <class P>
concept GemmPolicyMembers = requires {
  typename P::element_type;
  typename P::reg_block;
  { P::tile_m } -> std::convertible_to<int>;
  { P::tile_n } -> std::convertible_to<int>;
  { P::tile_k } -> std::convertible_to<int>;
  { P::lanes_m } -> std::convertible_to<int>;
  { P::stages } -> std::convertible_to<int>;
  { P::min_blocks_per_sm } -> std::convertible_to<int>;
  { P::group_m } -> std::convertible_to<int>;
  { P::max_split_k } -> std::convertible_to<int>;
};

//! A checked GEMM policy: Members' named members, every rule between them asserted, and
//! `tiled`, the block level (TiledGemm) they configure. gemm<Policy>() takes a GemmPolicyOf or a
//! bare member struct (which it wraps).
template <GemmPolicyMembers Members>
struct GemmPolicyOf : Members {
  static_assert(Members::min_blocks_per_sm >= 1, "GemmPolicy: min_blocks_per_sm must be >= 1");
  static_assert(Members::group_m >= 1, "GemmPolicy: group_m (tile rows per block group) must be >= 1");
  static_assert(Members::max_split_k >= 1 && Members::max_split_k <= 64,
                "GemmPolicy: max_split_k must be between 1 and 64");
  //! The block level.
  using tiled = TiledGemm<Members::tile_m, Members::tile_n, typename Members::reg_block, Members::tile_k,
                          Members::lanes_m, Members::stages, typename Members::element_type>;
  static_assert(Members::min_blocks_per_sm * tiled::threads <= 2048,
                "GemmPolicy: min_blocks_per_sm * threads must be <= 2048 (the most threads an SM holds)");
};

namespace detail {
template <int TM, int TN, class RegBlockT, int TK, int LanesM, int Stages, int MinBlocksPerSm, int GroupM,
          int MaxSplitK, class T>
struct PositionalGemmPolicy : GemmPolicyDefaults<T> {
  static constexpr int tile_m = TM, tile_n = TN, tile_k = TK, lanes_m = LanesM, stages = Stages;
  static constexpr int min_blocks_per_sm = MinBlocksPerSm, group_m = GroupM, max_split_k = MaxSplitK;
  using reg_block = RegBlockT;
};

template <class P>
struct PolicyOf {
  using type = GemmPolicyOf<P>;
};
template <class M>
struct PolicyOf<GemmPolicyOf<M>> {
  using type = GemmPolicyOf<M>;
};
}  // namespace detail

//! The positional form: GemmPolicyOf with the members in GemmPolicyDefaults' order.
//! \code
//! using Mine = tilecraft::GemmPolicy<64, 128, tilecraft::RegBlock<4, 8>, 8, 4, 3, 2, 8>;
//! static_assert(Mine::tiled::threads == 256 && Mine::tile_n == 128);
//! \endcode
template <int TM, int TN, class RegBlockT, int TK = 8, int LanesM = 4, int Stages = 3, int MinBlocksPerSm = 1,
          int GroupM = 8, int MaxSplitK = 16, class T = float>
using GemmPolicy = GemmPolicyOf<
    detail::PositionalGemmPolicy<TM, TN, RegBlockT, TK, LanesM, Stages, MinBlocksPerSm, GroupM, MaxSplitK, T>>;

//! `P` as a checked policy: GemmPolicyOf<P>, or P itself when it is one.
template <GemmPolicyMembers P>
using gemm_policy_t = typename detail::PolicyOf<P>::type;

//! True for a type gemm<Policy>() takes (a GemmPolicyOf or a struct of the named members).
template <class P>
inline constexpr bool is_gemm_policy_v = GemmPolicyMembers<P>;

// ---- the defaults gemm() chooses among (see gemm()) --------------------------------------------

namespace detail {
struct LargeMembers : GemmPolicyDefaults<float> {
  static constexpr int tile_m = 128, tile_n = 128, tile_k = 16, stages = 4, min_blocks_per_sm = 2;
  using reg_block = RegBlock<8, 8>;
};
struct Large3Members : LargeMembers {
  static constexpr int stages = 3;
};
struct LargeVectorMembers : LargeMembers {
  static constexpr int tile_k = 32, stages = 3;
};
struct HugeMembers : GemmPolicyDefaults<float> {
  static constexpr int tile_m = 256, tile_n = 128, tile_k = 16, max_split_k = 1;
  using reg_block = RegBlock<16, 8>;
};
struct SkinnyMembers : GemmPolicyDefaults<float> {
  static constexpr int tile_m = 64, tile_n = 128, tile_k = 16, min_blocks_per_sm = 4;
  using reg_block = RegBlock<8, 8>;
};
struct MediumMembers : GemmPolicyDefaults<float> {
  static constexpr int tile_m = 64, tile_n = 64, tile_k = 16, min_blocks_per_sm = 4;
  using reg_block = RegBlock<4, 8>;
};
struct SmallMembers : GemmPolicyDefaults<float> {
  static constexpr int tile_m = 32, tile_n = 64, tile_k = 16, min_blocks_per_sm = 6;
  using reg_block = RegBlock<4, 4>;
};
struct LargeF64Members : GemmPolicyDefaults<double> {
  static constexpr int tile_m = 128, tile_n = 64, min_blocks_per_sm = 2;
  using reg_block = RegBlock<4, 8>;
};
struct MediumF64Members : GemmPolicyDefaults<double> {
  static constexpr int tile_m = 64, tile_n = 64, min_blocks_per_sm = 4;
  using reg_block = RegBlock<4, 8>;
};
struct SmallF64Members : GemmPolicyDefaults<double> {
  static constexpr int tile_m = 32, tile_n = 64, tile_k = 16, min_blocks_per_sm = 4;
  using reg_block = RegBlock<4, 4>;
};
}  // namespace detail

//! A float default (see gemm()): 128 x 128 tiles, K step 16, 8 x 8 per thread, 256 threads, 4
//! stages (66 KiB of shared memory), 2 blocks per SM.
using GemmPolicyLarge = GemmPolicyOf<detail::LargeMembers>;
//! GemmPolicyLarge with 3 stages (50 KiB): the default on devices that give a block less shared
//! memory than GemmPolicyLarge needs (sm_75: 64 KiB).
using GemmPolicyLarge3 = GemmPolicyOf<detail::Large3Members>;
//! GemmPolicyLarge with K step 32 and 3 stages (99 KiB): half the barriers and fill instructions
//! per FMA where both operands fill in 16-byte vectors (A column-major and B row-major as
//! computed, aligned, or packed so) and an SM holds two such blocks (sm_90); filled element by
//! element it needs more than 128 registers and spills. No longer a default: since the
//! mainloop's refill was rewritten it ran 0 to 5% behind GemmPolicyLarge on the H200
//! (benchmarks/TUNING.md).
using GemmPolicyLargeVector = GemmPolicyOf<detail::LargeVectorMembers>;
//! 256 x 128 tiles, K step 16, 16 x 8 per thread (eight warps of 64 x 64), 3 stages (73.5 KiB),
//! one block per SM (up to 255 registers a thread), K never split. What gemm() runs instead of
//! GemmPolicyLarge where it fits, for products whose operands both fill in vectors, with
//! K >= 1024 and a last wave of tiles that fills at least half of the SMs: 128 accumulators a
//! thread halve the shared-memory loads per FMA, but a lone block per SM hides neither a short
//! K's prologue and epilogue nor a thin last wave. Filled element by element it is slower than
//! GemmPolicyLarge.
using GemmPolicyHuge = GemmPolicyOf<detail::HugeMembers>;
//! A float default (see gemm()): 64 x 128 tiles, K step 16, 8 x 8 per thread, 128 threads, 4
//! blocks per SM.
using GemmPolicySkinny = GemmPolicyOf<detail::SkinnyMembers>;
//! A float default (see gemm()): 64 x 64 tiles, K step 16, 4 x 8 per thread, 128 threads, 4
//! blocks per SM.
using GemmPolicyMedium = GemmPolicyOf<detail::MediumMembers>;
//! The float default for C too small for the others (see gemm()): 32 x 64 tiles, K step 16, 4
//! x 4 per thread, 128 threads.
using GemmPolicySmall = GemmPolicyOf<detail::SmallMembers>;

// A double accumulator takes two registers, so the double register blocks are half the float
// ones (RegBlock<4, 8>: 64 accumulator registers, as the float 8 x 8 block) and the block tiles
// shrink with them; a 16-byte vector holds 2 doubles. What bounds these tiles is the
// shared-memory bandwidth of the fragment loads (RM + RN doubles per RM * RN DFMA per thread).

//! The double default for C with more than 64 rows and at least as many 128 x 64 tiles as SMs:
//! 128 x 64 tiles, K step 8, 4 x 8 doubles per thread, 256 threads, 3 stages (37 KiB), 2 blocks
//! per SM.
using GemmPolicyLargeF64 = GemmPolicyOf<detail::LargeF64Members>;
//! The double default for C with too few 128 x 64 tiles (or at most 64 rows) when 64 x 64 tiles
//! fill the SMs or K is long (>= 2048, where split-K makes up the blocks): 64 x 64 tiles, K step
//! 8, 4 x 8 doubles per thread, 128 threads, 3 stages (25 KiB), 4 blocks per SM.
using GemmPolicyMediumF64 = GemmPolicyOf<detail::MediumF64Members>;
//! The double default for C too small even for that: 32 x 64 tiles, K step 16, 4 x 4 doubles
//! per thread, 128 threads, 3 stages (38 KiB), 4 blocks per SM.
using GemmPolicySmallF64 = GemmPolicyOf<detail::SmallF64Members>;

}  // namespace tilecraft
