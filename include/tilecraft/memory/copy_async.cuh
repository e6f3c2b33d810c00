//! \file memory/copy_async.cuh
//! Asynchronous global -> shared copies of one 4-, 8- or 16-byte vector, and the group
//! commit/wait that completes them: `cp.async` on sm_80 and newer; below sm_80, or when
//! TILECRAFT_DISABLE_CP_ASYNC is defined, a synchronous load and shared store with the same
//! results (commit and wait are then no-ops, which stay correct because the bytes have
//! already landed). The path is chosen inside the function bodies (<nv/target>), so one
//! binary carries both.
//!
//! Completion is per thread: copy_async_wait<N>() waits for the calling thread's own copies.
//! Before a thread reads bytes another thread copied, the block needs a `__syncthreads()`
//! after the wait: copy_async_wait_block<N>() does both (and so does Pipeline::consumer_wait).
//! \code
//! __shared__ alignas(16) float4 stage[256];
//! tilecraft::copy_async<16>(&stage[threadIdx.x], &in4[blockIdx.x * 256 + threadIdx.x]);  // const float4* in4
//! tilecraft::copy_async_commit();
//! tilecraft::copy_async_wait_block<0>();  // wait for this thread's copies, then __syncthreads()
//! float4 x = stage[255 - threadIdx.x];
//! \endcode
#pragma once

#include <cstdint>

#include <nv/target>

#include "../arch/cp_async.cuh"
#include "../config.cuh"
#include "global_word.cuh"

namespace tilecraft {

//! True when this translation unit was built with TILECRAFT_DISABLE_CP_ASYNC: every
//! asynchronous copy is then a synchronous one, on every architecture (so both paths can be
//! tested on one GPU).
#if defined(TILECRAFT_DISABLE_CP_ASYNC)
inline constexpr bool cp_async_disabled = true;
#else
inline constexpr bool cp_async_disabled = false;
#endif

//! The sizes one asynchronous copy moves: 4, 8 or 16 bytes (what cp.async supports).
template <int Bytes>
concept AsyncCopyBytes = Bytes == 4 || Bytes == 8 || Bytes == 16;

#if defined(__CUDACC__)

namespace detail {
// The synchronous twin of a cp.async: the same bytes land in shared memory before it returns.
template <int Bytes>
TILECRAFT_DEVICE void copy_sync(void* dst, const void* src) {
  using Word = vector_word_t<Bytes>;
  *static_cast<Word*>(dst) = *static_cast<const Word*>(src);
}
template <int Bytes>
TILECRAFT_DEVICE void zero_sync(void* dst) {
  using Word = vector_word_t<Bytes>;
  *static_cast<Word*>(dst) = Word{};
}
template <int Bytes>
TILECRAFT_DEVICE void check_async_copy_args([[maybe_unused]] const void* dst, [[maybe_unused]] const void* src) {
  TILECRAFT_ASSERT(__isShared(dst) && "copy_async: dst must point into shared memory");
  TILECRAFT_ASSERT(__isGlobal(src) && "copy_async: src must point into global memory");
  TILECRAFT_ASSERT((reinterpret_cast<std::uintptr_t>(dst) % Bytes) == 0 && "copy_async: dst must be Bytes-aligned");
  TILECRAFT_ASSERT((reinterpret_cast<std::uintptr_t>(src) % Bytes) == 0 && "copy_async: src must be Bytes-aligned");
}
}  // namespace detail

//! Starts copying Bytes (4, 8 or 16) from global `src` to shared `dst`; both aligned to Bytes.
//! The bytes are in shared memory once a later copy_async_wait covers this copy's group.
//! 16-byte copies bypass L1 (cp.async.cg: a tile is read once per block), smaller ones go
//! through it (cp.async.ca; .cg has no smaller size). Per thread: no barrier, no shared
//! memory of its own; other threads see the bytes only after the wait and a barrier
//! (copy_async_wait_block does both).
//! \code
//! __shared__ __align__(16) float staged[256 * 4];    // in: 16-byte aligned global floats
//! tilecraft::copy_async<16>(staged + 4 * threadIdx.x, in + 4 * threadIdx.x);
//! tilecraft::copy_async_commit();
//! tilecraft::copy_async_wait_block<0>();  // every thread's copies landed, the block may read
//! \endcode
template <int Bytes>
TILECRAFT_DEVICE void copy_async(void* dst, const void* src) {
  static_assert(AsyncCopyBytes<Bytes>, "copy_async<Bytes>: an asynchronous copy moves 4, 8 or 16 bytes");
  detail::check_async_copy_args<Bytes>(dst, src);
  if constexpr (!AsyncCopyBytes<Bytes>) {
    return;  // the static_assert above has said why
  } else if constexpr (cp_async_disabled) {
    detail::copy_sync<Bytes>(dst, src);
  } else {
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                      (
                          if constexpr (Bytes == 16) { arch::cp_async_cg<16>(dst, src); } else {
                            arch::cp_async_ca<Bytes>(dst, src);
                          }),
                      (detail::copy_sync<Bytes>(dst, src);))
  }
}

