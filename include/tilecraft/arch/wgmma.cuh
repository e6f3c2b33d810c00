//! \file arch/wgmma.cuh
//! Raw PTX wrappers: Hopper's warpgroup-wide tensor-core product `wgmma.mma_async` on BF16,
//! FP16 and TF32 operands with FP32 accumulators (sm_90a only), its fences, and the shared-memory
//! matrix descriptor it reads its operands through.
//!
//! A warpgroup is 4 consecutive warps (128 threads, the first warp's index a multiple of 4).
//! `wgmma.mma_async.m64nNk16` (k8 for TF32) computes D (64 x N) += A (64 x 16) B (16 x N) with A
//! and B in shared memory, each named by a 64-bit descriptor (wgmma_descriptor). It is
//! asynchronous: the instruction returns at once, the accumulator registers and the operands'
//! shared memory stay in use until a later wgmma_wait<...>() says the group that holds it is
//! complete. Order: wgmma_fence() (before a warpgroup's first product, and after any ordinary
//! write to registers a product reads: its accumulators, or the A fragment of the
//! register-A form), products, wgmma_commit(), wgmma_wait<Pending>().
//!
//! Accumulator layout (N / 2 floats a thread): warp w of the warpgroup holds rows 16 w ... 16 w
//! + 15; with g = lane / 4 and t = lane % 4, d[4 j + 0 .. 3] are (16 w + g, 8 j + 2 t),
//! (16 w + g, 8 j + 2 t + 1), (16 w + g + 8, 8 j + 2 t), (16 w + g + 8, 8 j + 2 t + 1) for
//! j = 0 ... N / 8 - 1: mma.sync's m16n8 C fragment, repeated along N.
//!
//! Shared memory written by ordinary stores or `cp.async` (the generic proxy) must be made
//! visible to the tensor cores (the async proxy) before a product reads it:
//! fence_proxy_async_shared() in every writing thread after its writes have landed, then a
//! barrier.
//!
//! These instructions exist only in sm_90a code (`-gencode arch=compute_90a,code=sm_90a`);
//! wgmma_compiled() says whether the code being compiled has them. Elsewhere each wrapper
//! traps: callers select another path with NV_IF_TARGET(NV_HAS_FEATURE_SM_90a, ...).
//!
//! One warpgroup's product of two tiles staged by plain stores (test_tma runs its like, on BF16 and TF32 tiles):
//! \code
//! // D (64 x 64 floats) = A B for BF16 A and B, both K-major: row r of `a` is A's row r, row n of
//! // `b` is B's column n, 64 K values (128 bytes) each. The tiles go to shared memory in the
//! // 128-byte swizzle (16-byte chunk c of row r at chunk c ^ (r % 8)); K-major operands in it
//! // have 8-row groups 1024 bytes apart, and each product of 16 K values starts 32 bytes further.
//! // sm_90a code only: elsewhere the wrappers trap (select with NV_IF_TARGET(NV_HAS_FEATURE_SM_90a, ...)).
//! __global__ void __launch_bounds__(128) warpgroup_product(const __nv_bfloat16* a, const __nv_bfloat16* b, float* d) {
//!   __shared__ alignas(1024) __nv_bfloat16 sa[64 * 64], sb[64 * 64];
//!   for (int v = threadIdx.x; v < 64 * 8; v += 128) {
//!     const int r = v / 8, c = v % 8;
//!     reinterpret_cast<uint4*>(sa + r * 64)[c ^ (r % 8)] = reinterpret_cast<const uint4*>(a + r * 64)[c];
//!     reinterpret_cast<uint4*>(sb + r * 64)[c ^ (r % 8)] = reinterpret_cast<const uint4*>(b + r * 64)[c];
//!   }
//!   tilecraft::arch::fence_proxy_async_shared();  // the stores, visible to the tensor cores
//!   __syncthreads();
//!   using tilecraft::arch::WgmmaSwizzle;
//!   float acc[32] = {};
//!   tilecraft::arch::wgmma_fence();
//!   tilecraft::arch::wgmma_fence_operand(acc);  // no accumulator moved between issue and wait
//!   for (int kk = 0; kk < 4; ++kk) {
//!     const std::uint64_t da = tilecraft::arch::wgmma_descriptor(sa + 16 * kk, 16, 1024, WgmmaSwizzle::b128);
//!     const std::uint64_t db = tilecraft::arch::wgmma_descriptor(sb + 16 * kk, 16, 1024, WgmmaSwizzle::b128);
//!     tilecraft::arch::wgmma_async<64, __nv_bfloat16, false, false>(acc, da, db, kk > 0 ? 1u : 0u);
//!   }
//!   tilecraft::arch::wgmma_commit();
//!   tilecraft::arch::wgmma_wait<0>();
//!   tilecraft::arch::wgmma_fence_operand(acc);
//!   const int w = threadIdx.x / 32, g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
//!   for (int j = 0; j < 8; ++j) {  // the accumulator layout above
//!     float* at = d + (16 * w + g) * 64 + 8 * j + 2 * t;
//!     at[0] = acc[4 * j];
//!     at[1] = acc[4 * j + 1];
//!     at[8 * 64] = acc[4 * j + 2];
//!     at[8 * 64 + 1] = acc[4 * j + 3];
//!   }
//! }
//! \endcode
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <nv/target>

