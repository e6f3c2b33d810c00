//! \file arch/tma.cuh
//! Raw PTX wrapper: Hopper's tensor memory accelerator (TMA) copy of a 2-D box of a global
//! tensor into shared memory, `cp.async.bulk.tensor.2d` (sm_90).
//!
//! The tensor, the box and the shared-memory layout (swizzle) are described by a CUtensorMap
//! that the host encodes (cuTensorMapEncodeTiled; tilecraft's launchers do it in
//! device/detail/tensor_map.cuh) and passes as a `const __grid_constant__ CUtensorMap` kernel
//! parameter. One thread issues the copy of the whole box; the copy runs in the asynchronous
//! proxy, writes zeros where the box lies outside the tensor (negative coordinates included),
//! and signals its bytes to an mbarrier (arch/mbarrier.cuh) on which the readers wait. The box
//! counts in full toward the barrier's transaction bytes, zero-filled parts included.
//!
//! Elsewhere than sm_90 and later the wrapper traps: callers select another path with
//! NV_IF_TARGET(NV_PROVIDES_SM_90, ...). See arch/mbarrier.cuh for a kernel snippet.
#pragma once

#include <cuda.h>

#include <cstdint>

#include <nv/target>

#include "../config.cuh"
#include "smem_address.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

//! Copies the box of `map` whose first element is at (c0, c1) (c0 along the tensor's contiguous
//! dimension, in whole 16-byte chunks: c0 times the element size a multiple of 16, else the
//! instruction faults with an illegal instruction; negative or past the end is fine) to `dst`
//! (shared memory, aligned as the map's swizzle requires: 128 bytes, or 1024 for the 128-byte
//! swizzle) and completes its bytes on the mbarrier `bar`. `map` must be the address of a
//! __grid_constant__ kernel parameter (or of global memory). `dst` and `bar` come as pointers or
//! as their shared-window addresses (arch::smem_address).
TILECRAFT_DEVICE void tma_load_2d(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int c0, int c1) {
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_90,
      (asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], "
                    "[%2];" ::"r"(dst),
                    "l"(reinterpret_cast<std::uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
                    : "memory");),
      ((void)dst; (void)map; (void)bar; (void)c0; (void)c1; __trap();))
}
//! The same with `dst` and `bar` as pointers into shared memory.
TILECRAFT_DEVICE void tma_load_2d(void* dst, const CUtensorMap* map, std::uint64_t* bar, int c0, int c1) {
  tma_load_2d(smem_address(dst), map, smem_address(bar), c0, c1);
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