//! copy_async with the destination as a shared-window address (arch::smem_address() of a
//! shared object, plus byte offsets): for mainloops that keep their stage addresses in 32-bit
//! registers and advance them by constants. The same semantics and paths as the pointer form.
template <int Bytes>
TILECRAFT_DEVICE void copy_async(std::uint32_t dst, const void* src) {
  static_assert(AsyncCopyBytes<Bytes>, "copy_async<Bytes>: an asynchronous copy moves 4, 8 or 16 bytes");
  detail::check_async_copy_args<Bytes>(__cvta_shared_to_generic(dst), src);
  if constexpr (!AsyncCopyBytes<Bytes>) {
    return;  // the static_assert above has said why
  } else if constexpr (cp_async_disabled) {
    detail::copy_sync<Bytes>(__cvta_shared_to_generic(dst), src);
  } else {
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                      (
                          if constexpr (Bytes == 16) { arch::cp_async_cg<16>(dst, src); } else {
                            arch::cp_async_ca<Bytes>(dst, src);
                          }),
                      (detail::copy_sync<Bytes>(__cvta_shared_to_generic(dst), src);))
  }
}

//! Predicated, zero-filling form: copies Bytes from `src` when `inside`, else writes Bytes of
//! zeros to `dst` and reads nothing (src is then not dereferenced; pass a valid global address
//! all the same, e.g. the start of the matrix). This is how a tile's elements past the matrix
//! edge become zeros without a branch around the copy.
template <int Bytes>
TILECRAFT_DEVICE void copy_async(void* dst, const void* src, bool inside) {
  static_assert(AsyncCopyBytes<Bytes>, "copy_async<Bytes>: an asynchronous copy moves 4, 8 or 16 bytes");
  TILECRAFT_ASSERT(__isShared(dst) && "copy_async: dst must point into shared memory");
  TILECRAFT_ASSERT((reinterpret_cast<std::uintptr_t>(dst) % Bytes) == 0 && "copy_async: dst must be Bytes-aligned");
  TILECRAFT_ASSERT((!inside || (__isGlobal(src) && reinterpret_cast<std::uintptr_t>(src) % Bytes == 0)) &&
                   "copy_async: a copied src must be Bytes-aligned global memory");
  if constexpr (!AsyncCopyBytes<Bytes>) {
    return;  // the static_assert above has said why
  } else if constexpr (cp_async_disabled) {
    if (inside) {
      detail::copy_sync<Bytes>(dst, src);
    } else {
      detail::zero_sync<Bytes>(dst);
    }
  } else {
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                      (
                          const std::uint32_t n = inside ? Bytes : 0u; if constexpr (Bytes == 16) {
                            arch::cp_async_cg_zfill<16>(dst, src, n);
                          } else { arch::cp_async_ca_zfill<Bytes>(dst, src, n); }),
                      (
                          if (inside) { detail::copy_sync<Bytes>(dst, src); } else { detail::zero_sync<Bytes>(dst); }))
  }
}

//! The predicated, zero-filling form with the destination as a shared-window address (see
//! the address form above).
template <int Bytes>
TILECRAFT_DEVICE void copy_async(std::uint32_t dst, const void* src, bool inside) {
  static_assert(AsyncCopyBytes<Bytes>, "copy_async<Bytes>: an asynchronous copy moves 4, 8 or 16 bytes");
  TILECRAFT_ASSERT(dst % Bytes == 0 && "copy_async: dst must be Bytes-aligned");
  TILECRAFT_ASSERT((!inside || (__isGlobal(src) && reinterpret_cast<std::uintptr_t>(src) % Bytes == 0)) &&
                   "copy_async: a copied src must be Bytes-aligned global memory");
  if constexpr (!AsyncCopyBytes<Bytes>) {
    return;  // the static_assert above has said why
  } else if constexpr (cp_async_disabled) {
    copy_async<Bytes>(__cvta_shared_to_generic(dst), src, inside);
  } else {
    NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                      (
                          const std::uint32_t n = inside ? Bytes : 0u; if constexpr (Bytes == 16) {
                            arch::cp_async_cg_zfill<16>(dst, src, n);
                          } else { arch::cp_async_ca_zfill<Bytes>(dst, src, n); }),
                      (copy_async<Bytes>(__cvta_shared_to_generic(dst), src, inside);))
  }
}

//! Closes the calling thread's group of copies issued since its last commit (every thread
//! that issued copies commits; committing an empty group is allowed and keeps counts uniform).
TILECRAFT_DEVICE void copy_async_commit() {
  if constexpr (!cp_async_disabled) {
    NV_IF_TARGET(NV_PROVIDES_SM_80, (arch::cp_async_commit();))
  }
}

//! Blocks until at most N of the calling thread's committed groups are still in flight: every
//! older group's bytes are in shared memory. No barrier: other threads' copies are not covered.
template <int N>
TILECRAFT_DEVICE void copy_async_wait() {
  static_assert(N >= 0, "copy_async_wait<N>: N (groups left in flight) must be >= 0");
  if constexpr (!cp_async_disabled) {
    NV_IF_TARGET(NV_PROVIDES_SM_80, (arch::cp_async_wait<N>();))
  }
}

//! copy_async_wait<N>() then `__syncthreads()`: afterwards every thread of the block may read
//! what any thread's older groups copied. Every thread of the block must call it.
template <int N>
TILECRAFT_DEVICE void copy_async_wait_block() {
  copy_async_wait<N>();
  __syncthreads();
}

//! Blocks until every copy the calling thread issued has landed, committed or not. No barrier.
TILECRAFT_DEVICE void copy_async_wait_all() {
  if constexpr (!cp_async_disabled) {
    NV_IF_TARGET(NV_PROVIDES_SM_80, (arch::cp_async_wait_all();))
  }
}

#endif  // __CUDACC__

}  // namespace tilecraft
