//! \file arch/mma.cuh
//! Raw PTX wrappers: the warp-wide tensor-core product `mma.sync` with FP32 accumulators
//! (m16n8k8 on TF32, m16n8k16 on FP16 and BF16, sm_80 and newer; m16n8k8 on FP16, sm_75), and
//! `cvt.rna.tf32.f32`.
//!
//! D (16 x 8) = A (16 x K) B (K x 8) + C, A row-major and B column-major in the registers of a
//! whole warp (`.sync.aligned`: every lane executes it). With g = lane / 4 and t = lane % 4,
//! lane i holds:
//!   - C and D (4 floats): (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1);
//!   - m16n8k8 TF32: A (4 registers of one TF32 each): (g, t), (g + 8, t), (g, t + 4),
//!     (g + 8, t + 4); B (2): (k = t, n = g), (k = t + 4, n = g);
//!   - m16n8k16 FP16 / BF16: A (4 registers of two 16-bit elements, the lower column in the
//!     low half): (g, 2t .. 2t + 1), (g + 8, 2t .. 2t + 1), (g, 2t + 8 .. 2t + 9),
//!     (g + 8, 2t + 8 .. 2t + 9); B (2): (k = 2t .. 2t + 1, n = g), (k = 2t + 8 .. 2t + 9, n = g).
//! arch/ldmatrix.cuh loads exactly these fragments from shared memory.
//!
//! Below sm_80 the same functions compute the same product with FP32 FMAs, each lane gathering
//! the operands it needs with warp shuffles (slow, and summed in another order than the tensor
//! cores do: equal within the FP32 rounding of a K-term sum, not bit for bit), but for FP16 on
//! sm_75, whose tensor cores take m16n8k8: two of those make the m16n8k16 product. TF32 operands
//! are FP32 bit patterns whose 13 low mantissa bits are zero (to_tf32), so the fallback reads
//! them as floats.
#pragma once

#include <cstdint>
#include <cstring>

#include <nv/target>

#include "../config.cuh"
#include "../util/thread.cuh"

namespace tilecraft::arch {

#if defined(__CUDACC__)

//! x rounded to TF32 (10 mantissa bits; to nearest, ties away from zero: cvt.rna.tf32.f32),
//! as the FP32 bit pattern an m16n8k8 TF32 operand register holds (its 13 low bits zero). Inf
//! stays Inf; NaN becomes a quiet NaN.
TILECRAFT_DEVICE std::uint32_t to_tf32(float x) {
  std::uint32_t r = 0;
  // cvt's .tf32 result is masked to the FP32 pattern the contract promises (low 13 bits zero).
  // cvt passes a NaN through unchanged, so a NaN whose payload lies only in those bits would
  // come out as Inf: a NaN becomes the quiet NaN the fallback gives (measured on sm_90).
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,
                    (asm("cvt.rna.tf32.f32 %0, %1;"
                         : "=r"(r)
                         : "f"(x));
                     r = x != x ? 0x7fffe000u : r & 0xffffe000u;),
                    (std::memcpy(&r, &x, 4);
                     // Sign and magnitude: adding half of the dropped field's unit rounds the
                     // magnitude to nearest, ties away from zero (and the largest values to Inf).
                     if ((r & 0x7f800000u) != 0x7f800000u) r = (r + 0x1000u) & 0xffffe000u;
                     else if ((r & 0x007fffffu) != 0) r = 0x7fffe000u;))  // NaN: a quiet NaN
  return r;
}

//! x rounded to TF32 as an m16n8k8 operand, in one instruction on sm_80 and newer: the result
//! of cvt.rna.tf32.f32 unmasked, which the MMA reads through its top 19 bits (to nearest, ties
//! away from zero; Inf stays Inf). Unlike to_tf32 it keeps a NaN's bits, so a NaN whose payload
//! lies only in the 13 low mantissa bits reads as an infinity (a quiet NaN, 0x7fc00000, or the
//! GPU's 0x7fffffff reads as NaN). Below sm_80, to_tf32.
TILECRAFT_DEVICE std::uint32_t to_tf32_operand(float x) {
  std::uint32_t r = 0;
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80, (asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));), (r = to_tf32(x);))
  return r;
}

