//! \file device/gemm.cuh
//! Device-wide GEMM with BLAS semantics for float (FP32 FMAs, or TF32 / TF32x3 on the tensor
//! cores), double (FP64 FMAs) and 16-bit operands (BF16 / FP16 on the tensor cores, float C), built from the
//! block-level tiled_gemm (and for 16-bit operands on Hopper, the warpgroup MMA of arch/wgmma.cuh): C = alpha * op(A) *
//! op(B) + beta * C, row- or column-major, any sizes and leading dimensions, on a stream. Its configuration is a policy
//! (device/gemm_policy.cuh), chosen by shape unless given. This header is the public API; the
//! plan (argument checks, split-K, packing, the policy by shape) is in detail/gemm_plan.cuh, the
//! kernels in detail/gemm_kernels.cuh, the glue in detail/gemm_dispatch.cuh; the 16-bit
//! operands' kernels and glue in detail/gemm_wgmma_kernels.cuh and detail/gemm_16bit_dispatch.cuh,
//! the TF32 glue in detail/gemm_tf32_dispatch.cuh.
//!
//! Compile time: one call instantiates every default policy's kernels for the four operand
//! orders (about 40 kernels for float, 25 for double); a translation unit with one float call
//! takes tens of seconds per GPU architecture. Keep GEMM calls in few translation units, and
//! pass an explicit Policy where one shape class is enough (8 kernels).
//!
//! Under a host compiler (a .cpp file) gemm() with the default policy (float, double, 16-bit
//! operands, GemmMath) calls launchers that are declared only: a CUDA unit of the program
//! instantiates the ones it calls (TILECRAFT_GEMM_INSTANCE, TILECRAFT_GEMM_16BIT_INSTANCE,
//! TILECRAFT_GEMM_TF32_INSTANCE) and the linker joins them, as a cuBLAS call from C++. gemm<Policy>() and
//! gemm_epilogue() compile their kernels where they are named: nvcc's alone.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../config.cuh"
#include "../gemm/epilogue.cuh"
#include "../gemm/gemm_math.cuh"
#include "../memory/matrix_ref.cuh"
#include "detail/gemm_16bit_dispatch.cuh"
#include "detail/gemm_dispatch.cuh"
#include "detail/gemm_tf32_dispatch.cuh"
#include "gemm_policy.cuh"
#include "workspace.cuh"

