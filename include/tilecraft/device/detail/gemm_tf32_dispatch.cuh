//! \file device/detail/gemm_tf32_dispatch.cuh
//! The plan and launch of tilecraft::gemm<GemmMath::tf32 / tf32x3> on float operands: BLAS's
//! argument checks, the row-major form of the problem, and the choice between Hopper's wgmma
//! kernel (where this binary carries sm_90a code for the device and the product has tiles
//! enough) and the block-level tiled_gemm on mma.sync (detail/gemm_wgmma_kernels.cuh). For the
//! wgmma kernel the operands are brought into the form it reads: K-contiguous, 16-byte aligned
//! rows (transposed or copied into workspace where they are not; in TF32 an operand that is not
//! K-contiguous goes to wgmma from registers instead: a row-major NN product runs as
//! C^T = B^T A^T with B^T so, nothing moved, and a TT product with A so), and for TF32x3 split
//! into TF32 big and small parts.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "../../arch/mma.cuh"
#include "../../config.cuh"
#include "../../gemm/gemm_math.cuh"
#include "../../util/device_cache.cuh"
#include "../../util/launch.cuh"
#include "../../util/math.cuh"
#include "../../util/nvtx.cuh"
#include "../../util/status.cuh"
#include "../transpose.cuh"
#include "../workspace.cuh"
#include "gemm_16bit_dispatch.cuh"
#include "gemm_plan.cuh"
#include "gemm_wgmma_kernels.cuh"
#include "pack_copy.cuh"
#include "tensor_map.cuh"

namespace tilecraft::detail {

#if defined(__CUDACC__)

//! The mma.sync configurations of the other path (benchmarks/TUNING.md, "Tensor cores"): TF32,
//! 4 warps of 64 x 64 in 4 stages of 16; TF32x3, whose split fragments need more registers, 4
//! warps of 32 x 64 in 3 stages of 32.
template <GemmMath Math>
using Tf32FallbackConfig =
    std::conditional_t<Math == GemmMath::tf32, TiledGemm<128, 128, RegBlock<16, 8>, 16, 4, 4, float, GemmMath::tf32>,
                       TiledGemm<64, 128, RegBlock<8, 8>, 32, 4, 3, float, GemmMath::tf32x3>>;
//! The same tiles one stage shorter, for GPUs whose blocks cannot opt in to the configuration
//! above's shared memory (sm_75: 64 KiB; GemmTensorTunables::fallback_smem_limit).
template <GemmMath Math>
using Tf32FallbackConfigSmall =
    std::conditional_t<Math == GemmMath::tf32, TiledGemm<128, 128, RegBlock<16, 8>, 16, 4, 3, float, GemmMath::tf32>,
                       TiledGemm<64, 128, RegBlock<8, 8>, 32, 4, 2, float, GemmMath::tf32x3>>;

//! The TF32x3 split of a rows x k matrix (element (r, c) at src[r * ld_src + c]): big = x
//! rounded to TF32, small = (x - big) rounded to TF32, both rows x k at leading dimension ld
//! (FP32 patterns with their 13 low bits zero, which the tensor cores read exactly). `big` may
//! be `src` itself (same leading dimension): each element is read before it is written, by the
//! same thread. src, big and small are 16-byte aligned and ld_src and ld multiples of 4 (the
//! dispatch splits operands that tf32_operand_ready accepts, or workspace): a thread splits 4
//! consecutive elements of a row as one 16-byte vector, one by one at the end of a row, where it
//! also zeroes big's and small's padding up to the next multiple of 4 (the rest of a 16-byte
//! vector that a 16-byte copy of the row's last elements reads; compute-sanitizer's initcheck
//! counts all 16 bytes as read; TMA reads no column past k). A template only so that every
//! translation unit may hold it.
template <class T>
__global__ void tf32_split_kernel(const T* src, std::int64_t ld_src, T* big, T* small, std::int64_t ld,
                                  std::int64_t rows, std::int64_t k) {
  static_assert(std::is_same_v<T, float>, "tf32_split_kernel: float only");
  const std::int64_t col = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) * 4;
  if (col >= k) return;
  // A finite x within half a TF32 unit of FLT_MAX rounds to Inf: its big part is the largest
  // finite TF32 value of its sign instead, so that x - big stays finite (and exact).
  auto split = [](float x, float& hi, float& lo) {
    std::uint32_t h = arch::to_tf32(x);
    const std::uint32_t xb = __float_as_uint(x);
    if ((h & 0x7fffffffu) == 0x7f800000u && (xb & 0x7f800000u) != 0x7f800000u) h = (xb & 0x80000000u) | 0x7f7fe000u;
    hi = __uint_as_float(h);
    lo = __uint_as_float(arch::to_tf32(x - hi));
  };
  for (std::int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    if (col + 4 <= k) {
      const float4 x = *reinterpret_cast<const float4*>(src + r * ld_src + col);
      float4 hi, lo;
      split(x.x, hi.x, lo.x);
      split(x.y, hi.y, lo.y);
      split(x.z, hi.z, lo.z);
      split(x.w, hi.w, lo.w);
      *reinterpret_cast<float4*>(big + r * ld + col) = hi;
      *reinterpret_cast<float4*>(small + r * ld + col) = lo;
    } else {
      for (std::int64_t c = col; c < col + 4 && c < ld; ++c) {
        if (c < k) {
          split(src[r * ld_src + c], big[r * ld + c], small[r * ld + c]);
        } else {
          big[r * ld + c] = 0.0f;
          small[r * ld + c] = 0.0f;
        }
      }
    }
  }
}

