//! \file device/detail/gemm_wgmma_kernels.cuh
//! The tensor-core kernels of tilecraft::gemm (16-bit operands with float C; float operands in
//! GemmMath::tf32 / tf32x3):
//!   - gemm_wgmma_kernel: Hopper's warpgroup MMA (sm_90a). A block of 2 warpgroups computes a
//!     128 x 256 tile of C, each warpgroup 64 x 256 with `wgmma.mma_async.m64n256` straight from
//!     shared memory; the operands reach shared memory by `cp.async` in a ring of stages of 128
//!     bytes of K a row (48 KiB a stage; 4 stages, or 2 of both parts of split TF32x3
//!     operands), laid out in the 128-byte swizzle the tensor cores read conflict-free. A 16-bit
//!     operand may be K-contiguous or M- (N-) contiguous in memory: the fill keeps the
//!     contiguous dimension in 128-byte rows, and the descriptor tells wgmma which it is. TF32
//!     operands are K-contiguous (the dispatch packs the others).
//!   - gemm_tensor_fallback_kernel: the same product on every other GPU (and for 16-bit operands
//!     that are not 16-byte aligned), one tile of the block-level tiled_gemm (mma.sync) per block.
//! Both take the problem in its row-major form (C row-major, m x n; see GemmProblem) and
//! compute C = alpha * A B + beta * C with BLAS's rule for beta == 0 (C is not read).
#pragma once

#include <cstdint>

#include <nv/target>

#include "../../arch/cp_async.cuh"
#include "../../arch/mbarrier.cuh"
#include "../../arch/tma.cuh"
#include "../../arch/wgmma.cuh"
#include "../../config.cuh"
#include "../../gemm/epilogue.cuh"
#include "../../gemm/tiled_gemm.cuh"
#include "../../memory/matrix_ref.cuh"

