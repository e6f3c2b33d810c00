//! \file arch/mbarrier.cuh
//! Raw PTX wrappers: the shared-memory transaction barrier (`mbarrier`) that Hopper's bulk
//! copies complete on. sm_90 and newer; on older targets each wrapper traps (callers select
//! another path with NV_IF_TARGET before reaching them).
//!
//! An mbarrier is a 64-bit word in shared memory with an arrival count and, on sm_90, a
//! transaction count in bytes: a phase completes when every expected thread has arrived and
//! every expected byte has landed. Phases alternate parity 0, 1, 0, ...; waiters name the
//! parity of the phase they wait for.
#pragma once

#include <cstdint>

#include <nv/target>

#include "../config.cuh"
#include "smem_address.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

//! Initializes the barrier for `arrivals` arriving threads, then fences the initialization so
//! the async proxy (the copy engine) sees it. One thread; a __syncthreads() must follow before
//! other threads use the barrier.
TILECRAFT_DEVICE void mbarrier_init(std::uint64_t* bar, std::uint32_t arrivals) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(bar)), "r"(arrivals)
                                  : "memory");
                     asm volatile("fence.mbarrier_init.release.cluster;" ::
                                      : "memory");),
                    (__trap();))
}

//! Arrives on the barrier and raises its expected transaction count by `bytes` (the bytes the
//! copies issued next will deliver).
TILECRAFT_DEVICE void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_90,
      (asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)), "r"(bytes)
                    : "memory");),
      (__trap();))
}

//! Blocks until the phase with parity `parity` has completed (acquire: the data the copies
//! delivered is visible to the calling thread afterwards).
TILECRAFT_DEVICE void mbarrier_wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("{\n"
                                  ".reg .pred done;\n"
                                  "wait_%=:\n"
                                  "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                                  "@!done bra wait_%=;\n"
                                  "}\n" ::"r"(smem_address(bar)),
                                  "r"(parity)
                                  : "memory");),
                    (__trap();))
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