//! One operand of the row-major form (rows x k, K-contiguous or not) as the kernel reads it.
struct Tf32Operand {
  const float* data;
  std::int64_t ld;
  std::int64_t small;  //!< elements from data to the small part (split operands)
};

//! Whether the wgmma kernel reads the operand as stored: K-contiguous rows that start 16-byte
//! aligned (TMA's rule), within TMA's row-stride limit (else it is copied); with
//! `pack_16b_rows`, rows that all start 32-byte aligned too. TMA brings rows that start 16 bytes
//! off a 32-byte boundary at about half its rate, and a copy into 128-byte aligned rows
//! (tf32_packed_ld) paid for itself on every such shape measured from 1024 a side (benchmarks/
//! TUNING.md); rows 32-byte aligned but not 128 cost too little for the copy to pay.
inline bool tf32_operand_ready(const float* src, std::int64_t ld, bool k_contiguous, bool pack_16b_rows = false) {
  const auto address = reinterpret_cast<std::uintptr_t>(src);
  return k_contiguous && address % 16 == 0 && ld % 4 == 0 && tma_row_stride_fits<float>(ld) &&
         !(pack_16b_rows && rows_off_32_bytes(src, ld));
}

//! The leading dimension of an operand packed into workspace (rows of k floats): 128-byte
//! aligned rows, which TMA moves at about twice the rate of rows only 16-byte aligned
//! (benchmarks/TUNING.md).
inline std::int64_t tf32_packed_ld(std::int64_t k) { return round_up<std::int64_t>(k, 32); }

//! Brings the operand `src` (rows x k: element (r, c) at src[r * ld + c] when `k_contiguous`,
//! else at src[c * ld + r]) into K-contiguous rows that start 16-byte aligned: as it is where
//! it already is (and is not to be split), else into `ws` (rows x tf32_packed_ld(k), twice that
//! when `split`) by a transpose or a 2D copy, then split there. pack_16b_rows: as in
//! tf32_operand_ready, for an operand not split (a split one is split from where it is read).
inline cudaError_t prepare_tf32_operand(const float* src, std::int64_t ld, bool k_contiguous, std::int64_t rows,
                                        std::int64_t k, bool split, float* ws, Tf32Operand& out, cudaStream_t stream,
                                        bool pack_16b_rows = false, CopyOverlap overlap = CopyOverlap::none) {
  const bool ready = tf32_operand_ready(src, ld, k_contiguous, pack_16b_rows && !split);
  if (ready && !split) {
    out = {src, ld, 0};
    return cudaSuccess;
  }
  const std::int64_t ldp = tf32_packed_ld(k);
  const float* from = src;
  std::int64_t ld_from = ld;
  if (!ready) {
    if (k_contiguous) {
      TILECRAFT_RETURN_IF_ERROR(copy_rows(src, ld, ws, ldp, rows, k, stream, overlap));  // (padding zeroed)
    } else {
      if (!split && ldp > k) {
        // The transposed rows' padding zeroed, for the same reason as in tf32_split_kernel;
        // before the transpose (it writes the other columns), so that the operand's last
        // writer is a kernel, which the GEMM may follow as its programmatic dependent.
        TILECRAFT_RETURN_IF_ERROR(cudaMemset2DAsync(ws + k, static_cast<std::size_t>(ldp) * sizeof(float), 0,
                                                    static_cast<std::size_t>(ldp - k) * sizeof(float),
                                                    static_cast<std::size_t>(rows), stream));
      }
      // src as stored is the k x rows row-major matrix; its transpose is rows x k.
      TILECRAFT_RETURN_IF_ERROR(transpose(src, ld, ws, ldp, k, rows, stream));
    }
    from = ws;
    ld_from = ldp;
  }
  out = {ws, ldp, split ? rows * ldp : 0};
  if (split) {
    constexpr int threads = 256;
    const dim3 grid(static_cast<unsigned>(ceil_div<std::int64_t>(k, 4 * threads)),
                    static_cast<unsigned>(rows < 65535 ? rows : 65535));
    TILECRAFT_RETURN_IF_ERROR(launch_kernel(tf32_split_kernel<float>, grid, dim3(threads), 0, stream, from, ld_from, ws,
                                            ws + rows * ldp, ldp, rows, k));
  }
  return cudaSuccess;
}

