//! \file device/detail/gemm_wgmma_kernels.cuh
//! The kernels of tilecraft::gemm on 16-bit operands (__nv_bfloat16, __half; float C):
//!   - gemm_wgmma_kernel: Hopper's warpgroup MMA (sm_90a). A block of 2 warpgroups computes a
//!     128 x 256 tile of C, each warpgroup 64 x 256 with `wgmma.mma_async.m64n256k16` straight
//!     from shared memory; the operands reach shared memory by `cp.async` in a ring of 4 stages
//!     of 64 rows of K (48 KiB a stage), laid out in the 128-byte swizzle the tensor cores read
//!     conflict-free. Either operand may be K-contiguous or M- (N-) contiguous in memory: the
//!     fill keeps the contiguous dimension in 128-byte rows, and the descriptor tells wgmma
//!     which it is.
//!   - gemm_mma16_kernel: the same product on every other GPU (and for operands that are not
//!     16-byte aligned), one tile of the block-level tiled_gemm (GemmMath::mma16: mma.sync) per
//!     block.
//! Both take the problem in its row-major form (C row-major, m x n; see GemmProblem) and
//! compute C = alpha * A B + beta * C with BLAS's rule for beta == 0 (C is not read).
#pragma once

#include <cstdint>

#include <nv/target>

#include "../../arch/cp_async.cuh"
#include "../../arch/wgmma.cuh"
#include "../../config.cuh"
#include "../../gemm/epilogue.cuh"
#include "../../gemm/tiled_gemm.cuh"
#include "../../memory/matrix_ref.cuh"

namespace tilecraft::detail {

//! The shape of gemm_wgmma_kernel (not tunable: the swizzle, the descriptors and the thread
//! mapping of the fill are written for it).
struct WgmmaGemmShape {
  static constexpr int tile_m = 128;  //!< rows of C a block computes (2 warpgroups of 64)
  static constexpr int tile_n = 256;  //!< columns of C a block computes (one m64n256k16 per warpgroup)
  static constexpr int tile_k = 64;   //!< rows of K a stage holds: one 128-byte swizzle row of 16-bit elements
  static constexpr int stages = 4;    //!< shared-memory ring (2 stages in flight while 2 are read)
  static constexpr int threads = 256;
  static constexpr int group_m = 8;  //!< tile rows that walk N together (L2 reuse of B)
  static constexpr int a_bytes = tile_m * tile_k * 2;
  static constexpr int b_bytes = tile_k * tile_n * 2;
  static constexpr int stage_bytes = a_bytes + b_bytes;
  //! Dynamic shared memory of a block: the ring plus room to align it to 1024 bytes (the
  //! swizzle pattern's period, which wgmma computes from the address).
  static constexpr int smem_bytes = stages * stage_bytes + 1024;
  static_assert(stage_bytes % 1024 == 0 && a_bytes % 1024 == 0, "every tile must start on a 1024-byte boundary");
};

#if defined(__CUDACC__)

//! Whether this binary's code for the current device has the wgmma path: the probe's static
//! shared memory differs between the two branches (128 bytes with sm_90a code, 16 without), so
//! cudaFuncGetAttributes reads, without a launch, which one the device's code took (see
//! gemm_wgmma_runs_on). A template on the operand type, so that each translation unit's copy
//! stands beside that unit's copy of the kernels of T. Never launched.
template <class T>
__global__ void gemm_wgmma_probe_kernel(int* out) {
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a,
                    (__shared__ int probe[32]; probe[threadIdx.x % 32] = static_cast<int>(threadIdx.x); __syncthreads();
                     *out = probe[(threadIdx.x + 1) % 32];),
                    (__shared__ int probe[4]; probe[threadIdx.x % 4] = static_cast<int>(threadIdx.x); __syncthreads();
                     *out = probe[(threadIdx.x + 1) % 4];))
}