namespace tilecraft {

#if defined(__CUDACC__)

//! C = epi(op(A) * op(B), C) for float matrices: the general form of gemm() with an epilogue
//! functor (see GemmEpilogue) in place of alpha and beta, e.g. a bias and a ReLU. Same
//! arguments and checks as gemm(); with k == 0 the epilogue gets zero accumulators.
//! (With a double overload beside it, a call whose three pointers are all `nullptr` literals
//! is ambiguous when the epilogue takes either type: type one of them, e.g.
//! `static_cast<float*>(nullptr)`.)
//! \code
//! struct BiasRelu {
//!   const float* bias;
//!   __host__ __device__ bool reads_c() const { return false; }
//!   __host__ __device__ float operator()(float acc, float, std::int64_t, std::int64_t col) const {
//!     return fmaxf(acc + bias[col], 0.0f);
//!   }
//! };
//! cudaError_t run(const float* a, const float* b, float* c, const float* bias, int m, int n, int k) {
//!   return tilecraft::gemm_epilogue(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none, m, n, k,
//!                                   a, k, b, n, c, n, BiasRelu{bias});
//! }
//! \endcode
template <class Policy = void, GemmEpilogue Epilogue>
[[nodiscard]] cudaError_t gemm_epilogue(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                        const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float* c,
                                        std::int64_t ldc, const Epilogue& epi, cudaStream_t stream = nullptr) {
  return detail::gemm_epilogue_run<Policy>(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc, epi, {}, stream);
}

//! C = epi(op(A) * op(B), C) for double matrices: gemm_epilogue() in FP64 (DFMA), with an
//! epilogue on doubles (GemmEpilogue<E, double>). Same arguments and checks as the double
//! gemm(); a Policy must have double as its element type.
//! \code
//! struct AddBias {
//!   const double* bias;
//!   __host__ __device__ bool reads_c() const { return false; }
//!   __host__ __device__ double operator()(double acc, double, std::int64_t, std::int64_t col) const {
//!     return acc + bias[col];
//!   }
//! };
//! cudaError_t run(const double* a, const double* b, double* c, const double* bias, int m, int n, int k) {
//!   return tilecraft::gemm_epilogue(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none, m, n, k,
//!                                   a, k, b, n, c, n, AddBias{bias});
//! }
//! \endcode
template <class Policy = void, GemmEpilogue<double> Epilogue>
[[nodiscard]] cudaError_t gemm_epilogue(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                        const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double* c,
                                        std::int64_t ldc, const Epilogue& epi, cudaStream_t stream = nullptr) {
  return detail::gemm_epilogue_run<Policy>(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc, epi, {}, stream);
}

//! C = alpha * op(A) * op(B) + beta * C for float matrices in `order` (all row-major or all
//! column-major), op(A) m x k, op(B) k x n, C m x n, with BLAS semantics: beta == 0 means C is
//! not read (NaN in C does not propagate); k == 0 or alpha == 0 scales C by beta (whatever
//! alpha, A and B hold; with beta == 1 nothing is launched, C is left as it is). Any sizes
//! and leading dimensions, any float-aligned pointers
//! (16-byte-aligned operands with leading dimensions that are multiples of 4 take the vector
//! path; where such a row ends inside a vector, its last vector is one cp.async that reads only
//! the row's elements, yet compute-sanitizer's initcheck counts the whole 16 bytes, so it reports
//! a row's padding past its end, up to the next 16 bytes, as uninitialized unless it was
//! written). FP32 FMAs only (no TF32). Asynchronous on `stream`. C must not share elements with A
//! or B (not checked, as in BLAS: disjoint blocks of one allocation are fine).
//! `Policy`: a GEMM policy (device/gemm_policy.cuh), or void to choose by the shape of C as computed (row-major; a
//! column-major C is computed as its transpose). When it has more than 64 rows and at least 1.6
//! times as many 128 x 128 tiles as the GPU has SMs: GemmPolicyLarge3 where the device gives a
//! block less shared memory than GemmPolicyLarge needs (e.g. sm_75); elsewhere the tiles whose
//! waves a model of the block slots finds shortest, each at its measured pace: GemmPolicySkinny's
//! 64 x 128 (most large products), GemmPolicyMedium's 64 x 64 or GemmPolicyLarge's 128 x 128
//! (GemmPolicyHuge's 256 x 128 instead for operands that both fill in 16-byte vectors, packed
//! or as given, k >= 1024 and a last wave that fills at least half of the SMs). Otherwise
//! GemmPolicySkinny for k >= 2048 (GemmPolicyMedium where its tiles fill their waves better),
//! GemmPolicyMedium when its 64 x 64 tiles fill the SMs, GemmPolicySmall otherwise, each
//! (but for C of at most 64 rows) replaced by GemmPolicySkinny (k < 2048) or GemmPolicyLarge,
//! split in K, where the model says that finishes sooner. When C has
//! fewer tiles than the GPU has block slots, K is split (see GemmPolicyDefaults::max_split_k)
//! into slices of at least 256; when its tiles fill whole waves of block slots and leave a
//! partial last wave, those last tiles are split so where the model says it pays (the others
//! keep K whole). Where no peeled edge runs beside it (see below), and for double only where
//! the kernel fills in 16-byte vectors, the split tiles' K steps may instead be dealt out to a
//! wave of blocks in equal shares, a share running across tiles (1100 x 1300 x 1500: 99 tiles
//! of 128 x 128 to 264 blocks, 3 / 8 of a tile's K each). Only
//! for products of at least 2^28 multiply-adds: the slices (pieces) go to a stream-ordered
//! workspace and are summed in a fixed order, so results are deterministic.
//! Where the chosen tiles leave C a last tile row (column) of at most 8 rows (columns), from
//! 2^29 multiply-adds on, those rows (columns) are computed apart, by a kernel that reads the
//! other operand once and sums in a fixed order (1025^3: one row and one column), and the tiles
//! before them by the policy their own shape takes. An
//! operand whose K index is the contiguous one (A row-major or B column-major as computed: the
//! common NN case of either order) is first transposed into workspace when the product reuses
//! it enough (the other side of C at least 1024 and M * N * K >= 3 x 2^30), and an operand whose
//! rows are not 16-byte aligned (a leading dimension that is not a multiple of 16 bytes, or an
//! offset base pointer) is copied into rows that are (the same rule with M * N * K >= 2^32): the
//! shared tiles then fill in 16-byte vectors, which costs one copy and saves more than that in
//! the product (a packed operand is padded with zeros to whole tiles, so that no tile of it
//! fills along a ragged edge). An operand above 64 MiB or a 64th of the device's memory, whichever is more, is
//! packed in equal panels, each multiplied as it is packed. Workspace comes from tilecraft's own
//! stream-ordered pool (see release_workspace()); where none can be had, the product is computed
//! unsplit and unpacked.
//!
//! Returns cudaErrorInvalidValue, launching nothing, when: an enumerator is out of range;
//! m, n or k is negative; a leading dimension is below BLAS's minimum (max(1, elements of a
//! stored row for row-major, of a stored column for column-major)); C (m, n > 0), or A or B
//! (k > 0, whatever alpha) is null or not float-aligned; the sizes overflow 64-bit byte offsets,
//! the grid (counted in square tiles of the policy's smaller side: a C of terabytes may be
//! refused whose real tiles would fit) or the K steps (ceil(k / TK) > 2^31 - 1, TK the policy's K step or
//! the shortest of the defaults': 16 for float, 8 for double); a user Policy needs more shared
//! memory than the device gives a block. m == 0 or n == 0 is a successful no-op. Otherwise the
//! launch status.
//! \code
//! // Row-major C (m x n) = A (m x k) * B (k x n).
//! TILECRAFT_THROW_IF_ERROR(tilecraft::gemm(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none,
//!                                          m, n, k, 1.0f, d_a, k, d_b, n, 0.0f, d_c, n, stream));
//! \endcode
template <class Policy = void>
[[nodiscard]] cudaError_t gemm(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                               float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                               float beta, float* c, std::int64_t ldc, cudaStream_t stream = nullptr) {
  return detail::gemm_run<Policy, float>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, {}, stream);
}

