//! \file arch/grid_sync.cuh
//! The grid-wide barrier of a cooperative launch (`cudaLaunchCooperativeKernel`, or
//! `cudaLaunchKernelEx` with `cudaLaunchAttributeCooperative` as the launchers' detail::launch_cooperative does),
//! written out in PTX: `atom.add.release.gpu` to arrive, `ld.acquire.gpu` to wait.
//!
//! It is the barrier `cooperative_groups::this_grid().sync()` executes, on the same state: a
//! cooperative launch hands each block the address of a workspace the driver zeroes (its high
//! and low halves in `%envreg1` and `%envreg2`), whose second 32-bit word is the barrier. Including
//! `<cooperative_groups.h>` for it costs about 2 s of compile time per architecture in every
//! translation unit (the header pulls in libcu++'s atomics); this header costs nothing.
#pragma once

#include "../config.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

namespace detail {
// The driver's per-launch grid workspace: {size in bytes, barrier word}. Null unless the kernel
// was launched cooperatively.
TILECRAFT_DEVICE unsigned* grid_barrier_word() {
  unsigned hi = 0;
  unsigned lo = 0;
  asm("mov.u32 %0, %%envreg1;" : "=r"(hi));
  asm("mov.u32 %0, %%envreg2;" : "=r"(lo));
  const unsigned long long workspace = (static_cast<unsigned long long>(hi) << 32) | lo;
  return workspace == 0 ? nullptr : reinterpret_cast<unsigned*>(workspace) + 1;
}
}  // namespace detail

//! Grid-wide barrier: every thread of the grid waits until all threads of the grid have
//! arrived, and whatever any thread wrote to global memory before it is visible to every thread
//! after it. Call it from every thread of every block (it executes `__syncthreads()` twice), in
//! a kernel launched cooperatively (every block resident: `cudaLaunchCooperativeKernel` or the
//! cooperative launch attribute). A kernel
//! launched otherwise traps instead of hanging.
//! \code
//! __global__ void two_phases(float* partial, float* out) {
//!   partial[blockIdx.x] = 1.0f;
//!   tilecraft::arch::grid_sync();
//!   if (blockIdx.x == 0 && threadIdx.x == 0) *out = partial[gridDim.x - 1];
//! }
//! \endcode
TILECRAFT_DEVICE void grid_sync() {
  unsigned* const barrier = detail::grid_barrier_word();
  if (barrier == nullptr) __trap();  // not a cooperative launch: no block could ever pass
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    // Every block adds 1, block 0 adds 2^31 - (blocks - 1): once all have arrived the word has
    // grown by exactly 2^31, so its top bit has flipped, and only then.
    const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
    const bool first = blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
    const unsigned add = first ? 0x80000000u - (blocks - 1u) : 1u;
    unsigned arrived = 0;
    asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(arrived) : "l"(barrier), "r"(add) : "memory");
    unsigned now = arrived;
    while (((arrived ^ now) & 0x80000000u) == 0) {
      asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(barrier) : "memory");
    }
  }
  __syncthreads();
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