#include "../config.cuh"
#include "smem_address.cuh"

namespace tilecraft::arch {

//! The shared-memory layouts a descriptor names (its bits 62 and 63): a 128-byte swizzle
//! repeats every 8 rows of 128 bytes (1024 bytes, which must be 1024-byte aligned), and the
//! 16-byte chunk c of row r lies at chunk c ^ (r % 8) of that row.
enum class WgmmaSwizzle : std::uint32_t { none = 0, b128 = 1, b64 = 2, b32 = 3 };

//! The N extents this header wraps (wgmma has every multiple of 8 up to 256; these suffice for
//! the tiles tilecraft builds): 64, 128, 192 and 256 for every type, 144 and 168 for 16-bit
//! operands.
template <int N>
inline constexpr bool valid_wgmma_n = N == 64 || N == 128 || N == 144 || N == 168 || N == 192 || N == 256;

//! The operand types wgmma_async takes.
template <class T>
inline constexpr bool valid_wgmma_type =
    std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half> || std::is_same_v<T, float>;

#if defined(__CUDACC__)

//! True in device code compiled for sm_90a (where wgmma exists), false elsewhere (host code
//! included).
TILECRAFT_HOST_DEVICE constexpr bool wgmma_compiled() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  return true;
#else
  return false;
#endif
}

//! The low half of wgmma_descriptor(address, leading_bytes, ...): the address (bits 0-13, in
//! 16-byte units) and the leading-dimension offset. A block's shared-window addresses stay below
//! 2^18, so the low half of the operand `bytes` further on (a multiple of 16, inside the window)
//! is this one plus bytes / 16: one 32-bit add where a kernel steps through its stages.
TILECRAFT_DEVICE std::uint32_t wgmma_descriptor_low(std::uint32_t address, std::uint32_t leading_bytes) {
  return ((address & 0x3ffffu) >> 4) | (((leading_bytes >> 4) & 0x3fffu) << 16);
}

//! The high half of wgmma_descriptor(..., stride_bytes, swizzle): the stride-dimension offset and
//! the swizzle, a constant of the layout.
TILECRAFT_HOST_DEVICE constexpr std::uint32_t wgmma_descriptor_high(std::uint32_t stride_bytes, WgmmaSwizzle swizzle) {
  return ((stride_bytes >> 4) & 0x3fffu) | (static_cast<std::uint32_t>(swizzle) << 30);
}

