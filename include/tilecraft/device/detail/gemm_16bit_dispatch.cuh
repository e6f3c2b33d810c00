//! \file device/detail/gemm_16bit_dispatch.cuh
//! The plan and launch of tilecraft::gemm on 16-bit operands: BLAS's argument checks, the
//! row-major form of the problem, and the choice between the two kernels of
//! detail/gemm_wgmma_kernels.cuh: Hopper's wgmma where this binary carries sm_90a code for the
//! device and both operands allow 16-byte copies, mma.sync (tiled_gemm) everywhere else.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "../../config.cuh"
#include "../../util/device_cache.cuh"
#include "../../util/error.cuh"
#include "../../util/launch.cuh"
#include "../gemm_policy.cuh"
#include "gemm_plan.cuh"
#include "gemm_wgmma_kernels.cuh"

namespace tilecraft::detail {

#if defined(__CUDACC__)

//! Whether gemm() on T operands runs the wgmma kernel on `device` (the current device): the
//! device is compute capability 9.0 and the code this binary runs there was compiled for
//! sm_90a. Asked once per device (and per translation unit's copy of the kernels: the probe
//! lives beside the kernels it stands for), kept in the device cache.
template <class T = __nv_bfloat16>
bool gemm_wgmma_runs_on(int device) {
  const auto key =
      std::make_tuple(reinterpret_cast<const void*>(&gemm_wgmma_probe_kernel<T>), device, -2, std::size_t{0});
  const bool cacheable = cacheable_device(device);
  if (cacheable) {
    const int known = kernel_entry(key);
    if (known != 0) return known == 2;
  }
  int major = 0, minor = 0;
  bool runs = false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess && major == 9 &&
      minor == 0) {
    cudaFuncAttributes attributes{};
    // The sm_90a branch of the probe declares 128 bytes of shared memory, the other one 16.
    runs = cudaFuncGetAttributes(&attributes, gemm_wgmma_probe_kernel<T>) == cudaSuccess &&
           attributes.sharedSizeBytes >= 128;
  }
  if (cacheable) store_kernel_entry(key, runs ? 2 : 1);
  return runs;
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
    TILECRAFT_RETURN_IF_ERROR(opt_in_once(kernel, G::smem_bytes));
    kernel<<<static_cast<unsigned>(tiles), G::threads, G::smem_bytes, stream>>>(xr, yr, cref, alpha, beta);
    return cudaGetLastError();
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
                                         float beta, float* c, std::int64_t ldc, cudaStream_t stream) {
  TILECRAFT_RETURN_IF_ERROR(check_gemm_args<T, float>(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc));
  if (m == 0 || n == 0) return cudaSuccess;
  if (alpha == 0.0f) k = 0;  // BLAS: A and B are not read
  // The row-major form: C (rows x cols) = X (rows x k) Y^T, Y cols x k. A column-major C is the
  // row-major C^T = op(B)^T op(A)^T. x_k / y_k: K is the contiguous side of X / Y.
  const bool row = order == Order::row_major;
  const std::int64_t rows = row ? m : n, cols = row ? n : m;
  const T* x = row ? a : b;
  const T* y = row ? b : a;
  const std::int64_t ldx = row ? lda : ldb, ldy = row ? ldb : lda;
  const bool x_k = row ? op_a == Op::none : op_b == Op::none;
  const bool y_k = row ? op_b == Op::transpose : op_a == Op::transpose;

  int device = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  auto aligned16 = [](const T* p, std::int64_t ld) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 8 == 0;
  };
  const bool wgmma = gemm_wgmma_runs_on<T>(device) && (k == 0 || (aligned16(x, ldx) && aligned16(y, ldy)));

  if (wgmma) {
    using S = WgmmaGemmShape<T>;
    const std::int64_t tiles = ((rows + S::tile_m - 1) / S::tile_m) * ((cols + S::tile_n - 1) / S::tile_n);
    if (tiles > INT_MAX || (k + S::tile_k - 1) / S::tile_k > INT_MAX) return cudaErrorInvalidValue;
    auto launch = [&](auto kernel) -> cudaError_t {
      TILECRAFT_RETURN_IF_ERROR(opt_in_once(kernel, S::smem_bytes));
      kernel<<<static_cast<unsigned>(tiles), S::threads, S::smem_bytes, stream>>>(x, ldx, y, ldy, c, ldc, rows, cols, k,
                                                                                  alpha, beta, 0, 0);
      return cudaGetLastError();
    };
    if (x_k) return y_k ? launch(gemm_wgmma_kernel<T, true, true>) : launch(gemm_wgmma_kernel<T, true, false>);
    return y_k ? launch(gemm_wgmma_kernel<T, false, true>) : launch(gemm_wgmma_kernel<T, false, false>);
  }

  return launch_tensor_fallback<Mma16GemmConfig<T>>(x, ldx, x_k, y, ldy, y_k, rows, cols, k, c, ldc, alpha, beta,
                                                    stream);
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail

//! Declares (Prefix `extern`) or defines (Prefix empty) the instantiation of tilecraft::gemm's
//! 16-bit launcher for T (__nv_bfloat16 or __half) with its 16 kernels (the wgmma and the
//! mma.sync kernel of each operand order: a minute or more of compilation per architecture).
//! A program that calls gemm() on T from several translation units, or wants that compilation
//! beside its other units, writes `TILECRAFT_GEMM_16BIT_INSTANCE(extern, __half)` at namespace
//! scope where it calls gemm() and `TILECRAFT_GEMM_16BIT_INSTANCE(, __half)` in one unit of its
//! own (built for the same architectures).
#define TILECRAFT_GEMM_16BIT_INSTANCE(Prefix, T)                                                                 \
  Prefix template cudaError_t tilecraft::detail::gemm_16bit_run<T>(                                              \
      tilecraft::Order, tilecraft::Op, tilecraft::Op, std::int64_t, std::int64_t, std::int64_t, float, const T*, \
      std::int64_t, const T*, std::int64_t, float, float*, std::int64_t, cudaStream_t)