namespace tilecraft::detail {

//! The shape of gemm_wgmma_kernel on T operands (not tunable: the swizzle, the descriptors and
//! the thread mapping of the fill are written for it). A stage holds 128 bytes of K a row (64
//! elements of a 16-bit type, 32 floats): one 128-byte swizzle row. `Split` (TF32x3): every
//! operand comes as a big and a small part and a stage holds both. Each stage's big x big
//! products run from zero and FP32 adds fold them into the result; the cross terms accumulate
//! in a set of their own. Three sets of accumulators: a warpgroup holds 64 x 128 of C (192
//! floats a thread) instead of 64 x 256.
template <class T, bool Split = false>
struct WgmmaGemmShape {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "WgmmaGemmShape<T>: T must be a 16-bit type or float");
  static_assert(!Split || sizeof(T) == 4, "WgmmaGemmShape<T, Split>: only float (TF32) operands come split");
  static constexpr int tile_m = 128;                //!< rows of C a block computes (2 warpgroups of 64)
  static constexpr int tile_n = Split ? 128 : 256;  //!< columns of C a block computes (one m64nN product)
  static constexpr int tile_k = 128 / static_cast<int>(sizeof(T));  //!< K a stage holds: one 128-byte row
  static constexpr int stages = Split ? 3 : 4;                      //!< shared-memory ring
  //! Stages loaded ahead of the one the tensor cores read, and product groups left running at
  //! the end of a step (Split: the cross terms' group, while big x big is folded): a stage is
  //! refilled only once the products that read it are complete. Split has room for 3 stages of
  //! 64 KiB, so it loads one ahead (TF32x3 at 4096^3: 89 TFLOP/s, against 78 with no group
  //! running during the fold and two stages ahead; benchmarks/TUNING.md).
  static constexpr int prefetch = Split ? 1 : 2;
  static constexpr int pending = 1;
  static_assert(prefetch >= 1 && prefetch <= stages - 1 - pending,
                "WgmmaGemmShape: a refilled stage must have no product reading it");
  static constexpr int threads = 256;  //!< the two warpgroups that compute
  //! gemm_wgmma_tma_kernel: the computing warpgroups and one producer warp that issues the TMA
  //! copies.
  static constexpr int tma_threads = threads + 32;
  static constexpr int group_m = 8;       //!< tile rows that walk N together (L2 reuse of B)
  static constexpr int max_split_k = 16;  //!< K slices at most (see wgmma_split_plan)
  static constexpr int parts = Split ? 2 : 1;
  static constexpr int a_bytes = tile_m * 128;  //!< one part of A's stage tile
  static constexpr int b_bytes = tile_n * 128;
  static constexpr int stage_bytes = parts * (a_bytes + b_bytes);
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

//! The fill of one operand's stage tiles of `Rows` x tile_k (K) elements from a row-major form:
//! `KContiguous` (element (r, kk) at src[r * ld + kk]) or not (element (r, kk) at
//! src[kk * ld + r]; 16-bit types only: TF32 operands are K-major). Shared layout, in 1024-byte
//! swizzle blocks of 8 rows of 128 bytes with 16-byte chunk c of row q stored at chunk c ^ (q % 8):
//!   - K-contiguous: row r of the tile (its 128 bytes of K) is the 128-byte row r;
//!   - otherwise: block j of 64 rows (r = 64 j ... 64 j + 63) spans 8 KiB, in which 128-byte
//!     row kk holds elements (64 j ... 64 j + 63, kk).
//! Thread t moves `per_thread` chunks of 16 bytes, i = 0, 1, ...: K-contiguous, row t / 8 + 32 i,
//! chunk t % 8; otherwise K row t / per_row + (256 / per_row) i, chunk t % per_row. Both keep
//! the swizzle's row (mod 8) across i, so a thread's shared offsets and global pointers are a
//! base plus i times a stride, computed once (the fill then costs few registers beside the
//! 128 accumulators). Chunks outside the matrix (rows >= `rows`, K >= `k`) are zero-filled, a
//! chunk across the end of the contiguous side partially. Requires 16-byte aligned `src` and
//! `ld` a multiple of 16 bytes (the dispatch's rule).
template <int Rows, bool KContiguous, class T>
struct WgmmaFill {
  static_assert(KContiguous || sizeof(T) == 2, "WgmmaFill: only 16-bit operands may be M- or N-contiguous");
  static constexpr int threads = 256;
  static constexpr int chunk = 16 / static_cast<int>(sizeof(T));  // elements of a 16-byte chunk
  static constexpr int tile_k = 8 * chunk;                        // elements of a 128-byte row
  static constexpr int per_row = KContiguous ? 8 : Rows / chunk;  // chunks along the contiguous side
  static constexpr int per_thread = Rows * 8 / threads;
  static constexpr int step_rows = threads / per_row;  // rows (K-contiguous) or K rows a step of i moves
  static_assert(Rows * 8 % threads == 0 && step_rows % 8 == 0,
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
      kk = c * chunk;
      ptr = src + row * ld + kk;
      stride = step_rows * ld;
      advance = tile_k;
      smem = q * 128 + ((c ^ (q & 7)) * 16);
    } else {
      row = row0 + c * chunk;
      kk = q;
      ptr = src + kk * ld + row;
      stride = step_rows * ld;
      advance = tile_k * ld;
      smem = (c / 8) * 8192 + q * 128 + (((c % 8) ^ (q & 7)) * 16);
    }
  }

  //! Issues this thread's cp.async for the stage tile at `dst` holding K rows k0 ... k0 +
  //! tile_k - 1 of the matrix `offset` elements after the one the fill was made for (the small
  //! part of a split operand: same shape and leading dimension), each chunk predicated unless
  //! `interior`. next() then moves on to the following stage.
  TILECRAFT_DEVICE void load(unsigned char* dst, std::int64_t k0, std::int64_t rows, std::int64_t k, bool interior,
                             std::int64_t offset = 0) const {
#pragma unroll
    for (int i = 0; i < per_thread; ++i) {
      const T* p = ptr + offset + i * stride;
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
        run = run < 0 ? 0 : (run > chunk ? chunk : run);
        arch::cp_async_cg_zfill<16>(d, run > 0 ? p : base, static_cast<std::uint32_t>(run * sizeof(T)));
      }
    }
  }
  TILECRAFT_DEVICE void next() { ptr += advance; }
};

