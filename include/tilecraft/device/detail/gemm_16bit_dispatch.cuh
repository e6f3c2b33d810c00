//! \file device/detail/gemm_16bit_dispatch.cuh
//! The plan and launch of tilecraft::gemm on 16-bit operands: BLAS's argument checks, the
//! row-major form of the problem, and the choice between the two kernels of
//! detail/gemm_wgmma_kernels.cuh: Hopper's wgmma where this binary carries sm_90a code for the
//! device (operands that do not allow 16-byte copies copied into aligned workspace first, for
//! products large enough), mma.sync (tiled_gemm) everywhere else. Also the wgmma kernel's
//! launch with K split, which the TF32 launcher shares.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "../../config.cuh"
#include "../../util/device_cache.cuh"
#include "../../util/launch.cuh"
#include "../../util/math.cuh"
#include "../../util/nvtx.cuh"
#include "../../util/status.cuh"
#include "../gemm_policy.cuh"
#include "../workspace.cuh"
#include "gemm_plan.cuh"
#include "gemm_wgmma_kernels.cuh"
#include "pack_copy.cuh"
#include "tensor_map.cuh"

namespace tilecraft::detail {

#if defined(__CUDACC__)

//! Whether gemm() on T operands runs the wgmma kernel on `device` (the current device): the
//! device is compute capability 9.0 and the code this binary runs there was compiled for
//! sm_90a. Asked once per device (and per translation unit's copy of the kernels: the probe
//! lives beside the kernels it stands for), kept in the device cache.
template <class T = __nv_bfloat16>
bool gemm_wgmma_runs_on(int device) {
  const KernelKey key{reinterpret_cast<const void*>(&gemm_wgmma_probe_kernel<T>), device, -2, 0};
  const bool cacheable = cacheable_device(device);
  if (cacheable) {
    const int known = kernel_entry(key);
    if (known != 0) return known == 2;
  }
  int major = 0, minor = 0;
  bool runs = false;
  cudaError_t status = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (status == cudaSuccess && major == 9 && minor == 0) {
    cudaFuncAttributes attributes{};
    // The sm_90a branch of the probe declares 128 bytes of shared memory, the other one 16.
    status = cudaFuncGetAttributes(&attributes, gemm_wgmma_probe_kernel<T>);
    runs = status == cudaSuccess && attributes.sharedSizeBytes >= 128;
  }
  // A failed query answers "no wgmma" (the mma.sync path runs, and reports what fails there),
  // and is asked again next time (the cache keeps answers, not failures); its error must not
  // stay in the runtime's slot, where the next launch check would take it for its own.
  (void)returned_status(status);
  if (cacheable && status == cudaSuccess) store_kernel_entry(key, runs ? 2 : 1);
  return runs;
}

//! How gemm_wgmma_tma_kernel of shape S covers rows x cols x k on `sms` SMs (wgmma_plan_for:
//! stream-K for TF32x3, whose three products a stage make it compute-bound; the last wave's K
//! in slices for the others).
template <class S>
WgmmaPlan wgmma_plan_of(std::int64_t rows, std::int64_t cols, std::int64_t k, int sms,
                        const GemmTensorTunables& tunables) {
  return wgmma_plan_for(rows, cols, k, S::tile_m, S::tile_n, S::tile_k, sms, S::max_split_k, S::parts == 2, tunables);
}

//! The width of gemm_wgmma_tma_kernel's tiles on T operands for C (rows x cols) on `sms` SMs:
//! as tunables.tile_width forces, or as wgmma_tile_width says (its 64-wide option a 64 x 128
//! tile, 192 columns an option too: with_wgmma_width). y_k: Y is K-contiguous, and 16-bit
//! operands may then take tiles of 144 or 168 columns too; elsewhere those widths give 192 (an
//! N-contiguous Y arrives in boxes of 64 columns: over 144 or 168 columns its last box is only
//! partly read, and wgmma's reads of such a B ran 1.3 to 1.7x slower on the H200).
template <class T>
int wgmma_width(std::int64_t rows, std::int64_t cols, int sms, const GemmTensorTunables& tunables, bool y_k = false) {
  const bool odd = sizeof(T) == 2 && y_k;
  if (tunables.tile_width != 0) {
    return (tunables.tile_width == 144 || tunables.tile_width == 168) && !odd ? 192 : tunables.tile_width;
  }
  return wgmma_tile_width(rows, cols, WgmmaGemmShape<T>::tile_m, sms, tunables.cost_128, tunables.cost_narrow, 64,
                          tunables.cost_192, odd ? tunables.cost_144_168 : 0.0);
}

//! f(S{}) for the shape S of gemm_wgmma_tma_kernel that `width` names: 128 x 256 (width 256 and
//! anything else), 128 x 192 (192), 128 x 168 and 128 x 144 (16-bit T only), 128 x 128 (128),
//! and for 64 a tile of 8192 elements, 64 x 128
//! with one computing warpgroup (its m64n128 products read less shared memory a step than two
//! warpgroups' m64n64 on a tile of 128 x 64: benchmarks/TUNING.md, "Small tiles"; for TF32, "TF32
//! on 128 x 192 and 64 x 128 tiles").
template <class T, class F>
decltype(auto) with_wgmma_width(int width, F&& f) {
  if (width == 64) return f(WgmmaGemmShape<T, false, 128, 64>{});
  if (width == 128) return f(WgmmaGemmShape<T, false, 128>{});
  if constexpr (sizeof(T) == 2) {
    if (width == 144) return f(WgmmaGemmShape<T, false, 144>{});
    if (width == 168) return f(WgmmaGemmShape<T, false, 168>{});
  }
  if (width == 192) return f(WgmmaGemmShape<T, false, 192>{});
  return f(WgmmaGemmShape<T>{});
}

//! The tensor maps gemm_wgmma_tma_kernel of shape S reads an operand through: `outer` rows of
//! `inner` elements at p, ld apart (the operand as stored), K-contiguous (`k_contiguous`, boxes
//! of tile_k x `box_rows`) or not (boxes of 128 bytes of elements x tile_k). k == 0 leaves `map`
//! zeroed: the kernel reads nothing.
template <class S, class T>
[[nodiscard]] cudaError_t wgmma_operand_map(CUtensorMap& map, const T* p, std::int64_t ld, bool k_contiguous,
                                            std::int64_t rows, std::int64_t k, int box_rows) {
  map = CUtensorMap{};
  if (k == 0) return cudaSuccess;
  return k_contiguous ? encode_tensor_map_2d(map, p, k, rows, ld, S::tile_k, box_rows)
                      : encode_tensor_map_2d(map, p, rows, k, ld, 128 / static_cast<int>(sizeof(T)), S::tile_k);
}

//! Whether gemm_wgmma_tma_kernel can read X (rows x k) and Y (cols x k) once they are 16-byte
//! aligned with 16-byte-multiple leading dimensions: the driver encodes tensor maps and every
//! extent fits TMA's 32-bit coordinates.
inline bool wgmma_tma_available(std::int64_t rows, std::int64_t cols, std::int64_t k) {
  return tensor_map_encoder() != nullptr && rows <= INT_MAX - 256 && cols <= INT_MAX - 256 && k <= INT_MAX - 256;
}

//! C (rows x cols, row-major, ldc) = alpha * X Y^T + beta * C by gemm_wgmma_tma_kernel<T, XK, YK,
//! Split> of shape S, persistent on plan.blocks blocks as `plan` says (wgmma_plan_of: its
//! stream-K part's flags and partial sums in workspace, the flags cleared by
//! gemm_stream_k_reset_kernel, of which the GEMM is a programmatic dependent), on X (rows x k,
//! at x, K-contiguous when XK) and Y (cols x k, at y), both 16-byte aligned with leading
//! dimensions that are multiples of 16 bytes; Split (TF32x3): their small parts at x + small_x
//! and y + small_y, the same shapes and leading dimensions (16-byte aligned too). TransposedC:
//! `c` holds C transposed (cols x rows, element (r, c) at c[c * ldc + r]); by default where a
//! float X is not K-contiguous (it goes to wgmma from registers, which the dispatch uses for
//! C^T = B^T A^T), given false for such an X that is A itself. Where the partial sums' (and
//! flags') workspace cannot be had (at most workspace_limit bytes where that is not negative),
//! every tile runs whole instead (wgmma_whole_plan). Returns cudaErrorInvalidValue, launching
//! nothing, when the tiles or the K steps exceed 2^31 - 1.
//! `after_copy`: the operation right before this call in `stream` is a kernel of the caller's
//! that wrote the operands (a copy, a transpose, a split), nothing enqueued between: a plan of
//! whole tiles then launches as that kernel's programmatic dependent, its producer waiting for
//! it before the first load (the consumers read only C, which that kernel does not write). The
//! split and stream-K launches ignore it (a normal launch after the copy; the stream-K kernel
//! the dependent of its flags' reset, which starts after the copy has completed).
template <class S, class T, bool XK, bool YK, bool Split = false, bool TransposedC = std::is_same_v<T, float> && !XK>
[[nodiscard]] cudaError_t launch_wgmma_tma(const T* x, std::int64_t ldx, const T* y, std::int64_t ldy, float* c,
                                           std::int64_t ldc, std::int64_t rows, std::int64_t cols, std::int64_t k,
                                           float alpha, float beta, const WgmmaPlan& plan, cudaStream_t stream,
                                           std::int64_t workspace_limit, std::int64_t small_x = 0,
                                           std::int64_t small_y = 0, bool after_copy = false) {
  auto kernel = gemm_wgmma_tma_kernel<T, XK, YK, Split, S, TransposedC>;
  constexpr int smem_bytes = S::kernel_smem_bytes(TransposedC && sizeof(T) == 2);
  if (!wgmma_plan_fits(plan)) return cudaErrorInvalidValue;
  // The tensor maps' and the opt-in's statuses are their own (the driver API's encoding leaves
  // the runtime's last-error slot alone, and opt_in_once takes its runtime errors out of it): returned
  // as they are, so that a caller's earlier error of the same code stays in the slot.
  WgmmaTmaOperands ops{};
  cudaError_t prepared = wgmma_operand_map<S>(ops.a, x, ldx, XK, rows, k, S::tile_m);
  if (prepared == cudaSuccess) prepared = wgmma_operand_map<S>(ops.b, y, ldy, YK, cols, k, S::tile_n);
  if constexpr (Split) {
    if (prepared == cudaSuccess) {
      prepared = wgmma_operand_map<S>(ops.a_small, x + small_x, ldx, true, rows, k, S::tile_m);
    }
    if (prepared == cudaSuccess) {
      prepared = wgmma_operand_map<S>(ops.b_small, y + small_y, ldy, true, cols, k, S::tile_n);
    }
  }
  if (prepared == cudaSuccess) prepared = opt_in_once(kernel, smem_bytes);
  if (prepared != cudaSuccess) return prepared;
  constexpr std::int64_t tile_elems = std::int64_t{S::tile_m} * S::tile_n;
  const auto blocks = static_cast<std::size_t>(plan.blocks);
  // Every tile whole, on plan.blocks blocks at most: no workspace.
  auto run_whole = [&] {
    const WgmmaPlan whole = wgmma_whole_plan(plan.tiles, plan.ktiles, plan.blocks);
    // Right after the kernel that copied its operands: launched as that kernel's programmatic
    // dependent, its blocks' set-up (barriers, the tensor maps' prefetch) overlapping the
    // copy's last blocks; the producer waits for the copy before its first load.
    if (after_copy && waits_for_dependency(reinterpret_cast<const void*>(kernel))) {
      WgmmaTmaOperands waiting = ops;
      waiting.wait_for_operands = 1;
      return launch_dependent(kernel, dim3(static_cast<unsigned>(whole.blocks)), dim3(S::kernel_threads(XK)),
                              smem_bytes, stream, waiting, c, ldc, rows, cols, alpha, beta, whole, nullptr, nullptr);
    }
    return launch_kernel(kernel, dim3(static_cast<unsigned>(whole.blocks)), dim3(S::kernel_threads(XK)), smem_bytes,
                         stream, ops, c, ldc, rows, cols, alpha, beta, whole, nullptr, nullptr);
  };
  if (!plan.stream_k() && !plan.split()) return run_whole();
  if (plan.split()) {
    // The slices' sums in workspace (a tile of floats a slice of a tile), then their reduction.
    const std::int64_t tail = plan.tiles - plan.whole;
    float* partial = nullptr;
    if (workspace_alloc(
            reinterpret_cast<void**>(&partial),
            static_cast<std::size_t>(plan.slices) * static_cast<std::size_t>(tail * tile_elems) * sizeof(float), stream,
            workspace_limit) != cudaSuccess) {
      return run_whole();
    }
    cudaError_t status =
        launch_kernel(kernel, dim3(static_cast<unsigned>(blocks)), dim3(S::kernel_threads(XK)), smem_bytes, stream, ops,
                      c, ldc, rows, cols, alpha, beta, plan, partial, nullptr);
    if (status == cudaSuccess) {
      const dim3 reduce_grid(static_cast<unsigned>(tail), static_cast<unsigned>(tile_elems / 1024));
      // C transposed: from a float A in registers, or staged (the slices transposed too).
      const WgmmaSlices slices_layout = !TransposedC     ? WgmmaSlices::c
                                        : sizeof(T) == 2 ? WgmmaSlices::transposed
                                                         : WgmmaSlices::transposed_c;
      status = launch_kernel(gemm_wgmma_slices_reduce_kernel<S>, reduce_grid, dim3(256), 0, stream, partial,
                             plan.slices, plan.whole, c, ldc, rows, cols, alpha, beta, slices_layout);
    }
    const cudaError_t freed = workspace_free(partial, stream);
    return status != cudaSuccess ? status : freed;
  }
  // Workspace: the flags (one a block, 256-byte aligned), then a tile of partial sums a block.
  const std::size_t flag_bytes = round_up<std::size_t>(blocks * sizeof(unsigned), 256);
  void* ws = nullptr;
  if (workspace_alloc(&ws, flag_bytes + blocks * static_cast<std::size_t>(tile_elems) * sizeof(float), stream,
                      workspace_limit) != cudaSuccess) {
    return run_whole();
  }
  auto* flags = static_cast<unsigned*>(ws);
  auto* partial = reinterpret_cast<float*>(static_cast<unsigned char*>(ws) + flag_bytes);
  cudaError_t status = launch_kernel(gemm_stream_k_reset_kernel<S>, dim3(1), dim3(256), 0, stream, flags, plan.blocks);
  if (status == cudaSuccess) {
    // A programmatic dependent of the reset (the kernel has sm_90a code, so it waits for it):
    // its blocks start while the flags are cleared.
    status = launch_dependent(kernel, dim3(static_cast<unsigned>(blocks)), dim3(S::kernel_threads(XK)), smem_bytes,
                              stream, ops, c, ldc, rows, cols, alpha, beta, plan, partial, flags);
  }
  const cudaError_t freed = workspace_free(ws, stream);
  return status != cudaSuccess ? status : freed;
}

//! Copies the 16-bit operand `src` (`outer` rows of `inner` elements, leading dimension ld) to
//! `dst` with leading dimension round_up(inner, 64): 128-byte aligned rows, which TMA moves at
//! about twice the rate of rows only 16-byte aligned (benchmarks/TUNING.md); the rows' padding
//! zeroed (the fill's last 16-byte copy of a row reads only the row's elements, but
//! compute-sanitizer's initcheck counts all 16 bytes).
template <class T>
cudaError_t pack_16bit_operand(const T* src, std::int64_t ld, std::int64_t outer, std::int64_t inner, T* dst,
                               cudaStream_t stream) {
  return copy_rows(src, ld, dst, round_up<std::int64_t>(inner, 64), outer, inner, stream);
}

//! C (rows x cols, row-major, ldc) = alpha * X Y^T + beta * C through tiled_gemm G on the
//! tensor cores (mma.sync), one gemm_tensor_fallback_kernel per block tile, for the operands as
//! they are stored: X rows x k and Y cols x k, each K-contiguous (`x_k`, `y_k`) or not. Returns
//! cudaErrorInvalidValue, launching nothing, when the grid or the K steps exceed 2^31 - 1.
template <class G, class T>
[[nodiscard]] cudaError_t launch_tensor_fallback(const T* x, std::int64_t ldx, bool x_k, const T* y, std::int64_t ldy,
                                                 bool y_k, std::int64_t rows, std::int64_t cols, std::int64_t k,
                                                 float* c, std::int64_t ldc, float alpha, float beta,
                                                 cudaStream_t stream) {
  const std::int64_t tiles =
      ((rows + G::shape::tile_m - 1) / G::shape::tile_m) * ((cols + G::shape::tile_n - 1) / G::shape::tile_n);
  if (tiles > INT_MAX || (k + G::shape::tile_k - 1) / G::shape::tile_k > INT_MAX) return cudaErrorInvalidValue;
  const MatrixRef<float> cref{c, rows, cols, ldc};
  auto launch = [&](auto kernel, auto xr, auto yr) -> cudaError_t {
    // (opt_in_once's refusal returned as it is, never through the slot-clearing macro.)
    if (const cudaError_t opted = opt_in_once(kernel, G::smem_bytes); opted != cudaSuccess) return opted;
    return launch_kernel(kernel, dim3(static_cast<unsigned>(tiles)), dim3(G::threads), G::smem_bytes, stream, xr, yr,
                         cref, alpha, beta);
  };
  // tiled_gemm's B is Y^T (k x cols): K-contiguous Y is a column-major B.
  using RowX = MatrixRef<const T, Order::row_major>;
  using ColX = MatrixRef<const T, Order::col_major>;
  const RowX xr{x, rows, k, ldx};
  const ColX xc{x, rows, k, ldx};
  const ColX yc{y, k, cols, ldy};
  const RowX yr{y, k, cols, ldy};
  if (x_k) {
    return y_k ? launch(gemm_tensor_fallback_kernel<G, Order::row_major, Order::col_major>, xr, yc)
               : launch(gemm_tensor_fallback_kernel<G, Order::row_major, Order::row_major>, xr, yr);
  }
  return y_k ? launch(gemm_tensor_fallback_kernel<G, Order::col_major, Order::col_major>, xc, yc)
             : launch(gemm_tensor_fallback_kernel<G, Order::col_major, Order::row_major>, xc, yr);
}

//! C = alpha * op(A) * op(B) + beta * C, A and B of T (16-bit), C float: see gemm() in
//! device/gemm.cuh.
template <class T>
[[nodiscard]] cudaError_t gemm_16bit_run(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                         float alpha, const T* a, std::int64_t lda, const T* b, std::int64_t ldb,
                                         float beta, float* c, std::int64_t ldc, cudaStream_t stream,
                                         const GemmTensorTunables& tunables = GemmTensorTunables{}) {
  static_assert(Mma16GemmConfig<T>::smem_bytes <= 65536,
                "the 16-bit mma.sync configuration must fit sm_75's 64 KiB of opt-in shared memory");
  TILECRAFT_NVTX_RANGE("tilecraft::gemm (16-bit)");
  // (Returned as it is: an error made up here is not the runtime's last error, which
  // stays in its slot for its owner even where it is the same code.)
  if (const cudaError_t invalid = check_gemm_args<T, float>(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
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
  auto aligned16 = [](const T* p, std::int64_t ld) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 8 == 0 && tma_row_stride_fits<T>(ld);
  };
  // An operand the wgmma kernel cannot read as stored is copied (a few microseconds a MiB),
  // where the product is large enough to pay for it.
  const bool x_ready = k == 0 || aligned16(x, ldx), y_ready = k == 0 || aligned16(y, ldy);
  const bool wgmma =
      gemm_wgmma_runs_on<T>(device) && wgmma_tma_available(rows, cols, k) &&
      ((x_ready && y_ready) ||
       static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(k) >= tunables.pack_min_volume);

  if (wgmma) {
    // The kernel counts tiles and K steps in 32 bits (the chosen shape's plan is checked below).
    // Refused first where even the largest tiles (256 on either side, 64 elements of K a step)
    // would not fit, which also keeps the planners' tile counts far from 64-bit overflow.
    if (ceil_div(rows, std::int64_t{256}) * ceil_div(cols, std::int64_t{256}) > INT_MAX ||
        ceil_div(k, std::int64_t{128 / static_cast<int>(sizeof(T))}) > INT_MAX) {
      return cudaErrorInvalidValue;
    }
    DeviceLimits limits{};
    TILECRAFT_RETURN_IF_ERROR(device_limits(device, limits));
    const int sms = tunables.sms > 0 ? tunables.sms : limits.sms;
    // Where only X is K-contiguous (a row-major NN product) the kernel may compute the
    // transpose, C^T = Y X^T: Y as wgmma's A, which reads an M-contiguous operand as fast as a
    // K-contiguous one, and X as its K-contiguous B, which allows tiles of 144 and 168 columns
    // and on 64 x 128 tiles runs a K step 6 to 8% faster than an N-contiguous one; C then goes
    // out transposed through shared memory (tunables.transpose_min_k says where). On 64 x 128
    // tiles the transpose reads Y in boxes of 64 columns where the direct product reads 128:
    // where Y has more columns than X has rows (128 x 8192 x 8192: 47.6 us against 45.9), those
    // shorter DRAM pieces cost more than the K steps gain.
    bool swap = false;
    int width = 0;
    if (x_k && !y_k && tunables.transpose_min_k >= 0) {
      width = wgmma_width<T>(cols, rows, sms, tunables, true);
      swap = width == 144 || width == 168 || (width == 64 && k >= tunables.transpose_min_k && cols <= rows);
    }
    if (!swap) width = wgmma_width<T>(rows, cols, sms, tunables, y_k);
    // The chosen shape's plan counts its units and K steps in 32 bits (launch_wgmma_tma checks
    // it again): checked here too, before any workspace or copy, so that a refusal never follows
    // launched work.
    const WgmmaPlan plan = with_wgmma_width<T>(width, [&](auto shape) {
      using S = decltype(shape);
      return swap ? wgmma_plan_of<S>(cols, rows, k, sms, tunables) : wgmma_plan_of<S>(rows, cols, k, sms, tunables);
    });
    if (!wgmma_plan_fits(plan)) return cudaErrorInvalidValue;
    // Operands as stored: `outer` rows of `inner` elements (X rows x k K-contiguous, else k x rows).
    const std::int64_t x_outer = x_k ? rows : k, x_inner = x_k ? k : rows;
    const std::int64_t y_outer = y_k ? cols : k, y_inner = y_k ? k : cols;
    const std::int64_t ldxp = round_up<std::int64_t>(x_inner, 64), ldyp = round_up<std::int64_t>(y_inner, 64);
    // The kernel's B (X where the product runs as its transpose) read as stored with rows that
    // start 16 bytes off a 32-byte boundary, which TMA moves at about half its rate: copied
    // into 128-byte aligned rows first on products large enough for the copy to pay, the
    // smaller ones where the kernel's A has such rows too (GemmTensorTunables).
    const bool x_off = x_ready && rows_off_32_bytes(x, ldx), y_off = y_ready && rows_off_32_bytes(y, ldy);
    const std::int64_t b_min = (swap ? y_off : x_off) ? tunables.pack_16bit_pair_min : tunables.pack_16bit_b_min;
    const bool pack_b = k > 0 && (swap ? x_off : y_off) && b_min >= 0 && rows * cols >= b_min;
    bool x_copy = !x_ready || (swap && pack_b), y_copy = !y_ready || (!swap && pack_b);
    if ((x_copy && x_outer > INT64_MAX / 4 / ldxp) || (y_copy && y_outer > INT64_MAX / 4 / ldyp)) {
      return cudaErrorInvalidValue;
    }
    std::int64_t x_elems = 0, y_elems = 0;
    T* ws = nullptr;
    auto workspace_for_copies = [&] {
      x_elems = x_copy ? x_outer * ldxp : 0;
      y_elems = y_copy ? y_outer * ldyp : 0;
      return x_elems + y_elems == 0 ||
             workspace_alloc(reinterpret_cast<void**>(&ws), static_cast<std::size_t>(x_elems + y_elems) * sizeof(T),
                             stream, tunables.workspace_limit) == cudaSuccess;
    };
    bool have_workspace = workspace_for_copies();
    if (!have_workspace && pack_b) {
      // Without the copy that only aligns B's rows (TMA reads those as stored): the copies
      // wgmma needs, if any, may still fit.
      x_copy = !x_ready;
      y_copy = !y_ready;
      have_workspace = workspace_for_copies();
    }
    if (!have_workspace) {
      // No workspace for the copies wgmma needs: mma.sync on the operands as they are.
      return launch_tensor_fallback<Mma16GemmConfig<T>>(x, ldx, x_k, y, ldy, y_k, rows, cols, k, c, ldc, alpha, beta,
                                                        stream);
    }
    cudaError_t status = cudaSuccess;
    const T* xs = x;
    const T* ys = y;
    std::int64_t ldxs = ldx, ldys = ldy;
    if (x_copy) {
      status = pack_16bit_operand(x, ldx, x_outer, x_inner, ws, stream);
      xs = ws;
      ldxs = ldxp;
    }
    if (y_copy && status == cudaSuccess) {
      status = pack_16bit_operand(y, ldy, y_outer, y_inner, ws + x_elems, stream);
      ys = ws + x_elems;
      ldys = ldyp;
    }
    if (status == cudaSuccess) {
      auto run = [&](auto shape) {
        using S = decltype(shape);
        if (swap) {
          if constexpr (S::tile_n % 64 != 0 || S::tile_m == 64) {
            return launch_wgmma_tma<S, T, false, true, false, true>(ys, ldys, xs, ldxs, c, ldc, cols, rows, k, alpha,
                                                                    beta, plan, stream, tunables.workspace_limit, 0, 0,
                                                                    x_copy || y_copy);
          } else {
            return cudaErrorInvalidValue;  // (not taken: the widths above)
          }
        }
        if constexpr (S::tile_n % 64 != 0) {  // 144 and 168: a K-contiguous Y only (wgmma_width)
          if (!y_k) return cudaErrorInvalidValue;
          return x_k ? launch_wgmma_tma<S, T, true, true>(xs, ldxs, ys, ldys, c, ldc, rows, cols, k, alpha, beta, plan,
                                                          stream, tunables.workspace_limit, 0, 0, x_copy || y_copy)
                     : launch_wgmma_tma<S, T, false, true>(xs, ldxs, ys, ldys, c, ldc, rows, cols, k, alpha, beta, plan,
                                                           stream, tunables.workspace_limit, 0, 0, x_copy || y_copy);
        } else {
          if (x_k) {
            return y_k ? launch_wgmma_tma<S, T, true, true>(xs, ldxs, ys, ldys, c, ldc, rows, cols, k, alpha, beta,
                                                            plan, stream, tunables.workspace_limit, 0, 0,
                                                            x_copy || y_copy)
                       : launch_wgmma_tma<S, T, true, false>(xs, ldxs, ys, ldys, c, ldc, rows, cols, k, alpha, beta,
                                                             plan, stream, tunables.workspace_limit, 0, 0,
                                                             x_copy || y_copy);
          }
          return y_k ? launch_wgmma_tma<S, T, false, true>(xs, ldxs, ys, ldys, c, ldc, rows, cols, k, alpha, beta, plan,
                                                           stream, tunables.workspace_limit, 0, 0, x_copy || y_copy)
                     : launch_wgmma_tma<S, T, false, false>(xs, ldxs, ys, ldys, c, ldc, rows, cols, k, alpha, beta,
                                                            plan, stream, tunables.workspace_limit, 0, 0,
                                                            x_copy || y_copy);
        }
      };
      status = with_wgmma_width<T>(width, run);
    }
    if (ws != nullptr) {
      const cudaError_t freed = workspace_free(ws, stream);
      if (status == cudaSuccess) status = freed;
    }
    return status;
  }

  return launch_tensor_fallback<Mma16GemmConfig<T>>(x, ldx, x_k, y, ldy, y_k, rows, cols, k, c, ldc, alpha, beta,
                                                    stream);
}

#else  // a host compiler

//! Declared only under a host compiler, as gemm_run (detail/gemm_dispatch.cuh): the definition
//! and kernels come from a CUDA unit's `TILECRAFT_GEMM_16BIT_INSTANCE(, T)` (below).
template <class T>
[[nodiscard]] cudaError_t gemm_16bit_run(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                         float alpha, const T* a, std::int64_t lda, const T* b, std::int64_t ldb,
                                         float beta, float* c, std::int64_t ldc, cudaStream_t stream,
                                         const GemmTensorTunables& tunables = GemmTensorTunables{});

#endif  // __CUDACC__

}  // namespace tilecraft::detail

//! Declares (Prefix `extern`) or defines (Prefix empty) the instantiation of tilecraft::gemm's
//! 16-bit launcher for T (__nv_bfloat16 or __half) with its 27 kernels (the wgmma kernel of each
//! tile shape for each operand order, those of 144 and 168 columns for a K-contiguous B only,
//! three more for a row-major NN product computed as its transpose, and the mma.sync kernel for
//! each operand order: a minute or more of compilation per architecture).
//! A program that calls gemm() on T from several translation units, or wants that compilation
//! beside its other units, writes `TILECRAFT_GEMM_16BIT_INSTANCE(extern, __half)` at namespace
//! scope where it calls gemm() and `TILECRAFT_GEMM_16BIT_INSTANCE(, __half)` in one unit of its
//! own (built for the same architectures).
//! \code
//! // Where gemm() is called on __half operands: the kernels come from another unit.
//! TILECRAFT_GEMM_16BIT_INSTANCE(extern, __half);
//! \endcode
#define TILECRAFT_GEMM_16BIT_INSTANCE(Prefix, T)                                                                 \
  Prefix template cudaError_t tilecraft::detail::gemm_16bit_run<T>(                                              \
      tilecraft::Order, tilecraft::Op, tilecraft::Op, std::int64_t, std::int64_t, std::int64_t, float, const T*, \
      std::int64_t, const T*, std::int64_t, float, float*, std::int64_t, cudaStream_t,                           \
      const tilecraft::detail::GemmTensorTunables&)
