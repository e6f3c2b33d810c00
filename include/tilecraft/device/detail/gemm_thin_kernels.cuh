//! \file device/detail/gemm_thin_kernels.cuh
//! The thin products a GEMM's ragged edge is peeled into (edge_plan): C of at most thin_most
//! rows (or columns) by any number of the other side, which a tiled kernel would compute in a
//! whole tile row. Here the long operand is read once, coalesced, and each thread keeps the
//! sums of its few rows in registers: the product is as fast as the read.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "../../arch/griddepcontrol.cuh"
#include "../../config.cuh"
#include "../../util/launch.cuh"
#include "../../util/math.cuh"
#include "../../util/status.cuh"
#include "gemm_kernels.cuh"
#include "gemm_plan.cuh"

#if defined(__CUDACC__)

namespace tilecraft::detail {

//! An operand of a thin product as strides: element (i, kk) at data[i * stride_i + kk *
//! stride_k] (i: its row of the thin side, or its line of the long side; kk: the K index).
template <class T>
struct StridedOperand {
  const T* data;
  std::int64_t stride_i;
  std::int64_t stride_k;
  TILECRAFT_DEVICE T operator()(std::int64_t i, std::int64_t kk) const { return data[i * stride_i + kk * stride_k]; }
};

//! out(s, line) = epi(sum over kk of thin(s, kk) * wide(line, kk)) for the r <= R rows s of the
//! thin operand and every line of the wide one (K = k). Thread (l, q) of a block (ThinShape<R>)
//! sums line blockIdx.x * lines + l over K indices q, q + k_threads, ..., `loads` at a time: each
//! chunk's wide loads and its share of the thin operand's chunk (staged in shared memory, read
//! along its contiguous index) are issued together before the chunk's barriers, so a chunk
//! costs about one memory latency. The k_threads partial sums of each (s, line) are then added
//! in a fixed order through shared memory, so the result is the same on every run. WideK: the
//! wide operand's K index is contiguous (a warp reads 32 consecutive elements of one line);
//! otherwise its lines are (a warp reads `lines` lines at 32 / lines K indices). Element (s,
//! line) of C is c[s * c_stride_s + line * c_stride_line]; the epilogue gets (s, line) as (row,
//! column) when thin_rows, else (line, s). Barriers: block-wide, reached by every thread; shared memory:
//! R x (chunk + 1) elements (at most 16.1 KiB). It reads nothing the GEMM's other kernels write
//! and may be launched as a programmatic dependent of one of them (`beside`): it then waits for
//! the kernel before it as it exits, so its completion implies that kernel's. It lets the kernel
//! after it launch at once (launch_dependents).
template <class T, int R, bool WideK, class Epi>
__global__ void __launch_bounds__(ThinShape<R>::threads)
    gemm_thin_kernel(StridedOperand<T> thin, StridedOperand<T> wide, int r, std::int64_t lines, std::int64_t k,
                     T* __restrict__ c, std::int64_t c_stride_s, std::int64_t c_stride_line, bool thin_rows, Epi epi,
                     bool beside) {
  using S = ThinShape<R>;
  constexpr int loads = S::loads;
  constexpr int chunk = S::chunk;
  constexpr int staged = R * chunk / S::threads;
  static_assert(R * (chunk + 1) * sizeof(T) <= 48 * 1024 - 16, "gemm_thin_kernel: static shared memory");
  // The thin operand's chunk, a row of chunk + 1 for each of its rows (the staging stores are
  // conflict-free either way it is read); at the end, the partial sums.
  __shared__ T buf[R][chunk + 1];
  const int t = static_cast<int>(threadIdx.x);
  const int l = WideK ? t / S::k_threads : t % S::lines;
  const int q = WideK ? t % S::k_threads : t / S::lines;
  arch::launch_dependents();  // the next kernel may start now (it reads none of the edge, or waits for it)
  const std::int64_t line = static_cast<std::int64_t>(blockIdx.x) * S::lines + l;
  const bool live = line < lines;
  const bool thin_by_k = thin.stride_k == 1;
  T acc[R];
#pragma unroll
  for (int s = 0; s < R; ++s) acc[s] = T(0);
  for (std::int64_t k0 = 0; k0 < k; k0 += chunk) {
    T v[loads];
#pragma unroll
    for (int j = 0; j < loads; ++j) {
      const std::int64_t kk = k0 + q + j * S::k_threads;
      v[j] = live && kk < k ? wide(line, kk) : T(0);
    }
    T u[staged];
#pragma unroll
    for (int i = 0; i < staged; ++i) {
      const int e = t + i * S::threads;
      const int s = thin_by_k ? e / chunk : e % R;
      const int kk = thin_by_k ? e % chunk : e / R;
      u[i] = s < r && k0 + kk < k ? thin(s, k0 + kk) : T(0);
    }
    __syncthreads();  // every thread is done with the chunk before
#pragma unroll
    for (int i = 0; i < staged; ++i) {
      const int e = t + i * S::threads;
      buf[thin_by_k ? e / chunk : e % R][thin_by_k ? e % chunk : e / R] = u[i];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < loads; ++j) {
#pragma unroll
      for (int s = 0; s < R; ++s) acc[s] += buf[s][q + j * S::k_threads] * v[j];
    }
  }
  __syncthreads();  // the last chunk read
  // Thread t = (l, q) keeps its partial sums at column t: line l's at l * k_threads + q (WideK)
  // or q * lines + l.
#pragma unroll
  for (int s = 0; s < R; ++s) buf[s][t] = acc[s];
  __syncthreads();
  for (int e = t; e < R * S::lines; e += S::threads) {
    const int s = e / S::lines;
    const int le = e % S::lines;
    const std::int64_t out_line = static_cast<std::int64_t>(blockIdx.x) * S::lines + le;
    if (s >= r || out_line >= lines) continue;
    T sum = T(0);
    for (int i = 0; i < S::k_threads; ++i) sum += buf[s][WideK ? le * S::k_threads + i : i * S::lines + le];
    T* out = c + s * c_stride_s + out_line * c_stride_line;
    const T old = epi.reads_c() ? *out : T(0);
    *out = thin_rows ? epi(sum, old, s, out_line) : epi(sum, old, out_line, s);
  }
  if (beside) arch::wait_for_dependencies();  // the kernel before it has completed
}

//! Launches gemm_thin_kernel for r (1 ... thin_most) rows of `thin` against `lines` lines of
//! `wide` over K = k on `stream` (see there): as a programmatic dependent of the kernel before
//! it when `beside_previous` (that kernel must be independent of this one and let it launch
//! early; where the device runs code without griddepcontrol, an ordinary launch). Returns
//! cudaErrorInvalidValue, launching nothing, for r outside 1 ... thin_most, a negative count,
//! or a grid of more than 2^31 - 1 blocks.
template <class T, class Epi>
cudaError_t launch_thin(StridedOperand<T> thin, StridedOperand<T> wide, std::int64_t r, std::int64_t lines,
                        std::int64_t k, T* c, std::int64_t c_stride_s, std::int64_t c_stride_line, bool thin_rows,
                        const Epi& epi, bool beside_previous, cudaStream_t stream) {
  if (r < 1 || r > thin_most || lines < 0 || k < 0) return cudaErrorInvalidValue;
  if (lines == 0) return cudaSuccess;
  auto go = [&](auto rows, auto wide_k) -> cudaError_t {
    using S = ThinShape<decltype(rows)::value>;
    const std::int64_t blocks = ceil_div<std::int64_t>(lines, S::lines);
    if (blocks > INT_MAX) return cudaErrorInvalidValue;
    auto* kernel = gemm_thin_kernel<T, decltype(rows)::value, decltype(wide_k)::value, Epi>;
    if (beside_previous && waits_for_dependency(reinterpret_cast<const void*>(kernel))) {
      return launch_dependent(kernel, dim3(static_cast<unsigned>(blocks)), dim3(S::threads), 0, stream, thin, wide,
                              static_cast<int>(r), lines, k, c, c_stride_s, c_stride_line, thin_rows, epi, true);
    }
    return launch_kernel(kernel, dim3(static_cast<unsigned>(blocks)), dim3(S::threads), 0, stream, thin, wide,
                         static_cast<int>(r), lines, k, c, c_stride_s, c_stride_line, thin_rows, epi, false);
  };
  // The kernel of thin_kernel_rows(r) accumulators (gemm_plan.cuh).
  static_assert(thin_most == 8, "launch_thin: instantiates gemm_thin_kernel for 1, 4 and 8 rows");
  auto by_rows = [&](auto wide_k) -> cudaError_t {
    switch (thin_kernel_rows(r)) {
      case 1:
        return go(std::integral_constant<int, 1>{}, wide_k);
      case 4:
        return go(std::integral_constant<int, 4>{}, wide_k);
      default:
        return go(std::integral_constant<int, 8>{}, wide_k);
    }
  };
  return wide.stride_k == 1 ? by_rows(std::true_type{}) : by_rows(std::false_type{});
}

//! The row-major problem p's bottom `rows` rows (all columns) and the right `cols` columns of
//! the rows above them, each as a thin product through epi (the coordinates of the whole C).
//! The first one launched runs beside the stream's last kernel when `beside_previous` (that
//! kernel must be independent of the edge and let it launch early: the whole tiles' GEMM
//! kernel, LaunchAfter), else waits for the stream's work before it as any kernel does; the
//! second runs beside the first (launch_thin).
template <class T, class Epilogue>
cudaError_t run_edges(const GemmProblem<T>& p, const LauncherEpilogue<T, Epilogue>& epi, const EdgePlan& edge,
                      bool beside_previous, cudaStream_t stream) {
  const std::int64_t m = p.c.rows, n = p.c.cols, k = p.a.cols;
  const std::int64_t m0 = m - edge.rows, n0 = n - edge.cols;  // the whole tiles' extent
  const bool a_row = p.order_a == Order::row_major, b_row = p.order_b == Order::row_major;
  // a(i, kk) and b(kk, j) as strided views: row-major a is (ld, 1), column-major (1, ld); b(kk,
  // j) seen as its column j's line: row-major b is (1, ld), column-major (ld, 1).
  const std::int64_t a_i = a_row ? p.a.ld : 1, a_k = a_row ? 1 : p.a.ld;
  const std::int64_t b_j = b_row ? 1 : p.b.ld, b_k = b_row ? p.b.ld : 1;
  bool beside = beside_previous;  // (the second edge runs beside the first)
  if (edge.rows > 0 && n > 0) {
    // C rows [m0, m), every column: the thin operand is those rows of a, the wide one b.
    const StridedOperand<T> thin{p.a.data + m0 * a_i, a_i, a_k};
    const StridedOperand<T> wide{p.b.data, b_j, b_k};
    LauncherEpilogue<T, Epilogue> e = epi;
    e.row0 += m0;
    TILECRAFT_RETURN_IF_ERROR(launch_thin(thin, wide, edge.rows, n, k, p.c.data + m0 * p.c.ld, p.c.ld, std::int64_t{1},
                                          true, e, beside, stream));
    beside = true;
  }
  if (edge.cols > 0 && m0 > 0) {
    // C columns [n0, n) of rows [0, m0): the thin operand is those columns of b, the wide one a.
    const StridedOperand<T> thin{p.b.data + n0 * b_j, b_j, b_k};
    const StridedOperand<T> wide{p.a.data, a_i, a_k};
    LauncherEpilogue<T, Epilogue> e = epi;
    e.col0 += n0;
    TILECRAFT_RETURN_IF_ERROR(
        launch_thin(thin, wide, edge.cols, m0, k, p.c.data + n0, std::int64_t{1}, p.c.ld, false, e, beside, stream));
  }
  return cudaSuccess;
}

}  // namespace tilecraft::detail

#endif  // __CUDACC__
