//! \file arch/cp_async_bulk.cuh
//! Raw PTX wrappers: Hopper's bulk copies between global and shared memory (the copy engine
//! of TMA without a tensor map). sm_90 and newer; on older targets each wrapper traps.
//!
//! A bulk copy moves `bytes` (a multiple of 16, both addresses 16-byte aligned) without
//! registers: the issuing thread continues at once. Global -> shared copies complete on an
//! mbarrier (arch/mbarrier.cuh); shared -> global copies are tracked in bulk groups of the
//! issuing thread (commit, then wait until the shared source may be overwritten).
#pragma once

#include <cstdint>

#include <nv/target>

#include "../config.cuh"
#include "mbarrier.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

//! Global -> shared bulk copy completing `bytes` transactions on `bar`.
TILECRAFT_DEVICE void bulk_copy_g2s(void* smem_dst, const void* gmem_src, std::uint32_t bytes, std::uint64_t* bar) {
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_90,
      (asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                        smem_address(smem_dst)),
                    "l"(gmem_src), "r"(bytes), "r"(smem_address(bar))
                    : "memory");),
      (__trap();))
}

//! Shared -> global bulk copy, added to the calling thread's current bulk group.
TILECRAFT_DEVICE void bulk_copy_s2g(void* gmem_dst, const void* smem_src, std::uint32_t bytes) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(gmem_dst),
                                  "r"(smem_address(smem_src)), "r"(bytes)
                                  : "memory");),
                    (__trap();))
}

//! Closes the calling thread's current bulk group.
TILECRAFT_DEVICE void bulk_commit_group() {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, (asm volatile("cp.async.bulk.commit_group;" ::: "memory");), (__trap();))
}

//! Waits until at most `Pending` of the calling thread's bulk groups still read their shared
//! sources (their global writes may still be in flight).
template <int Pending>
TILECRAFT_DEVICE void bulk_wait_group_read() {
  static_assert(Pending >= 0 && Pending <= 7, "bulk_wait_group_read: Pending must be 0 ... 7");
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending)
                                  : "memory");),
                    (__trap();))
}

//! Waits until at most `Pending` of the calling thread's bulk groups are incomplete (their
//! global writes done and visible).
template <int Pending>
TILECRAFT_DEVICE void bulk_wait_group() {
  static_assert(Pending >= 0 && Pending <= 7, "bulk_wait_group: Pending must be 0 ... 7");
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90,
                    (asm volatile("cp.async.bulk.wait_group %0;" ::"n"(Pending)
                                  : "memory");),
                    (__trap();))
}

//! Orders the calling thread's earlier generic-proxy accesses to shared memory before later
//! async-proxy (bulk copy) accesses: needed before a bulk store reads shared memory that
//! ordinary stores wrote.
TILECRAFT_DEVICE void fence_proxy_async_shared() {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, (asm volatile("fence.proxy.async.shared::cta;" ::: "memory");), (__trap();))
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