//! The descriptor of a warpgroup's operand at k step `kk` (0 ... 3: 32 bytes of K each) of a
//! stage tile written by WgmmaFill<Rows, KContiguous, T> at `tile`, from its row `row0` (a
//! multiple of 64).
template <bool KContiguous>
TILECRAFT_DEVICE std::uint64_t wgmma_operand_descriptor(const unsigned char* tile, int row0, int kk) {
  if constexpr (KContiguous) {
    // 8-row groups 1024 bytes apart; a k step is 32 bytes along the swizzled row.
    return arch::wgmma_descriptor(tile + row0 * 128 + kk * 32, 16, 1024, arch::WgmmaSwizzle::b128);
  } else {
    // Blocks of 64 rows 8 KiB apart; a k step of 16 is 16 rows of 128 bytes.
    return arch::wgmma_descriptor(tile + (row0 / 64) * 8192 + kk * 2048, 8192, 1024, arch::WgmmaSwizzle::b128);
  }
}

//! The origin (m0, n0) in C (m x n) of tile t of shape S: groups of group_m tile rows walk N
//! together, so a wave of blocks shares B's panels in L2.
template <class S>
TILECRAFT_HOST_DEVICE void wgmma_tile_origin(std::int64_t t, std::int64_t m, std::int64_t n, std::int64_t& m0,
                                             std::int64_t& n0) {
  const std::int64_t tiles_m = (m + S::tile_m - 1) / S::tile_m;
  const std::int64_t tiles_n = (n + S::tile_n - 1) / S::tile_n;
  const std::int64_t per_group = S::group_m * tiles_n;
  const std::int64_t group = t / per_group;
  const std::int64_t rows_in = tiles_m - group * S::group_m < S::group_m ? tiles_m - group * S::group_m : S::group_m;
  m0 = (group * S::group_m + (t % per_group) % rows_in) * S::tile_m;
  n0 = ((t % per_group) / rows_in) * S::tile_n;
}

//! C = alpha * (sum of the K slices' products) + beta * C over `tiles` tiles of shape S from
//! tile0 on, the slices summed in order (the same bits every run): slice s of local tile x is
//! the tile_m x tile_n block x + s tiles of `partial` (gemm_wgmma_kernel's tile_out). Block
//! (x, y) sums 1024 elements of local tile x (256 threads, 4 consecutive elements each); beta 0
//! never reads C. Launch: grid (tiles, tile_m * tile_n / 1024), 256 threads.
template <class S>
__global__ void __launch_bounds__(256)
    gemm_wgmma_slices_reduce_kernel(const float* __restrict__ partial, int slices, std::int64_t tile0,
                                    float* __restrict__ c, std::int64_t ldc, std::int64_t m, std::int64_t n,
                                    float alpha, float beta) {
  static_assert(S::tile_n % 4 == 0 && S::tile_m * S::tile_n % 1024 == 0, "whole 1024-element chunks of a tile");
  constexpr std::int64_t tile_elems = std::int64_t{S::tile_m} * S::tile_n;
  const std::int64_t tiles = gridDim.x;
  std::int64_t m0 = 0, n0 = 0;
  wgmma_tile_origin<S>(tile0 + blockIdx.x, m, n, m0, n0);
  const int e = static_cast<int>(blockIdx.y * 1024 + threadIdx.x * 4);
  const std::int64_t row = m0 + e / S::tile_n, col = n0 + e % S::tile_n;
  if (row >= m || col >= n) return;
  const float* p = partial + blockIdx.x * tile_elems + e;
  float v[4];
  if (col + 4 <= n) {
    float4 sum = *reinterpret_cast<const float4*>(p);
    for (int s = 1; s < slices; ++s) {
      const float4 x = *reinterpret_cast<const float4*>(p + s * tiles * tile_elems);
      sum.x += x.x;
      sum.y += x.y;
      sum.z += x.z;
      sum.w += x.w;
    }
    v[0] = sum.x;
    v[1] = sum.y;
    v[2] = sum.z;
    v[3] = sum.w;
  } else {
    // Past C's last column the slices hold nothing (the kernel writes inside C only).
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      v[i] = col + i < n ? p[i] : 0.0f;
      for (int s = 1; s < slices && col + i < n; ++s) v[i] += p[s * tiles * tile_elems + i];
    }
  }
  float* c_row = c + row * ldc;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if (col + i < n) c_row[col + i] = beta != 0.0f ? alpha * v[i] + beta * c_row[col + i] : alpha * v[i];
  }
}