//! C = alpha * op(A) * op(B) + beta * C for double matrices: the float gemm()'s semantics,
//! arguments and checks (pointers double-aligned: 8 bytes; 16-byte-aligned operands with even
//! leading dimensions take the vector path), with FP64 FMAs (DFMA on the SIMT pipe, not the
//! FP64 tensor cores). `Policy`: a GEMM policy whose element_type is double, or void to choose
//! by the shape of C as computed: GemmPolicyLargeF64 when it has more than 64 rows and at least
//! as many 128 x 64 tiles as the GPU has SMs; else GemmPolicyMediumF64 when its 64 x 64 tiles
//! fill the SMs or k >= 2048 (K is then split as for float), GemmPolicySmallF64 otherwise.
//! \code
//! // Column-major C (m x n) = 2 A^T B + C, A stored k x m, all double.
//! cudaError_t dgemm(const double* a, const double* b, double* c, int m, int n, int k, cudaStream_t stream) {
//!   return tilecraft::gemm(tilecraft::Order::col_major, tilecraft::Op::transpose, tilecraft::Op::none, m, n, k, 2.0,
//!                          a, k, b, k, 1.0, c, m, stream);
//! }
//! \endcode
template <class Policy = void>
[[nodiscard]] cudaError_t gemm(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                               double alpha, const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
                               double beta, double* c, std::int64_t ldc, cudaStream_t stream = nullptr) {
  return detail::gemm_run<Policy, double>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, {}, stream);
}

#else  // a host compiler (a .cpp file)

//! gemm() for float matrices from a .cpp file: the nvcc form's semantics, arguments and checks
//! with the default policy (chosen by shape), through the launcher a CUDA unit of the program
//! instantiates with `TILECRAFT_GEMM_INSTANCE(, float)` (its kernels are compiled there, by nvcc).
//! \code
//! // gemm.cu (nvcc):  #include <tilecraft/device/gemm.cuh>
//! //                  TILECRAFT_GEMM_INSTANCE(, float);
//! // main.cpp (g++):
//! TILECRAFT_THROW_IF_ERROR(tilecraft::gemm(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none,
//!                                          m, n, k, 1.0f, d_a, k, d_b, n, 0.0f, d_c, n, stream));
//! \endcode
[[nodiscard]] inline cudaError_t gemm(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                      float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                                      float beta, float* c, std::int64_t ldc, cudaStream_t stream = nullptr) {
  return detail::gemm_run<void, float>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, {}, stream);
}

