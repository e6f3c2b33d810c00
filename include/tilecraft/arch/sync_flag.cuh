//! \file arch/sync_flag.cuh
//! Raw PTX wrappers: a flag in global memory that one block raises and another waits for
//! (`st.release.gpu`, `ld.acquire.gpu`), and the named barrier (`bar.sync id, threads`) that
//! orders the writes of a part of a block around them.
//!
//! The pattern: the threads that write the data a flag guards write it, meet at a barrier, and
//! one of them stores the flag with release semantics; on the other side one thread loads the
//! flag with acquire semantics until it is raised, then the threads that read the data meet at
//! a barrier and read. Release and acquire at GPU scope make every write ordered before the
//! release (the barrier orders the other threads' writes before it) visible after the acquire.
//! \code
//! __global__ void hand_over(float* data, unsigned* flag) {  // two blocks of 128 threads
//!   if (blockIdx.x == 1) {
//!     data[threadIdx.x] = 2.0f * static_cast<float>(threadIdx.x);
//!     tilecraft::arch::named_barrier_sync(1, 128);
//!     if (threadIdx.x == 0) tilecraft::arch::store_release(flag, 1u);
//!   } else {
//!     if (threadIdx.x == 0) {
//!       while (tilecraft::arch::load_acquire(flag) == 0u) {
//!       }
//!     }
//!     tilecraft::arch::named_barrier_sync(1, 128);
//!     data[128 + threadIdx.x] = data[threadIdx.x] + 1.0f;
//!   }
//! }
//! \endcode
#pragma once

#include "../config.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

//! `ld.acquire.gpu.u32`: the word at p (global memory); later loads of this thread see every
//! write that was ordered before the release that stored it.
TILECRAFT_DEVICE unsigned load_acquire(const unsigned* p) {
  unsigned v = 0;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

//! `st.release.gpu.u32`: stores v at p (global memory) after every memory operation ordered
//! before it (this thread's, and through a barrier the other threads').
TILECRAFT_DEVICE void store_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

//! `bar.sync id, threads`: waits until `threads` threads (a multiple of 32, whole warps) have
//! arrived at barrier `id` (1 ... 15: __syncthreads() uses 0). Lets a part of a block (the
//! computing warps of a warp-specialized kernel) synchronize without the rest.
TILECRAFT_DEVICE void named_barrier_sync(unsigned id, unsigned threads) {
  TILECRAFT_ASSERT(id >= 1 && id <= 15 && threads > 0 && threads % 32 == 0 &&
                   "named_barrier_sync: id must be 1 ... 15 and threads a positive multiple of 32");
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