//! The 64-bit shared-memory matrix descriptor of an operand at shared-window address `address`
//! (arch::smem_address; 16-byte aligned; with a swizzle, the start of the swizzle pattern's
//! 1024-byte block plus an offset along the row). `leading_bytes` and `stride_bytes` (multiples
//! of 16, below 2^18) are PTX's leading- and stride-dimension byte offsets: for a K-major operand
//! with a 128-byte swizzle, stride_bytes = 1024 (8 rows of 128 bytes) and leading_bytes is
//! unused; for an M- or N-major operand with a 128-byte swizzle, leading_bytes is the distance
//! between blocks of 64 (16-bit) elements along M or N and stride_bytes the distance between
//! groups of 8 rows along K.
TILECRAFT_DEVICE std::uint64_t wgmma_descriptor(std::uint32_t address, std::uint32_t leading_bytes,
                                                std::uint32_t stride_bytes, WgmmaSwizzle swizzle) {
  return (std::uint64_t{wgmma_descriptor_high(stride_bytes, swizzle)} << 32) |
         wgmma_descriptor_low(address, leading_bytes);
}

//! The same for the operand at `smem` (a pointer into shared memory).
TILECRAFT_DEVICE std::uint64_t wgmma_descriptor(const void* smem, std::uint32_t leading_bytes,
                                                std::uint32_t stride_bytes, WgmmaSwizzle swizzle) {
  return wgmma_descriptor(smem_address(smem), leading_bytes, stride_bytes, swizzle);
}

//! wgmma.fence.sync.aligned: orders this warp's earlier register writes to accumulators before
//! the products that follow (every thread of the warpgroup executes it).
TILECRAFT_DEVICE void wgmma_fence() {
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a, (asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");), (__trap();))
}

//! wgmma.commit_group.sync.aligned: the products issued since the last commit form one group.
TILECRAFT_DEVICE void wgmma_commit() {
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a,
                    (asm volatile("wgmma.commit_group.sync.aligned;\n" ::
                                      : "memory");),
                    (__trap();))
}

//! wgmma.wait_group.sync.aligned Pending: returns once at most `Pending` of this warpgroup's
//! committed groups are still running; the accumulators and operands of the others are free.
template <int Pending>
TILECRAFT_DEVICE void wgmma_wait() {
  static_assert(Pending >= 0 && Pending <= 7, "wgmma_wait<Pending>: Pending must be 0 ... 7");
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a,
                    (asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending)
                                  : "memory");),
                    (__trap();))
}

//! Pins the accumulator registers `d` in place (an empty asm that reads and writes each): called
//! around a batch of products so the compiler moves no accumulator between their issue and
//! their wait (such a move makes ptxas serialize the products: warning C7515).
template <std::size_t Size>
TILECRAFT_DEVICE void wgmma_fence_operand(float (&d)[Size]) {
#pragma unroll
  for (std::size_t i = 0; i < Size; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

//! Lowers the registers each thread of the calling warpgroup may hold to Regs (a multiple of 8,
//! 24 ... 256; `setmaxnreg.dec`, sm_90a): a warp-specialized kernel's producer warpgroup gives
//! them back to the block's pool for warpgroup_reg_alloc. Every warp of the warpgroup executes
//! it, converged.
template <int Regs>
TILECRAFT_DEVICE void warpgroup_reg_dealloc() {
  static_assert(Regs % 8 == 0 && Regs >= 24 && Regs <= 256, "setmaxnreg: Regs must be a multiple of 8 in 24 ... 256");
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a, (asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs));),
                    (__trap();))
}

//! Raises the registers each thread of the calling warpgroup may hold to Regs (`setmaxnreg.inc`,
//! sm_90a; waits until the block's pool has them): the computing warpgroups of a warp-specialized
//! kernel take what the producer gave back. Every warp of the warpgroup executes it, converged.
template <int Regs>
TILECRAFT_DEVICE void warpgroup_reg_alloc() {
  static_assert(Regs % 8 == 0 && Regs >= 24 && Regs <= 256, "setmaxnreg: Regs must be a multiple of 8 in 24 ... 256");
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a, (asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));),
                    (__trap();))
}

