//! \file device/stencil.cuh
//! Whole-array 1D stencil (convolution with a halo): out[i] = sum_{j=-R..R} w[j] * in[i + j],
//! built on SharedMatrix tiles loaded with copy_tile_async through a multi-stage Pipeline.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../config.cuh"
#include "../memory/copy_async.cuh"
#include "../memory/matrix_ref.cuh"
#include "../memory/pipeline.cuh"
#include "../memory/shared_tile.cuh"
#include "../memory/tile_copy.cuh"
#include "../util/device_cache.cuh"
#include "../util/error.cuh"
#include "../util/launch.cuh"
#include "../util/nvtx.cuh"
#include "../util/math.cuh"

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

namespace detail {

// The tile geometry of one stencil configuration.
template <class T, int Radius, class Policy>
struct StencilTiling {
  static constexpr int vec = max_vector_bytes / static_cast<int>(sizeof(T));  // elements per 16 bytes
  // Halo rounded up to whole 16-byte vectors: the tile's loads start 16-byte aligned (for an
  // aligned input) and every shared read is a 16-byte vector.
  static constexpr int halo = round_up(Radius, vec);
  static constexpr int outputs = Policy::threads * Policy::vectors_per_thread * vec;  // per tile
  static constexpr int cols = outputs + 2 * halo;
  using Tile = SharedMatrix<T, 1, cols>;
  using Storage = PipelineStorage<Tile, Policy::stages>;
  // Shared 16-byte vectors one output vector reads: its own, plus halo / vec either side.
  static constexpr int window_vectors = 1 + 2 * halo / vec;
  // (The 48 KiB rule is the tiled algorithm's, checked by its launcher: the direct kernel keeps
  // no tile in shared memory.)
};

// Computes the output vector out[g, g + vec) from the window x[m] = in[g - Halo + m] and stores
// it: one 16-byte store when out is aligned and the vector lies inside, else element by element.
template <int Radius, int Halo, class T, std::size_t N>
TILECRAFT_DEVICE void stencil_store(T* out, std::int64_t g, std::int64_t n, bool out_vector,
                                    const StencilWeights<T, Radius>& w, const T (&x)[N]) {
  constexpr int vec = max_vector_bytes / static_cast<int>(sizeof(T));
  T y[vec];
#pragma unroll
  for (int e = 0; e < vec; ++e) {
    T acc = w.w[0] * x[e + Halo - Radius];
#pragma unroll
    for (int j = 1; j < 2 * Radius + 1; ++j) acc = fma(w.w[j], x[e + Halo - Radius + j], acc);
    y[e] = acc;
  }
  if (out_vector && g + vec <= n) {
    uint4 word;
    std::memcpy(&word, y, sizeof(uint4));
    *reinterpret_cast<uint4*>(out + g) = word;
  } else {
#pragma unroll
    for (int e = 0; e < vec; ++e) {
      if (g + e < n) out[g + e] = y[e];
    }
  }
}

// in[i] with the boundary rule applied (i may lie outside [0, n)).
template <StencilBoundary Boundary, class T>
TILECRAFT_DEVICE T stencil_input(const T* in, std::int64_t i, std::int64_t n) {
  if (i >= 0 && i < n) return in[i];
  if constexpr (Boundary == StencilBoundary::zero) {
    return T(0);
  } else {
    return in[i < 0 ? 0 : n - 1];
  }
}

// StencilAlgorithm::direct: thread t of block b computes output vectors
// (b * VectorsPerThread + v) * Threads + t; its window comes from global memory, as 16-byte
// vectors when the input is aligned and the window lies inside, else element by element.
template <class T, int Radius, class Policy, StencilBoundary Boundary>
__global__ void __launch_bounds__(Policy::threads)
    stencil_1d_direct_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, StencilWeights<T, Radius> w,
                             bool in_vector, bool out_vector) {
  using Tiling = StencilTiling<T, Radius, Policy>;
  constexpr int vec = Tiling::vec, halo = Tiling::halo;
#pragma unroll
  for (int v = 0; v < Policy::vectors_per_thread; ++v) {
    const std::int64_t g =
        ((std::int64_t{blockIdx.x} * Policy::vectors_per_thread + v) * Policy::threads + threadIdx.x) * vec;
    if (g >= n) return;
    T x[Tiling::window_vectors * vec];
    if (in_vector && g >= halo && g + vec + halo <= n) {
#pragma unroll
      for (int q = 0; q < Tiling::window_vectors; ++q) {
        const uint4 word = __ldg(reinterpret_cast<const uint4*>(in + (g - halo + q * vec)));
        std::memcpy(&x[q * vec], &word, sizeof(uint4));
      }
    } else {
#pragma unroll
      for (int m = 0; m < Tiling::window_vectors * vec; ++m) x[m] = stencil_input<Boundary>(in, g - halo + m, n);
    }
    stencil_store<Radius, halo>(out, g, n, out_vector, w, x);
  }
}

