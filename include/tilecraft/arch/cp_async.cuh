//! \file arch/cp_async.cuh
//! Raw PTX wrappers: Ampere's asynchronous global -> shared copy (`cp.async`), sm_80 and newer.
//!
//! One thread's `cp.async` moves 4, 8 or 16 bytes from global to shared memory without a
//! register stage: the load is issued, the thread runs on, and the bytes land later. Copies
//! are grouped: `cp_async_commit()` closes the group of every copy the thread issued since the
//! last commit, `cp_async_wait<N>()` blocks until at most N of the thread's groups are still in
//! flight. Each thread waits only for its own copies: a `__syncthreads()` after the wait is
//! what makes other threads' bytes visible (memory/copy_async.cuh's copy_async_wait_block includes
//! it; copy_async_wait does not).
//!
//! - `.ca` allocates the line in L1 (sizes 4, 8, 16); `.cg` bypasses L1 (16 bytes only): data
//!   read once by one block gains nothing from L1.
//! - src-size (the zero-filling form): only the first `src_bytes` bytes are read, the rest of
//!   the destination is written with zeros; `src_bytes == 0` reads nothing, so a predicated-off
//!   copy still zero-fills its destination (which is how edge tiles get their zero padding).
//! - Alignment: both addresses must be aligned to the copy size.
//!
//! These wrappers exist on sm_80 and newer only; on older targets each one traps. Callers pick
//! another path with NV_IF_TARGET (memory/copy_async.cuh does) before reaching them.
#pragma once

#include <cstdint>

#include <nv/target>

#include "../config.cuh"
#include "smem_address.cuh"

namespace tilecraft::arch {

//! The sizes one cp.async can move.
template <int Bytes>
inline constexpr bool valid_cp_async_bytes = Bytes == 4 || Bytes == 8 || Bytes == 16;

#if defined(__CUDACC__)

//! cp.async.ca: copies Bytes (4, 8 or 16) from global `src` to the shared-window address `dst`
//! (smem_address()), through L1. The address form lets a mainloop keep its stage addresses in
//! 32-bit registers, advanced by constants, instead of converting a pointer per copy.
template <int Bytes>
TILECRAFT_DEVICE void cp_async_ca(std::uint32_t dst, const void* src) {
  static_assert(valid_cp_async_bytes<Bytes>, "cp_async_ca<Bytes>: cp.async.ca moves 4, 8 or 16 bytes");
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                    (asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src), "n"(Bytes)
                                  : "memory");),
                    (__trap();))
}

//! cp.async.ca: copies Bytes (4, 8 or 16) from global `src` to shared `dst`, through L1.
//! \code
//! // sm_80 and newer (elsewhere take another path: memory/copy_async.cuh's copy_async).
//! __shared__ alignas(16) float stage[4 * 128];
//! tilecraft::arch::cp_async_ca<16>(&stage[4 * threadIdx.x], in + 4 * threadIdx.x);
//! tilecraft::arch::cp_async_commit();
//! tilecraft::arch::cp_async_wait<0>();  // this thread's copies have landed
//! __syncthreads();                      // ... and every thread's, for every thread
//! out[threadIdx.x] = stage[(threadIdx.x + 4) % 512];
//! \endcode
template <int Bytes>
TILECRAFT_DEVICE void cp_async_ca(void* dst, const void* src) {
  cp_async_ca<Bytes>(smem_address(dst), src);
}

//! cp.async.ca with src-size: reads the first `src_bytes` (0 ... Bytes) of `src` and fills the
//! rest of the Bytes at the shared-window address `dst` with zeros. With src_bytes == 0 nothing
//! is read, so `src` may be any valid global address (it is not dereferenced).
template <int Bytes>
TILECRAFT_DEVICE void cp_async_ca_zfill(std::uint32_t dst, const void* src, std::uint32_t src_bytes) {
  static_assert(valid_cp_async_bytes<Bytes>, "cp_async_ca_zfill<Bytes>: cp.async.ca moves 4, 8 or 16 bytes");
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_80,
      (asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(dst), "l"(src), "n"(Bytes), "r"(src_bytes)
                    : "memory");),
      (__trap();))
}

//! cp_async_ca_zfill to the shared-window address of `dst`.
template <int Bytes>
TILECRAFT_DEVICE void cp_async_ca_zfill(void* dst, const void* src, std::uint32_t src_bytes) {
  cp_async_ca_zfill<Bytes>(smem_address(dst), src, src_bytes);
}

//! cp.async.cg: copies 16 bytes from global `src` to the shared-window address `dst`
//! (smem_address()), bypassing L1.
template <int Bytes>
TILECRAFT_DEVICE void cp_async_cg(std::uint32_t dst, const void* src) {
  static_assert(Bytes == 16, "cp_async_cg<Bytes>: cp.async.cg (L2 only) moves exactly 16 bytes; use cp_async_ca");
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                    (asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src)
                                  : "memory");),
                    (__trap();))
}

//! cp.async.cg: copies 16 bytes from global `src` to shared `dst`, bypassing L1.
template <int Bytes>
TILECRAFT_DEVICE void cp_async_cg(void* dst, const void* src) {
  cp_async_cg<Bytes>(smem_address(dst), src);
}

//! cp.async.cg with src-size (see cp_async_ca_zfill).
template <int Bytes>
TILECRAFT_DEVICE void cp_async_cg_zfill(std::uint32_t dst, const void* src, std::uint32_t src_bytes) {
  static_assert(Bytes == 16, "cp_async_cg_zfill<Bytes>: cp.async.cg (L2 only) moves exactly 16 bytes");
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                    (asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes)
                                  : "memory");),
                    (__trap();))
}

//! cp_async_cg_zfill to the shared-window address of `dst`.
//! \code
//! // Copies 16 bytes, or only the floats left before `count` and zeros after them.
//! __shared__ alignas(16) float stage[4];
//! const int count = 3;  // floats valid in the source
//! if (threadIdx.x == 0) {
//!   tilecraft::arch::cp_async_cg_zfill<16>(stage, in, static_cast<unsigned>(count * sizeof(float)));
//!   tilecraft::arch::cp_async_commit();
//!   tilecraft::arch::cp_async_wait_all();
//! }
//! __syncthreads();  // stage = {in[0], in[1], in[2], 0}
//! \endcode
template <int Bytes>
TILECRAFT_DEVICE void cp_async_cg_zfill(void* dst, const void* src, std::uint32_t src_bytes) {
  cp_async_cg_zfill<Bytes>(smem_address(dst), src, src_bytes);
}

//! cp.async.commit_group: closes this thread's group of copies issued since the last commit.
TILECRAFT_DEVICE void cp_async_commit() {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80, (asm volatile("cp.async.commit_group;" ::: "memory");), (__trap();))
}

//! cp.async.wait_group N: blocks until at most N of this thread's committed groups are
//! pending (the newest N); every older group has landed in shared memory.
template <int N>
TILECRAFT_DEVICE void cp_async_wait() {
  static_assert(N >= 0, "cp_async_wait<N>: N (groups left in flight) must be >= 0");
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80, (asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");), (__trap();))
}

//! cp.async.wait_all: blocks until every copy this thread issued has landed (committed or not).
TILECRAFT_DEVICE void cp_async_wait_all() {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80, (asm volatile("cp.async.wait_all;" ::: "memory");), (__trap();))
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
