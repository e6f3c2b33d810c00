//! \file device/detail/gemm_wgmma_kernels.cuh
//! The tensor-core kernels of tilecraft::gemm (16-bit operands with float C; float operands in
//! GemmMath::tf32 / tf32x3):
//!   - gemm_wgmma_tma_kernel: Hopper's warpgroup MMA (sm_90a). A block of 2 warpgroups computes
//!     a 128 x 256 tile of C (TF32x3: 128 x 128; smaller products: 128 x 192, 128 x 168,
//!     128 x 144, 128 x 128, or 64 x 128 with one warpgroup), each warpgroup 64 x N with
//!     `wgmma.mma_async.m64nN` straight from shared memory; a producer warp brings the operands
//!     by TMA into a ring of stages of 128 bytes of K a row (48 KiB a stage, 4 stages; TF32x3:
//!     both parts of the split operands, 64 KiB, 3 stages), in the 128-byte swizzle the tensor
//!     cores read conflict-free. A 16-bit operand may be K-contiguous or M- (N-) contiguous in
//!     memory: the copies keep the contiguous dimension in 128-byte rows, and the descriptor
//!     tells wgmma which it is. TF32 reads shared memory K-major only: an M-contiguous float A
//!     goes to wgmma from registers instead (the dispatch computes a row-major NN product as
//!     C^T = B^T A^T so, and a row-major TT product as it is; it packs every other operand that
//!     is not K-contiguous). A row-major NN
//!     product of 16-bit operands may run as its transpose too (A as wgmma's K-contiguous B),
//!     the tile of C then stored transposed through shared memory.
//!     Persistent (one block per SM): whole tiles first, then, as the plan says, the last
//!     wave's tiles in K slices (summed by gemm_wgmma_slices_reduce_kernel) or stream-K (their
//!     K steps shared out evenly; partial sums added in a fixed order by the block that holds
//!     a tile's last steps, which waits only for blocks before it): see WgmmaPlan.
//!   - gemm_tensor_fallback_kernel: the same product on every other GPU (and for 16-bit operands
//!     that are not 16-byte aligned), one tile of the block-level tiled_gemm (mma.sync) per block.
//! Both take the problem in its row-major form (C row-major, m x n; see GemmProblem) and
//! compute C = alpha * A B + beta * C with BLAS's rule for beta == 0 (C is not read).
#pragma once

#include <cstdint>
#include <type_traits>

#include <nv/target>

#include "../../arch/griddepcontrol.cuh"
#include "../../arch/mbarrier.cuh"
#include "../../arch/smem_address.cuh"
#include "../../arch/sync_flag.cuh"
#include "../../arch/tma.cuh"
#include "../../arch/wgmma.cuh"
#include "../../config.cuh"
#include "../../gemm/epilogue.cuh"
#include "../../gemm/tiled_gemm.cuh"
#include "../../memory/matrix_ref.cuh"
#include "gemm_plan.cuh"