// StencilAlgorithm::tiled (see StencilPolicy).
template <class T, int Radius, class Policy, StencilBoundary Boundary>
__global__ void __launch_bounds__(Policy::threads)
    stencil_1d_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, StencilWeights<T, Radius> w,
                      bool out_vector) {
  using Tiling = StencilTiling<T, Radius, Policy>;
  using Tile = typename Tiling::Tile;
  constexpr int vec = Tiling::vec, halo = Tiling::halo, outputs = Tiling::outputs;
  constexpr int threads = Policy::threads;
  __shared__ typename Tiling::Storage storage;
  Pipeline pipe(storage);
  const MatrixRef<const T> src{in, 1, n, n};
  // This block's tiles: first, first + step, ... below last.
  const std::int64_t tiles = ceil_div<std::int64_t>(n, outputs);
  constexpr bool persistent = Policy::tiles_per_block == 0;
  const std::int64_t first = persistent ? blockIdx.x : std::int64_t{blockIdx.x} * Policy::tiles_per_block;
  const std::int64_t step = persistent ? gridDim.x : 1;
  const std::int64_t last =
      persistent || first + Policy::tiles_per_block > tiles ? tiles : first + Policy::tiles_per_block;
  std::int64_t next = first;  // the next tile to load
  // Elements outside [0, n) load as zeros (the zero boundary; clamp patches them below).
  auto issue = [&] {
    copy_tile_async<threads>(pipe.producer_acquire(), src, 0, next * outputs - halo);
    pipe.producer_commit();
    next += step;
  };
  for (int s = 0; s < Policy::stages - 1 && next < last; ++s) issue();

  for (std::int64_t k = first; k < last; k += step) {
    if constexpr (Policy::stages == 1) issue();  // nothing in flight: load this tile now
    Tile& t = pipe.consumer_wait();
    if (Policy::stages > 1 && next < last) issue();  // refill the stage released last iteration
    const std::int64_t start = k * outputs;          // global index of the tile's first output
    if constexpr (Boundary == StencilBoundary::clamp) {
      // Only the tiles at either end hold positions outside the array: give them in[0] or
      // in[n - 1]. Uniform across the block, so the extra barrier is too.
      if (start < halo || start + outputs + halo > n) {
        for (int p = static_cast<int>(threadIdx.x); p < Tiling::cols; p += threads) {
          const std::int64_t g = start - halo + p;
          if (g < 0) t(0, p) = in[0];
          if (g >= n) t(0, p) = in[n - 1];
        }
        __syncthreads();
      }
    }
#pragma unroll
    for (int v = 0; v < Policy::vectors_per_thread; ++v) {
      // Output vector v of this thread: tile outputs [p0, p0 + vec), which read the window of
      // tile elements [p0, p0 + vec + 2 * halo). Consecutive threads read consecutive 16-byte
      // vectors: conflict-free.
      const int p0 = (v * threads + static_cast<int>(threadIdx.x)) * vec;
      T x[Tiling::window_vectors * vec];
#pragma unroll
      for (int q = 0; q < Tiling::window_vectors; ++q) {
        const uint4 word = *reinterpret_cast<const uint4*>(&t(0, p0 + q * vec));
        std::memcpy(&x[q * vec], &word, sizeof(uint4));
      }
      stencil_store<Radius, halo>(out, start + p0, n, out_vector, w, x);
    }
    pipe.consumer_release();
  }
}