//! The epilogue of the wgmma kernels: C = alpha * acc + beta * C (beta == 0: C not read) for
//! the tile at (m0, n0) of C (m x n), whose element (m0, n0) is at c_tile (ldc apart), from the
//! accumulators of the calling thread of the two computing warpgroups (threads 0 ... 255):
//! warp w of warpgroup wg holds rows 64 wg + 16 w + g and + 8, columns 8 j + 2 t and + 1
//! (arch/wgmma.cuh). Pairs go out as 8-byte stores where C allows.
template <class S>
TILECRAFT_DEVICE void wgmma_store_tile(const float (&acc)[S::tile_n / 2], float* c_tile, std::int64_t ldc,
                                       std::int64_t m0, std::int64_t n0, std::int64_t m, std::int64_t n, float alpha,
                                       float beta) {
  const int wg = static_cast<int>(threadIdx.x) / 128;
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = (static_cast<int>(threadIdx.x) % 128) / 32;
  const std::int64_t row_base = m0 + wg * 64 + warp * 16 + lane / 4;
  const bool read_c = beta != 0.0f;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const std::int64_t row = row_base + half * 8;
    if (row >= m) continue;
    float* c_row = c_tile + (row - m0) * ldc - n0;  // (c_row + col: C(row, col))
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

//! Where a block's tile goes: sets (m0, n0), the origin of tile tile0 + blockIdx.x in C, and
//! returns the address of C(m0, n0), or (tile_out != 0) that of the block's tile_m x tile_n
//! tile of workspace (row-major: ldc becomes tile_n), block (x, y) at tile x + y gridDim.x.
template <class S>
TILECRAFT_DEVICE float* wgmma_tile_target(float* c, std::int64_t& ldc, std::int64_t m, std::int64_t n,
                                          std::int64_t tile0, int tile_out, std::int64_t& m0, std::int64_t& n0) {
  wgmma_tile_origin<S>(tile0 + blockIdx.x, m, n, m0, n0);
  if (tile_out == 0) return c + m0 * ldc + n0;
  ldc = S::tile_n;
  return c + (std::int64_t{blockIdx.y} * gridDim.x + blockIdx.x) * (S::tile_m * S::tile_n);
}

//! The body of gemm_wgmma_kernel (sm_90a code only: elsewhere its wgmma instructions trap).
template <class T, bool AKContiguous, bool BKContiguous, bool Split, class S>
TILECRAFT_DEVICE void gemm_wgmma_tile(const T* __restrict__ a, std::int64_t lda, const T* __restrict__ b,
                                      std::int64_t ldb, float* __restrict__ c, std::int64_t ldc, std::int64_t m,
                                      std::int64_t n, std::int64_t k, float alpha, float beta, std::int64_t small_a,
                                      std::int64_t small_b, std::int64_t k_slice, std::int64_t tile0, int tile_out) {
  static_assert(!Split || (AKContiguous && BKContiguous),
                "gemm_wgmma_kernel: split (TF32x3) operands are K-contiguous");
  // K slice blockIdx.y: K steps [k0, k0 + k_slice) of both operands (k0 a multiple of tile_k:
  // the rows stay 16-byte aligned).
  {
    const std::int64_t k0 = std::int64_t{blockIdx.y} * k_slice;
    a += AKContiguous ? k0 : k0 * lda;
    b += BKContiguous ? k0 : k0 * ldb;
    k = k - k0 < k_slice ? k - k0 : k_slice;
  }
  extern __shared__ unsigned char wgmma_smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(wgmma_smem_raw) + 1023) &
                                                         ~std::uintptr_t{1023});
  std::int64_t m0 = 0, n0 = 0;
  float* const c_tile = wgmma_tile_target<S>(c, ldc, m, n, tile0, tile_out, m0, n0);
  const int ktiles = static_cast<int>((k + S::tile_k - 1) / S::tile_k);
  const bool rows_inside = m0 + S::tile_m <= m && n0 + S::tile_n <= n;

  // A stage: A's part(s), then B's: [A | B] or, split, [A big | A small | B big | B small].
  constexpr int b_at = S::parts * S::a_bytes;
  WgmmaFill<S::tile_m, AKContiguous, T> fill_a(a, lda, m0);
  WgmmaFill<S::tile_n, BKContiguous, T> fill_b(b, ldb, n0);
  auto load = [&](int kt) {  // stages in order: each fill advances its pointer by one stage
    unsigned char* sa = smem + (kt % S::stages) * S::stage_bytes;
    const std::int64_t k0 = std::int64_t{kt} * S::tile_k;
    const bool interior = rows_inside && k0 + S::tile_k <= k;
    fill_a.load(sa, k0, m, k, interior);
    fill_b.load(sa + b_at, k0, n, k, interior);
    if constexpr (Split) {
      fill_a.load(sa + S::a_bytes, k0, m, k, interior, small_a);
      fill_b.load(sa + b_at + S::b_bytes, k0, n, k, interior, small_b);
    }
    fill_a.next();
    fill_b.next();
  };

  constexpr int acc_size = S::tile_n / 2;
  float acc[acc_size];  // Split: the FP32 sum of the stages' big x big products
  // Split: a stage's big x big products, from zero; the cross terms of every stage.
  float big[Split ? acc_size : 1];
  float cross[Split ? acc_size : 1];