namespace tilecraft::detail {

//! The shape of gemm_wgmma_tma_kernel on T operands (not tunable: the swizzle and the
//! descriptors are written for it). A stage holds 128 bytes of K a row (64
//! elements of a 16-bit type, 32 floats): one 128-byte swizzle row. `Split` (TF32x3): every
//! operand comes as a big and a small part and a stage holds both. Each stage's big x big
//! products run from zero and FP32 adds fold them into the result; the cross terms accumulate
//! in a set of their own. Three sets of accumulators: a warpgroup holds 64 x 128 of C (192
//! floats a thread) instead of 64 x 256. TileN (not Split): 256, or 192, 128 and 64 for products
//! whose wide tiles would leave most of the SMs idle (wgmma_tile_width; 1536^3: 96 tiles of
//! 128 x 192 for 132 SMs instead of 72 of 128 x 256), with deeper rings (a stage holds fewer
//! bytes and the warpgroups read it sooner); 16-bit operands also 168 and 144, which fill the
//! SMs' waves where no multiple of 64 does (1536^3: 132 tiles of 128 x 144), for a K-contiguous
//! B only (gemm_wgmma_tma_kernel's BKContiguous: whole boxes of 64 columns are the only way an
//! N-contiguous one arrives, and wgmma read such a B of 144 or 168 columns 1.3 to 1.7x slower).
//! TileM: 128 (two computing warpgroups), or 64 (one; not Split): for a tile of 8192 elements,
//! 64 x 128 with one warpgroup's m64n128 products runs a K step 12% faster on the H200 than
//! 128 x 64 with two warpgroups' m64n64 ones, which read 32 KiB of shared memory a step against
//! 24 (benchmarks/TUNING.md, "Small tiles").
template <class T, bool Split = false, int TileN = (Split ? 128 : 256), int TileM = 128>
struct WgmmaGemmShape {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "WgmmaGemmShape<T>: T must be a 16-bit type or float");
  static_assert(!Split || sizeof(T) == 4, "WgmmaGemmShape<T, Split>: only float (TF32) operands come split");
  static_assert(TileN == 64 || TileN == 128 || TileN == 192 || TileN == 256 ||
                    ((TileN == 144 || TileN == 168) && sizeof(T) == 2 && !Split),
                "WgmmaGemmShape<T, Split, TileN>: TileN is 64, 128, 192 or 256, or 144 or 168 for 16-bit operands");
  static_assert(!Split || TileN == 128, "WgmmaGemmShape<T, Split, TileN>: TF32x3 tiles are 128 x 128");
  static_assert(TileM == 128 || (TileM == 64 && !Split),
                "WgmmaGemmShape<T, Split, TileN, TileM>: TileM is 128, or 64 (one computing warpgroup, not split)");
  static constexpr int tile_m = TileM;  //!< rows of C a block computes (a warpgroup for each 64)
  static constexpr int tile_n = TileN;  //!< columns of C a block computes (one m64nN product a warpgroup)
  static constexpr int tile_k = 128 / static_cast<int>(sizeof(T));  //!< K a stage holds: one 128-byte row
  static constexpr int parts = Split ? 2 : 1;
  static constexpr int a_bytes = tile_m * 128;  //!< one part of A's stage tile
  //! One part of B's stage tile: whole blocks of 64 rows (an N-contiguous B arrives in boxes of
  //! 64 columns; a K-contiguous one of 144 or 168 rows fills only tile_n x 128 bytes of it).
  static constexpr int b_bytes = (tile_n + 63) / 64 * 64 * 128;
  static constexpr int stage_bytes = parts * (a_bytes + b_bytes);
  //! The shared-memory ring: 192 KiB in at most 8 stages (4 x 48 KiB for 128 x 256, 4 x 40 KiB
  //! for 128 x 192, 6 x 32 KiB for 128 x 128, 8 x 24 KiB for 128 x 64 and 64 x 128).
  static constexpr int stages = Split ? 3 : (196608 / stage_bytes < 8 ? 196608 / stage_bytes : 8);
  //! Product groups left running at the end of a step (Split: the cross terms' group, while
  //! big x big is folded; TF32x3 at 4096^3 measured 89 TFLOP/s with it against 78 without, on
  //! the cp.async kernel this one replaced): the stage before the current one is handed back
  //! once at most this many groups run.
  static constexpr int pending = 1;
  static constexpr int threads = 2 * tile_m;  //!< the warpgroups that compute (one for 64 rows)
  //! The producer warpgroup's registers after setmaxnreg (Split, or a float A from registers;
  //! see kernel_threads).
  static constexpr int producer_registers = 40;
  static constexpr int consumer_registers = 232;  //!< the computing warpgroups' then
  //! The registers a thread gets at launch, for a block of `block_threads` alone on its SM: each
  //! of the SM's 4 quarters holds 16 Ki registers for its share of the warps (warp w runs on
  //! quarter w % 4), in units of 8 a thread; 168 for 288 and 384 threads, as ptxas gives them.
  //! setmaxnreg moves registers between the warpgroups within that allocation: an increase
  //! waits until enough are free, so asking for more than the block holds never returns.
  static constexpr int launch_registers(int block_threads) {
    return 16384 / (32 * ((block_threads / 32 + 3) / 4)) / 8 * 8;
  }
  static_assert(128 * producer_registers + threads * consumer_registers <=
                    (threads + 128) * launch_registers(threads + 128),
                "WgmmaGemmShape: the warpgroups' registers after setmaxnreg must fit the block's allocation");
  //! The threads of gemm_wgmma_tma_kernel<T, AKContiguous, Split> of this shape: the producer
  //! that issues the TMA copies is a warpgroup where it gives registers to the computing ones by
  //! setmaxnreg (a launch of 288 or 384 threads caps ptxas at 168 registers a thread: TF32x3's
  //! three sets of accumulators, 192 floats, and a float A read from registers, 32 floats of
  //! fragments beside the accumulators, need more), else a warp.
  static constexpr int kernel_threads(bool a_k_contiguous) {
    return threads + (Split || (sizeof(T) == 4 && !a_k_contiguous) ? 128 : 32);
  }
  static constexpr int group_m = 8;       //!< tile rows that walk N together (L2 reuse of B)
  static constexpr int max_split_k = 16;  //!< K slices at most (see wgmma_slices_plan)
  //! Dynamic shared memory of a block: the ring plus room to align it to 1024 bytes (the
  //! swizzle pattern's period, which wgmma computes from the address).
  static constexpr int smem_bytes = stages * stage_bytes + 1024;
  //! The epilogue that stores C transposed through shared memory
  //! (wgmma_store_tile_staged_transposed): a warpgroup stages its 64 rows of C' 32 columns at a
  //! time, a column of C' (a row of C) in 64 + 4 floats: the 4 floats of padding put the
  //! accumulators' stores, lanes 4 apart 2 columns apart, on 32 different banks.
  static constexpr int staging_columns = 32;
  static constexpr int staging_stride = 68;
  static constexpr int staging_bytes = (tile_m / 64) * staging_columns * staging_stride * 4;
  //! Dynamic shared memory of gemm_wgmma_tma_kernel: the ring (smem_bytes), and the staging
  //! area after it where the kernel stores C transposed from 16-bit operands.
  static constexpr int kernel_smem_bytes(bool staged_c) { return smem_bytes + (staged_c ? staging_bytes : 0); }
  static_assert(stage_bytes % 1024 == 0 && a_bytes % 1024 == 0, "every tile must start on a 1024-byte boundary");
  static_assert(kernel_smem_bytes(true) + 1024 <= 227 * 1024,
                "WgmmaGemmShape: the ring, the staging area and the barriers must fit an sm_90 block's 227 KiB");
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

//! The shared-memory layout of one operand's stage tile of `Rows` x tile_k (K) elements, in
//! 1024-byte swizzle blocks of 8 rows of 128 bytes with 16-byte chunk c of row q stored at chunk
//! c ^ (q % 8) (what TMA's 128-byte swizzle writes):
//!   - K-contiguous operand: row r of the tile (its 128 bytes of K) is the 128-byte row r;
//!   - otherwise (16-bit types only): block j of 64 rows (r = 64 j ... 64 j + 63) spans 8 KiB,
//!     in which 128-byte row kk holds elements (64 j ... 64 j + 63, kk).
//! The descriptors of a warpgroup's operand in a stage tile laid out as above, from its row `row0`
//! (a multiple of 64): built once for the tile at shared-window address `tile`, `at(units)` is
//! the descriptor of the operand units x 16 bytes further on (arch::wgmma_descriptor_low), so
//! the main loop moves them by adds alone: k step kk is kk x k_step further, the same tile s
//! stages on s x stage_bytes / 16. Only the low half is held in a register.
template <bool KContiguous>
struct WgmmaOperandDescriptor {
  //! K-contiguous: 8-row groups 1024 bytes apart, a k step 32 bytes along the swizzled row;
  //! otherwise blocks of 64 rows 8 KiB apart (the leading offset), a k step of 16 is 16 rows of
  //! 128 bytes.
  static constexpr std::uint32_t high = arch::wgmma_descriptor_high(1024, arch::WgmmaSwizzle::b128);
  static constexpr std::uint32_t k_step = KContiguous ? 32 / 16 : 2048 / 16;
  std::uint32_t low;
  TILECRAFT_DEVICE WgmmaOperandDescriptor(std::uint32_t tile, int row0)
      : low(arch::wgmma_descriptor_low(tile + static_cast<std::uint32_t>(KContiguous ? row0 * 128 : (row0 / 64) * 8192),
                                       KContiguous ? 16 : 8192)) {}
  TILECRAFT_DEVICE std::uint64_t at(std::uint32_t units) const { return (std::uint64_t{high} << 32) | (low + units); }
};

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

//! Where gemm_wgmma_slices_reduce_kernel finds the slices' sums of a tile of C' (the wgmma
//! kernel's product, m x n) and where C is.
enum class WgmmaSlices {
  c,             //!< tiles row-major (tile_m x tile_n); C' is C (row-major, ldc)
  transposed_c,  //!< tiles row-major; C' is C^T, element (r, c) of C' at c[c * ldc + r] (A from registers)
  transposed     //!< tiles transposed (tile_n x tile_m, the staged epilogue's); C' is C^T
};

//! C = alpha * (sum of the K slices' products) + beta * C over `tiles` tiles of shape S from
//! tile0 on, the slices summed in order (the same bits every run): slice s of local tile x is
//! block x + s of tile_m x tile_n floats of `partial` (gemm_wgmma_tma_kernel's slice units), laid
//! out as `layout` says. Block (x, y) sums 1024 elements of local tile x (256 threads, 4
//! elements each, contiguous in the slices and, but for WgmmaSlices::transposed_c, in C); beta 0
//! never reads C. Launch: grid (tiles, tile_m * tile_n / 1024), 256 threads.
template <class S>
__global__ void __launch_bounds__(256)
    gemm_wgmma_slices_reduce_kernel(const float* __restrict__ partial, int slices, std::int64_t tile0,
                                    float* __restrict__ c, std::int64_t ldc, std::int64_t m, std::int64_t n,
                                    float alpha, float beta, WgmmaSlices layout = WgmmaSlices::c) {
  static_assert(S::tile_n % 4 == 0 && S::tile_m % 4 == 0 && S::tile_m * S::tile_n % 1024 == 0,
                "whole 1024-element chunks of a tile");
  constexpr std::int64_t tile_elems = std::int64_t{S::tile_m} * S::tile_n;
  const std::int64_t tiles = gridDim.x;
  std::int64_t m0 = 0, n0 = 0;
  wgmma_tile_origin<S>(tile0 + blockIdx.x, m, n, m0, n0);
  const int e = static_cast<int>(blockIdx.y * 1024 + threadIdx.x * 4);
  // A stored tile's lines: rows of C' (tile_n long) or, transposed, its columns (tile_m long).
  const bool by_columns = layout == WgmmaSlices::transposed;
  const int line = by_columns ? S::tile_m : S::tile_n;
  const std::int64_t row = m0 + (by_columns ? e % line : e / line), col = n0 + (by_columns ? e / line : e % line);
  if (row >= m || col >= n) return;
  const std::int64_t left = by_columns ? m - row : n - col;  // elements of C' on the line from here
  const float* p = partial + blockIdx.x * tile_elems + e;
  float v[4];
  if (left >= 4) {
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
    // Past C's last row or column the slices hold nothing (the kernel writes inside C only).
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      v[i] = i < left ? p[i] : 0.0f;
      for (int s = 1; s < slices && i < left; ++s) v[i] += p[s * tiles * tile_elems + i];
    }
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if (i >= left) continue;
    float* p = layout == WgmmaSlices::c              ? c + row * ldc + col + i
               : layout == WgmmaSlices::transposed_c ? c + (col + i) * ldc + row
                                                     : c + col * ldc + row + i;
    *p = beta != 0.0f ? alpha * v[i] + beta * *p : alpha * v[i];
  }
}

