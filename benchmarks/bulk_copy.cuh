// Hopper's bulk copies between global and shared memory (the copy engine of TMA without a
// tensor map) and the shared-memory transaction barrier (`mbarrier`) they complete on: raw PTX
// for bench_copy.cu's bulk-copy ceiling, private to the benchmarks. sm_90 and newer; on older
// targets each wrapper traps (the benchmark runs them only on sm_90).
//
// An mbarrier is a 64-bit word in shared memory with an arrival count and, on sm_90, a
// transaction count in bytes: a phase completes when every expected thread has arrived and
// every expected byte has landed. Phases alternate parity 0, 1, 0, ...; waiters name the
// parity of the phase they wait for.
//
// A bulk copy moves `bytes` (a multiple of 16, both addresses 16-byte aligned) without
// registers: the issuing thread continues at once. Global -> shared copies complete on an
// mbarrier; shared -> global copies are tracked in bulk groups of the issuing thread (commit,
// then wait until the shared source may be overwritten).
#pragma once

#include <cstdint>

#include <nv/target>

#include <tilecraft/arch/smem_address.cuh>
#include <tilecraft/config.cuh>

namespace tilecraft::bench::hopper {

#if defined(__CUDACC__)

// Initializes the barrier for `arrivals` arriving threads, then fences the initialization so
// the async proxy (the copy engine) sees it. One thread; a __syncthreads() must follow before
// other threads use the barrier.
TILECRAFT_DEVICE void mbarrier_init(std::uint64_t* bar, std::uint32_t arrivals) {
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_90,
      (asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(tilecraft::arch::smem_address(bar)), "r"(arrivals)
                    : "memory");
       asm volatile("fence.mbarrier_init.release.cluster;" ::
                        : "memory");),
      (__trap();))
}

// Arrives on the barrier and raises its expected transaction count by `bytes` (the bytes the
// copies issued next will deliver).
TILECRAFT_DEVICE void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_90,
      (asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(tilecraft::arch::smem_address(bar)),
                    "r"(bytes)
                    : "memory");),
      (__trap();))
}

// Blocks until the phase with parity `parity` has completed (acquire: the data the copies
// delivered is visible to the calling thread afterwards).
TILECRAFT_DEVICE void mbarrier_wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("{\n"
                                  ".reg .pred done;\n"
                                  "wait_%=:\n"
                                  "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                                  "@!done bra wait_%=;\n"
                                  "}\n" ::"r"(tilecraft::arch::smem_address(bar)),
                                  "r"(parity)
                                  : "memory");),
                    (__trap();))
}

// Global -> shared bulk copy completing `bytes` transactions on `bar`.
TILECRAFT_DEVICE void bulk_copy_g2s(void* smem_dst, const void* gmem_src, std::uint32_t bytes, std::uint64_t* bar) {
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_90,
      (asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                        tilecraft::arch::smem_address(smem_dst)),
                    "l"(gmem_src), "r"(bytes), "r"(tilecraft::arch::smem_address(bar))
                    : "memory");),
      (__trap();))
}

// Shared -> global bulk copy, added to the calling thread's current bulk group.
TILECRAFT_DEVICE void bulk_copy_s2g(void* gmem_dst, const void* smem_src, std::uint32_t bytes) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(gmem_dst),
                                  "r"(tilecraft::arch::smem_address(smem_src)), "r"(bytes)
                                  : "memory");),
                    (__trap();))
}

// Closes the calling thread's current bulk group.
TILECRAFT_DEVICE void bulk_commit_group() {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, (asm volatile("cp.async.bulk.commit_group;" ::: "memory");), (__trap();))
}

// Waits until at most `Pending` of the calling thread's bulk groups still read their shared
// sources (their global writes may still be in flight).
template <int Pending>
TILECRAFT_DEVICE void bulk_wait_group_read() {
  static_assert(Pending >= 0 && Pending <= 7, "bulk_wait_group_read: Pending must be 0 ... 7");
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending)
                                  : "memory");),
                    (__trap();))
}

// Waits until at most `Pending` of the calling thread's bulk groups are incomplete (their
// global writes done and visible).
template <int Pending>
TILECRAFT_DEVICE void bulk_wait_group() {
  static_assert(Pending >= 0 && Pending <= 7, "bulk_wait_group: Pending must be 0 ... 7");
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("cp.async.bulk.wait_group %0;" ::"n"(Pending)
                                  : "memory");),
                    (__trap();))
}

// Orders the calling thread's earlier generic-proxy accesses to shared memory before later
// async-proxy (bulk copy) accesses: needed before a bulk store reads shared memory that
// ordinary stores wrote.
TILECRAFT_DEVICE void fence_proxy_async_shared() {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, (asm volatile("fence.proxy.async.shared::cta;" ::: "memory");), (__trap();))
}

#endif  // __CUDACC__

}  // namespace tilecraft::bench::hopper