//! fence.proxy.async.shared::cta: this thread's earlier shared-memory writes become visible to
//! the async proxy (wgmma, TMA) once a barrier follows. sm_90 and newer; a no-op below.
TILECRAFT_DEVICE void fence_proxy_async_shared() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");))
}

//! \cond TILECRAFT_INTERNAL
// The accumulator operands of a wgmma: "+f" constraints on d[0 ... 8 * Count - 1], and the
// register lists of its asm (internal: undefined at the end of this header).
#define TILECRAFT_WGMMA_ACC8(o)                                                                               \
  "+f"(d[o]), "+f"(d[o + 1]), "+f"(d[o + 2]), "+f"(d[o + 3]), "+f"(d[o + 4]), "+f"(d[o + 5]), "+f"(d[o + 6]), \
      "+f"(d[o + 7])
#define TILECRAFT_WGMMA_ACC32(o) \
  TILECRAFT_WGMMA_ACC8(o), TILECRAFT_WGMMA_ACC8(o + 8), TILECRAFT_WGMMA_ACC8(o + 16), TILECRAFT_WGMMA_ACC8(o + 24)
#define TILECRAFT_WGMMA_ACC64 TILECRAFT_WGMMA_ACC32(0), TILECRAFT_WGMMA_ACC32(32)
#define TILECRAFT_WGMMA_ACC96 TILECRAFT_WGMMA_ACC32(0), TILECRAFT_WGMMA_ACC32(32), TILECRAFT_WGMMA_ACC32(64)
#define TILECRAFT_WGMMA_ACC128 \
  TILECRAFT_WGMMA_ACC32(0), TILECRAFT_WGMMA_ACC32(32), TILECRAFT_WGMMA_ACC32(64), TILECRAFT_WGMMA_ACC32(96)

#define TILECRAFT_WGMMA_REGS32                                                     \
  "{"                                                                              \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "         \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}"
#define TILECRAFT_WGMMA_REGS64                                                       \
  "{"                                                                                \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"   \
  "}"
#define TILECRAFT_WGMMA_REGS96                                                       \
  "{"                                                                                \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"   \
  "}"
#define TILECRAFT_WGMMA_REGS128                                                                    \
  "{"                                                                                              \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                         \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "               \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "               \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "               \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "               \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "               \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "   \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}"
#define TILECRAFT_WGMMA_ACC72 TILECRAFT_WGMMA_ACC64, TILECRAFT_WGMMA_ACC8(64)
#define TILECRAFT_WGMMA_ACC84                                                                                       \
  TILECRAFT_WGMMA_ACC64, TILECRAFT_WGMMA_ACC8(64), TILECRAFT_WGMMA_ACC8(72), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), \
      "+f"(d[83])
#define TILECRAFT_WGMMA_REGS72                                                       \
  "{"                                                                                \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71"                                           \
  "}"
#define TILECRAFT_WGMMA_REGS84                                                       \
  "{"                                                                                \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "           \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83"                                                               \
  "}"
// The asm of one wgmma_async on T (the enclosing function's type: BF16 or FP16 with transpose
// immediates, or TF32, m64nNk8): N, its register list and "+f" constraints, then the operand
// numbers of desc_a, desc_b, the accumulate flag and the transposes, as string literals. (The
// constraint list expands to many arguments, so it cannot pass through another macro, and an
// instruction's type cannot be an operand: the three forms stand written out here once.)
#define TILECRAFT_WGMMA_SS(N, REGS, ACC, A, B, P, TA, TB)                                                          \
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {                                                                \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" P                                                            \
                 ", 0;\n"                                                                                          \
                 "wgmma.mma_async.sync.aligned.m64n" N "k16.f32.bf16.bf16 " REGS ", %" A ", %" B ", p, 1, 1, %" TA \
                 ", %" TB ";\n}\n"                                                                                 \
                 : ACC                                                                                             \
                 : "l"(desc_a), "l"(desc_b), "r"(accumulate), "n"(ta), "n"(tb));                                   \
  } else if constexpr (std::is_same_v<T, __half>) {                                                                \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" P                                                            \
                 ", 0;\n"                                                                                          \
                 "wgmma.mma_async.sync.aligned.m64n" N "k16.f32.f16.f16 " REGS ", %" A ", %" B ", p, 1, 1, %" TA   \
                 ", %" TB ";\n}\n"                                                                                 \
                 : ACC                                                                                             \
                 : "l"(desc_a), "l"(desc_b), "r"(accumulate), "n"(ta), "n"(tb));                                   \
  } else {                                                                                                         \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" P                                                            \
                 ", 0;\n"                                                                                          \
                 "wgmma.mma_async.sync.aligned.m64n" N "k8.f32.tf32.tf32 " REGS ", %" A ", %" B ", p, 1, 1;\n}\n"  \
                 : ACC                                                                                             \
                 : "l"(desc_a), "l"(desc_b), "r"(accumulate));                                                     \
  }