//! The epilogue of the wgmma kernels: C = alpha * acc + beta * C (beta == 0: C not read) for
//! the tile at (m0, n0) of C (m x n), whose element (m0, n0) is at c_tile (ldc apart), from the
//! accumulators of the calling thread of the computing warpgroups (threads 0 ... S::threads - 1):
//! warp w of warpgroup wg holds rows 64 wg + 16 w + g and + 8, columns 8 j + 2 t and + 1
//! (arch/wgmma.cuh). Pairs go out as 8-byte stores where C allows.
template <class S, bool PairedRows = false>
TILECRAFT_DEVICE void wgmma_store_tile(const float (&acc)[S::tile_n / 2], float* c_tile, std::int64_t ldc,
                                       std::int64_t m0, std::int64_t n0, std::int64_t m, std::int64_t n, float alpha,
                                       float beta) {
  const int wg = static_cast<int>(threadIdx.x) / 128;
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = (static_cast<int>(threadIdx.x) % 128) / 32;
  // PairedRows (A from registers, wgmma_load_a_fragment): a thread's rows g and g + 8 are the
  // tile's rows 2 g and 2 g + 1.
  const std::int64_t row_base = m0 + wg * 64 + warp * 16 + (PairedRows ? 2 * (lane / 4) : lane / 4);
  const bool read_c = beta != 0.0f;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const std::int64_t row = row_base + (PairedRows ? half : half * 8);
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

//! The epilogue of the wgmma kernel whose A comes from registers (wgmma_load_a_fragment): the
//! tile at (m0, n0) of C' (m x n) is stored transposed, C'(r, c) at c_t[c * ldc + r] (c_t: the
//! caller's C, n x m, whose transpose C' is), alpha and beta applied as in wgmma_store_tile. A
//! thread's rows come in pairs (2 g, 2 g + 1: adjacent in a row of C), stored as 8-byte pairs
//! where C allows: a warp's store covers 64 contiguous bytes in each of 4 rows of C.
template <class S>
TILECRAFT_DEVICE void wgmma_store_tile_transposed(const float (&acc)[S::tile_n / 2], float* c_t, std::int64_t ldc,
                                                  std::int64_t m0, std::int64_t n0, std::int64_t m, std::int64_t n,
                                                  float alpha, float beta) {
  const int wg = static_cast<int>(threadIdx.x) / 128;
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = (static_cast<int>(threadIdx.x) % 128) / 32;
  const std::int64_t row = m0 + wg * 64 + warp * 16 + 2 * (lane / 4);
  if (row >= m) return;
  const bool read_c = beta != 0.0f;
#pragma unroll
  for (int j = 0; j < S::tile_n / 8; ++j) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const std::int64_t col = n0 + 8 * j + 2 * (lane % 4) + e;
      if (col >= n) continue;
      float* p = c_t + col * ldc + row;
      float v0 = alpha * acc[4 * j + e], v1 = alpha * acc[4 * j + 2 + e];
      if (row + 1 < m && (reinterpret_cast<std::uintptr_t>(p) & 7) == 0) {
        if (read_c) {
          const float2 old = *reinterpret_cast<const float2*>(p);
          v0 += beta * old.x;
          v1 += beta * old.y;
        }
        *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
      } else {
        p[0] = read_c ? v0 + beta * p[0] : v0;
        if (row + 1 < m) p[1] = read_c ? v1 + beta * p[1] : v1;
      }
    }
  }
}