namespace detail {

TILECRAFT_DEVICE float mma_as_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// The 16-bit element `hi` (0: low half) of a register of two FP16 or BF16 values, as a float.
template <bool Bf16>
TILECRAFT_DEVICE float mma_half_to_float(std::uint32_t pair, int hi) {
  const std::uint32_t h = hi != 0 ? pair >> 16 : pair & 0xffffu;
  if constexpr (Bf16) {
    return mma_as_float(h << 16);
  } else {
    float f;
    asm("{ .reg .b16 h; mov.b16 h, %1; cvt.f32.f16 %0, h; }" : "=f"(f) : "h"(static_cast<unsigned short>(h)));
    return f;
  }
}

// m16n8k16 with FP32 FMAs (the fragments of the file comment), for targets without the
// instruction: lane (g, t) gathers rows g and g + 8 of A and columns 2t and 2t + 1 of B.
template <bool Bf16>
TILECRAFT_DEVICE void mma_m16n8k16_fma(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                       const float (&c)[4]) {
  const int g = lane_id() / 4, t = lane_id() % 4;
  float acc[4] = {c[0], c[1], c[2], c[3]};
  for (int kp = 0; kp < 8; ++kp) {  // k = 2 kp, 2 kp + 1
    const int high = kp >= 4 ? 1 : 0;
    // A(g, k) and A(g + 8, k): from lane g * 4 + kp % 4, registers high * 2 and high * 2 + 1.
    const std::uint32_t a_lo = __shfl_sync(0xffffffffu, a[high * 2], g * 4 + kp % 4);
    const std::uint32_t a_hi = __shfl_sync(0xffffffffu, a[high * 2 + 1], g * 4 + kp % 4);
    // B(k, 2t) and B(k, 2t + 1): from lanes (2t) * 4 + kp % 4 and (2t + 1) * 4 + kp % 4.
    const std::uint32_t b0 = __shfl_sync(0xffffffffu, b[high], (2 * t) * 4 + kp % 4);
    const std::uint32_t b1 = __shfl_sync(0xffffffffu, b[high], (2 * t + 1) * 4 + kp % 4);
    for (int e = 0; e < 2; ++e) {
      const float x0 = mma_half_to_float<Bf16>(a_lo, e), x1 = mma_half_to_float<Bf16>(a_hi, e);
      const float y0 = mma_half_to_float<Bf16>(b0, e), y1 = mma_half_to_float<Bf16>(b1, e);
      acc[0] = fmaf(x0, y0, acc[0]);
      acc[1] = fmaf(x0, y1, acc[1]);
      acc[2] = fmaf(x1, y0, acc[2]);
      acc[3] = fmaf(x1, y1, acc[3]);
    }
  }
  for (int i = 0; i < 4; ++i) d[i] = acc[i];
}

}  // namespace detail

//! mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: d = a b + c on TF32 operands (to_tf32
//! bit patterns), fragments as in the file comment. sm_80 and newer; FP32 FMAs below.
//! \code
//! __global__ void tf32_product(const float* a, const float* b, float* d) {  // one warp
//!   const int g = threadIdx.x / 4, t = threadIdx.x % 4;  // a: 16 x 8 row-major, b: 8 x 8 column-major
//!   const std::uint32_t fa[4] = {tilecraft::arch::to_tf32(a[g * 8 + t]), tilecraft::arch::to_tf32(a[(g + 8) * 8 + t]),
//!                                tilecraft::arch::to_tf32(a[g * 8 + t + 4]),
//!                                tilecraft::arch::to_tf32(a[(g + 8) * 8 + t + 4])};
//!   const std::uint32_t fb[2] = {tilecraft::arch::to_tf32(b[g * 8 + t]), tilecraft::arch::to_tf32(b[g * 8 + t + 4])};
//!   float acc[4] = {0, 0, 0, 0};
//!   tilecraft::arch::mma_m16n8k8_tf32(acc, fa, fb, acc);
//!   d[g * 8 + 2 * t] = acc[0];  // D (16 x 8, row-major): rows g and g + 8, columns 2t, 2t + 1
//!   d[g * 8 + 2 * t + 1] = acc[1];
//!   d[(g + 8) * 8 + 2 * t] = acc[2];
//!   d[(g + 8) * 8 + 2 * t + 1] = acc[3];
//! }
//! \endcode
TILECRAFT_DEVICE void mma_m16n8k8_tf32(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                       const float (&c)[4]) {
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_80,
      (asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                    "{%8, %9}, {%10, %11, %12, %13};"
                    : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
                      "f"(c[3]));),
      (
          const int g = lane_id() / 4, t = lane_id() % 4; float acc[4] = {c[0], c[1], c[2], c[3]};
          for (int k = 0; k < 8; ++k) {
            const int high = k >= 4 ? 1 : 0;
            // A(g, k), A(g + 8, k) from lane g * 4 + k % 4; B(k, 2t), B(k, 2t + 1) from lanes
            // (2t) * 4 + k % 4 and (2t + 1) * 4 + k % 4.
            // Each operand through its top 19 bits, as the tensor cores read TF32.
            const float x0 = detail::mma_as_float(__shfl_sync(0xffffffffu, a[high * 2], g * 4 + k % 4) & 0xffffe000u);
            const float x1 =
                detail::mma_as_float(__shfl_sync(0xffffffffu, a[high * 2 + 1], g * 4 + k % 4) & 0xffffe000u);
            const float y0 = detail::mma_as_float(__shfl_sync(0xffffffffu, b[high], (2 * t) * 4 + k % 4) & 0xffffe000u);
            const float y1 =
                detail::mma_as_float(__shfl_sync(0xffffffffu, b[high], (2 * t + 1) * 4 + k % 4) & 0xffffe000u);
            acc[0] = fmaf(x0, y0, acc[0]);
            acc[1] = fmaf(x0, y1, acc[1]);
            acc[2] = fmaf(x1, y0, acc[2]);
            acc[3] = fmaf(x1, y1, acc[3]);
          } for (int i = 0; i < 4; ++i) d[i] = acc[i];))
}

//! mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32: d = a b + c on FP16 operands, K = 8, the
//! first half of m16n8k16's fragments (A: (g, 2t .. 2t + 1), (g + 8, 2t .. 2t + 1); B: (k = 2t ..
//! 2t + 1, n = g)). sm_75 and newer (Turing's tensor cores); FP32 FMAs below.
TILECRAFT_DEVICE void mma_m16n8k8_f16(float (&d)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t b0,
                                      const float (&c)[4]) {
  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_75,
                    (asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                                  "{%7, %8, %9, %10};"
                                  : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                                  : "r"(a0), "r"(a1), "r"(b0), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));),
                    (  // K 8 .. 15 zero in both operands: their products are exact zeros.
                        const std::uint32_t a[4] = {a0, a1, 0u, 0u}; const std::uint32_t b[2] = {b0, 0u};
                        detail::mma_m16n8k16_fma<false>(d, a, b, c);))
}

//! mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: d = a b + c on FP16 operands (two per
//! register, the lower column or row in the low half), fragments as in the file comment. sm_80
//! and newer; on sm_75 two m16n8k8 products (K 0 .. 7, then 8 .. 15 added to it), the same
//! fragments; FP32 FMAs below.
TILECRAFT_DEVICE void mma_m16n8k16_f16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                       const float (&c)[4]) {
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_80,
      (asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                    "{%8, %9}, {%10, %11, %12, %13};"
                    : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
                      "f"(c[3]));),
      (NV_IF_ELSE_TARGET(NV_PROVIDES_SM_75,
                         (float half_way[4]; mma_m16n8k8_f16(half_way, a[0], a[1], b[0], c);
                          mma_m16n8k8_f16(d, a[2], a[3], b[1], half_way);),
                         (detail::mma_m16n8k16_fma<false>(d, a, b, c);))))
}

//! mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32: as mma_m16n8k16_f16 on BF16 operands.
TILECRAFT_DEVICE void mma_m16n8k16_bf16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                        const float (&c)[4]) {
  NV_IF_ELSE_TARGET(
      NV_PROVIDES_SM_80,
      (asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                    "{%8, %9}, {%10, %11, %12, %13};"
                    : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
                      "f"(c[3]));),
      (detail::mma_m16n8k16_fma<true>(d, a, b, c);))
}

#endif  // __CUDACC__

}  // namespace tilecraft::arch