//! Workspace elements prepare_tf32_operand needs for an operand (0: none).
inline std::int64_t tf32_operand_elems(const float* src, std::int64_t ld, bool k_contiguous, std::int64_t rows,
                                       std::int64_t k, bool split, bool pack_16b_rows = false) {
  if (k == 0 || (tf32_operand_ready(src, ld, k_contiguous, pack_16b_rows && !split) && !split)) return 0;
  return (split ? 2 : 1) * rows * tf32_packed_ld(k);
}

//! C = alpha * op(A) * op(B) + beta * C on float operands in GemmMath Math (tf32 or tf32x3):
//! see gemm<Math>() in device/gemm.cuh. The wgmma kernel runs where the device's code has it
//! and its plan's blocks (see wgmma_plan) fill at least
//! tunables.min_wave_fill of the SMs (fewer run faster as the mma.sync fallback's smaller
//! tiles, without packing: benchmarks/TUNING.md); tests pass 0.
template <GemmMath Math>
[[nodiscard]] cudaError_t gemm_tf32_run(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                        float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                                        float beta, float* c, std::int64_t ldc, cudaStream_t stream,
                                        const GemmTensorTunables& tunables = GemmTensorTunables{}) {
  static_assert(Math == GemmMath::tf32 || Math == GemmMath::tf32x3, "gemm_tf32_run: Math must be tf32 or tf32x3");
  static_assert(Tf32FallbackConfigSmall<Math>::smem_bytes <= 65536,
                "the short configurations must fit sm_75's 64 KiB of opt-in shared memory");
  TILECRAFT_NVTX_RANGE(Math == GemmMath::tf32 ? "tilecraft::gemm<tf32>" : "tilecraft::gemm<tf32x3>");
  // (Returned as it is: an error made up here is not the runtime's last error, which
  // stays in its slot for its owner even where it is the same code.)
  if (const cudaError_t invalid = check_gemm_args<float>(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
      invalid != cudaSuccess) {
    return invalid;
  }
  if (blas_quick_return(m, n, k, alpha, beta)) return cudaSuccess;
  if (blas_scale_only(k, alpha)) {  // C = beta C: A and B are not read
    k = 0;
    alpha = 0.0f;
  }
  // The row-major form: C (rows x cols) = X (rows x k) Y^T, Y cols x k.
  const auto [rows, cols, x, ldx, x_k, y, ldy, y_k] = tensor_operands(order, op_a, op_b, m, n, a, lda, b, ldb);

  int device = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  constexpr bool split = Math == GemmMath::tf32x3;
  DeviceLimits limits{};
  TILECRAFT_RETURN_IF_ERROR(device_limits(device, limits));
  const int sms = tunables.sms > 0 ? tunables.sms : limits.sms;
  // TF32 runs thinner tiles where they pay (wgmma_width); TF32x3 has one shape.
  constexpr int tile_m = WgmmaGemmShape<float, split>::tile_m, tile_k = WgmmaGemmShape<float, split>::tile_k;
  const int width = split ? WgmmaGemmShape<float, split>::tile_n : wgmma_width<float>(rows, cols, sms, tunables);
  auto plan_for = [&](auto shape) { return wgmma_plan_of<decltype(shape)>(rows, cols, k, sms, tunables); };
  // A row-major NN product (X K-contiguous, Y N-contiguous, both aligned) runs as C^T = Y X^T:
  // Y goes to wgmma from registers and the kernel stores C transposed, so neither operand is
  // moved; faster than transposing Y into workspace first at every shape measured, and than the
  // product with Y given K-contiguous at most (benchmarks/TUNING.md).
  auto aligned = [](const float* p, std::int64_t ld) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0 && tma_row_stride_fits<float>(ld);
  };
  const bool swap = !split && tunables.registers_operand && x_k && !y_k && aligned(x, ldx) && aligned(y, ldy);
  // An M-contiguous X (row-major op(A) = A^T) goes to wgmma from registers as it is, C stored as
  // it is, Y brought into K-contiguous rows where it is not: one operand moved at most, where
  // transposing X into workspace first moved both of a TN product's and cost a TT product
  // 0.56-0.83x cuBLAS on shapes from 1024 to 4096 a side (benchmarks/TUNING.md).
  const bool x_regs = !split && tunables.registers_operand && !x_k && aligned(x, ldx);
  const int swap_width = swap ? wgmma_width<float>(cols, rows, sms, tunables) : width;
  auto swap_plan_for = [&](auto shape) { return wgmma_plan_of<decltype(shape)>(cols, rows, k, sms, tunables); };
  const WgmmaPlan plan = split  ? plan_for(WgmmaGemmShape<float, split>{})
                         : swap ? with_wgmma_width<float>(swap_width, swap_plan_for)
                                : with_wgmma_width<float>(width, plan_for);
  if (gemm_wgmma_runs_on<float>(device) && wgmma_tma_available(rows, cols, k) &&
      static_cast<double>(plan.blocks) >= tunables.min_wave_fill * sms) {
    if ((swap ? ceil_div(cols, std::int64_t{tile_m}) * ceil_div(rows, std::int64_t{swap_width})
              : ceil_div(rows, std::int64_t{tile_m}) * ceil_div(cols, std::int64_t{width})) > INT_MAX ||
        ceil_div(k, std::int64_t{tile_k}) > INT_MAX) {
      return cudaErrorInvalidValue;
    }
    // The plan counts its units and K steps in 32 bits (launch_wgmma_tma checks it again): checked
    // before any workspace or copy too, so that a refusal never follows launched work.
    if (!wgmma_plan_fits(plan)) return cudaErrorInvalidValue;
    const std::int64_t ldp = tf32_packed_ld(k);
    if (k > 0 && (rows > INT64_MAX / 8 / ldp || cols > INT64_MAX / 8 / ldp)) return cudaErrorInvalidValue;
    // K-contiguous rows read as stored that start 16 bytes off a 32-byte boundary: copied into
    // 128-byte aligned rows first, on products large enough (GemmTensorTunables): the kernel's
    // B always, its A (X, where the product is not run as its transpose) only on tiles of 128
    // columns or fewer (64 x 128, 128 x 128): on 192 and 256 columns A's copy cost more than
    // TMA's slower reads of it (NT 3000 x 1200 x 2300 on 128 x 256 tiles: 60.9 us with B
    // copied, 76.5 with both; benchmarks/TUNING.md).
    bool pack_rows = tunables.pack_unaligned_min >= 0 && rows * cols >= tunables.pack_unaligned_min;
    const bool pack_x_too = swap || width <= 128;
    float* ws = nullptr;
    auto workspace_for = [&](std::int64_t& x_elems, std::int64_t& y_elems) {
      x_elems = x_regs ? 0 : tf32_operand_elems(x, ldx, x_k, rows, k, split, pack_rows && pack_x_too);
      y_elems = swap ? 0 : tf32_operand_elems(y, ldy, y_k, cols, k, split, pack_rows);
      return x_elems + y_elems == 0 ||
             workspace_alloc(reinterpret_cast<void**>(&ws), static_cast<std::size_t>(x_elems + y_elems) * sizeof(float),
                             stream, tunables.workspace_limit) == cudaSuccess;
    };
    std::int64_t x_elems = 0, y_elems = 0;
    bool have_workspace = workspace_for(x_elems, y_elems);
    if (!have_workspace && pack_rows) {
      pack_rows = false;  // the copies that only align rows left out: TMA reads those as they are
      have_workspace = workspace_for(x_elems, y_elems);
    }
    // Where the operands' workspace cannot be had: mma.sync on them as they are (below).
    if (have_workspace) {
      Tf32Operand xo{x, ldx, 0}, yo{y, ldy, 0};
      // Whether the last operation before the GEMM is a kernel of this call that wrote its
      // operands (a copy, a transpose or a split: prepare_tf32_operand).
      const bool copied = k > 0 && x_elems + y_elems > 0;
      cudaError_t status = cudaSuccess;
      if (k > 0) {
        // Two row copies and nothing else (K-contiguous operands, not split): Y's beside X's
        // last blocks (neither reads what the other writes).
        const bool pair = !split && x_elems > 0 && x_k && y_elems > 0 && y_k;
        if (!x_regs) {
          status = prepare_tf32_operand(x, ldx, x_k, rows, k, split, ws, xo, stream, pack_rows && pack_x_too,
                                        pair ? CopyOverlap::first : CopyOverlap::none);
        }
        if (status == cudaSuccess && !swap) {
          status = prepare_tf32_operand(y, ldy, y_k, cols, k, split, ws + x_elems, yo, stream, pack_rows,
                                        pair ? CopyOverlap::second : CopyOverlap::none);
        }
      }
      if (status == cudaSuccess) {
        if constexpr (split) {
          status = launch_wgmma_tma<WgmmaGemmShape<float, true>, float, true, true, true>(
              xo.data, xo.ld, yo.data, yo.ld, c, ldc, rows, cols, k, alpha, beta, plan, stream,
              tunables.workspace_limit, xo.small, yo.small, copied);
        } else {
          auto run_swapped = [&](auto shape) {
            return launch_wgmma_tma<decltype(shape), float, false, true>(yo.data, yo.ld, xo.data, xo.ld, c, ldc, cols,
                                                                         rows, k, alpha, beta, plan, stream,
                                                                         tunables.workspace_limit, 0, 0, copied);
          };
          auto run = [&](auto shape) {
            return launch_wgmma_tma<decltype(shape), float, true, true>(xo.data, xo.ld, yo.data, yo.ld, c, ldc, rows,
                                                                        cols, k, alpha, beta, plan, stream,
                                                                        tunables.workspace_limit, 0, 0, copied);
          };
          auto run_x_regs = [&](auto shape) {
            return launch_wgmma_tma<decltype(shape), float, false, true, false, false>(
                x, ldx, yo.data, yo.ld, c, ldc, rows, cols, k, alpha, beta, plan, stream, tunables.workspace_limit, 0,
                0, copied);
          };
          status = swap     ? with_wgmma_width<float>(swap_width, run_swapped)
                   : x_regs ? with_wgmma_width<float>(width, run_x_regs)
                            : with_wgmma_width<float>(width, run);
        }
      }
      if (ws != nullptr) {
        const cudaError_t freed = workspace_free(ws, stream);
        if (status == cudaSuccess) status = freed;
      }
      return status;
    }
  }

  // mma.sync (tiled_gemm splits TF32x3 operands in registers), the operands as they are; one
  // stage fewer where a block cannot have the shared memory of four.
  const int smem_limit = tunables.fallback_smem_limit > 0 ? tunables.fallback_smem_limit : limits.smem_per_block_optin;
  if (Tf32FallbackConfig<Math>::smem_bytes <= static_cast<std::size_t>(smem_limit)) {
    return launch_tensor_fallback<Tf32FallbackConfig<Math>>(x, ldx, x_k, y, ldy, y_k, rows, cols, k, c, ldc, alpha,
                                                            beta, stream);
  }
  return launch_tensor_fallback<Tf32FallbackConfigSmall<Math>>(x, ldx, x_k, y, ldy, y_k, rows, cols, k, c, ldc, alpha,
                                                               beta, stream);
}