//! The epilogue of the wgmma kernel that computes C' = C^T (16-bit operands; the dispatch runs a
//! row-major NN product so, its K-contiguous A as wgmma's B): the tile at (m0, n0) of C' (m x n)
//! is stored transposed, C'(r, c) at c_tile[(c - n0) * ldc + r - m0], alpha and beta applied as
//! in wgmma_store_tile. Each warpgroup stages its 64 rows of C' through `staging` (its part:
//! S::staging_columns columns of C', a column S::staging_stride floats apart), then writes them
//! as rows of C: 16 lanes give 256 contiguous bytes of one row of C in 16-byte stores, where the
//! accumulators' own layout would give 8 rows 32 bytes each. A warpgroup's threads meet at named
//! barrier 2 + wg twice a chunk of columns (the chunk is read before it is overwritten).
template <class S>
TILECRAFT_DEVICE void wgmma_store_tile_staged_transposed(const float (&acc)[S::tile_n / 2], float* staging,
                                                         float* c_tile, std::int64_t ldc, std::int64_t m0,
                                                         std::int64_t n0, std::int64_t m, std::int64_t n, float alpha,
                                                         float beta) {
  constexpr int chunk = S::staging_columns, stride = S::staging_stride;
  static_assert(chunk % 8 == 0 && stride % 4 == 0 && stride >= 64, "whole column groups, 16-byte rows of 64 floats");
  static_assert(stride % 32 == 4, "lanes 4 apart write columns 2 apart: 8 banks apart, when stride % 32 == 4");
  const int wg = static_cast<int>(threadIdx.x) / 128, t = static_cast<int>(threadIdx.x) % 128;
  const int lane = t % 32, warp = t / 32;
  const std::int64_t r0 = m0 + 64 * wg;  // the warpgroup's first row of C'
  if (r0 >= m) return;                   // the whole warpgroup: its barrier is its own
  float* buf = staging + wg * chunk * stride;
  const unsigned barrier = 2u + static_cast<unsigned>(wg);
  // Writes: the accumulator of (row 16 warp + g (+ 8), column 8 j + 2 q (+ 1)) to
  // buf[column * stride + row]: lanes g, q of a store fall on bank 8 q + g (+ a constant).
  const int row_in = 16 * warp + lane / 4, col_in = 2 * (lane % 4);
  // Reads: 16 threads a column of the chunk, 4 rows of C' (4 contiguous floats of a row of C)
  // each.
  const int r_in = 64 * wg + 4 * (t % 16);
  const std::int64_t r = m0 + r_in;
  const bool read_c = beta != 0.0f;
#pragma unroll
  for (int c0 = 0; c0 < S::tile_n; c0 += chunk) {
#pragma unroll
    for (int jj = 0; jj < chunk / 8; ++jj) {
      const int j = c0 / 8 + jj;
      if (j >= S::tile_n / 8) break;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        buf[(8 * jj + col_in + e) * stride + row_in] = acc[4 * j + e];
        buf[(8 * jj + col_in + e) * stride + row_in + 8] = acc[4 * j + 2 + e];
      }
    }
    arch::named_barrier_sync(barrier, 128);
#pragma unroll
    for (int i = 0; i < chunk / 8; ++i) {
      const int cl = t / 16 + 8 * i;  // the chunk's column: a row of C
      if (c0 + 8 * i >= S::tile_n || n0 + c0 + cl >= n) continue;
      const float4 v = *reinterpret_cast<const float4*>(buf + cl * stride + 4 * (t % 16));
      float* p = c_tile + (c0 + cl) * ldc + r_in;
      float out[4] = {alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w};
      if (r + 3 < m && (reinterpret_cast<std::uintptr_t>(p) & 15) == 0) {
        if (read_c) {
          const float4 old = *reinterpret_cast<const float4*>(p);
          out[0] += beta * old.x;
          out[1] += beta * old.y;
          out[2] += beta * old.z;
          out[3] += beta * old.w;
        }
        *reinterpret_cast<float4*>(p) = make_float4(out[0], out[1], out[2], out[3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          if (r + e < m) p[e] = read_c ? out[e] + beta * p[e] : out[e];
        }
      }
    }
    arch::named_barrier_sync(barrier, 128);
  }
}

//! The calling computing thread's wgmma A fragments (arch::wgmma_async_tf32_rs) of the four K
//! steps of a float stage tile (at shared-window address `tile`) of 128 rows x 32 K stored
//! M-contiguous by TMA: 4 boxes of 32 rows 4 KiB apart, 128-byte row kk of box b holding rows
//! 32 b ... 32 b + 31 at K index kk, 16-byte chunk c at chunk c ^ (kk % 8). The warpgroup's
//! logical rows g and g + 8 of a warp's 16 are the tile's rows 2 g and 2 g + 1, so that each
//! pair is one 8-byte load (the epilogue stores them so: wgmma_store_tile_transposed,
//! wgmma_store_tile<S, true>); f[4 kk ... 4 kk + 3] is K step kk's fragment. 8 loads; a warp's
//! load touches 4 rows of 64 bytes (2-way conflicts).
TILECRAFT_DEVICE void wgmma_load_a_fragment(std::uint32_t tile, float (&f)[16]) {
  const int wg = static_cast<int>(threadIdx.x) / 128, t = static_cast<int>(threadIdx.x) % 128;
  const int row = 64 * wg + 16 * (t / 32) + 2 * ((t % 32) / 4);  // the tile's row of logical row g
  const int q = t % 4, chunk = (row % 32) / 4;
  const std::uint32_t base = tile + static_cast<std::uint32_t>((row / 32) * 4096 + (row % 4) * 4);
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int k = 8 * kk + q + 4 * h;
      asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];"
                   : "=f"(f[4 * kk + 2 * h]), "=f"(f[4 * kk + 2 * h + 1])
                   : "r"(base + static_cast<std::uint32_t>(k * 128 + ((chunk ^ (k & 7)) << 4)))
                   : "memory");
    }
  }
}

//! Issues the TMA copies of one operand's stage tile (`Rows` x tile_k, laid out as above, at
//! shared-window address `dst`) whose K rows start at `kc` and rows (of the non-K side) at
//! `row0`, through `map` (see gemm_wgmma_tma_kernel), completing on the mbarrier at shared-window
//! address `bar`: K-contiguous, one box of tile_k x Rows; otherwise
//! Rows / Box boxes (rounded up) of Box x tile_k (Box = 128 bytes of elements: 64 of a 16-bit
//! type, 8 KiB apart; 32 floats, 4 KiB apart, read by wgmma_load_a_fragment).
template <int Rows, bool KContiguous, int Box = 64>
TILECRAFT_DEVICE void tma_load_operand(std::uint32_t dst, const CUtensorMap* map, std::uint32_t bar, int kc, int row0) {
  if constexpr (KContiguous) {
    arch::tma_load_2d(dst, map, bar, kc, row0);
  } else {
    // A box is tile_k rows (one per element of K in a stage) of 128 bytes, and tile_k is Box
    // too: 128 bytes of elements. Rows not a multiple of Box (144, 168): the last box runs past
    // the tile, and its extra columns go unread.
    constexpr int box_bytes = 128 * Box;
#pragma unroll
    for (int j = 0; j < (Rows + Box - 1) / Box; ++j) {
      arch::tma_load_2d(dst + j * box_bytes, map, bar, row0 + Box * j, kc);
    }
  }
}