#pragma unroll
  for (int i = 0; i < acc_size; ++i) acc[i] = 0.0f;
  if constexpr (Split) {
#pragma unroll
    for (int i = 0; i < acc_size; ++i) cross[i] = 0.0f;
  }
  const int wg = static_cast<int>(threadIdx.x) / 128;

  // Stages kt + 1 ... kt + prefetch load while the tensor cores read stage kt (and, with
  // pending = 1, finish kt - 1).
#pragma unroll
  for (int s = 0; s < S::prefetch; ++s) {
    if (s < ktiles) load(s);
    arch::cp_async_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    arch::cp_async_wait<S::prefetch - 1>();
    arch::fence_proxy_async_shared();  // the cp.async writes, visible to the tensor cores
    __syncthreads();                   // ... of every thread; and every warpgroup is done with the stage refilled next
    if (kt + S::prefetch < ktiles) load(kt + S::prefetch);
    arch::cp_async_commit();
    const unsigned char* sa = smem + (kt % S::stages) * S::stage_bytes;
    if constexpr (Split) {
      // TF32x3 (the operands K-contiguous). The tensor cores' own sums truncate, so big x big
      // runs from zero in every stage and FP32 adds (to nearest) fold the stages. The cross
      // terms are 2^-11 of it: their sums run through the whole K in the tensor cores, whose
      // truncation there stays far below FP32's rounding of the result. Big x big first, in
      // its own group: with pending = 1 its fold runs while the cross terms' products do.
      arch::wgmma_fence_operand(big);
      arch::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        arch::wgmma_async<S::tile_n, T, false, false>(big, wgmma_operand_descriptor<true>(sa, wg * 64, kk),
                                                      wgmma_operand_descriptor<true>(sa + b_at, 0, kk),
                                                      kk > 0 ? 1u : 0u);
      }
      arch::wgmma_commit();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const std::uint64_t a_big = wgmma_operand_descriptor<true>(sa, wg * 64, kk);
        const std::uint64_t b_big = wgmma_operand_descriptor<true>(sa + b_at, 0, kk);
        arch::wgmma_async<S::tile_n, T, false, false>(
            cross, wgmma_operand_descriptor<true>(sa + S::a_bytes, wg * 64, kk), b_big, 1u);
        arch::wgmma_async<S::tile_n, T, false, false>(
            cross, a_big, wgmma_operand_descriptor<true>(sa + b_at + S::b_bytes, 0, kk), 1u);
      }
      arch::wgmma_commit();
      arch::wgmma_wait<S::pending>();  // big x big is complete (the groups complete in order)
      arch::wgmma_fence_operand(big);