//! gemm() for double matrices from a .cpp file, as the float form above: the launcher comes
//! from a CUDA unit's `TILECRAFT_GEMM_INSTANCE(, double)`.
[[nodiscard]] inline cudaError_t gemm(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                      double alpha, const double* a, std::int64_t lda, const double* b,
                                      std::int64_t ldb, double beta, double* c, std::int64_t ldc,
                                      cudaStream_t stream = nullptr) {
  return detail::gemm_run<void, double>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, {}, stream);
}

namespace detail {
template <class>
inline constexpr bool gemm_needs_nvcc = false;
}  // namespace detail

//! gemm<Policy>() (float or double): Policy void (or none, `gemm<>`) is the default policy's form
//! above; any other is nvcc's alone, refused at compile time in a .cpp file (a policy's kernels
//! are compiled where it is named). T comes from the pointers.
template <class Policy = void, class T>
[[nodiscard]] cudaError_t gemm(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                               std::type_identity_t<T> alpha, const T* a, std::int64_t lda, const T* b,
                               std::int64_t ldb, std::type_identity_t<T> beta, T* c, std::int64_t ldc,
                               cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tilecraft::gemm<Policy>: the matrices' element type must be float or double");
  static_assert(std::is_void_v<Policy> || detail::gemm_needs_nvcc<Policy>,
                "tilecraft::gemm<Policy>: under a host compiler (a .cpp file) only the default policy is callable, "
                "as tilecraft::gemm(...) without template arguments (its launcher comes from a CUDA unit's "
                "TILECRAFT_GEMM_INSTANCE(, float) or (, double)); a GEMM with a Policy must be called from a .cu file");
  if constexpr (std::is_void_v<Policy> && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
    return detail::gemm_run<void, T>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, {}, stream);
  } else {
    return cudaErrorInvalidValue;
  }
}

#endif  // __CUDACC__