//! One unit of gemm_wgmma_tma_kernel's work: the tile of C at (m0, n0) over `ktiles` K steps
//! from K step `kt0`, and what becomes of its sums (WgmmaPlan):
//!   - whole: every K step of the tile; C = alpha * sums + beta * C;
//!   - slice: a K slice of a tile of the last wave: the sums, as a tile_m x tile_n block, to
//!     block `slot` of the partial sums (gemm_wgmma_slices_reduce_kernel adds them);
//!   - partial: a stream-K share's last K steps, which do not end their tile (the tile goes on
//!     in the next blocks' shares): the sums go to the block's slot of partial sums and its flag
//!     is raised;
//!   - owner: a tile's last K steps, begun in the shares of the blocks before this one: their
//!     partial sums are added, nearest block first, then C is stored as for a whole tile.
struct WgmmaUnit {
  enum Kind { whole, slice, partial, owner };
  std::int64_t m0, n0;
  std::int64_t kt0;
  int ktiles;
  Kind kind;
  std::int64_t tile_begin;  //!< owner: the stream-K step of the tile's first one
  std::int64_t slot;        //!< slice: its block of partial sums
};

//! Calls f(unit) for every unit of block b of `plan`, in the order the block computes them:
//! its units b, b + blocks, ... of the round robin (whole tiles, then K slices), then the
//! pieces of its stream-K share, one a tile, from the share's end back to its start: the last
//! piece (partial when it does not end its tile) first, so that its flag is up early, the first
//! (an owner when it ends a tile begun before the share) last. An owner thus waits only for
//! blocks before it, which compute their partial piece first: with lower-indexed blocks started
//! no later than higher ones (as the hardware dispatches a grid; the assumption CUB's look-back
//! and CUTLASS's fixups make too, which CUDA does not promise), no block waits for one that has
//! not started (where other kernels hold SMs, the blocks after an owner need not be resident).
template <class S, class F>
TILECRAFT_DEVICE void for_each_wgmma_unit(const WgmmaPlan& plan, std::int64_t b, std::int64_t m, std::int64_t n,
                                          F&& f) {
  const std::int64_t units = plan.units(), tail = plan.tiles - plan.whole;
  for (std::int64_t u = b; u < units; u += plan.blocks) {
    WgmmaUnit unit{0, 0, 0, static_cast<int>(plan.ktiles), WgmmaUnit::whole, 0, 0};
    std::int64_t tile = u;
    if (u >= plan.whole) {  // slice v / tail of tile whole + v % tail
      const std::int64_t v = u - plan.whole;
      tile = plan.whole + v % tail;
      unit.kt0 = (v / tail) * plan.slice_steps;
      unit.ktiles =
          static_cast<int>(plan.ktiles - unit.kt0 < plan.slice_steps ? plan.ktiles - unit.kt0 : plan.slice_steps);
      unit.kind = WgmmaUnit::slice;
      unit.slot = v;
    }
    wgmma_tile_origin<S>(tile, m, n, unit.m0, unit.n0);
    f(unit);
  }
  if (!plan.stream_k()) return;
  const std::int64_t begin = wgmma_stream_k_begin(plan, b);
  for (std::int64_t i = wgmma_stream_k_begin(plan, b + 1); i > begin;) {
    // The piece ending at stream-K step i: from the later of its tile's first step and the
    // share's start.
    const std::int64_t tile_begin = (i - 1) / plan.ktiles * plan.ktiles;
    const std::int64_t i0 = tile_begin > begin ? tile_begin : begin;
    const std::int64_t kt0 = i0 - tile_begin, kt1 = i - tile_begin;
    WgmmaUnit unit{0,
                   0,
                   kt0,
                   static_cast<int>(kt1 - kt0),
                   kt1 < plan.ktiles ? WgmmaUnit::partial
                   : kt0 > 0         ? WgmmaUnit::owner
                                     : WgmmaUnit::whole,
                   tile_begin,
                   0};
    wgmma_tile_origin<S>(plan.whole + tile_begin / plan.ktiles, m, n, unit.m0, unit.n0);
    f(unit);
    i = i0;
  }
}

//! A block's slot of stream-K partial sums: a tile of floats, thread t's accumulators
//! (acc[4 q ... 4 q + 3] at float4 q x S::threads + t), so that a warp's 16-byte stores and loads
//! cover 512 contiguous bytes.
template <class S>
TILECRAFT_DEVICE void wgmma_store_partial(const float (&acc)[S::tile_n / 2], float* slot) {
  float4* p = reinterpret_cast<float4*>(slot) + threadIdx.x;
#pragma unroll
  for (int q = 0; q < S::tile_n / 8; ++q) {
    p[q * S::threads] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
  }
}

//! Adds a block's slot of stream-K partial sums (wgmma_store_partial's layout) to the calling
//! thread's accumulators.
template <class S>
TILECRAFT_DEVICE void wgmma_add_partial(float (&acc)[S::tile_n / 2], const float* slot) {
  const float4* p = reinterpret_cast<const float4*>(slot) + threadIdx.x;
#pragma unroll
  for (int q = 0; q < S::tile_n / 8; ++q) {
    const float4 x = p[q * S::threads];
    acc[4 * q] += x.x;
    acc[4 * q + 1] += x.y;
    acc[4 * q + 2] += x.z;
    acc[4 * q + 3] += x.w;
  }
}

//! Clears the stream-K flags of gemm_wgmma_tma_kernel of shape S (one a block) and lets that
//! kernel, launched as its programmatic dependent, start at once: it waits for this grid
//! (arch::wait_for_dependencies) before it raises or reads a flag. Launch: one block of 256.
template <class S>
__global__ void __launch_bounds__(256) gemm_stream_k_reset_kernel(unsigned* flags, int count) {
  arch::launch_dependents();
  for (int i = static_cast<int>(threadIdx.x); i < count; i += 256) flags[i] = 0u;
}

//! The operands of gemm_wgmma_tma_kernel: the tensor maps of A and B (and, Split, of their
//! small parts, same shapes and layouts).
struct WgmmaTmaOperands {
  CUtensorMap a;
  CUtensorMap b;
  CUtensorMap a_small;  // Split only
  CUtensorMap b_small;  // Split only
  //! Nonzero where the kernel is launched as a programmatic dependent of the kernel that wrote
  //! its operands (a copy into aligned rows): the producer waits for that grid before its
  //! first copy (griddepcontrol.wait), the block's set-up overlapping the copy's last blocks.
  int wait_for_operands;
};

