//! \file arch/wgmma.cuh
//! Raw PTX wrappers: Hopper's warpgroup-wide tensor-core product `wgmma.mma_async` on BF16 and
//! FP16 operands with FP32 accumulators (sm_90a only), its fences, and the shared-memory matrix
//! descriptor it reads its operands through.
//!
//! A warpgroup is 4 consecutive warps (128 threads, the first warp's index a multiple of 4).
//! `wgmma.mma_async.m64nNk16` computes D (64 x N) += A (64 x 16) B (16 x N) with A and B in
//! shared memory, each named by a 64-bit descriptor (wgmma_descriptor). It is asynchronous: the
//! instruction returns at once, the accumulator registers and the operands' shared memory stay
//! in use until a later wgmma_wait<...>() says the group that holds it is complete. Order:
//! wgmma_fence() (before the first product that touches accumulators written by ordinary
//! instructions), products, wgmma_commit(), wgmma_wait<Pending>().
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
//! wgmma_available() says whether the code being compiled has them. Elsewhere each wrapper
//! traps: callers select another path with `if constexpr`/NV_IF_TARGET on wgmma_available().
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
//! the tiles tilecraft builds).
template <int N>
inline constexpr bool valid_wgmma_n = N == 64 || N == 128 || N == 256;

//! The operand types wgmma_async takes.
template <class T>
inline constexpr bool valid_wgmma_type = std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>;

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

//! The 64-bit shared-memory matrix descriptor of an operand at `smem` (16-byte aligned; with a
//! swizzle, the start of the swizzle pattern's 1024-byte block plus an offset along the row).
//! `leading_bytes` and `stride_bytes` (multiples of 16, below 2^18) are PTX's leading- and
//! stride-dimension byte offsets: for a K-major operand with a 128-byte swizzle, stride_bytes
//! = 1024 (8 rows of 128 bytes) and leading_bytes is unused; for an M- or N-major operand with
//! a 128-byte swizzle, leading_bytes is the distance between blocks of 64 (16-bit) elements
//! along M or N and stride_bytes the distance between groups of 8 rows along K.
TILECRAFT_DEVICE std::uint64_t wgmma_descriptor(const void* smem, std::uint32_t leading_bytes,
                                                std::uint32_t stride_bytes, WgmmaSwizzle swizzle) {
  const std::uint32_t address = smem_address(smem);
  return std::uint64_t{(address & 0x3ffffu) >> 4} | (std::uint64_t{(leading_bytes >> 4) & 0x3fffu} << 16) |
         (std::uint64_t{(stride_bytes >> 4) & 0x3fffu} << 32) |
         (std::uint64_t{static_cast<std::uint32_t>(swizzle)} << 62);
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

//! fence.proxy.async.shared::cta: this thread's earlier shared-memory writes become visible to
//! the async proxy (wgmma, TMA) once a barrier follows. sm_90 and newer; a no-op below.
TILECRAFT_DEVICE void fence_proxy_async_shared() {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");))
}

//! d (64 x N floats over the warpgroup) += A (64 x 16) B (16 x N) when `accumulate` is nonzero,
//! d = A B otherwise; A and B of type T in shared memory through their descriptors. TransA:
//! A is M-major (M contiguous), else K-major; TransB: B is N-major (N contiguous), else K-major.
//! Asynchronous: see the file comment. Every thread of the warpgroup executes it.
template <int N, class T, bool TransA, bool TransB>
TILECRAFT_DEVICE void wgmma_async(float (&d)[static_cast<std::size_t>(N / 2)], std::uint64_t desc_a,
                                  std::uint64_t desc_b, std::uint32_t accumulate) {
  static_assert(valid_wgmma_n<N>, "wgmma_async<N, ...>: N must be 64, 128 or 256");
  static_assert(valid_wgmma_type<T>, "wgmma_async<N, T, ...>: T must be __nv_bfloat16 or __half");
  NV_IF_ELSE_TARGET(
      NV_HAS_FEATURE_SM_90a,
      (
          if constexpr (N == 64 && std::is_same_v<T, __nv_bfloat16>) {
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
                "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
                "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p, 1, 1, %35, %36;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                  "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                  "+f"(d[30]), "+f"(d[31])
                : "l"(desc_a), "l"(desc_b), "r"(accumulate), "n"(TransA ? 1 : 0), "n"(TransB ? 1 : 0));
          } else if constexpr (N == 64 && std::is_same_v<T, __half>) {
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
                "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
                "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p, 1, 1, %35, %36;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                  "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                  "+f"(d[30]), "+f"(d[31])
                : "l"(desc_a), "l"(desc_b), "r"(accumulate), "n"(TransA ? 1 : 0), "n"(TransB ? 1 : 0));
          } else if constexpr (N == 128 && std::is_same_v<T, __nv_bfloat16>) {
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
                "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
                "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
                "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p, 1, 1, %67, %68;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                  "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                  "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                  "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
                  "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
                  "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                : "l"(desc_a), "l"(desc_b), "r"(accumulate), "n"(TransA ? 1 : 0), "n"(TransB ? 1 : 0));
          } else if constexpr (N == 128 && std::is_same_v<T, __half>) {
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
                "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
                "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
                "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
                "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p, 1, 1, %67, %68;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                  "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                  "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                  "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
                  "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
                  "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                : "l"(desc_a), "l"(desc_b), "r"(accumulate), "n"(TransA ? 1 : 0), "n"(TransB ? 1 : 0));
          } else if constexpr (N == 256 && std::is_same_v<T, __nv_bfloat16>) {
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
                "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
                "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
                "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
                "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
                "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
                "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
                "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,"
                "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
                "}, %128, %129, p, 1, 1, %131, %132;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                  "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                  "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                  "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
                  "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
                  "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
                  "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]),
                  "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),
                  "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]),
                  "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]),
                  "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]),
                  "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),
                  "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                : "l"(desc_a), "l"(desc_b), "r"(accumulate), "n"(TransA ? 1 : 0), "n"(TransB ? 1 : 0));
          } else if constexpr (N == 256 && std::is_same_v<T, __half>) {
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
                "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
                "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
                "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
                "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
                "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
                "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
                "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,"
                "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
                "}, %128, %129, p, 1, 1, %131, %132;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
                  "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                  "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                  "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
                  "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
                  "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
                  "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]),
                  "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),
                  "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]),
                  "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]),
                  "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]),
                  "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),
                  "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                : "l"(desc_a), "l"(desc_b), "r"(accumulate), "n"(TransA ? 1 : 0), "n"(TransB ? 1 : 0));
          }),
      ((void)d; (void)desc_a; (void)desc_b; (void)accumulate; __trap();))
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
