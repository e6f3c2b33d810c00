//! \file arch/mbarrier.cuh
//! Raw PTX wrappers: the shared-memory transaction barrier (`mbarrier`, sm_90 forms), through
//! which asynchronous copies (TMA, arch/tma.cuh) tell waiting threads that their bytes have
//! landed, and through which a consumer hands a buffer back to its producer.
//!
//! An mbarrier is a 64-bit word of shared memory counting, per phase, the arrivals still
//! expected (set by mbarrier_init) and the transaction bytes still pending (raised by
//! mbarrier_arrive_expect_tx, lowered by the copies that name the barrier). A phase completes
//! when both reach zero; the barrier then starts the next phase with the same arrival count.
//! Phases alternate parity 0, 1, 0, ...: mbarrier_wait(bar, p) returns once the phase of parity
//! p has completed, so a ring of buffers waits on parity (use / uses_per_phase) & 1.
//!
//! Each wrapper takes the barrier as a pointer or as its 32-bit shared-window address
//! (arch::smem_address): a main loop that computes the address once and steps it by adds saves
//! the generic-to-shared conversion (and the reads of the window's base it may compile to) at
//! every use.
//!
//! The wrappers exist on sm_90 and later (the transaction count came with Hopper); elsewhere
//! they trap: callers select another path with NV_IF_TARGET(NV_PROVIDES_SM_90, ...).
//! \code
//! // One producer thread fills `buf` by TMA from `map` (a 32 x 32 float box without swizzle: a
//! // 128-byte swizzled box needs alignas(1024) and reads through the swizzle); every thread of
//! // the block waits for the bytes.
//! __global__ void stage_once(const __grid_constant__ CUtensorMap map, float* out) {
//!   __shared__ alignas(128) float buf[32 * 32];
//!   __shared__ std::uint64_t full;
//!   if (threadIdx.x == 0) {
//!     tilecraft::arch::mbarrier_init(&full, 1);
//!     tilecraft::arch::mbarrier_init_fence();
//!   }
//!   __syncthreads();
//!   if (threadIdx.x == 0) {
//!     tilecraft::arch::mbarrier_arrive_expect_tx(&full, sizeof(buf));
//!     tilecraft::arch::tma_load_2d(buf, &map, &full, 0, 0);
//!   }
//!   tilecraft::arch::mbarrier_wait(&full, 0);
//!   out[threadIdx.x] = buf[threadIdx.x];
//! }
//! \endcode
#pragma once

#include <cstdint>

#include <nv/target>

#include "../config.cuh"
#include "smem_address.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

//! Initializes the mbarrier at `bar` (shared memory, 8-byte aligned) for `arrivals` arrivals a
//! phase, in phase 0. One thread initializes; make it visible with mbarrier_init_fence() and a
//! barrier before any thread or copy uses it.
TILECRAFT_DEVICE void mbarrier_init(std::uint64_t* bar, unsigned arrivals) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(bar)), "r"(arrivals)
                                  : "memory");),
                    ((void)bar; (void)arrivals; __trap();))
}

//! Makes the initializing thread's mbarrier_init()s visible to the asynchronous proxy (the TMA
//! unit, which signals the barriers) before a following __syncthreads() publishes them.
TILECRAFT_DEVICE void mbarrier_init_fence() {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("fence.mbarrier_init.release.cluster;" ::
                                      : "memory");),
                    (__trap();))
}

//! One arrival on `bar` (release semantics: the caller's earlier shared-memory reads and writes
//! happen before the phase completes).
TILECRAFT_DEVICE void mbarrier_arrive(std::uint32_t bar) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
                                  : "memory");),
                    ((void)bar; __trap();))
}
//! The same on the barrier at `bar` (a pointer into shared memory).
TILECRAFT_DEVICE void mbarrier_arrive(std::uint64_t* bar) { mbarrier_arrive(smem_address(bar)); }

//! One arrival on `bar` that also expects `bytes` more transaction bytes in the current phase:
//! the producer's call before it issues the copies that will complete them.
TILECRAFT_DEVICE void mbarrier_arrive_expect_tx(std::uint32_t bar, unsigned bytes) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                                  : "memory");),
                    ((void)bar; (void)bytes; __trap();))
}
//! The same on the barrier at `bar` (a pointer into shared memory).
TILECRAFT_DEVICE void mbarrier_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
  mbarrier_arrive_expect_tx(smem_address(bar), bytes);
}

//! Returns once the phase of `bar` with parity `parity` (0 or 1) has completed (acquire
//! semantics: what the arrivals released, and the bytes the copies wrote, are visible). Spins
//! on `mbarrier.try_wait`, which itself suspends the thread for a while before it fails.
TILECRAFT_DEVICE void mbarrier_wait(std::uint32_t bar, unsigned parity) {
  TILECRAFT_ASSERT(parity <= 1 && "mbarrier_wait: parity must be 0 or 1");
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("{\n"
                                  ".reg .pred done;\n"
                                  "tilecraft_mbarrier_wait:\n"
                                  "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                                  "@!done bra tilecraft_mbarrier_wait;\n"
                                  "}\n" ::"r"(bar),
                                  "r"(parity)
                                  : "memory");),
                    ((void)bar; (void)parity; __trap();))
}
//! The same on the barrier at `bar` (a pointer into shared memory).
TILECRAFT_DEVICE void mbarrier_wait(std::uint64_t* bar, unsigned parity) { mbarrier_wait(smem_address(bar), parity); }

#endif  // __CUDACC__

}  // namespace tilecraft::arch