//! The body of gemm_wgmma_tma_kernel (sm_90a code only): block blockIdx.x computes its units of
//! `plan` (for_each_wgmma_unit).
template <class T, bool AKContiguous, bool BKContiguous, bool Split, class S, bool TransposedC>
TILECRAFT_DEVICE void gemm_wgmma_tma_tile(const WgmmaTmaOperands& ops, float* __restrict__ c, std::int64_t ldc,
                                          std::int64_t m, std::int64_t n, float alpha, float beta,
                                          const WgmmaPlan& plan, float* __restrict__ partial,
                                          unsigned* __restrict__ flags) {
  static_assert(S::tile_m <= 256 && S::tile_n <= 256 && S::tile_m % 64 == 0 && S::tile_n % 8 == 0,
                "gemm_wgmma_tma_kernel: a TMA box spans at most 256 rows, and 64-row blocks of A");
  static_assert(S::tile_n % 64 == 0 || BKContiguous,
                "gemm_wgmma_tma_kernel: tiles of 144 or 168 columns take a K-contiguous B only");
  static_assert(!Split || (AKContiguous && BKContiguous),
                "gemm_wgmma_tma_kernel: split (TF32x3) operands are K-contiguous");
  extern __shared__ unsigned char wgmma_smem_raw[];
  // The ring's shared-window address, aligned to 1024 bytes (the window's base is aligned far
  // more). The loops below address the ring, its barriers and the descriptors by 32-bit shared
  // addresses and adds. From a generic pointer the compiler re-derived them at every K step (a
  // read of the shared window's base, masks and shifts for each descriptor): about 90
  // instructions a warp between one step's products and the next, against 30 now, and 64 x 128
  // tiles' K step 4 to 10% faster on the H200 (benchmarks/TUNING.md, "The main loop's
  // instructions").
  const std::uint32_t ring = (arch::smem_address(wgmma_smem_raw) + 1023u) & ~1023u;
  // full[s]: stage s holds its bytes (the producer's arrival and the copies' transaction
  // bytes); empty[s]: every computing thread is done reading it.
  // A float A that is not K-contiguous goes to wgmma from registers: TF32 wgmma reads shared
  // memory K-major only, registers in any order. That A is the B^T of C^T = B^T A^T, which the
  // dispatch computes for a row-major NN product, the tile then stored transposed; or an
  // M-contiguous A itself (row-major TT), the tile stored as it is.
  constexpr bool a_regs = std::is_same_v<T, float> && !AKContiguous;
  static_assert(!a_regs || (BKContiguous && !Split),
                "gemm_wgmma_tma_kernel: a float A from registers needs a K-contiguous B, not split");
  static_assert(!TransposedC || a_regs || (sizeof(T) == 2 && !Split),
                "gemm_wgmma_tma_kernel: C is stored transposed for a float A from registers, or through shared "
                "memory from 16-bit operands");
  constexpr bool staged_c = TransposedC && !a_regs;
  // The staging area of wgmma_store_tile_staged_transposed, after the ring.
  auto staging = [&] {
    return reinterpret_cast<float*>(wgmma_smem_raw + (ring - arch::smem_address(wgmma_smem_raw)) +
                                    S::stages * S::stage_bytes);
  };
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
  const std::uint32_t full0 = arch::smem_address(&full[0]), empty0 = arch::smem_address(&empty[0]);

  // A stage: A's part(s), then B's: [A | B] or, split, [A big | A small | B big | B small].
  constexpr int b_at = S::parts * S::a_bytes;
  const std::int64_t b = blockIdx.x;
  // Stages go round the ring in one sequence across a block's units, for the producer and the
  // computing warpgroups alike: use `it` of the ring is slot it % stages in round it / stages
  // (unsigned: a power-of-two ring takes a mask and a shift, and no register holds more).
  unsigned it = 0;
  auto slot_of = [](unsigned i) { return i % static_cast<unsigned>(S::stages); };
  auto phase_of = [](unsigned i) { return (i / static_cast<unsigned>(S::stages)) & 1u; };

  // The bytes a stage's copies bring: B's part is tile_n rows of 128 bytes K-contiguous, or
  // whole boxes of 64 columns (the last one may run past the tile: 144 and 168 columns).
  constexpr int stage_bytes_loaded = S::parts * (S::a_bytes + (BKContiguous ? S::tile_n * 128 : S::b_bytes));
  if (t >= S::threads) {  // the producer: its first lane issues every copy
    if constexpr (Split || a_regs) arch::warpgroup_reg_dealloc<S::producer_registers>();
    if (t == S::threads) {
      if (ops.wait_for_operands != 0) arch::wait_for_dependencies();
      for_each_wgmma_unit<S>(plan, b, m, n, [&](const WgmmaUnit& unit) {
        for (int kt = 0; kt < unit.ktiles; ++kt, ++it) {
          const unsigned slot = slot_of(it);
          const std::uint32_t f = full0 + 8u * slot;
          if (it >= S::stages) arch::mbarrier_wait(empty0 + 8u * slot, phase_of(it) ^ 1u);
          const std::uint32_t st = ring + slot * S::stage_bytes;
          arch::mbarrier_arrive_expect_tx(f, stage_bytes_loaded);
          const int kc = static_cast<int>((unit.kt0 + kt) * S::tile_k);
          const int m0 = static_cast<int>(unit.m0), n0 = static_cast<int>(unit.n0);
          tma_load_operand<S::tile_m, AKContiguous, 128 / static_cast<int>(sizeof(T))>(st, &ops.a, f, kc, m0);
          tma_load_operand<S::tile_n, BKContiguous, 128 / static_cast<int>(sizeof(T))>(st + b_at, &ops.b, f, kc, n0);
          if constexpr (Split) {
            tma_load_operand<S::tile_m, true>(st + S::a_bytes, &ops.a_small, f, kc, m0);
            tma_load_operand<S::tile_n, true>(st + b_at + S::b_bytes, &ops.b_small, f, kc, n0);
          }
        }
      });
    }
    return;
  }

  if constexpr (Split || a_regs) arch::warpgroup_reg_alloc<S::consumer_registers>();
  // One computing warpgroup (tile_m 64): a constant, so that its descriptors need no thread index.
  const int wg = S::tile_m == 64 ? 0 : t / 128;
  constexpr int acc_size = S::tile_n / 2;
  constexpr std::int64_t tile_elems = std::int64_t{S::tile_m} * S::tile_n;
  // The computing warpgroups' own barrier (the producer warp does not take part).
  constexpr unsigned consumers_barrier = 1;
  // The descriptors of stage 0's operands (this warpgroup's rows of A); stage s's are s x
  // stage_step further on.
  constexpr std::uint32_t stage_step = S::stage_bytes / 16;
  const WgmmaOperandDescriptor<AKContiguous> a_desc(ring, wg * 64);
  const WgmmaOperandDescriptor<BKContiguous> b_desc(ring + b_at, 0);
  float acc[acc_size];  // Split: the FP32 sum of the stages' big x big products
  // Split: a stage's big x big products, from zero; the cross terms of every stage.
  float big[Split ? acc_size : 1];
  float cross[Split ? acc_size : 1];
  for_each_wgmma_unit<S>(plan, b, m, n, [&](const WgmmaUnit& unit) {
#pragma unroll
    for (int i = 0; i < acc_size; ++i) acc[i] = 0.0f;
    if constexpr (Split) {
#pragma unroll
      for (int i = 0; i < acc_size; ++i) cross[i] = 0.0f;
    }
    if constexpr (a_regs) {
      // Two sets of A fragments: a step's products read its set until they complete, which the
      // next step's wgmma_wait<pending> tells; fencing the other set there keeps the compiler
      // from loading into its registers before.
      float frag_a[16], frag_b[16];
      auto step = [&](float(&cur)[16], float(&prev)[16], int kt) {
        const unsigned slot = slot_of(it);
        arch::mbarrier_wait(full0 + 8u * slot, phase_of(it));
        wgmma_load_a_fragment(ring + slot * S::stage_bytes, cur);
        const std::uint32_t at = slot * stage_step;
        arch::wgmma_fence_operand(acc);
        arch::wgmma_fence_operand(cur);
        arch::wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          arch::wgmma_async_tf32_rs<S::tile_n>(acc, cur + 4 * kk, b_desc.at(at + kk * b_desc.k_step), 1u);
        }
        arch::wgmma_commit();
        arch::wgmma_wait<S::pending>();
        arch::wgmma_fence_operand(acc);
        arch::wgmma_fence_operand(prev);
        if (kt > 0) arch::mbarrier_arrive(empty0 + 8u * slot_of(it - 1));
        ++it;
      };
      int kt = 0;
      for (; kt + 2 <= unit.ktiles; kt += 2) {
        step(frag_a, frag_b, kt);
        step(frag_b, frag_a, kt + 1);
      }
      if (kt < unit.ktiles) step(frag_a, frag_b, kt);
      arch::wgmma_wait<0>();
      arch::wgmma_fence_operand(frag_a);
      arch::wgmma_fence_operand(frag_b);
    } else {
      for (int kt = 0; kt < unit.ktiles; ++kt, ++it) {
        const unsigned slot = slot_of(it);
        arch::mbarrier_wait(full0 + 8u * slot, phase_of(it));
        const std::uint32_t at = slot * stage_step;
        if constexpr (Split) {
          // TF32x3: big x big from zero in a group of its own, folded into FP32 sums while the
          // cross terms' group runs (the tensor cores' own sums truncate).
          constexpr std::uint32_t a_small = S::a_bytes / 16, b_small = S::b_bytes / 16;
          arch::wgmma_fence_operand(big);
          arch::wgmma_fence();
#pragma unroll
          for (int kk = 0; kk < 4; ++kk) {
            arch::wgmma_async<S::tile_n, T, false, false>(big, a_desc.at(at + kk * a_desc.k_step),
                                                          b_desc.at(at + kk * b_desc.k_step), kk > 0 ? 1u : 0u);
          }
          arch::wgmma_commit();
#pragma unroll
          for (int kk = 0; kk < 4; ++kk) {
            const std::uint32_t a_big = at + kk * a_desc.k_step, b_big = at + kk * b_desc.k_step;
            arch::wgmma_async<S::tile_n, T, false, false>(cross, a_desc.at(a_big + a_small), b_desc.at(b_big), 1u);
            arch::wgmma_async<S::tile_n, T, false, false>(cross, a_desc.at(a_big), b_desc.at(b_big + b_small), 1u);
          }
          arch::wgmma_commit();
          // Big x big of this stage and every group before it are complete (groups complete in
          // order): the previous stage, cross terms included, is read.
          arch::wgmma_wait<S::pending>();
          arch::wgmma_fence_operand(big);
#pragma unroll
          for (int i = 0; i < acc_size; ++i) acc[i] += big[i];
        } else {
          arch::wgmma_fence_operand(acc);
          arch::wgmma_fence();
#pragma unroll
          for (int kk = 0; kk < 4; ++kk) {
            arch::wgmma_async<S::tile_n, T, !AKContiguous, !BKContiguous>(acc, a_desc.at(at + kk * a_desc.k_step),
                                                                          b_desc.at(at + kk * b_desc.k_step), 1u);
          }
          arch::wgmma_commit();
          // The previous stage's products are complete once at most this stage's group runs.
          arch::wgmma_wait<S::pending>();
          arch::wgmma_fence_operand(acc);
        }
        if (kt > 0) arch::mbarrier_arrive(empty0 + 8u * slot_of(it - 1));  // hand the previous stage back
      }
    }
    arch::wgmma_wait<0>();
    arch::wgmma_fence_operand(acc);
    // The unit's last stage is read: hand it back, so that the producer fills the next unit's
    // stages while this one's tile is stored.
    if (unit.ktiles > 0) arch::mbarrier_arrive(empty0 + 8u * slot_of(it - 1));
    if constexpr (Split) {
      arch::wgmma_fence_operand(cross);
      // The cross terms count only where finite: with an Inf operand they hold Inf x 0 = NaN
      // (the small part of Inf is NaN), and big x big already holds the Inf, or the NaN that
      // FP32 arithmetic gives there.
#pragma unroll
      for (int i = 0; i < acc_size; ++i) acc[i] += isfinite(cross[i]) ? cross[i] : 0.0f;
    }
    if (unit.kind == WgmmaUnit::slice) {
      // Raw sums (alpha 1, beta 0) for the slices' reduction; staged_c: transposed (tile_n x
      // tile_m), so that the reduction writes rows of C.
      if constexpr (staged_c) {
        wgmma_store_tile_staged_transposed<S>(acc, staging(), partial + unit.slot * tile_elems, S::tile_m, unit.m0,
                                              unit.n0, m, n, 1.0f, 0.0f);
      } else {
        wgmma_store_tile<S, a_regs>(acc, partial + unit.slot * tile_elems, S::tile_n, unit.m0, unit.n0, m, n, 1.0f,
                                    0.0f);
      }
      return;
    }
    if (unit.kind != WgmmaUnit::whole) {
      // Launched as gemm_stream_k_reset_kernel's programmatic dependent: the flags are clear
      // once that grid is done (at once here, long since).
      arch::wait_for_dependencies();
    }
    if (unit.kind == WgmmaUnit::partial) {
      // Part of a tile a later block owns: its sums to this block's slot, then the flag (every
      // computing thread's stores ordered before the release by the barrier).
      wgmma_store_partial<S>(acc, partial + b * tile_elems);
      arch::named_barrier_sync(consumers_barrier, S::threads);
      if (t == 0) arch::store_release(&flags[b], 1u);
      return;
    }
    if (unit.kind == WgmmaUnit::owner) {
      // The tile's earlier K steps are the last pieces of the shares of the blocks before this
      // one (each a partial unit, the first those blocks compute in their shares, so none of
      // them waits for anything): add their sums, nearest block first (a fixed order: the same
      // bits every run).
      for (std::int64_t j = b - 1; j >= 0 && wgmma_stream_k_begin(plan, j + 1) > unit.tile_begin; --j) {
        if (t == 0) {
          while (arch::load_acquire(&flags[j]) == 0u) __nanosleep(32);
        }
        arch::named_barrier_sync(consumers_barrier, S::threads);
        wgmma_add_partial<S>(acc, partial + j * tile_elems);
      }
    }
    if constexpr (a_regs && TransposedC) {
      wgmma_store_tile_transposed<S>(acc, c, ldc, unit.m0, unit.n0, m, n, alpha, beta);
    } else if constexpr (staged_c) {
      wgmma_store_tile_staged_transposed<S>(acc, staging(), c + unit.n0 * ldc + unit.m0, ldc, unit.m0, unit.n0, m, n,
                                            alpha, beta);
    } else {
      wgmma_store_tile<S, a_regs>(acc, c + unit.m0 * ldc + unit.n0, ldc, unit.m0, unit.n0, m, n, alpha, beta);
    }
  });
}

