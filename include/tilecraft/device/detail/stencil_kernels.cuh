//! \file device/detail/stencil_kernels.cuh
//! tilecraft::stencil_1d's tile geometry and kernels (internal; include device/stencil.cuh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../../config.cuh"
#include "../../memory/copy_async.cuh"
#include "../../memory/matrix_ref.cuh"
#include "../../memory/pipeline.cuh"
#include "../../memory/shared_tile.cuh"
#include "../../memory/tile_copy.cuh"
#include "../../util/math.cuh"
#include "../stencil_policy.cuh"

namespace tilecraft::detail {

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

#if defined(__CUDACC__)

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

#endif  // __CUDACC__

}  // namespace tilecraft::detail
