//! \file arch/shared_atomic.cuh
//! Raw PTX wrappers: atomic adds whose old value is not needed, in a named state space:
//! `red.shared.add.u32` by 32-bit shared-window address, `red.global.add.u32/.u64`.
//!
//! atomicAdd on a pointer the compiler cannot prove to be shared (one picked at run time, or
//! passed through a struct) becomes a generic `atom.add`, which resolves the address space on
//! every call and costs far more than a shared atomic (on an H200 the histogram ladder's
//! tilecraft rung, 2^26 bytes, ran at 0.93 TB/s with generic atomics and 1.52 TB/s with these).
//! Naming the space keeps it ATOMS, and 32-bit address arithmetic replaces 64-bit pointers.
#pragma once

#include <cstdint>

#include "../config.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

//! Adds `value` to the 32-bit word at shared-window address `addr` (4-byte aligned).
//! \code
//! // A byte histogram: shared counters by 32-bit address, then one global add per bin.
//! __global__ void byte_histogram(const unsigned char* in, int n, unsigned* d_hist) {
//!   __shared__ unsigned bins[256];
//!   for (int b = threadIdx.x; b < 256; b += blockDim.x) bins[b] = 0;
//!   __syncthreads();
//!   const std::uint32_t base = tilecraft::arch::smem_address(bins);
//!   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
//!     tilecraft::arch::red_shared_add(base + 4u * in[i], 1u);
//!   __syncthreads();
//!   for (int b = threadIdx.x; b < 256; b += blockDim.x)
//!     if (bins[b] != 0) tilecraft::arch::red_global_add(d_hist + b, bins[b]);
//! }
//! \endcode
TILECRAFT_DEVICE void red_shared_add(std::uint32_t addr, unsigned value) {
  asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(addr), "r"(value) : "memory");
}

//! Adds `value` to the 32-bit counter at `p` in global memory.
TILECRAFT_DEVICE void red_global_add(unsigned* p, unsigned value) {
  asm volatile("red.global.add.u32 [%0], %1;" ::"l"(__cvta_generic_to_global(p)), "r"(value) : "memory");
}

//! Adds `value` to the 64-bit counter at `p` in global memory.
TILECRAFT_DEVICE void red_global_add(unsigned long long* p, unsigned long long value) {
  asm volatile("red.global.add.u64 [%0], %1;" ::"l"(__cvta_generic_to_global(p)), "l"(value) : "memory");
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