//! \endcond

//! d (64 x N floats over the warpgroup) += A (64 x K) B (K x N) when `accumulate` is nonzero,
//! d = A B otherwise, with K = 32 bytes of T: 16 for __nv_bfloat16 / __half, 8 for float (TF32:
//! the tensor cores read the top 19 bits of each float, its low 13 mantissa bits are ignored,
//! i.e. the operands are truncated to TF32; round them first for round-to-nearest). A and B in
//! shared memory through their descriptors. TransA: A is M-major (M contiguous), else K-major;
//! TransB: B is N-major (N contiguous), else K-major; TF32 operands are K-major only.
//! Asynchronous: see the file comment. Every thread of the warpgroup executes it.
template <int N, class T, bool TransA, bool TransB>
TILECRAFT_DEVICE void wgmma_async(float (&d)[static_cast<std::size_t>(N / 2)], std::uint64_t desc_a,
                                  std::uint64_t desc_b, std::uint32_t accumulate) {
  static_assert(valid_wgmma_n<N>, "wgmma_async<N, ...>: N must be 64, 128, 144, 168, 192 or 256");
  static_assert(valid_wgmma_type<T>, "wgmma_async<N, T, ...>: T must be __nv_bfloat16, __half or float (TF32)");
  static_assert(!std::is_same_v<T, float> || N % 64 == 0,
                "wgmma_async<N, float, ...>: TF32 takes N = 64, 128, 192 or 256");
  static_assert(!std::is_same_v<T, float> || (!TransA && !TransB),
                "wgmma_async<N, float, TransA, TransB>: TF32 operands must be K-major (TransA = TransB = false)");
  constexpr int ta = TransA ? 1 : 0, tb = TransB ? 1 : 0;
  (void)ta;  // (the TF32 forms have no transpose operands)
  (void)tb;
  NV_IF_ELSE_TARGET(
      NV_HAS_FEATURE_SM_90a,
      (
          if constexpr (N == 64) {
            TILECRAFT_WGMMA_SS("64", TILECRAFT_WGMMA_REGS32, TILECRAFT_WGMMA_ACC32(0), "32", "33", "34", "35", "36");
          } else if constexpr (N == 128) {
            TILECRAFT_WGMMA_SS("128", TILECRAFT_WGMMA_REGS64, TILECRAFT_WGMMA_ACC64, "64", "65", "66", "67", "68");
          } else if constexpr (N == 144) {
            TILECRAFT_WGMMA_SS("144", TILECRAFT_WGMMA_REGS72, TILECRAFT_WGMMA_ACC72, "72", "73", "74", "75", "76");
          } else if constexpr (N == 168) {
            TILECRAFT_WGMMA_SS("168", TILECRAFT_WGMMA_REGS84, TILECRAFT_WGMMA_ACC84, "84", "85", "86", "87", "88");
          } else if constexpr (N == 192) {
            TILECRAFT_WGMMA_SS("192", TILECRAFT_WGMMA_REGS96, TILECRAFT_WGMMA_ACC96, "96", "97", "98", "99", "100");
          } else if constexpr (N == 256) {
            TILECRAFT_WGMMA_SS("256", TILECRAFT_WGMMA_REGS128, TILECRAFT_WGMMA_ACC128, "128", "129", "130", "131",
                               "132");
          }),
      ((void)d; (void)desc_a; (void)desc_b; (void)accumulate; __trap();))
}

