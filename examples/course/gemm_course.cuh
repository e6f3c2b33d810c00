// The matrix multiplication kernels a CUDA course teaches, transcribed from the course material
// (ECE 587 Lecture 19, "CUDA III: Synchronization": `gemm_tiled` with shared tiles and two
// barriers per step, then `gemm_tiled_1x2`, 1x2 register blocking, and its Tesla T4 timing
// table). Of its first kernel, `gemm_simple`, the lecture shows only the block and thread
// mapping (gemm_tiled's "is the same as gemm_simple"); its body here is that mapping around the
// naive loop of the course's blog chapter ("sum += A[row][k] * B[k][col]", one thread per
// element of C).
// They are the first rungs of the GEMM ladder and the textbook baselines of the benchmarks.
// Transcribed line by line; the one change is `float` -> a template parameter T (the launchers
// instantiate float only), which lets several translation units include this header, as the
// transpose and stencil course headers do.
//
// The course's limitations are kept, and the launchers below refuse what the kernels cannot do
// (cudaErrorInvalidValue, nothing launched):
//   - square matrices only: C (N x N) = A (N x N) * B (N x N), all row-major with leading
//     dimension N, no alpha or beta;
//   - int index arithmetic: row * N + col must fit an int, so N <= 46340;
//   - the tile size M is blockDim.x, with M x M threads per block: 1 <= M <= 32;
//   - the tiles live in dynamic shared memory: 2 M^2 floats (gemm_tiled) or 3 M^2 (1x2).
// Edges are handled as in the course: out-of-range tile elements are loaded as zeros and
// out-of-range outputs are not written, so any N in range works.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace course {

//! The largest N whose N * N elements the kernels' int indices address.
constexpr int gemm_max_n = 46340;
//! The course's largest tile: 32 x 32 threads, the most a block may have.
constexpr int gemm_max_tile = 32;

//! True when the course's kernels compute C (m x n) = A (m x k) * B (k x n): square sizes in range.
constexpr bool gemm_supports(long long m, long long n, long long k) {
  return m == n && n == k && n >= 0 && n <= gemm_max_n;
}

//! Rung 1 (`gemm_simple`): one thread per element of C, M x M threads per block with the course's
//! mapping; each thread reads a row of A and a column of B straight from global memory: 2N loads
//! for 2N FLOPs, and every element of A and B is fetched N times (the caches catch part of it).
template <class T>
__global__ void gemm_simple(const T* A, const T* B, T* C, int N) {
  const int M = static_cast<int>(blockDim.x);
  const int ti = static_cast<int>(blockIdx.y);
  const int tj = static_cast<int>(blockIdx.x);
  const int ii = static_cast<int>(threadIdx.y);
  const int jj = static_cast<int>(threadIdx.x);
  const int row = ti * M + ii;
  const int col = tj * M + jj;
  if (row < N && col < N) {
    T sum = 0;
    for (int k = 0; k < N; ++k) {
      sum += A[row * N + k] * B[k * N + col];
    }
    C[row * N + col] = sum;
  }
}

//! Rung 2 (`gemm_tiled`): the block stages one M x M tile of A and one of B in shared memory per
//! step (each thread loads one element of each, coalesced along a row), then every thread reads
//! its row of tile_A and column of tile_B from there: 2N / M global loads per element of C.
//! Two barriers per step: the first makes the tiles visible, the second keeps a fast warp from
//! overwriting them while a slow one still reads.
template <class T>
__global__ void gemm_tiled(const T* A, const T* B, T* C, int N) {
  extern __shared__ T shared[];
  const int M = static_cast<int>(blockDim.x);

  T* tile_A = shared;
  T* tile_B = shared + M * M;

  const int ti = static_cast<int>(blockIdx.y);
  const int tj = static_cast<int>(blockIdx.x);
  const int ii = static_cast<int>(threadIdx.y);
  const int jj = static_cast<int>(threadIdx.x);
  const int row = ti * M + ii;
  const int col = tj * M + jj;

  T sum = 0;
  const int tiles = (N + M - 1) / M;

  for (int tk = 0; tk < tiles; ++tk) {
    const int col_A = tk * M + jj;
    if (row < N && col_A < N) {
      tile_A[ii * M + jj] = A[row * N + col_A];
    } else {
      tile_A[ii * M + jj] = 0;
    }
    const int row_B = tk * M + ii;
    if (row_B < N && col < N) {
      tile_B[ii * M + jj] = B[row_B * N + col];
    } else {
      tile_B[ii * M + jj] = 0;
    }
    __syncthreads();
    for (int kk = 0; kk < M; ++kk) {
      sum += tile_A[ii * M + kk] * tile_B[kk * M + jj];
    }
    __syncthreads();
  }
  if (row < N && col < N) C[row * N + col] = sum;
}