#pragma unroll
      for (int i = 0; i < acc_size; ++i) acc[i] += big[i];
    } else {
      arch::wgmma_fence_operand(acc);
      arch::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        arch::wgmma_async<S::tile_n, T, !AKContiguous, !BKContiguous>(
            acc, wgmma_operand_descriptor<AKContiguous>(sa, wg * 64, kk),
            wgmma_operand_descriptor<BKContiguous>(sa + b_at, 0, kk), 1u);
      }
      arch::wgmma_commit();
      arch::wgmma_wait<S::pending>();
      arch::wgmma_fence_operand(acc);
    }
  }
  arch::wgmma_wait<0>();
  arch::wgmma_fence_operand(acc);
  if constexpr (Split) {
    arch::wgmma_fence_operand(cross);
    // The cross terms count only where finite: with an Inf operand they hold Inf x 0 = NaN (the
    // small part of Inf is NaN), and big x big already holds the Inf, or the NaN that FP32
    // arithmetic gives there.
#pragma unroll
    for (int i = 0; i < acc_size; ++i) acc[i] += isfinite(cross[i]) ? cross[i] : 0.0f;
  }

  wgmma_store_tile<S>(acc, c_tile, ldc, m0, n0, m, n, alpha, beta);
}

//! C (m x n, row-major, ldc) = alpha * A B + beta * C on the row-major form: A m x k
//! (AKContiguous: a[r * lda + kk], else a[kk * lda + r]), B' = B^T n x k (BKContiguous:
//! b[c * ldb + kk], else b[kk * ldb + c]). T: a 16-bit type, or float (TF32: both operands
//! K-contiguous; Split: TF32x3, the small parts at a + small_a and b + small_b, same shapes and
//! leading dimensions; small_a and small_b are ignored otherwise). One 128 x 256 tile (Split:
//! 128 x 128) per block,
//! tiles in groups of WgmmaGemmShape::group_m rows. A and B 16-byte aligned with lda and ldb
//! multiples of 16 bytes; k == 0 gives C = beta * C. Split K: block (t, s) computes tile t over
//! K [s k_slice, (s + 1) k_slice) (k_slice a multiple of tile_k; a whole K: gridDim.y 1 and
//! k_slice >= k). Block x computes tile tile0 + x (see wgmma_tile_origin); tile_out != 0: its raw
//! product goes to the tile_m x tile_n block x + s gridDim.x of `c` (ldc ignored; alpha 1 and
//! beta 0 expected), for gemm_wgmma_slices_reduce_kernel. Launch: WgmmaGemmShape<T, Split>::threads threads,
//! smem_bytes of dynamic shared memory, grid (tiles, slices). Traps where the device code has
//! no wgmma (the dispatch never launches it there).
template <class T, bool AKContiguous, bool BKContiguous, bool Split = false, class S = WgmmaGemmShape<T, Split>>
__global__ void __launch_bounds__(256, 1)
    gemm_wgmma_kernel(const T* __restrict__ a, std::int64_t lda, const T* __restrict__ b, std::int64_t ldb,
                      float* __restrict__ c, std::int64_t ldc, std::int64_t m, std::int64_t n, std::int64_t k,
                      float alpha, float beta, std::int64_t small_a, std::int64_t small_b, std::int64_t k_slice,
                      std::int64_t tile0, int tile_out) {
  static_assert(S::threads == 256, "gemm_wgmma_kernel's launch bounds are 256 threads");
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a,
                    (gemm_wgmma_tile<T, AKContiguous, BKContiguous, Split, S>(
                         a, lda, b, ldb, c, ldc, m, n, k, alpha, beta, small_a, small_b, k_slice, tile0, tile_out);),
                    ((void)a; (void)lda; (void)b; (void)ldb; (void)c; (void)ldc; (void)m; (void)n; (void)k; (void)alpha;
                     (void)beta; (void)small_a; (void)small_b; (void)k_slice; (void)tile0; (void)tile_out; __trap();))
}