//! The fill of one operand's stage tiles of `Rows` x 64 (K) elements from a row-major form:
//! `KContiguous` (element (r, kk) at src[r * ld + kk]) or not (element (r, kk) at
//! src[kk * ld + r]). Shared layout, in 1024-byte swizzle blocks of 8 rows of 128 bytes with
//! 16-byte chunk c of row q stored at chunk c ^ (q % 8):
//!   - K-contiguous: row r of the tile (its 64 elements of K) is the 128-byte row r;
//!   - otherwise: block j of 64 rows (r = 64 j ... 64 j + 63) spans 8 KiB, in which 128-byte
//!     row kk holds elements (64 j ... 64 j + 63, kk).
//! Thread t moves `per_thread` chunks of 16 bytes, i = 0, 1, ...: K-contiguous, row t / 8 + 32 i,
//! chunk t % 8; otherwise K row t / per_row + (256 / per_row) i, chunk t % per_row. Both keep
//! the swizzle's row (mod 8) across i, so a thread's shared offsets and global pointers are a
//! base plus i times a stride, computed once (the fill then costs few registers beside the
//! 128 accumulators). Chunks outside the matrix (rows >= `rows`, K >= `k`) are zero-filled, a
//! chunk across the end of the contiguous side partially. Requires 16-byte aligned `src` and
//! `ld` a multiple of 8 (the dispatch's rule).
template <int Rows, bool KContiguous, class T>
struct WgmmaFill {
  static constexpr int threads = WgmmaGemmShape::threads;
  static constexpr int per_row = KContiguous ? 8 : Rows / 8;  // chunks along the contiguous side
  static constexpr int per_thread = Rows * 64 / 8 / threads;
  static constexpr int step_rows = threads / per_row;  // rows (K-contiguous) or K rows a step of i moves
  static_assert(Rows * 64 / 8 % threads == 0 && step_rows % 8 == 0,
                "the fill's chunks must divide evenly among the threads, keeping the swizzle row");

  const T* ptr;          // this thread's chunk i = 0 of the next stage
  std::int64_t stride;   // elements between chunk i and i + 1
  std::int64_t advance;  // elements between one stage's chunk and the next's
  int smem;              // byte offset of chunk i = 0 in a stage tile
  std::int64_t row;      // first row (of the non-K side) of chunk i = 0
  std::int64_t kk;       // K row of chunk i = 0 within the stage (K-contiguous: its first column)
  const T* base;         // a valid address for the zero-filled chunks

  TILECRAFT_DEVICE WgmmaFill(const T* src, std::int64_t ld, std::int64_t row0) : base(src) {
    const int tid = static_cast<int>(threadIdx.x);
    const int q = tid / per_row, c = tid % per_row;  // (row, chunk) of the stage's swizzle rows
    if constexpr (KContiguous) {
      row = row0 + q;
      kk = c * 8;
      ptr = src + row * ld + kk;
      stride = step_rows * ld;
      advance = 64;
      smem = q * 128 + ((c ^ (q & 7)) * 16);
    } else {
      row = row0 + c * 8;
      kk = q;
      ptr = src + kk * ld + row;
      stride = step_rows * ld;
      advance = 64 * ld;
      smem = (c / 8) * 8192 + q * 128 + (((c % 8) ^ (q & 7)) * 16);
    }
  }

  //! Issues this thread's cp.async for the stage tile at `dst` holding K rows k0 ... k0 + 63
  //! (called for consecutive stages in order), each chunk predicated unless `interior`.
  TILECRAFT_DEVICE void load(unsigned char* dst, std::int64_t k0, std::int64_t rows, std::int64_t k, bool interior) {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const T* p = ptr + i * stride;
      unsigned char* d = dst + smem + i * step_rows * 128;
      if (interior) {
        arch::cp_async_cg<16>(d, p);
      } else {
        std::int64_t run = 0;  // elements of the chunk inside the matrix, along the contiguous side
        if constexpr (KContiguous) {
          run = row + i * step_rows < rows ? k - (k0 + kk) : 0;
        } else {
          run = k0 + kk + i * step_rows < k ? rows - row : 0;
        }
        run = run < 0 ? 0 : (run > 8 ? 8 : run);
        arch::cp_async_cg_zfill<16>(d, run > 0 ? p : base, static_cast<std::uint32_t>(run * 2));
      }
    }
    ptr += advance;
  }
};

