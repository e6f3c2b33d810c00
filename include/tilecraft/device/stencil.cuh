//! \file device/stencil.cuh
//! Whole-array 1D stencil (convolution with a halo): out[i] = sum_{j=-R..R} w[j] * in[i + j],
//! built on SharedMatrix tiles loaded with copy_tile_async through a multi-stage Pipeline. The
//! boundary rule, weights and policies: device/stencil_policy.cuh (included).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "../util/nvtx.cuh"
#include "../util/status.cuh"
#include "detail/stencil_dispatch.cuh"
#include "stencil_policy.cuh"

namespace tilecraft {

TILECRAFT_LAUNCH_NAMESPACE_BEGIN

//! 1D stencil (convolution with halo): out[i] = sum_{j=-R..R} weights.w[j + R] * in[i + j] for
//! i in [0, n), with in[] outside [0, n) given by `boundary` (zero or clamp). Inputs first, as
//! every tilecraft whole-array algorithm: (in, out, n, weights, ...). float or double,
//! any n >= 0, any element offset of `in` and `out` (16-byte-aligned arrays take the vector
//! path), Radius 1 ... 16 at compile time. Asynchronous on `stream`. The policy picks the algorithm:
//! tiled (tiles of outputs plus a 16-byte-rounded halo either side, in a shared-memory Pipeline
//! filled by copy_tile_async: cp.async on sm_80+) or direct (windows read straight from global
//! memory through L1); DefaultStencilPolicy chooses by radius. Under a host compiler (a .cpp
//! file) it checks its arguments as below and returns cudaErrorInvalidDeviceFunction where it
//! would launch.
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

TILECRAFT_LAUNCH_NAMESPACE_END

}  // namespace tilecraft