//! C (m x n, row-major, ldc) = alpha * A B + beta * C on the row-major form: A m x k (AKContiguous:
//! element (r, kk) at a[r * lda + kk], else at a[kk * lda + r]), B' = B^T n x k (BKContiguous
//! likewise), given as tensor maps (device/detail/tensor_map.cuh, 128-byte swizzle) of the operands
//! as stored: K-contiguous, `k` x rows in boxes of tile_k x tile_m (A) or tile_k x tile_n (B);
//! otherwise rows x `k` in boxes of 128 bytes of elements x tile_k. T: a 16-bit type, or float
//! (TF32: B K-contiguous, A either, then from registers; Split: TF32x3, the small parts' maps in
//! ops.a_small and ops.b_small, ignored otherwise). TransposedC: `c` holds C transposed (n x m,
//! element (r, c) at c[c * ldc + r]), stored from the accumulators where A comes from registers
//! and staged through shared memory from 16-bit operands (wgmma_store_tile_staged_transposed). plan.ktiles == 0 (k ==
//! 0) gives C = beta * C. Persistent: block b computes its units of `plan` (for_each_wgmma_unit): whole tiles of
//! S::tile_m x S::tile_n straight into C, in groups of WgmmaGemmShape::group_m tile rows; K slices of the last wave's
//! tiles, whose raw sums go to `partial` (a tile of floats a slice of a tile) for gemm_wgmma_slices_reduce_kernel; or
//! its stream-K share, whose pieces of tiles owned by other blocks go to its slot of `partial` (a tile of floats a
//! block) and raise flags[b]. `flags` (plan.blocks words, stream-K only) must be zero when the first block starts, or
//! be cleared by gemm_stream_k_reset_kernel launched just before this kernel, which may then be its programmatic
//! dependent. Launch plan.blocks blocks, at most one per SM (an owner waits only for blocks before it: see
//! for_each_wgmma_unit). The warp after the computing ones (its first lane; Split: warpgroup 2, which gives its
//! registers to the other two) fills a ring of S::stages stages by TMA, each guarded by a full and an empty mbarrier;
//! the computing warpgroups wait on `full`, multiply
//! (`wgmma.mma_async.m64nN` straight from shared memory), and release a stage as soon as its
//! products are done, so no block-wide barrier stands in the main loop and no computing thread
//! issues a copy (benchmarks/TUNING.md: at 4096^3 and 8192^3, 14% and 20% faster than the earlier
//! cp.async kernel). Launch: S::kernel_threads(AKContiguous) threads,
//! S::kernel_smem_bytes(TransposedC && 16-bit T) of dynamic shared memory, grid (at most the SMs). The ring's stages
//! run on across a block's units, so the producer loads the next unit's first stages while the warpgroups store a tile.
//! Traps where the device code has no wgmma (the dispatch never launches it there).
template <class T, bool AKContiguous, bool BKContiguous, bool Split = false, class S = WgmmaGemmShape<T, Split>,
          bool TransposedC = std::is_same_v<T, float> && !AKContiguous>