//! Issues the TMA copies of one operand's stage tile (`Rows` x tile_k, as WgmmaFill lays it
//! out) whose K rows start at `kc` and rows (of the non-K side) at `row0`, through `map` (see
//! gemm_wgmma_tma_kernel), completing on `bar`: K-contiguous, one box of tile_k x Rows; otherwise
//! Rows / 64 boxes of 64 x tile_k, 8 KiB apart.
template <int Rows, bool KContiguous>
TILECRAFT_DEVICE void tma_load_operand(unsigned char* dst, const CUtensorMap* map, std::uint64_t* bar, int kc,
                                       int row0) {
  if constexpr (KContiguous) {
    arch::tma_load_2d(dst, map, bar, kc, row0);
  } else {
#pragma unroll
    for (int j = 0; j < Rows / 64; ++j) arch::tma_load_2d(dst + j * 8192, map, bar, row0 + 64 * j, kc);
  }
}

//! The body of gemm_wgmma_tma_kernel (sm_90a code only).
template <class T, bool AKContiguous, bool BKContiguous, class S>
TILECRAFT_DEVICE void gemm_wgmma_tma_tile(const CUtensorMap& map_a, const CUtensorMap& map_b, float* __restrict__ c,
                                          std::int64_t ldc, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                                          float beta, std::int64_t k_slice, std::int64_t tile0, int tile_out) {
  static_assert(S::tile_m <= 256 && S::tile_n <= 256 && S::tile_m % 64 == 0 && S::tile_n % 64 == 0,
                "gemm_wgmma_tma_kernel: a TMA box spans at most 256 rows, and 64-row blocks");
  extern __shared__ unsigned char wgmma_smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(wgmma_smem_raw) + 1023) &
                                                         ~std::uintptr_t{1023});
  // full[s]: stage s holds its bytes (the producer's arrival and the copies' transaction
  // bytes); empty[s]: every computing thread is done reading it.
  __shared__ std::uint64_t full[S::stages];
  __shared__ std::uint64_t empty[S::stages];
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) {
#pragma unroll
    for (int s = 0; s < S::stages; ++s) {
      arch::mbarrier_init(&full[s], 1);
      arch::mbarrier_init(&empty[s], S::threads);
    }
    arch::mbarrier_init_fence();
  }
  __syncthreads();

  // K slice blockIdx.y: K [k0, k0 + k_slice), k0 a multiple of tile_k, so a slice's last box
  // ends at the next slice's start (or past the end of K, where the copies fill zeros).
  const std::int64_t k0 = std::int64_t{blockIdx.y} * k_slice;
  const std::int64_t k_len = k - k0 < k_slice ? k - k0 : k_slice;
  const int ktiles = k_len > 0 ? static_cast<int>((k_len + S::tile_k - 1) / S::tile_k) : 0;
  std::int64_t m0 = 0, n0 = 0;
  float* const c_tile = wgmma_tile_target<S>(c, ldc, m, n, tile0, tile_out, m0, n0);

  if (t >= S::threads) {  // the producer warp: its first lane issues every copy
    if (t == S::threads) {
      for (int kt = 0; kt < ktiles; ++kt) {
        const int s = kt % S::stages;
        if (kt >= S::stages) arch::mbarrier_wait(&empty[s], ((kt / S::stages) & 1) ^ 1);
        unsigned char* st = smem + s * S::stage_bytes;
        arch::mbarrier_arrive_expect_tx(&full[s], S::stage_bytes);
        const int kc = static_cast<int>(k0 + std::int64_t{kt} * S::tile_k);
        tma_load_operand<S::tile_m, AKContiguous>(st, &map_a, &full[s], kc, static_cast<int>(m0));
        tma_load_operand<S::tile_n, BKContiguous>(st + S::a_bytes, &map_b, &full[s], kc, static_cast<int>(n0));
      }
    }
    return;
  }

  const int wg = t / 128;
  float acc[S::tile_n / 2];