//! The descriptor of a warpgroup's operand at k step `kk` (0 ... 3) of a stage tile written by
//! wgmma_fill<Rows, KContiguous> at `tile`, from its row `row0` (a multiple of 64).
template <bool KContiguous>
TILECRAFT_DEVICE std::uint64_t wgmma_operand_descriptor(const unsigned char* tile, int row0, int kk) {
  if constexpr (KContiguous) {
    // 8-row groups 1024 bytes apart; a k step of 16 elements is 32 bytes along the swizzled row.
    return arch::wgmma_descriptor(tile + row0 * 128 + kk * 32, 16, 1024, arch::WgmmaSwizzle::b128);
  } else {
    // Blocks of 64 rows 8 KiB apart; a k step of 16 is 16 rows of 128 bytes.
    return arch::wgmma_descriptor(tile + (row0 / 64) * 8192 + kk * 2048, 8192, 1024, arch::WgmmaSwizzle::b128);
  }
}

//! The body of gemm_wgmma_kernel (sm_90a code only: elsewhere its wgmma instructions trap).
template <class T, bool AKContiguous, bool BKContiguous>
TILECRAFT_DEVICE void gemm_wgmma_tile(const T* __restrict__ a, std::int64_t lda, const T* __restrict__ b,
                                      std::int64_t ldb, float* __restrict__ c, std::int64_t ldc, std::int64_t m,
                                      std::int64_t n, std::int64_t k, float alpha, float beta) {
  using S = WgmmaGemmShape;
  extern __shared__ unsigned char wgmma_smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(wgmma_smem_raw) + 1023) &
                                                         ~std::uintptr_t{1023});
  // The tile: groups of group_m tile rows walk N together, so a wave of blocks shares B's panels in L2.
  const std::int64_t tiles_m = (m + S::tile_m - 1) / S::tile_m;
  const std::int64_t tiles_n = (n + S::tile_n - 1) / S::tile_n;
  const std::int64_t t = blockIdx.x;
  const std::int64_t per_group = S::group_m * tiles_n;
  const std::int64_t group = t / per_group;
  const std::int64_t rows_in = tiles_m - group * S::group_m < S::group_m ? tiles_m - group * S::group_m : S::group_m;
  const std::int64_t m0 = (group * S::group_m + (t % per_group) % rows_in) * S::tile_m;
  const std::int64_t n0 = ((t % per_group) / rows_in) * S::tile_n;
  const int ktiles = static_cast<int>((k + S::tile_k - 1) / S::tile_k);
  const bool rows_inside = m0 + S::tile_m <= m && n0 + S::tile_n <= n;

  WgmmaFill<S::tile_m, AKContiguous, T> fill_a(a, lda, m0);
  WgmmaFill<S::tile_n, BKContiguous, T> fill_b(b, ldb, n0);
  auto load = [&](int kt) {  // stages in order: each fill advances its pointer by one stage
    unsigned char* sa = smem + (kt % S::stages) * S::stage_bytes;
    const std::int64_t k0 = std::int64_t{kt} * S::tile_k;
    const bool interior = rows_inside && k0 + S::tile_k <= k;
    fill_a.load(sa, k0, m, k, interior);
    fill_b.load(sa + S::a_bytes, k0, n, k, interior);
  };

  float acc[S::tile_n / 2];
#pragma unroll
  for (int i = 0; i < S::tile_n / 2; ++i) acc[i] = 0.0f;
  const int wg = static_cast<int>(threadIdx.x) / 128;

  // Stages kt + 1 and kt + 2 load while the tensor cores read stage kt and finish kt - 1.
#pragma unroll
  for (int s = 0; s < S::stages - 2; ++s) {
    if (s < ktiles) load(s);
    arch::cp_async_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    arch::cp_async_wait<S::stages - 3>();
    arch::fence_proxy_async_shared();  // the cp.async writes, visible to the tensor cores
    __syncthreads();                   // ... of every thread; and every warpgroup is done with kt - 2
    if (kt + S::stages - 2 < ktiles) load(kt + S::stages - 2);
    arch::cp_async_commit();
    const unsigned char* sa = smem + (kt % S::stages) * S::stage_bytes;
    arch::wgmma_fence_operand(acc);
    arch::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < S::tile_k / 16; ++kk) {
      arch::wgmma_async<S::tile_n, T, !AKContiguous, !BKContiguous>(
          acc, wgmma_operand_descriptor<AKContiguous>(sa, wg * 64, kk),
          wgmma_operand_descriptor<BKContiguous>(sa + S::a_bytes, 0, kk), 1u);
    }
    arch::wgmma_commit();
    arch::wgmma_wait<1>();
    arch::wgmma_fence_operand(acc);
  }
  arch::wgmma_wait<0>();
  arch::wgmma_fence_operand(acc);

  // Epilogue: warp w of the warpgroup holds rows 16 w + g and 16 w + g + 8, columns 8 j + 2 t
  // and 8 j + 2 t + 1 (arch/wgmma.cuh).
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = (static_cast<int>(threadIdx.x) % 128) / 32;
  const std::int64_t row_base = m0 + wg * 64 + warp * 16 + lane / 4;
  const bool read_c = beta != 0.0f;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const std::int64_t row = row_base + half * 8;
    if (row >= m) continue;
    float* c_row = c + row * ldc;