//! d (64 x N floats over the warpgroup) += A (64 x 8) B (8 x N) in TF32, A from registers: `a`
//! holds the calling thread's 4 elements of A (as float bit patterns; the tensor cores read
//! their top 19 bits), in the fragment layout of mma.sync's m16n8k8 TF32 A within each warp's
//! 16 rows: thread t of the warpgroup holds rows 16 (t / 32) + (t % 32) / 4 (a[0], a[2]) and + 8
//! (a[1], a[3]), K indices t % 4 (a[0], a[1]) and + 4 (a[2], a[3]). B K-major in shared memory
//! through its descriptor. Asynchronous: a[0 ... 3] must not change until the product is complete
//! (wgmma_wait), like the accumulators, and a wgmma_fence() must come between the last write
//! to a[] (or d) and the product. Every thread of the warpgroup executes it.
template <int N>
TILECRAFT_DEVICE void wgmma_async_tf32_rs(float (&d)[static_cast<std::size_t>(N / 2)], const float* a,
                                          std::uint64_t desc_b, std::uint32_t accumulate) {
  static_assert(valid_wgmma_n<N> && N % 64 == 0, "wgmma_async_tf32_rs<N>: N must be 64, 128, 192 or 256");
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a,
                    (
                        if constexpr (N == 64) {
                          asm volatile(
                              "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                              "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 " TILECRAFT_WGMMA_REGS32
                              ", {%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
                              : TILECRAFT_WGMMA_ACC32(0)
                              : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])),
                                "r"(__float_as_uint(a[3])), "l"(desc_b), "r"(accumulate));
                        } else if constexpr (N == 128) {
                          asm volatile(
                              "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                              "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " TILECRAFT_WGMMA_REGS64
                              ", {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
                              : TILECRAFT_WGMMA_ACC64
                              : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])),
                                "r"(__float_as_uint(a[3])), "l"(desc_b), "r"(accumulate));
                        } else if constexpr (N == 192) {
                          asm volatile(
                              "{\n.reg .pred p;\nsetp.ne.b32 p, %101, 0;\n"
                              "wgmma.mma_async.sync.aligned.m64n192k8.f32.tf32.tf32 " TILECRAFT_WGMMA_REGS96
                              ", {%96, %97, %98, %99}, %100, p, 1, 1;\n}\n"
                              : TILECRAFT_WGMMA_ACC96
                              : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])),
                                "r"(__float_as_uint(a[3])), "l"(desc_b), "r"(accumulate));
                        } else {
                          asm volatile(
                              "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
                              "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " TILECRAFT_WGMMA_REGS128
                              ", {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
                              : TILECRAFT_WGMMA_ACC128
                              : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])),
                                "r"(__float_as_uint(a[3])), "l"(desc_b), "r"(accumulate));
                        }),
                    ((void)d; (void)a; (void)desc_b; (void)accumulate; __trap();))
}

#undef TILECRAFT_WGMMA_SS
#undef TILECRAFT_WGMMA_ACC8
#undef TILECRAFT_WGMMA_ACC32
#undef TILECRAFT_WGMMA_ACC64
#undef TILECRAFT_WGMMA_ACC72
#undef TILECRAFT_WGMMA_ACC84
#undef TILECRAFT_WGMMA_ACC96
#undef TILECRAFT_WGMMA_ACC128
#undef TILECRAFT_WGMMA_REGS32
#undef TILECRAFT_WGMMA_REGS64
#undef TILECRAFT_WGMMA_REGS72
#undef TILECRAFT_WGMMA_REGS84
#undef TILECRAFT_WGMMA_REGS96
#undef TILECRAFT_WGMMA_REGS128

#endif  // __CUDACC__

}  // namespace tilecraft::arch
