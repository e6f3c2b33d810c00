//! \file arch/smem_address.cuh
//! The shared-window address of a shared-memory object: the 32-bit form that PTX's `.shared`
//! operands (cp.async, mbarrier, ldmatrix, ...) take instead of a generic pointer.
#pragma once

#include <cstdint>

#include "../config.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

//! Shared-window address of `p`, which must point into shared memory (checked with
//! TILECRAFT_ENABLE_DEVICE_ASSERTIONS). One instruction; the result fits 32 bits because a
//! block's shared window is at most 227 KiB.
//! \code
//! __shared__ alignas(16) float stage[256];
//! const std::uint32_t row = tilecraft::arch::smem_address(&stage[16 * (threadIdx.x % 16)]);
//! // row + 4 * j is stage[16 * (threadIdx.x % 16) + j] for cp.async, ldmatrix or red.shared
//! \endcode
TILECRAFT_DEVICE std::uint32_t smem_address(const void* p) {
  TILECRAFT_ASSERT(__isShared(p));
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