#pragma unroll
    for (int j = 0; j < S::tile_n / 8; ++j) {
      const std::int64_t col = n0 + 8 * j + 2 * (lane % 4);
      float v0 = alpha * acc[4 * j + 2 * half], v1 = alpha * acc[4 * j + 2 * half + 1];
      if (col + 1 < n && (reinterpret_cast<std::uintptr_t>(c_row + col) & 7) == 0) {
        float2* p = reinterpret_cast<float2*>(c_row + col);
        if (read_c) {
          const float2 old = *p;
          v0 += beta * old.x;
          v1 += beta * old.y;
        }
        *p = make_float2(v0, v1);
      } else {
        if (col < n) c_row[col] = read_c ? v0 + beta * c_row[col] : v0;
        if (col + 1 < n) c_row[col + 1] = read_c ? v1 + beta * c_row[col + 1] : v1;
      }
    }
  }
}

//! C (m x n, row-major, ldc) = alpha * A B + beta * C on the row-major form: A m x k
//! (AKContiguous: a[r * lda + kk], else a[kk * lda + r]), B' = B^T n x k (BKContiguous:
//! b[c * ldb + kk], else b[kk * ldb + c]). One 128 x 256 tile per block, tiles in groups of
//! WgmmaGemmShape::group_m rows. A and B 16-byte aligned with lda and ldb multiples of 8; k == 0
//! gives C = beta * C. Launch: WgmmaGemmShape::threads threads, smem_bytes of dynamic shared
//! memory, one block per tile. Traps where the device code has no wgmma (the dispatch never
//! launches it there).
template <class T, bool AKContiguous, bool BKContiguous>
__global__ void __launch_bounds__(WgmmaGemmShape::threads, 1)
    gemm_wgmma_kernel(const T* __restrict__ a, std::int64_t lda, const T* __restrict__ b, std::int64_t ldb,
                      float* __restrict__ c, std::int64_t ldc, std::int64_t m, std::int64_t n, std::int64_t k,
                      float alpha, float beta) {
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a,
                    (gemm_wgmma_tile<T, AKContiguous, BKContiguous>(a, lda, b, ldb, c, ldc, m, n, k, alpha, beta);),
                    ((void)a; (void)lda; (void)b; (void)ldb; (void)c; (void)ldc; (void)m; (void)n; (void)k; (void)alpha;
                     (void)beta; __trap();))
}

//! The mma.sync configuration of the other path: 4 warps of 64 x 64, a K step of 32 in 3
//! stages (benchmarks/TUNING.md, "Tensor cores for 16-bit operands").
template <class T>
using Mma16GemmConfig = TiledGemm<128, 128, RegBlock<16, 8>, 32, 4, 3, T>;

//! The same product as gemm_wgmma_kernel through tiled_gemm (GemmMath::mma16), any alignment
//! of the 16-bit operands: one 128 x 128 tile per block, tiles in row order (blockIdx.x).
template <class G, Order OA, Order OB>
__global__ void __launch_bounds__(G::threads)
    gemm_mma16_kernel(MatrixRef<const typename G::element_type, OA> a, MatrixRef<const typename G::element_type, OB> b,
                      MatrixRef<float> c, float alpha, float beta) {
  extern __shared__ __align__(16) unsigned char mma16_smem[];
  auto& storage = *reinterpret_cast<typename G::TempStorage*>(mma16_smem);
  const std::int64_t tiles_n = (c.cols + G::shape::tile_n - 1) / G::shape::tile_n;
  const std::int64_t t = blockIdx.x;
  tiled_gemm(storage, a, b, c, (t / tiles_n) * G::shape::tile_m, (t % tiles_n) * G::shape::tile_n,
             BasicLinearCombination<float>{alpha, beta});
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