#pragma unroll
  for (int i = 0; i < S::tile_n / 2; ++i) acc[i] = 0.0f;
  for (int kt = 0; kt < ktiles; ++kt) {
    const int s = kt % S::stages;
    arch::mbarrier_wait(&full[s], (kt / S::stages) & 1);
    const unsigned char* sa = smem + s * S::stage_bytes;
    arch::wgmma_fence_operand(acc);
    arch::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      arch::wgmma_async<S::tile_n, T, !AKContiguous, !BKContiguous>(
          acc, wgmma_operand_descriptor<AKContiguous>(sa, wg * 64, kk),
          wgmma_operand_descriptor<BKContiguous>(sa + S::a_bytes, 0, kk), 1u);
    }
    arch::wgmma_commit();
    // Stage kt - 1's products are complete once at most this stage's group runs: hand it back.
    arch::wgmma_wait<S::pending>();
    arch::wgmma_fence_operand(acc);
    if (kt > 0) arch::mbarrier_arrive(&empty[(kt - 1) % S::stages]);
  }
  arch::wgmma_wait<0>();
  arch::wgmma_fence_operand(acc);
  wgmma_store_tile<S>(acc, c_tile, ldc, m0, n0, m, n, alpha, beta);
}

//! gemm_wgmma_kernel's product with the operands brought in by TMA and a producer warp: the
//! same problem, tiles, slices and tile_out (see there), the same shared-memory layout, A and
//! B given as tensor maps (device/detail/tensor_map.cuh) of the row-major form's operands as
//! stored: K-contiguous, `k` x rows in boxes of tile_k x tile_m (A) or tile_k x tile_n (B);
//! otherwise rows x `k` in boxes of 64 x tile_k; 128-byte swizzle. Warp 8 (its first lane)
//! fills a ring of S::stages stages, each guarded by a full and an empty mbarrier; the two
//! warpgroups wait on `full`, multiply, and release a stage as soon as its products are done,
//! so no block-wide barrier stands in the main loop and no computing thread issues a copy
//! (benchmarks/TUNING.md: at 4096^3 and 8192^3, 14% and 20% faster than the cp.async kernel).
//! Launch: S::tma_threads threads, S::smem_bytes of dynamic shared memory, grid (tiles, slices).
//! Traps where the device code has no wgmma.
template <class T, bool AKContiguous, bool BKContiguous, class S = WgmmaGemmShape<T>>
__global__ void __launch_bounds__(S::tma_threads, 1)
    gemm_wgmma_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                          float* __restrict__ c, std::int64_t ldc, std::int64_t m, std::int64_t n, std::int64_t k,
                          float alpha, float beta, std::int64_t k_slice, std::int64_t tile0, int tile_out) {
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a,
                    (gemm_wgmma_tma_tile<T, AKContiguous, BKContiguous, S>(map_a, map_b, c, ldc, m, n, k, alpha, beta,
                                                                           k_slice, tile0, tile_out);),
                    ((void)map_a; (void)map_b; (void)c; (void)ldc; (void)m; (void)n; (void)k; (void)alpha; (void)beta;
                     (void)k_slice; (void)tile0; (void)tile_out; __trap();))
}

//! The mma.sync configuration of the other path: 4 warps of 64 x 64, a K step of 32 in 3
//! stages (benchmarks/TUNING.md, "Tensor cores for 16-bit operands").
template <class T>
using Mma16GemmConfig = TiledGemm<128, 128, RegBlock<16, 8>, 32, 4, 3, T>;

//! The same product as gemm_wgmma_kernel through tiled_gemm G (GemmMath::mma16 on any alignment
//! of the 16-bit operands, GemmMath::tf32 / tf32x3 on float ones): one tile per block, tiles in
//! row order (blockIdx.x).
template <class G, Order OA, Order OB>
__global__ void __launch_bounds__(G::threads)
    gemm_tensor_fallback_kernel(MatrixRef<const typename G::element_type, OA> a,
                                MatrixRef<const typename G::element_type, OB> b, MatrixRef<float> c, float alpha,
                                float beta) {
  extern __shared__ __align__(16) unsigned char tensor_fallback_smem[];
  auto& storage = *reinterpret_cast<typename G::TempStorage*>(tensor_fallback_smem);
  const std::int64_t tiles_n = (c.cols + G::shape::tile_n - 1) / G::shape::tile_n;
  const std::int64_t t = blockIdx.x;
  tiled_gemm(storage, a, b, c, (t / tiles_n) * G::shape::tile_m, (t % tiles_n) * G::shape::tile_n,
             BasicLinearCombination<float>{alpha, beta});
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