#else  // a host compiler

//! Declared only under a host compiler, as gemm_run (detail/gemm_dispatch.cuh): the definition
//! and kernels come from a CUDA unit's `TILECRAFT_GEMM_TF32_INSTANCE(, Math)` (below).
template <GemmMath Math>
[[nodiscard]] cudaError_t gemm_tf32_run(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                        float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                                        float beta, float* c, std::int64_t ldc, cudaStream_t stream,
                                        const GemmTensorTunables& tunables = GemmTensorTunables{});

#endif  // __CUDACC__

}  // namespace tilecraft::detail

//! Declares (Prefix `extern`) or defines (Prefix empty) the instantiation of tilecraft::gemm's
//! launcher for float operands in GemmMath Math (tilecraft::GemmMath::tf32 or tf32x3) with its
//! kernels (for tf32, twelve wgmma kernels: four tile widths, each direct, as C^T = B^T A^T with
//! B^T from registers, and direct with A from registers;
//! for tf32x3, one; and for both, eight mma.sync ones: two stage depths x four operand
//! orders; a minute or more of compilation per architecture), as
//! TILECRAFT_GEMM_16BIT_INSTANCE does for 16-bit operands.
#define TILECRAFT_GEMM_TF32_INSTANCE(Prefix, Math)                                                                   \
  Prefix template cudaError_t tilecraft::detail::gemm_tf32_run<Math>(                                                \
      tilecraft::Order, tilecraft::Op, tilecraft::Op, std::int64_t, std::int64_t, std::int64_t, float, const float*, \
      std::int64_t, const float*, std::int64_t, float, float*, std::int64_t, cudaStream_t,                           \
      const tilecraft::detail::GemmTensorTunables&)