//! Rung 3 (`gemm_tiled_1x2`): 1x2 register blocking. Each thread computes C[row, col0] and
//! C[row, col0 + M]; a block covers M x 2M of C from one tile of A and two of B (tile_B is
//! M x 2M), and the thread's value of A is loaded once into a register and used twice: 3 shared
//! loads per 4 FLOPs instead of 2 per 2. Same two barriers per step.
template <class T>
__global__ void gemm_tiled_1x2(const T* A, const T* B, T* C, int N) {
  extern __shared__ T shared[];
  const int M = static_cast<int>(blockDim.x);

  T* tile_A = shared;          // this array is still M*M
  T* tile_B = shared + M * M;  // this array is M*2M now

  const int ti = static_cast<int>(blockIdx.y);
  const int tj = static_cast<int>(blockIdx.x);
  const int ii = static_cast<int>(threadIdx.y);
  const int jj = static_cast<int>(threadIdx.x);
  const int row = ti * M + ii;
  const int col0 = tj * (2 * M) + jj;
  const int col1 = col0 + M;

  T sum0 = 0;
  T sum1 = 0;
  const int tiles = (N + M - 1) / M;

  for (int tk = 0; tk < tiles; ++tk) {
    const int col_A = tk * M + jj;
    if (row < N && col_A < N) {
      tile_A[ii * M + jj] = A[row * N + col_A];
    } else {
      tile_A[ii * M + jj] = 0;
    }
    const int row_B = tk * M + ii;
    if (row_B < N && col0 < N) {
      tile_B[ii * (2 * M) + jj] = B[row_B * N + col0];
    } else {
      tile_B[ii * (2 * M) + jj] = 0;
    }
    if (row_B < N && col1 < N) {
      tile_B[ii * (2 * M) + M + jj] = B[row_B * N + col1];
    } else {
      tile_B[ii * (2 * M) + M + jj] = 0;
    }
    __syncthreads();
    for (int kk = 0; kk < M; ++kk) {
      const T a = tile_A[ii * M + kk];
      sum0 += a * tile_B[kk * (2 * M) + jj];
      sum1 += a * tile_B[kk * (2 * M) + M + jj];
    }
    __syncthreads();
  }
  if (row < N && col0 < N) C[row * N + col0] = sum0;
  if (row < N && col1 < N) C[row * N + col1] = sum1;
}

namespace detail {
// The launch checks every rung shares: what the kernels cannot do is refused before anything runs.
inline cudaError_t check_gemm(const float* a, const float* b, const float* c, int n, int tile) {
  if (n < 0 || n > gemm_max_n || tile < 1 || tile > gemm_max_tile) return cudaErrorInvalidValue;
  if (n > 0 && (a == nullptr || b == nullptr || c == nullptr)) return cudaErrorInvalidValue;
  return cudaSuccess;
}
}  // namespace detail

//! Launches rung 1 over C = A * B, all N x N row-major (C must not overlap A or B), with
//! tile x tile threads per block (the course's M; 32 by default).
[[nodiscard]] inline cudaError_t launch_gemm_simple(const float* a, const float* b, float* c, int n, int tile = 32,
                                                    cudaStream_t stream = 0) {
  if (const cudaError_t e = detail::check_gemm(a, b, c, n, tile); e != cudaSuccess || n == 0) return e;
  const dim3 dim_threads(tile, tile);
  const dim3 dim_blocks((n + tile - 1) / tile, (n + tile - 1) / tile);
  gemm_simple<float><<<dim_blocks, dim_threads, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

//! Launches rung 2 over C = A * B, all N x N row-major, with tile x tile threads per block and
//! two tile x tile shared tiles (the course's launch).
[[nodiscard]] inline cudaError_t launch_gemm_tiled(const float* a, const float* b, float* c, int n, int tile = 32,
                                                   cudaStream_t stream = 0) {
  if (const cudaError_t e = detail::check_gemm(a, b, c, n, tile); e != cudaSuccess || n == 0) return e;
  const dim3 dim_threads(tile, tile);
  const dim3 dim_blocks((n + tile - 1) / tile, (n + tile - 1) / tile);
  const std::size_t shared_bytes = 2ULL * static_cast<std::size_t>(tile * tile) * sizeof(float);
  gemm_tiled<float><<<dim_blocks, dim_threads, shared_bytes, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

//! Launches rung 3 over C = A * B, all N x N row-major: tile x tile threads per block, each
//! block M x 2M of C, three tile x tile shared tiles (the course's launch).
[[nodiscard]] inline cudaError_t launch_gemm_tiled_1x2(const float* a, const float* b, float* c, int n, int tile = 32,
                                                       cudaStream_t stream = 0) {
  if (const cudaError_t e = detail::check_gemm(a, b, c, n, tile); e != cudaSuccess || n == 0) return e;
  const dim3 dim_threads(tile, tile);
  const dim3 dim_blocks((n + 2 * tile - 1) / (2 * tile), (n + tile - 1) / tile);
  const std::size_t shared_bytes = 3ULL * static_cast<std::size_t>(tile * tile) * sizeof(float);
  gemm_tiled_1x2<float><<<dim_blocks, dim_threads, shared_bytes, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

}  // namespace course
