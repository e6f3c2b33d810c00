//! \file device/stencil_policy.cuh
//! tilecraft::stencil_1d's public types: the boundary rule, the weights, the algorithms, the
//! policy and its default (include device/stencil.cuh for the launcher).
#pragma once

#include <cstddef>
#include <type_traits>

#include "../config.cuh"

namespace tilecraft {

//! What a stencil reads for in[i] outside [0, n).
enum class StencilBoundary {
  //! Zero: the array is extended with zeros (a "same"-size convolution with zero padding).
  zero,
  //! Clamp: in[i] for i < 0 is in[0], for i >= n it is in[n - 1] (replicate padding).
  clamp,
};

//! The 2 * Radius + 1 weights of a 1D stencil: `w[j + Radius]` multiplies in[i + j]. Passed to
//! the kernel by value as a launch parameter (it lives in the parameter constant bank, which
//! FFMA reads directly), so concurrent launches with different weights cannot race.
//! Rule: 1 <= Radius <= 16.
template <class T, int Radius>
struct StencilWeights {
  static_assert(Radius >= 1 && Radius <= 16, "StencilWeights<T, Radius>: Radius must be between 1 and 16");
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "StencilWeights<T, Radius>: T must be float or double");
  //! The number of weights.
  static constexpr int size = 2 * Radius + 1;
  //! w[j + Radius] is the weight of in[i + j].
  T w[static_cast<std::size_t>(size)];
};

//! How a stencil_1d kernel gets its inputs.
enum class StencilAlgorithm {
  //! Tiles with halos in shared memory, loaded with copy_tile_async through a Pipeline; each
  //! input element is read from global memory once per tile. Earns its place at large radii,
  //! where a thread's window is many vectors wide.
  tiled,
  //! No shared memory: each thread loads its window of 16-byte vectors straight from global
  //! memory and L1 serves the overlap between neighbouring threads. Lean (no barriers, no
  //! shared stores): the fastest for small radii.
  direct,
};

//! How stencil_1d tiles the array: Threads per block; each thread computes VectorsPerThread
//! 16-byte vectors of outputs per tile (4 floats or 2 doubles each), so a tile is
//! Threads * VectorsPerThread * 16 bytes of output; Stages tiles per block in flight
//! (Stages - 1 load while one is computed on; with one stage a tile loads, then is computed on).
//! TilesPerBlock: 0 for a persistent grid (as many blocks as fit on the GPU, each walking the
//! tiles grid-stride), k > 0 for a grid in which block b takes the k consecutive tiles from
//! b * k (and needs no more than k stages, so min(Stages, k) are allocated). Algorithm: tiled or direct (which uses
//! only Threads and VectorsPerThread: a block computes Threads * VectorsPerThread vectors).
//! Rules: Threads a multiple of 32 up to 1024; 1 <= VectorsPerThread <= 8; 1 <= Stages <= 8;
//! TilesPerBlock >= 0; for the tiled algorithm, the stages' tiles (outputs plus the halo on
//! either side) within 48 KiB of static shared memory.
//! \code
//! // 128 threads of 4 vectors each, every window read straight from global memory (no tiles).
//! using Direct = tilecraft::StencilPolicy<128, 4, 1, 0, tilecraft::StencilAlgorithm::direct>;
//! tilecraft::StencilWeights<float, 1> w{{0.25f, 0.5f, 0.25f}};
//! TILECRAFT_THROW_IF_ERROR(tilecraft::stencil_1d<1, Direct>(d_in, d_out, n, w));
//! \endcode
template <int Threads = 256, int VectorsPerThread = 1, int Stages = 3, int TilesPerBlock = 0,
          StencilAlgorithm Algorithm = StencilAlgorithm::tiled>
struct StencilPolicy {
  static_assert(Threads >= 32 && Threads <= 1024 && Threads % 32 == 0,
                "StencilPolicy: Threads must be a multiple of 32 between 32 and 1024");
  static_assert(VectorsPerThread >= 1 && VectorsPerThread <= 8, "StencilPolicy: VectorsPerThread must be 1 ... 8");
  static_assert(Stages >= 1 && Stages <= 8, "StencilPolicy: Stages must be 1 ... 8");
  static_assert(TilesPerBlock >= 0, "StencilPolicy: TilesPerBlock must be >= 0 (0: persistent grid)");
  //! Threads per block.
  static constexpr int threads = Threads;
  //! 16-byte output vectors each thread computes per tile.
  static constexpr int vectors_per_thread = VectorsPerThread;
  //! Consecutive tiles per block (0: persistent grid).
  static constexpr int tiles_per_block = TilesPerBlock;
  //! Pipeline stages allocated: Stages, or TilesPerBlock when that is fewer.
  static constexpr int stages = TilesPerBlock > 0 && TilesPerBlock < Stages ? TilesPerBlock : Stages;
  //! tiled or direct.
  static constexpr StencilAlgorithm algorithm = Algorithm;
};

//! True for every StencilPolicy instantiation.
template <class P>
inline constexpr bool is_stencil_policy_v = false;
//! \cond SPECIALIZATIONS
template <int Threads, int VectorsPerThread, int Stages, int TilesPerBlock, StencilAlgorithm Algorithm>
inline constexpr bool is_stencil_policy_v<StencilPolicy<Threads, VectorsPerThread, Stages, TilesPerBlock, Algorithm>> =
    true;
//! \endcond

//! stencil_1d's default policy, by the width of a thread's halo in 16-byte vectors
//! (h = ceil(Radius * sizeof(T) / 16)) (measured: benchmarks/TUNING.md):
//!   h == 1 (float R <= 4, double R <= 2): direct, 256 threads, one vector each;
//!   h == 2 (float R <= 8, double R <= 4): tiled, 128 threads x 2 vectors, one tile per block;
//!   h > 2: tiled, 64 threads x 8 vectors (8 KiB of output a tile), one tile per block.
//! One tile per block (and so one stage), not persistent multi-stage blocks: many resident
//! blocks hide the load latency better than stages inside a block.
template <class T, int Radius>
using DefaultStencilPolicy =
    std::conditional_t<(Radius * sizeof(T) + max_vector_bytes - 1) / max_vector_bytes <= 1,
                       StencilPolicy<256, 1, 1, 0, StencilAlgorithm::direct>,
                       std::conditional_t<(Radius * sizeof(T) + max_vector_bytes - 1) / max_vector_bytes <= 2,
                                          StencilPolicy<128, 2, 1, 1>, StencilPolicy<64, 8, 1, 1>>>;

}  // namespace tilecraft
