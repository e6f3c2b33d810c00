//! \file device/detail/stencil_dispatch.cuh
//! tilecraft::stencil_1d's dispatch: argument checks, algorithm, grid and launch (internal;
//! include device/stencil.cuh). Under a host compiler it checks the arguments and returns
//! cudaErrorInvalidDeviceFunction where nvcc's form would launch.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstddef>
#include <cstdint>

#include "../../config.cuh"
#include "../../util/device_cache.cuh"
#include "../../util/launch.cuh"
#include "../../util/math.cuh"
#include "../../util/status.cuh"
#include "../stencil_policy.cuh"
#include "stencil_kernels.cuh"

namespace tilecraft::detail {

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

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
#if defined(__CUDACC__)
    auto kernel = boundary == StencilBoundary::zero
                      ? stencil_1d_direct_kernel<T, Radius, Policy, StencilBoundary::zero>
                      : stencil_1d_direct_kernel<T, Radius, Policy, StencilBoundary::clamp>;
    const bool in_vector = reinterpret_cast<std::uintptr_t>(in) % max_vector_bytes == 0;
    return launch_kernel(kernel, dim3(static_cast<unsigned>(grid)), dim3(Policy::threads), 0, stream, in, out, n,
                         weights, in_vector, out_vector);
#else
    (void)weights, (void)stream, (void)out_vector;  // host compilers: the argument checks only
    return cudaErrorInvalidDeviceFunction;
#endif
  } else {
    static_assert(sizeof(typename Tiling::Storage) <= static_cast<std::size_t>(max_static_smem_per_block),
                  "stencil_1d: the tiled policy's tiles need more than 48 KiB of static shared memory; use fewer "
                  "threads, vectors per thread or stages (or the direct algorithm)");
    const std::int64_t tiles = ceil_div<std::int64_t>(n, Tiling::outputs);
    // A grid of tiles_per_block tiles a block: refused past 2^31 - 1 blocks, on any compiler. (A
    // persistent grid has at most the resident blocks.)
    if constexpr (Policy::tiles_per_block > 0) {
      if (ceil_div<std::int64_t>(tiles, Policy::tiles_per_block) > INT_MAX) return cudaErrorInvalidValue;
    }
#if defined(__CUDACC__)
    auto kernel = boundary == StencilBoundary::zero ? stencil_1d_kernel<T, Radius, Policy, StencilBoundary::zero>
                                                    : stencil_1d_kernel<T, Radius, Policy, StencilBoundary::clamp>;
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
    return launch_kernel(kernel, dim3(static_cast<unsigned>(grid)), dim3(Policy::threads), 0, stream, in, out, n,
                         weights, out_vector);
#else
    (void)weights, (void)stream, (void)out_vector;  // host compilers: the argument checks only
    return cudaErrorInvalidDeviceFunction;
#endif
  }
}

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft::detail