//! C = alpha * op(A) * op(B) + beta * C for 16-bit operands (T = __nv_bfloat16 or __half) and a
//! float C, on the tensor cores with FP32 accumulation: the float gemm()'s BLAS semantics,
//! arguments and checks (A and B T-aligned: 2 bytes; C float-aligned). Each product is exact in
//! FP32 and the K sums round in FP32 (in another order than cuBLAS's: equal within FP32
//! rounding). On an H100 / H200 whose code was compiled for sm_90a (`90a` in
//! CMAKE_CUDA_ARCHITECTURES: `-gencode arch=compute_90a,code=sm_90a`), operands that are
//! 16-byte aligned with leading dimensions that are multiples of 8 run Hopper's warpgroup MMA
//! (`wgmma` on 128 x 256 tiles, the operands brought by TMA into 4 stages of 64 rows of K by a
//! producer warp, one persistent block per SM; on an H200 0.92 to 1.00x cuBLAS at 2048^3, 4096^3
//! and 8192^3), and so do other operands of products of at least 2^26
//! multiply-adds, copied into aligned workspace first. The kernel's B (op(B) of a row-major C,
//! op(A) of a column-major one, or the other where the product runs as its transpose) whose
//! rows start 16 bytes off a 32-byte boundary (a leading dimension of 8 mod 16), which TMA
//! moves at about half its rate, is copied into 128-byte aligned rows first on products of at
//! least 2^21 elements of C where the other operand's rows are so too (3000^3: 0.60x -> 0.77x
//! cuBLAS), of at least 10 x 2^20 where they are not. Where they take less time by waves, C
//! runs tiles of 128 x 192 (4 stages; 1536^3: 0.72x -> 0.78-0.85x cuBLAS, 3072^3: 0.85x ->
//! 0.90x), 128 x 128 (6 stages; 2048 x 1024 x 1024: 0.47x -> 0.87x) or 64 x 128 (8 stages, one
//! computing warpgroup; 1024^3: 0.42x -> 0.93x, 1024 x 1024 x 4096: 0.84-0.92x), and where B
//! (op(B) of a row-major C, op(A) of a column-major one) is K-contiguous also 128 x 168 or
//! 128 x 144 (4 stages; 1536^3: 0.80x -> 0.91x, 2304^3: 0.81x -> 0.87x). An NN product (A
//! K-contiguous, B N-contiguous; either order) runs as its transpose, C^T = B^T A^T with A as the
//! K-contiguous operand and C stored transposed through shared memory, where that takes those
//! widths, or 64 x 128 tiles over K >= 2048 where C has no more columns than rows (1536^3:
//! 0.81x -> 0.91-0.94x, 2304^3: 0.94x -> 1.05x, 1024 x 1024 x 4096: 0.84x -> 0.87x). The tiles
//! of a last wave that fills at most half of the SMs (every tile where C has at most half as
//! many tiles as the GPU has SMs) have their K split into about SMs / tiles slices of at least
//! 256 (products of at least 2^28 multiply-adds, at most 16 slices and 64 MiB of float partial
//! sums in workspace) that a second kernel sums in slice order: the same bits on every run.
//! Everything else runs the block-level tiled_gemm on `mma.sync` (GemmMath::mma16, 128 x 128
//! tiles, about 0.45x cuBLAS), without workspace. Workspace comes from tilecraft's stream-ordered pool (see
//! release_workspace()); where none can be had, operands that must be copied run on mma.sync as
//! they are instead (copies that only align rows are left out: TMA reads those rows as stored),
//! and a split or stream-K K on wgmma every tile whole. Asynchronous on `stream`.
//! Returns cudaErrorInvalidValue, launching nothing, for the float gemm()'s invalid arguments
//! (and a grid or K step count above 2^31 - 1); m == 0 or n == 0 is a successful no-op;
//! otherwise the launch status.
//! \code
//! // Row-major C (m x n, float) = A (m x k) * B (k x n), A and B in BF16.
//! cudaError_t run(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n, int k, cudaStream_t s) {
//!   return tilecraft::gemm(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none, m, n, k, 1.0f,
//!                          a, k, b, n, 0.0f, c, n, s);
//! }
//! \endcode
template <class T>
requires(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>) [[nodiscard]] cudaError_t
    gemm(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const T* a,
         std::int64_t lda, const T* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc,
         cudaStream_t stream = nullptr) {
  return detail::gemm_16bit_run<T>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream);
}