__global__ void __launch_bounds__(S::kernel_threads(AKContiguous), 1)
    gemm_wgmma_tma_kernel(const __grid_constant__ WgmmaTmaOperands ops, float* __restrict__ c, std::int64_t ldc,
                          std::int64_t m, std::int64_t n, float alpha, float beta, WgmmaPlan plan,
                          float* __restrict__ partial, unsigned* __restrict__ flags) {
  NV_IF_ELSE_TARGET(NV_HAS_FEATURE_SM_90a,
                    (gemm_wgmma_tma_tile<T, AKContiguous, BKContiguous, Split, S, TransposedC>(
                         ops, c, ldc, m, n, alpha, beta, plan, partial, flags);),
                    ((void)ops; (void)c; (void)ldc; (void)m; (void)n; (void)alpha; (void)beta; (void)plan;
                     (void)partial; (void)flags; __trap();))
}

//! The mma.sync configuration of the other path: 4 warps of 64 x 64, a K step of 32 in 3
//! stages (benchmarks/TUNING.md, "Tensor cores for 16-bit operands").
template <class T>
using Mma16GemmConfig = TiledGemm<128, 128, RegBlock<16, 8>, 32, 4, 3, T>;

//! The same product as gemm_wgmma_tma_kernel through tiled_gemm G (GemmMath::mma16 on any alignment
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
  // (Origins >= 0: tiled_gemm without its near-edge code.)
  tiled_gemm_run<G, false>(storage, a, b, c, (t / tiles_n) * G::shape::tile_m, (t % tiles_n) * G::shape::tile_n,
                           BasicLinearCombination<float>{alpha, beta});
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