template <int Radius, class Policy, class T>
[[nodiscard]] cudaError_t stencil_1d_with(const T* in, T* out, std::int64_t n, const StencilWeights<T, Radius>& weights,
                                          StencilBoundary boundary, cudaStream_t stream) {
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  if (out == nullptr || in == nullptr || !detail::element_aligned(in) || !detail::element_aligned(out)) {
    return cudaErrorInvalidValue;
  }
  if (n > INT64_MAX / static_cast<std::int64_t>(sizeof(T)) / 2) return cudaErrorInvalidValue;
  if (boundary != StencilBoundary::zero && boundary != StencilBoundary::clamp) return cudaErrorInvalidValue;
  // In-place (or overlapping) stencils would read outputs other blocks already wrote.
  const auto bytes = static_cast<std::size_t>(n) * sizeof(T);
  if (detail::bytes_overlap(in, bytes, out, bytes)) return cudaErrorInvalidValue;

  using Tiling = StencilTiling<T, Radius, Policy>;
  const bool out_vector = reinterpret_cast<std::uintptr_t>(out) % max_vector_bytes == 0;
  if constexpr (Policy::algorithm == StencilAlgorithm::direct) {
    const std::int64_t per_block = std::int64_t{Policy::threads} * Policy::vectors_per_thread * Tiling::vec;
    const std::int64_t grid = ceil_div<std::int64_t>(n, per_block);
    if (grid > INT_MAX) return cudaErrorInvalidValue;
    auto kernel = boundary == StencilBoundary::zero
                      ? stencil_1d_direct_kernel<T, Radius, Policy, StencilBoundary::zero>
                      : stencil_1d_direct_kernel<T, Radius, Policy, StencilBoundary::clamp>;
    const bool in_vector = reinterpret_cast<std::uintptr_t>(in) % max_vector_bytes == 0;
    return launch_kernel(kernel, dim3(static_cast<unsigned>(grid)), dim3(Policy::threads), 0, stream, in, out, n,
                         weights, in_vector, out_vector);
  } else {
    static_assert(sizeof(typename Tiling::Storage) <= static_cast<std::size_t>(max_static_smem_per_block),
                  "stencil_1d: the tiled policy's tiles need more than 48 KiB of static shared memory; use fewer "
                  "threads, vectors per thread or stages (or the direct algorithm)");
    auto kernel = boundary == StencilBoundary::zero ? stencil_1d_kernel<T, Radius, Policy, StencilBoundary::zero>
                                                    : stencil_1d_kernel<T, Radius, Policy, StencilBoundary::clamp>;
    const std::int64_t tiles = ceil_div<std::int64_t>(n, Tiling::outputs);
    std::int64_t grid = 0;
    if constexpr (Policy::tiles_per_block > 0) {
      grid = ceil_div<std::int64_t>(tiles, Policy::tiles_per_block);
    } else {
      // A persistent grid: every resident block walks the tiles (the occupancy is asked once
      // per kernel and device: util/device_cache.cuh).
      int resident = 0;
      TILECRAFT_RETURN_IF_ERROR(resident_blocks_once(kernel, Policy::threads, 0, resident));
      grid = tiles < resident ? tiles : resident;
    }
    if (grid > INT_MAX) return cudaErrorInvalidValue;
    return launch_kernel(kernel, dim3(static_cast<unsigned>(grid)), dim3(Policy::threads), 0, stream, in, out, n,
                         weights, out_vector);
  }
}

}  // namespace detail

//! 1D stencil (convolution with halo): out[i] = sum_{j=-R..R} weights.w[j + R] * in[i + j] for
//! i in [0, n), with in[] outside [0, n) given by `boundary` (zero or clamp). Inputs first, as
//! every tilecraft whole-array algorithm: (in, out, n, weights, ...). float or double,
//! any n >= 0, any element offset of `in` and `out` (16-byte-aligned arrays take the vector
//! path), Radius 1 ... 16 at compile time. Asynchronous on `stream`. The policy picks the algorithm:
//! tiled (tiles of outputs plus a 16-byte-rounded halo either side, in a shared-memory Pipeline
//! filled by copy_tile_async: cp.async on sm_80+) or direct (windows read straight from global
//! memory through L1); DefaultStencilPolicy chooses by radius.
//! Floating-point results follow the left-to-right fma chain j = -R ... R.
//!
//! Returns cudaErrorInvalidValue, launching nothing, when n is negative or too large for 64-bit
//! byte offsets, a pointer is null (n > 0) or not aligned to T, `boundary` is not an
//! enumerator, `in` and `out` overlap (in-place is not supported), or the grid would need more
//! than 2^31 - 1 blocks. n == 0 is a successful no-op. Otherwise the launch status. `Policy`
//! (default DefaultStencilPolicy<T, Radius>) is a StencilPolicy.
//! \code
//! tilecraft::StencilWeights<float, 2> w{{0.1f, 0.2f, 0.4f, 0.2f, 0.1f}};
//! TILECRAFT_THROW_IF_ERROR(tilecraft::stencil_1d(d_in, d_out, n, w, tilecraft::StencilBoundary::clamp, stream));
//! \endcode
template <int Radius, class Policy = void, class T>
[[nodiscard]] cudaError_t stencil_1d(const T* in, T* out, std::int64_t n, const StencilWeights<T, Radius>& weights,
                                     StencilBoundary boundary = StencilBoundary::zero, cudaStream_t stream = nullptr) {
  TILECRAFT_NVTX_RANGE("tilecraft::stencil_1d");
  static_assert(std::is_void_v<Policy> || is_stencil_policy_v<Policy>,
                "tilecraft::stencil_1d<Radius, Policy>: Policy must be a tilecraft::StencilPolicy");
  if constexpr (std::is_void_v<Policy> || is_stencil_policy_v<Policy>) {
    using P = std::conditional_t<std::is_void_v<Policy>, DefaultStencilPolicy<T, Radius>, Policy>;
    return detail::stencil_1d_with<Radius, P>(in, out, n, weights, boundary, stream);
  } else {
    return cudaErrorInvalidValue;
  }
}

}  // namespace tilecraft