//! C = alpha * op(A) * op(B) + beta * C for float matrices in the math `Math` chooses: the float
//! gemm()'s BLAS semantics, arguments and checks (any float-aligned pointers and leading
//! dimensions), on the tensor cores. Asynchronous on `stream`.
//!   - GemmMath::simt: gemm() itself (FP32 FMAs, BLAS's rounding).
//!   - GemmMath::tf32: one TF32 product per multiply-add (operands reduced to 10 explicit
//!     mantissa bits, FP32 accumulation): a result within (2^-9 + (K + 2) 2^-24) M of the exact
//!     one, M = |alpha| sum |a||b| + |beta||c| (about 1e-3 relative on random data). The
//!     tensor cores read an operand's top 19 bits only: a NaN whose payload lies only in the 13
//!     low mantissa bits (0x7f800001 ... 0x7f801fff and their negatives) reads as an infinity;
//!     every other NaN (the quiet NaN 0x7fc00000, the GPU's 0x7fffffff) and Inf as in FP32.
//!   - GemmMath::tf32x3: three TF32 products per multiply-add on operands split into a TF32 big
//!     part and a TF32 remainder (both rounded to nearest; the remainder's product dropped):
//!     FP32's accuracy from the tensor cores, a result within (2^-20 + (3 K + 2) 2^-24) M.
//! On an H100 / H200 whose code was compiled for sm_90a (see the 16-bit gemm()), products whose
//! blocks fill at least half of the SMs run Hopper's warpgroup MMA (the last wave's K split as
//! for 16-bit operands; TF32x3 with fewer tiles than SMs stream-K instead: every tile's K steps
//! dealt out to every SM in equal shares, the block holding a tile's last steps adding the
//! earlier blocks' partial sums in a fixed order, the same bits every run; 1.3 to 2.7 times faster there on
//! an H200): TF32 on 128 x 256 tiles (128 x 192, 128 x 128 or 64 x 128 where those take less
//! time by waves, the 16-bit path's rule) fed by TMA, the
//! operands truncated to TF32 by the tensor cores (about twice the error of rounding them, well
//! inside the bound); TF32x3 on 128 x 128 tiles, the operands split (rounded to nearest) into
//! workspace first, each stage's big x big products summed from zero by the tensor cores and
//! added into FP32 sums (the tensor cores' own sums truncate: fed the running sum they would err
//! about 10 times more), the cross terms, 2^-11 of them, summed by the tensor cores over all of
//! K; its error is FP32's or smaller, Inf and NaN as in FP32. The wgmma path reads
//! K-contiguous rows that start 16-byte aligned: an operand stored otherwise (the A of a
//! column-major NN product, the B of a row-major one) is first transposed or copied into
//! workspace (tilecraft's stream-ordered pool, see release_workspace(); for TF32x3 every operand,
//! twice its size), except in TF32 an operand whose rows are 16-byte aligned goes to wgmma from
//! registers as stored: the B of a row-major NN product (the A of a column-major one) beside an
//! aligned A, the product then run as C^T = B^T A^T and C stored transposed; and an M-contiguous
//! A (row-major op(A) = A^T; column-major op(B) = B^T), C stored as it is, with B transposed first
//! where it is not K-contiguous either. Rows copied into workspace start 128-byte aligned, and
//! in TF32 a K-contiguous operand whose rows start 16 bytes off a 32-byte boundary (a leading
//! dimension of 4 mod 8 floats) is copied so too, on products of 2^20 elements of C or more:
//! TMA moves such rows at about half its rate. The wgmma kernel's B is copied so always, its A
//! only on tiles of 128 columns or fewer (on wider ones A's copy cost more than it saved). The
//! kernel that follows a copy starts its blocks beside the copy's last ones.
//! Everything else runs the block-level tiled_gemm on mma.sync on the operands as they are
//! (operands rounded to nearest; FMAs below sm_80, but for FP16 on sm_75: two m16n8k8 MMAs), without workspace; and so
//! does a product whose operands' workspace cannot be had, once the copies that only align rows are left out (a split
//! or stream-K K whose partial sums' workspace cannot be had runs every tile whole instead). Returns
//! cudaErrorInvalidValue, launching nothing, for the float gemm()'s invalid arguments (and a grid or K step count above
//! 2^31 - 1); m == 0 or n == 0 is a successful no-op; otherwise the launch status.
//! Performance on an H200 (benchmarks/results, benchmarks/TUNING.md): TF32 0.94 to 1.20x cuBLAS's
//! TF32 from 1024^3 to 8192^3 (row-major NN) and 1.08x at 128 x 8192 x 8192; over 39 shapes
//! from 1024 to 4100 a side in all four layouts, 0.85x or more but at 1200 x 1400 x 2300 and
//! 1200 x 1400 x 1500 in row-major NT (both operands K-contiguous, rows 16 bytes off a 32-byte
//! boundary: 0.81-0.85x with the copies above, 0.70-0.75x without); TF32x3 2.2 to 2.4x cuBLAS's
//! FP32 SGEMM at 4096^3 and 8192^3, and faster than it at every shape of the sweep (1.4 to 2.7x
//! where K is 4 mod 8 floats, since its split operands' rows are 128-byte aligned).
//! \code
//! // Row-major C (m x n) = A (m x k) * B (k x n) in FP32 accuracy on the tensor cores.
//! cudaError_t run(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t s) {
//!   return tilecraft::gemm<tilecraft::GemmMath::tf32x3>(tilecraft::Order::row_major, tilecraft::Op::none,
//!                                                       tilecraft::Op::none, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n,
//!                                                       s);
//! }
//! \endcode
template <GemmMath Math>
requires(Math == GemmMath::simt || Math == GemmMath::tf32 || Math == GemmMath::tf32x3) [[nodiscard]] cudaError_t
    gemm(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
         std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc,
         cudaStream_t stream = nullptr) {
  if constexpr (Math == GemmMath::simt) {
    return detail::gemm_run<void, float>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, {}, stream);
  } else {
    return detail::gemm_tf32_run<Math>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream);
  }
}

}  // namespace tilecraft
