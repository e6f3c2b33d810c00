//! \file device/gemm.cuh
//! Device-wide SIMT GEMM with BLAS semantics for float (FP32 FMAs) and double (FP64 FMAs), built
//! from the block-level tiled_gemm: C = alpha * op(A) * op(B) + beta * C, row- or column-major,
//! any sizes and leading dimensions, on a stream. Its configuration is a GemmPolicy, chosen by
//! shape unless given.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <climits>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <set>
#include <type_traits>
#include <utility>

#include "../config.cuh"
#include "transpose.cuh"
#include "workspace.cuh"
#include "../gemm/epilogue.cuh"
#include "../gemm/tiled_gemm.cuh"
#include "../memory/matrix_ref.cuh"
#include "../util/error.cuh"
#include "../util/launch.cuh"
#include "../util/nvtx.cuh"

namespace tilecraft {

//! What a GEMM operand goes through before the product: itself or its transpose (BLAS's
//! 'N' and 'T').
enum class Op {
  none,      //!< op(X) = X
  transpose  //!< op(X) = X^T
};

//! A device GEMM configuration: the block level's TiledGemm parameters (TM, TN, RegBlockT, TK,
//! LanesM, Stages, and last the element type T, float or double), the occupancy the kernel is
//! compiled for (MinBlocksPerSm: registers are capped so that many blocks fit on an SM), the
//! block order (GroupM consecutive blocks walk down GroupM tile rows before moving to the next
//! tile column, so a wave of blocks shares A and B tiles in L2) and MaxSplitK: when C has fewer
//! tiles than the GPU has block slots, K is split into up to MaxSplitK slices (each at least 256
//! long, and only for products of at least 2^28 multiply-adds) computed by
//! separate blocks into a stream-ordered workspace (device/workspace.cuh), then summed in a fixed
//! order (deterministic) by a second kernel that applies the epilogue. A policy serves the
//! matrices of its element type only.
//! \code
//! using Mine = tilecraft::GemmPolicy<64, 128, tilecraft::RegBlock<4, 8>, 8, 4, 3, 2, 8>;
//! static_assert(Mine::tiled::threads == 256);
//! using MineF64 = tilecraft::GemmPolicy<64, 64, tilecraft::RegBlock<4, 4>, 8, 4, 3, 2, 8, 16, double>;
//! static_assert(std::is_same_v<MineF64::element_type, double>);
//! \endcode
template <int TM, int TN, class RegBlockT, int TK = 8, int LanesM = 4, int Stages = 3, int MinBlocksPerSm = 1,
          int GroupM = 8, int MaxSplitK = 16, class T = float>
struct GemmPolicy {
  static_assert(MinBlocksPerSm >= 1, "GemmPolicy: MinBlocksPerSm must be >= 1");
  static_assert(GroupM >= 1, "GemmPolicy: GroupM (tile rows per block group) must be >= 1");
  static_assert(MaxSplitK >= 1 && MaxSplitK <= 64, "GemmPolicy: MaxSplitK must be between 1 and 64");
  static_assert(MinBlocksPerSm * TiledGemm<TM, TN, RegBlockT, TK, LanesM, Stages, T>::threads <= 2048,
                "GemmPolicy: MinBlocksPerSm * threads must be <= 2048 (the most threads an SM holds)");
  //! The block level.
  using tiled = TiledGemm<TM, TN, RegBlockT, TK, LanesM, Stages, T>;
  //! The element type of the matrices it multiplies (float or double).
  using element_type = T;
  //! __launch_bounds__ minimum blocks per SM.
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
  //! Tile rows per block group (L2 rasterization).
  static constexpr int group_m = GroupM;
  //! The most slices K may be split into when there are too few C tiles to fill the GPU
  //! (1: never split).
  static constexpr int max_split_k = MaxSplitK;
};

//! The default: 128 x 128 tiles, K step 16, 8 x 8 per thread, 256 threads, 4 stages (66 KiB of
//! shared memory).
using GemmPolicyLarge = GemmPolicy<128, 128, RegBlock<8, 8>, 16, 4, 4, 2, 8>;
//! GemmPolicyLarge with 3 stages (50 KiB): the default on devices that give a block less shared
//! memory than GemmPolicyLarge needs (sm_75: 64 KiB).
using GemmPolicyLarge3 = GemmPolicy<128, 128, RegBlock<8, 8>, 16, 4, 3, 2, 8>;
//! GemmPolicyLarge with K step 32 and 3 stages (99 KiB): what gemm() runs instead of
//! GemmPolicyLarge when both operands fill in 16-byte vectors (A column-major and B row-major
//! as computed, aligned, or packed so) and an SM holds two such blocks (sm_90: measured there;
//! sm_80 and sm_86 hold one, and keep GemmPolicyLarge, which they hold two of). Half the
//! barriers and fill instructions per FMA; but with an operand filled element by element it
//! needs more than 128 registers and spills (benchmarks/TUNING.md).
using GemmPolicyLargeVector = GemmPolicy<128, 128, RegBlock<8, 8>, 32, 4, 3, 2, 8>;
//! 256 x 128 tiles, K step 16, 16 x 8 per thread (eight warps of 64 x 64: the tile of cuBLAS's
//! SIMT SGEMM), 3 stages (73.5 KiB of shared memory), one block per SM (up to 255 registers a
//! thread), K never split. What gemm() runs instead of GemmPolicyLargeVector on GPUs where that
//! runs, for products whose operands both fill in vectors, with K >= 1024 and a last wave of
//! tiles that fills at least half of the SMs: 128 accumulators a thread halve the shared-memory
//! loads per FMA (4096^3: 0.918 of cuBLAS against 0.901 on the H200), but a lone block per SM
//! hides neither a short K's prologue and epilogue nor a thin last wave
//! (benchmarks/TUNING.md). Filled element by element it is slower than GemmPolicyLarge.
using GemmPolicyHuge = GemmPolicy<256, 128, RegBlock<16, 8>, 16, 4, 3, 1, 8, 1>;

//! True for every GemmPolicy instantiation.
template <class>
inline constexpr bool is_gemm_policy_v = false;
//! \cond SPECIALIZATIONS
template <int TM, int TN, class RegBlockT, int TK, int LanesM, int Stages, int MinBlocksPerSm, int GroupM,
          int MaxSplitK, class T>
inline constexpr bool
    is_gemm_policy_v<GemmPolicy<TM, TN, RegBlockT, TK, LanesM, Stages, MinBlocksPerSm, GroupM, MaxSplitK, T>> = true;
//! \endcond
//! The default for C with at most 64 rows (as computed: a column-major C is computed as its
//! row-major transpose, so there: at most 64 columns) or too few 128 x 128 tiles, when K is
//! long (>= 2048, so split-K makes up the blocks): 64 x 128 tiles, K step 16, 8 x 8 per thread,
//! 128 threads.
using GemmPolicySkinny = GemmPolicy<64, 128, RegBlock<8, 8>, 16, 4, 3, 4, 8>;
//! The default for C with too few 128 x 128 tiles and a short K, when 64 x 64 tiles are enough
//! to fill the SMs: 64 x 64 tiles, K step 16, 4 x 8 per thread, 128 threads.
using GemmPolicyMedium = GemmPolicy<64, 64, RegBlock<4, 8>, 16, 4, 3, 4, 8>;
//! The default for C too small even for that: 32 x 64 tiles, K step 16, 4 x 4 per thread, 128
//! threads.
using GemmPolicySmall = GemmPolicy<32, 64, RegBlock<4, 4>, 16, 4, 3, 6, 8>;

// Every default but GemmPolicyLarge fits the smallest per-block limit of the supported GPUs
// (sm_75: 64 KiB), so gemm() has a configuration for every device.
static_assert(GemmPolicyLarge3::tiled::smem_bytes <= 64 * 1024 && GemmPolicySkinny::tiled::smem_bytes <= 64 * 1024 &&
                  GemmPolicyMedium::tiled::smem_bytes <= 64 * 1024 && GemmPolicySmall::tiled::smem_bytes <= 64 * 1024,
              "gemm: the fallback default policies must fit 64 KiB of shared memory (sm_75)");

// The double defaults. A double accumulator takes two registers, so the thread's register
// block is half the float one's (RegBlock<4, 8>: 64 registers of accumulators, as the float
// 8 x 8 block has) and the block tile shrinks with it; a 16-byte vector holds 2 doubles. The
// SIMT FP64 pipe does half the FP32 rate (64 DFMA per clock per SM on sm_80/sm_90), so
// instruction issue matters less than for float; what bounds these tiles is the shared-memory
// bandwidth of the fragment loads (RM + RN doubles per RM * RN DFMA per thread).

//! The double default for C with more than 64 rows and at least as many 128 x 64 tiles as the
//! GPU has SMs: 128 x 64 tiles, K step 8, 4 x 8 doubles per thread (64 accumulator
//! registers), 256 threads, 3 stages (37 KiB of shared memory), 2 blocks per SM.
using GemmPolicyLargeF64 = GemmPolicy<128, 64, RegBlock<4, 8>, 8, 4, 3, 2, 8, 16, double>;
//! The double default for C with too few 128 x 64 tiles (or at most 64 rows) when 64 x 64 tiles
//! fill the SMs or K is long (>= 2048, where split-K makes up the blocks): 64 x 64 tiles, K step
//! 8, 4 x 8 doubles per thread, 128 threads, 3 stages (25 KiB), 4 blocks per SM.
using GemmPolicyMediumF64 = GemmPolicy<64, 64, RegBlock<4, 8>, 8, 4, 3, 4, 8, 16, double>;
//! The double default for C too small even for that: 32 x 64 tiles, K step 16, 4 x 4 doubles
//! per thread, 128 threads, 3 stages (38 KiB), 4 blocks per SM.
using GemmPolicySmallF64 = GemmPolicy<32, 64, RegBlock<4, 4>, 16, 4, 3, 4, 8, 16, double>;

// Every double default fits the static 48 KiB (and so sm_75's 64 KiB): no fallback needed.
static_assert(GemmPolicyLargeF64::tiled::smem_bytes <= 48 * 1024 &&
                  GemmPolicyMediumF64::tiled::smem_bytes <= 48 * 1024 &&
                  GemmPolicySmallF64::tiled::smem_bytes <= 48 * 1024,
              "gemm: the double default policies must fit 48 KiB of shared memory");

namespace detail {

#if defined(__CUDACC__)

// One C tile per block (blockIdx.x, in grouped order) and K slice (blockIdx.y: with
// gridDim.y > 1 the slice's raw product goes to its own M x N block of `partial`).
template <class Policy, Order OA, Order OB, bool VectorFill, class Epilogue>
__global__ void __launch_bounds__(Policy::tiled::threads, Policy::min_blocks_per_sm)
    gemm_kernel(MatrixRef<const typename Policy::element_type, OA> a,
                MatrixRef<const typename Policy::element_type, OB> b, MatrixRef<typename Policy::element_type> c,
                Epilogue epi, std::int64_t tiles_m, std::int64_t tiles_n, std::int64_t k_slice,
                typename Policy::element_type* partial) {
  using Tiled = typename Policy::tiled;
  using T = typename Policy::element_type;
  extern __shared__ __align__(16) unsigned char gemm_smem[];
  auto& storage = *reinterpret_cast<typename Tiled::TempStorage*>(gemm_smem);
  // Grouped order: blocks [g * G * tiles_n, (g + 1) * G * tiles_n) cover tile rows
  // [g * G, g * G + G) column by column.
  const std::int64_t block = blockIdx.x;
  const std::int64_t per_group = static_cast<std::int64_t>(Policy::group_m) * tiles_n;
  const std::int64_t first_m = block / per_group * Policy::group_m;
  const std::int64_t rows = tiles_m - first_m < Policy::group_m ? tiles_m - first_m : Policy::group_m;
  const std::int64_t in_group = block % per_group;
  const std::int64_t tile_m = first_m + in_group % rows;
  const std::int64_t tile_n = in_group / rows;
  const std::int64_t m0 = tile_m * Tiled::shape::tile_m;
  const std::int64_t n0 = tile_n * Tiled::shape::tile_n;
  // K slice [k0, k0 + k_slice) of both operands. The vector fills stay aligned: an operand
  // filled in vectors moves by k0 * ld with ld a multiple of a 16-byte vector's elements, a
  // K-contiguous one is filled element by element. Split: the raw product goes to the slice's
  // workspace block.
  const bool split = gridDim.y > 1;
  const std::int64_t k0 = blockIdx.y * k_slice;
  const std::int64_t k_len = a.cols - k0 < k_slice ? a.cols - k0 : k_slice;
  const MatrixRef<const T, OA> a_slice{OA == Order::row_major ? a.data + k0 : a.data + k0 * a.ld, a.rows, k_len, a.ld};
  const MatrixRef<const T, OB> b_slice{OB == Order::row_major ? b.data + k0 * b.ld : b.data + k0, k_len, b.cols, b.ld};
  const MatrixRef<T> out = split ? MatrixRef<T>{partial + blockIdx.y * c.rows * c.cols, c.rows, c.cols, c.cols} : c;
  Epilogue e = epi;
  e.raw = split;
  Tiled::template run<VectorFill>(storage, a_slice, b_slice, out, m0, n0, e);
}

// C = epi(sum of the K slices' products, C), summing the slices in order.
template <class T, class Epilogue>
__global__ void gemm_split_k_reduce_kernel(const T* partial, int slices, MatrixRef<T> c, Epilogue epi) {
  const std::int64_t elements = c.rows * c.cols;
  const bool reads = epi.reads_c();
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < elements;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    T sum = partial[e];
    for (int s = 1; s < slices; ++s) sum += partial[s * elements + e];
    const std::int64_t r = e / c.cols;
    const std::int64_t col = e - r * c.cols;
    T& dst = c(r, col);
    dst = epi(sum, reads ? dst : T(0), r, col);
  }
}

// Elements spanned by a matrix of T stored as `rows x cols` in `order` with leading dimension
// ld, or -1 when that overflows 64-bit byte offsets.
template <class T>
std::int64_t matrix_span(Order order, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  const std::int64_t major = order == Order::row_major ? rows : cols;
  const std::int64_t minor = order == Order::row_major ? cols : rows;
  if (major == 0 || minor == 0) return 0;
  constexpr std::int64_t max_elems = INT64_MAX / static_cast<std::int64_t>(sizeof(T));
  if (ld > max_elems / major) return -1;
  return (major - 1) * ld + minor;
}

// The default policies of element type T, as gemm() chooses among them.
template <class T>
struct GemmDefaults;
template <>
struct GemmDefaults<float> {
  using smallest = GemmPolicySmall;
};
template <>
struct GemmDefaults<double> {
  using smallest = GemmPolicySmallF64;
};

// The shortest side of the C tiles `Policy` (or, for void, any default policy for T) uses.
template <class Policy, class T>
constexpr std::int64_t min_tile_side() {
  using P = std::conditional_t<std::is_void_v<Policy>, typename GemmDefaults<T>::smallest, Policy>;
  constexpr int tm = P::tiled::shape::tile_m, tn = P::tiled::shape::tile_n;
  return tm < tn ? tm : tn;
}

// BLAS argument checks (see gemm()); cudaSuccess when the call is valid.
template <class T>
cudaError_t check_gemm_args(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a,
                            std::int64_t lda, const T* b, std::int64_t ldb, const T* c, std::int64_t ldc) {
  const bool row = order == Order::row_major;
  if (!row && order != Order::col_major) return cudaErrorInvalidValue;
  if ((op_a != Op::none && op_a != Op::transpose) || (op_b != Op::none && op_b != Op::transpose)) {
    return cudaErrorInvalidValue;
  }
  if (m < 0 || n < 0 || k < 0) return cudaErrorInvalidValue;
  // Stored shapes: A is m x k (or k x m under Op::transpose), B is k x n (or n x k), C m x n;
  // BLAS's rule: ld >= max(1, elements of a stored row (row-major) or column (column-major)).
  const bool ta = op_a == Op::transpose;
  const bool tb = op_b == Op::transpose;
  const std::int64_t a_rows = ta ? k : m, a_cols = ta ? m : k;
  const std::int64_t b_rows = tb ? n : k, b_cols = tb ? k : n;
  auto ld_ok = [&](std::int64_t ld, std::int64_t rows, std::int64_t cols) {
    const std::int64_t need = row ? cols : rows;
    return ld >= (need > 1 ? need : 1);
  };
  if (!ld_ok(lda, a_rows, a_cols) || !ld_ok(ldb, b_rows, b_cols) || !ld_ok(ldc, m, n)) return cudaErrorInvalidValue;
  if (m == 0 || n == 0) return cudaSuccess;  // nothing is read or written
  if (c == nullptr || (k > 0 && (a == nullptr || b == nullptr))) return cudaErrorInvalidValue;
  const Order stored = row ? Order::row_major : Order::col_major;
  const std::int64_t c_span = matrix_span<T>(stored, m, n, ldc);
  const std::int64_t a_span = k > 0 ? matrix_span<T>(stored, a_rows, a_cols, lda) : 0;
  const std::int64_t b_span = k > 0 ? matrix_span<T>(stored, b_rows, b_cols, ldb) : 0;
  if (c_span < 0 || a_span < 0 || b_span < 0) return cudaErrorInvalidValue;
  // Elements must be aligned to their type. (C sharing elements with A or B is not checked, as
  // in BLAS: disjoint blocks of one allocation with one leading dimension, as in a blocked LU
  // update, are valid, and an exact check would cost more than the call.)
  auto misaligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0; };
  if (misaligned(c) || (k > 0 && (misaligned(a) || misaligned(b)))) return cudaErrorInvalidValue;
  return cudaSuccess;
}

// The user's epilogue as the launcher's kernels apply it. A column-major C is computed as the
// row-major C^T, so the epilogue gets its own coordinates back (transposed); a K slice stores
// its raw product (raw); a panel of C (see gemm_packed) starts at (row0, col0) of the whole.
// Run-time fields rather than more types: one set of kernels serves all.
template <class T, class Epilogue>
struct LauncherEpilogue {
  Epilogue epi;
  bool transposed;
  bool raw;
  std::int64_t row0 = 0;
  std::int64_t col0 = 0;
  TILECRAFT_HOST_DEVICE bool reads_c() const { return !raw && epi.reads_c(); }
  TILECRAFT_HOST_DEVICE T operator()(T acc, T c_old, std::int64_t r, std::int64_t col) const {
    if (raw) return acc;
    r += row0;
    col += col0;
    return transposed ? epi(acc, c_old, col, r) : epi(acc, c_old, r, col);
  }
};

// The kernels opted in to their dynamic shared memory, by device. Keyed by the kernel's address,
// not by its template arguments: nvcc gives every translation unit its own copy of a kernel (the
// host stub has internal linkage, and each copy is registered with the runtime on its own), so
// each copy needs its own opt-in. A static variable in a function template would be one
// variable for all of them, and so would the function template itself: the linker keeps one
// copy of an inline function, which names its own translation unit's kernel. Hence the caller
// passes the very pointer it launches.
struct OptedInKernels {
  std::mutex mutex;
  std::set<std::pair<const void*, int>> done;  // (kernel, device)
};
inline OptedInKernels& opted_in_kernels() {
  static OptedInKernels* const kernels = new OptedInKernels;  // never destroyed: usable from static destructors
  return *kernels;
}

// Opts `kernel` in to `bytes` of dynamic shared memory once per device (a driver call per
// launch would cost microseconds on small problems). A kernel is launched with one size only.
template <class... Args>
cudaError_t opt_in_once(void (*kernel)(Args...), std::size_t bytes) {
  int device = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  const std::pair<const void*, int> key{reinterpret_cast<const void*>(kernel), device};
  OptedInKernels& opted = opted_in_kernels();
  {
    const std::lock_guard<std::mutex> lock(opted.mutex);
    if (opted.done.count(key) != 0) return cudaSuccess;
  }
  TILECRAFT_RETURN_IF_ERROR(opt_in_dynamic_smem(kernel, bytes));
  const std::lock_guard<std::mutex> lock(opted.mutex);
  opted.done.insert(key);
  return cudaSuccess;
}

// How many K slices to split into: enough blocks to fill the GPU's block slots when C alone
// has too few tiles, each slice at least min_slice long, the workspace at most 64 MiB, and only
// for products of at least min_volume multiply-adds (the workspace round trip and the second
// kernel cost a few microseconds). Measured on the H200 (benchmarks/TUNING.md): 2 to 3 slices
// of 256 or more took 768^3 from 0.69 to 0.95 of cuBLAS, 1024^3 from 0.83 to 0.87 and
// 1000 x 999 x 1001 from 0.73 to 0.76; 512^3 lost (1.07 -> 0.96) until kept out by the volume.
struct GemmSplitLimits {
  std::int64_t min_slice = 256;
  double min_volume = 268435456.0;  // 2^28 multiply-adds
};
// A variable, so that experiments and tests can change it (host code reads it once per call).
inline GemmSplitLimits gemm_split_limits{};
// A split of K: `slices` slices of k_slice (a whole number of K steps; the last one may be
// shorter), or slices == 1 and k_slice == k.
struct SplitPlan {
  int slices;
  std::int64_t k_slice;
};
template <class Policy>
SplitPlan split_k_plan(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t tiles, int sms) {
  using T = typename Policy::element_type;
  constexpr std::int64_t tk = Policy::tiled::shape::tile_k;
  const GemmSplitLimits limits = gemm_split_limits;
  const SplitPlan whole{1, k};
  const std::int64_t slots = static_cast<std::int64_t>(sms) * Policy::min_blocks_per_sm;
  if (Policy::max_split_k == 1 || tiles >= slots || m <= 0 || n <= 0) return whole;
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < limits.min_volume) return whole;
  std::int64_t slices = slots / tiles;
  const std::int64_t by_k = k / (limits.min_slice > tk ? limits.min_slice : tk);
  const std::int64_t by_bytes = (std::int64_t{64} << 20) / (m * n * static_cast<std::int64_t>(sizeof(T)));
  if (slices > Policy::max_split_k) slices = Policy::max_split_k;
  if (slices > by_k) slices = by_k;
  if (slices > by_bytes) slices = by_bytes;
  if (slices < 2) return whole;
  // Whole K steps per slice; rounding up can leave fewer slices than asked for (even one).
  const std::int64_t k_slice = ceil_div<std::int64_t>(ceil_div<std::int64_t>(k, slices), tk) * tk;
  const std::int64_t rounded = ceil_div<std::int64_t>(k, k_slice);
  return rounded < 2 ? whole : SplitPlan{static_cast<int>(rounded), k_slice};
}

// Whether a product whose operands both fill in vectors runs on HugePolicy (one block of 256 x
// 128 per SM, GemmPolicyHuge) rather than on two smaller blocks per SM: K at least min_k (a
// lone block per SM hides neither the three-stage prologue nor the epilogue of its 128
// accumulators a thread: 8192 x 8192 x 64 ran at 0.94 of cuBLAS against 1.06), and a last wave
// of C's tiles that fills at least half of the SMs (a tile short of a full wave waits for the
// whole of one, where a 128 x 128 block alone on an SM runs faster than two: 3072^3, 288 tiles
// on 132 SMs, 0.74 against 0.85; benchmarks/TUNING.md).
struct GemmHugeLimits {
  static constexpr std::int64_t min_k = 1024;
};
template <class HugePolicy>
bool huge_policy_pays(std::int64_t m, std::int64_t n, std::int64_t k, int sms) {
  using shape = typename HugePolicy::tiled::shape;
  if (k < GemmHugeLimits::min_k || m <= 0 || n <= 0 || sms <= 0) return false;
  const std::int64_t tiles = ceil_div<std::int64_t>(m, shape::tile_m) * ceil_div<std::int64_t>(n, shape::tile_n);
  const std::int64_t last_wave = tiles % sms;
  return last_wave == 0 || 2 * last_wave >= sms;
}

// Runs C (row-major, M x N) = epi(a * b) with a = op(A) (M x K) and b = op(B) (K x N) given in
// run-time orders: picks the instantiation, and splits K when C has too few tiles. VectorOnly:
// instantiate only the kernel for a column-major, b row-major, both filled in vectors (the
// caller has checked that; GemmPolicyLargeVector and GemmPolicyHuge run nothing else).
template <class Policy, bool VectorOnly = false, class Epilogue>
[[nodiscard]] cudaError_t gemm_row_major_c(Order order_a, Order order_b,
                                           MatrixRef<const typename Policy::element_type> a_mem,
                                           MatrixRef<const typename Policy::element_type> b_mem,
                                           MatrixRef<typename Policy::element_type> c, const Epilogue& epi, int sms,
                                           cudaStream_t stream) {
  using Tiled = typename Policy::tiled;
  using T = typename Policy::element_type;
  constexpr int tk = Tiled::shape::tile_k;
  const std::int64_t k = a_mem.cols;
  const std::int64_t tiles_m = ceil_div<std::int64_t>(c.rows, Tiled::shape::tile_m);
  const std::int64_t tiles_n = ceil_div<std::int64_t>(c.cols, Tiled::shape::tile_n);
  if (tiles_m > INT_MAX / tiles_n) return cudaErrorInvalidValue;  // a 1D grid of 2^31 - 1 blocks
  const std::int64_t tiles = tiles_m * tiles_n;
  if (ceil_div<std::int64_t>(k, tk) > INT_MAX) return cudaErrorInvalidValue;  // the pipeline counts steps in int
  const SplitPlan plan = split_k_plan<Policy>(c.rows, c.cols, k, tiles, sms);
  int slices = plan.slices;
  std::int64_t k_slice = plan.k_slice;
  T* partial = nullptr;
  if (slices > 1) {
    const std::size_t bytes = static_cast<std::size_t>(slices) * static_cast<std::size_t>(c.rows * c.cols) * sizeof(T);
    if (workspace_alloc(reinterpret_cast<void**>(&partial), bytes, stream) != cudaSuccess) {
      // No workspace (no memory pools, or no memory): compute unsplit.
      slices = 1;
      k_slice = k;
    }
  }

  auto launch = [&](auto a, auto b) -> cudaError_t {
    constexpr Order oa = decltype(a)::order;
    constexpr Order ob = decltype(b)::order;
    const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(slices));
    const bool vector_fill = Tiled::vector_fill_ok(a, b);
    if (VectorOnly && !vector_fill) return cudaErrorInvalidValue;  // (the caller checks it)
    auto* kernel = gemm_kernel<Policy, oa, ob, true, Epilogue>;
    if constexpr (!VectorOnly) {
      if (!vector_fill) kernel = gemm_kernel<Policy, oa, ob, false, Epilogue>;
    }
    TILECRAFT_RETURN_IF_ERROR(opt_in_once(kernel, Tiled::smem_bytes));
    kernel<<<grid, Tiled::threads, Tiled::smem_bytes, stream>>>(a, b, c, epi, tiles_m, tiles_n, k_slice, partial);
    return last_launch_error();
  };
  // The operands as views in their own order: a is M x K, b is K x N.
  const MatrixRef<const T, Order::row_major> a_row{a_mem.data, c.rows, k, a_mem.ld};
  const MatrixRef<const T, Order::col_major> a_col{a_mem.data, c.rows, k, a_mem.ld};
  const MatrixRef<const T, Order::row_major> b_row{b_mem.data, k, c.cols, b_mem.ld};
  const MatrixRef<const T, Order::col_major> b_col{b_mem.data, k, c.cols, b_mem.ld};
  cudaError_t status = cudaSuccess;
  if constexpr (VectorOnly) {
    status = order_a == Order::col_major && order_b == Order::row_major ? launch(a_col, b_row) : cudaErrorInvalidValue;
  } else if (order_a == Order::row_major) {
    status = order_b == Order::row_major ? launch(a_row, b_row) : launch(a_row, b_col);
  } else {
    status = order_b == Order::row_major ? launch(a_col, b_row) : launch(a_col, b_col);
  }
  if (slices > 1) {
    if (status == cudaSuccess) {
      constexpr int threads = 256;
      const std::int64_t blocks = ceil_div<std::int64_t>(c.rows * c.cols, threads);
      const unsigned grid = static_cast<unsigned>(blocks < 8 * sms ? blocks : 8 * sms);
      gemm_split_k_reduce_kernel<<<grid, threads, 0, stream>>>(partial, slices, c, epi);
      status = last_launch_error();
    }
    const cudaError_t freed = workspace_free(partial, stream);
    if (status == cudaSuccess) status = freed;
  }
  return status;
}

// Packing. A K-contiguous operand (a = op(A) row-major, b = op(B) column-major, as computed)
// reaches its K-major shared tile float by float (a transposing scatter); transposed once into
// a workspace it fills in 16-byte vectors, and the kernel runs about 5% faster (0.87 -> 0.91 of
// cuBLAS at 4096^3 and 8192^3, 0.83 -> 0.90 at 1024^3; benchmarks/TUNING.md). The transpose
// reads and writes the operand once, so it pays when the product reuses each element often:
// the other side of C at least min_side and M * N * K at least min_volume (below those it
// cost more than it gained: 512^3, 1000 x 999 x 1001). The workspace holds at most `bytes` per
// operand: a larger operand is packed and multiplied in panels of whole tiles (A by rows of C,
// B by columns), one after the other on the stream. (When both operands need panels, B's are
// packed again for every panel of A: one more read and write of B per 64 MiB of A, a few
// percent of such a product, for a workspace that stays within the budget.) (Measured for float; double follows the
// same rule.)
struct GemmPackLimits {
  std::int64_t min_side = 1024;
  double min_volume = 1073741824.0;  // 2^30 multiply-adds
  std::int64_t bytes = std::int64_t{64} << 20;
};
// A variable, so that tests can lower the limits and exercise packing and panels on small
// matrices (host code reads it once per call).
inline GemmPackLimits gemm_pack_limits{};

// The extent of each panel when `extent` rows (or columns) are packed at most `most` at a time
// (a multiple of `tile`, at least one tile): as few panels as that allows, of equal size in
// whole tiles (the last one may be shorter). Equal rather than as large as possible: a short
// last panel is a product of few tiles that leaves most SMs idle (6144^3 on 256-row tiles:
// 2560 + 2560 + 1024 rows, where 3 x 2048 fill the SMs alike).
inline std::int64_t panel_extent(std::int64_t extent, std::int64_t most, std::int64_t tile) {
  if (extent <= most || most < tile) return extent;  // (most < tile: the caller's rules exclude it)
  const std::int64_t panels = ceil_div<std::int64_t>(extent, most);
  return round_up<std::int64_t>(ceil_div<std::int64_t>(extent, panels), tile);
}

// A policy's tile as {rows, columns}; {1, 1} for none (void).
template <class Policy>
constexpr std::array<std::int64_t, 2> tile_of() {
  if constexpr (std::is_void_v<Policy>) {
    return {1, 1};
  } else {
    return {Policy::tiled::shape::tile_m, Policy::tiled::shape::tile_n};
  }
}

// C (row-major) = epi(a * b) as gemm_row_major_c, packing K-contiguous operands first when
// that pays (see above). Without workspace the operands are used unpacked. VectorPolicy (void:
// none) replaces Policy for every product whose operands both fill in vectors, packed or not,
// and HugePolicy (void: none) replaces VectorPolicy where huge_policy_pays. Panels are whole
// tiles of every policy that may multiply them.
template <class Policy, class VectorPolicy = void, class HugePolicy = void, class T, class Epilogue>
[[nodiscard]] cudaError_t gemm_packed(Order order_a, Order order_b, MatrixRef<const T> a_mem, MatrixRef<const T> b_mem,
                                      MatrixRef<T> c, const LauncherEpilogue<T, Epilogue>& epi, int sms,
                                      cudaStream_t stream) {
  using shape = typename Policy::tiled::shape;
  if constexpr (!std::is_void_v<VectorPolicy>) {
    static_assert(std::is_same_v<typename VectorPolicy::element_type, T>, "gemm_packed: VectorPolicy must be for T");
  }
  if constexpr (!std::is_void_v<HugePolicy>) {
    static_assert(!std::is_void_v<VectorPolicy> && std::is_same_v<typename HugePolicy::element_type, T>,
                  "gemm_packed: HugePolicy must be for T, and comes with a VectorPolicy");
  }
  constexpr std::int64_t vector = shape::vector_elems;
  constexpr std::int64_t panel_tile_m =
      std::lcm(std::lcm(std::int64_t{shape::tile_m}, tile_of<VectorPolicy>()[0]), tile_of<HugePolicy>()[0]);
  constexpr std::int64_t panel_tile_n =
      std::lcm(std::lcm(std::int64_t{shape::tile_n}, tile_of<VectorPolicy>()[1]), tile_of<HugePolicy>()[1]);
  const std::int64_t m = c.rows, n = c.cols, k = a_mem.cols;
  const bool a_scattered = order_a == Order::row_major;
  const bool b_scattered = order_b == Order::col_major;
  const GemmPackLimits limits = gemm_pack_limits;
  const bool pays =
      k > 0 && static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >= limits.min_volume;
  const std::int64_t budget = limits.bytes;
  const std::int64_t row_bytes = k * static_cast<std::int64_t>(sizeof(T));  // of a packed operand's L index
  // Packed rows (of K elements) the budget holds: the whole operand, or panels of whole tiles.
  const std::int64_t budget_rows = row_bytes > 0 ? budget / row_bytes : 0;
  bool pack_a = a_scattered && pays && n >= limits.min_side && (m <= budget_rows || budget_rows >= panel_tile_m);
  bool pack_b = b_scattered && pays && m >= limits.min_side && (n <= budget_rows || budget_rows >= panel_tile_n);
  // Packing only pays through the vector fill, which needs every row-filled operand aligned.
  auto aligned = [](const MatrixRef<const T>& x) {
    return reinterpret_cast<std::uintptr_t>(x.data) % 16 == 0 && x.ld % vector == 0;
  };
  if ((!a_scattered && !aligned(a_mem)) || (!b_scattered && !aligned(b_mem))) pack_a = pack_b = false;
  auto product = [&](Order oa, Order ob, MatrixRef<const T> pa, MatrixRef<const T> pb, MatrixRef<T> pc,
                     const LauncherEpilogue<T, Epilogue>& pe) {
    if constexpr (!std::is_void_v<VectorPolicy>) {
      if (oa == Order::col_major && ob == Order::row_major && aligned(pa) && aligned(pb)) {
        if constexpr (!std::is_void_v<HugePolicy>) {
          if (huge_policy_pays<HugePolicy>(pc.rows, pc.cols, pa.cols, sms)) {
            return gemm_row_major_c<HugePolicy, true>(oa, ob, pa, pb, pc, pe, sms, stream);
          }
        }
        return gemm_row_major_c<VectorPolicy, true>(oa, ob, pa, pb, pc, pe, sms, stream);
      }
    }
    return gemm_row_major_c<Policy>(oa, ob, pa, pb, pc, pe, sms, stream);
  };
  if (!pack_a && !pack_b) return product(order_a, order_b, a_mem, b_mem, c, epi);

  // Equal panels of whole tiles whose packed copy fits the budget; packed leading dimensions
  // are multiples of a 16-byte vector's elements, so every packed row stays 16-byte aligned.
  auto panel = [&](bool pack, std::int64_t extent, std::int64_t tile) {
    return pack && extent > budget_rows ? panel_extent(extent, budget_rows / tile * tile, tile) : extent;
  };
  const std::int64_t panel_m = panel(pack_a, m, panel_tile_m);
  const std::int64_t panel_n = panel(pack_b, n, panel_tile_n);
  const std::int64_t ld_a = round_up<std::int64_t>(panel_m, vector);
  const std::int64_t ld_b = round_up<std::int64_t>(panel_n, vector);
  const std::int64_t a_elems = pack_a ? k * ld_a : 0;
  const std::int64_t b_elems = pack_b ? k * ld_b : 0;
  T* workspace = nullptr;
  if (workspace_alloc(reinterpret_cast<void**>(&workspace), static_cast<std::size_t>(a_elems + b_elems) * sizeof(T),
                      stream) != cudaSuccess) {
    // No workspace (no memory pools, or no memory): multiply unpacked.
    return product(order_a, order_b, a_mem, b_mem, c, epi);
  }
  T* const packed_a = workspace;
  T* const packed_b = workspace + a_elems;  // a_elems is a multiple of a vector: 16-byte aligned

  cudaError_t status = cudaSuccess;
  for (std::int64_t r0 = 0; r0 < m && status == cudaSuccess; r0 += panel_m) {
    const std::int64_t rows = m - r0 < panel_m ? m - r0 : panel_m;
    // Rows [r0, r0 + rows) of a: row-major (packed: transposed into a K x rows matrix, which
    // is the column-major rows x K view) or column-major (rows start r0 elements in).
    Order oa = order_a;
    MatrixRef<const T> a_panel{a_scattered ? a_mem.data + r0 * a_mem.ld : a_mem.data + r0, rows, k, a_mem.ld};
    if (pack_a) {
      status = transpose(packed_a, ld_a, a_panel.data, a_mem.ld, rows, k, stream);
      a_panel = MatrixRef<const T>{packed_a, rows, k, ld_a};
      oa = Order::col_major;
    }
    for (std::int64_t c0 = 0; c0 < n && status == cudaSuccess; c0 += panel_n) {
      const std::int64_t cols = n - c0 < panel_n ? n - c0 : panel_n;
      // Columns [c0, c0 + cols) of b: column-major (packed: the transposed cols x K rows are
      // the row-major K x cols matrix) or row-major (columns start c0 elements in).
      Order ob = order_b;
      MatrixRef<const T> b_panel{b_scattered ? b_mem.data + c0 * b_mem.ld : b_mem.data + c0, k, cols, b_mem.ld};
      if (pack_b) {
        status = transpose(packed_b, ld_b, b_panel.data, b_mem.ld, cols, k, stream);
        if (status != cudaSuccess) break;
        b_panel = MatrixRef<const T>{packed_b, k, cols, ld_b};
        ob = Order::row_major;
      }
      LauncherEpilogue<T, Epilogue> e = epi;
      e.row0 += r0;
      e.col0 += c0;
      const MatrixRef<T> c_panel{c.data + r0 * c.ld + c0, rows, cols, c.ld};
      status = product(oa, ob, a_panel, b_panel, c_panel, e);
    }
  }
  const cudaError_t freed = workspace_free(workspace, stream);
  return status != cudaSuccess ? status : freed;
}

// The current device's SMs, the shared memory it gives one block (opt-in) and one SM, cached per
// device (queried on every call they would cost microseconds between back-to-back launches).
inline cudaError_t device_limits(int& sms, int& smem_optin, int& smem_per_sm) {
  constexpr int cached_devices = 64;
  static std::atomic<int> cached_sms[cached_devices] = {};
  static std::atomic<int> cached_smem[cached_devices] = {};
  static std::atomic<int> cached_smem_sm[cached_devices] = {};
  int device = 0;
  TILECRAFT_RETURN_IF_ERROR(cudaGetDevice(&device));
  const bool cacheable = device >= 0 && device < cached_devices;
  if (cacheable && (sms = cached_sms[device].load()) > 0) {
    smem_optin = cached_smem[device].load();
    smem_per_sm = cached_smem_sm[device].load();
    return cudaSuccess;
  }
  TILECRAFT_RETURN_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  TILECRAFT_RETURN_IF_ERROR(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  TILECRAFT_RETURN_IF_ERROR(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  if (cacheable) {
    cached_smem[device].store(smem_optin);
    cached_smem_sm[device].store(smem_per_sm);
    cached_sms[device].store(sms);  // last: a reader that sees it sees the others
  }
  return cudaSuccess;
}

// Whether Policy is a GemmPolicy for elements other than T.
template <class Policy, class T>
constexpr bool policy_of_other_type() {
  if constexpr (is_gemm_policy_v<Policy>) {
    return !std::is_same_v<typename Policy::element_type, T>;
  } else {
    return false;
  }
}

// C = epi(op(A) * op(B), C) for matrices of T: gemm_epilogue() for either element type (the
// arguments are checked here; see there).
template <class Policy, class T, class Epilogue>
[[nodiscard]] cudaError_t gemm_epilogue_of(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n,
                                           std::int64_t k, const T* a, std::int64_t lda, const T* b, std::int64_t ldb,
                                           T* c, std::int64_t ldc, const Epilogue& epi, cudaStream_t stream) {
  static_assert(std::is_void_v<Policy> || is_gemm_policy_v<Policy>,
                "gemm: Policy must be void (chosen by shape) or a tilecraft::GemmPolicy");
  static_assert(!policy_of_other_type<Policy, T>(),
                "gemm: the Policy's element type (GemmPolicy's last parameter, float by default) must be the "
                "matrices' element type");
  if constexpr ((std::is_void_v<Policy> || is_gemm_policy_v<Policy>)&&!policy_of_other_type<Policy, T>()) {
    TILECRAFT_NVTX_RANGE("tilecraft::gemm_epilogue");
    TILECRAFT_RETURN_IF_ERROR(check_gemm_args(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc));
    if (m == 0 || n == 0) return cudaSuccess;
    // One block per C tile, at most 2^31 - 1 of them: checked before anything asks the device,
    // for the policy's tile (or the default policies' smallest side), in either orientation.
    constexpr std::int64_t side = min_tile_side<Policy, T>();
    if (static_cast<double>(ceil_div<std::int64_t>(m, side)) * static_cast<double>(ceil_div<std::int64_t>(n, side)) >
        static_cast<double>(INT_MAX)) {
      return cudaErrorInvalidValue;
    }
    const bool row = order == Order::row_major;
    const bool ta = op_a == Op::transpose;
    const bool tb = op_b == Op::transpose;

    // op(X) of a row-major X is row-major; of a column-major X, column-major; transposing flips
    // the order. A column-major C is the row-major C^T = op(B)^T op(A)^T: swap the operands.
    auto op_order = [&](bool transpose) { return row != transpose ? Order::row_major : Order::col_major; };
    auto flip = [](Order o) { return o == Order::row_major ? Order::col_major : Order::row_major; };
    Order order_a = op_order(ta), order_b = op_order(tb);
    MatrixRef<const T> a_mem{a, m, k, lda}, b_mem{b, k, n, ldb};
    MatrixRef<T> c_rm{c, m, n, ldc};
    if (!row) {
      const Order new_a = flip(order_b), new_b = flip(order_a);
      order_a = new_a;
      order_b = new_b;
      a_mem = MatrixRef<const T>{b, n, k, ldb};
      b_mem = MatrixRef<const T>{a, k, m, lda};
      c_rm = MatrixRef<T>{c, n, m, ldc};
    }
    const LauncherEpilogue<T, Epilogue> e{epi, !row, false};
    int sms = 0, smem_optin = 0, smem_per_sm = 0;
    TILECRAFT_RETURN_IF_ERROR(device_limits(sms, smem_optin, smem_per_sm));
    if constexpr (!std::is_void_v<Policy>) {
      // A configuration the device cannot hold is refused before any workspace or packing.
      if (Policy::tiled::smem_bytes > static_cast<std::size_t>(smem_optin)) return cudaErrorInvalidValue;
    }
    auto tiles = [&](int tm, int tn) {
      return ceil_div<std::int64_t>(c_rm.rows, tm) * ceil_div<std::int64_t>(c_rm.cols, tn);
    };
    if constexpr (!std::is_void_v<Policy>) {
      return gemm_packed<Policy>(order_a, order_b, a_mem, b_mem, c_rm, e, sms, stream);
    } else if constexpr (std::is_same_v<T, float>) {
      // 128 x 128 tiles unless they would leave half of every tile empty (a C of at most 64
      // rows) or the GPU short of blocks (fewer tiles than SMs). Then: with a long K, 64 x 128
      // tiles and split-K; with a short one, the largest tiles that still give every SM a block
      // (benchmarks/TUNING.md has the measurements).
      if (c_rm.rows <= 64 || tiles(128, 128) < sms) {
        if (k >= 2048) {
          return gemm_packed<GemmPolicySkinny>(order_a, order_b, a_mem, b_mem, c_rm, e, sms, stream);
        }
        if (tiles(64, 64) >= sms) {
          return gemm_packed<GemmPolicyMedium>(order_a, order_b, a_mem, b_mem, c_rm, e, sms, stream);
        }
        return gemm_packed<GemmPolicySmall>(order_a, order_b, a_mem, b_mem, c_rm, e, sms, stream);
      }
      const auto optin = static_cast<std::size_t>(smem_optin);
      if (GemmPolicyLarge::tiled::smem_bytes > optin) {
        return gemm_packed<GemmPolicyLarge3>(order_a, order_b, a_mem, b_mem, c_rm, e, sms, stream);
      }
      // The vector policies only where an SM holds two GemmPolicyLargeVector blocks (each with
      // the 1 KiB the driver reserves per block), as GemmPolicyLarge's two (they were measured
      // so, on sm_90). GemmPolicyHuge needs less and fits wherever that does.
      constexpr std::size_t vector_bytes = GemmPolicyLargeVector::tiled::smem_bytes;
      static_assert(GemmPolicyHuge::tiled::smem_bytes <= vector_bytes,
                    "gemm: GemmPolicyHuge must fit wherever GemmPolicyLargeVector does");
      if (vector_bytes > optin || 2 * (vector_bytes + 1024) > static_cast<std::size_t>(smem_per_sm)) {
        return gemm_packed<GemmPolicyLarge>(order_a, order_b, a_mem, b_mem, c_rm, e, sms, stream);
      }
      return gemm_packed<GemmPolicyLarge, GemmPolicyLargeVector, GemmPolicyHuge>(order_a, order_b, a_mem, b_mem, c_rm,
                                                                                 e, sms, stream);
    } else {
      // The same rule on the double tiles: 128 x 64 unless C has at most 64 rows or fewer such
      // tiles than SMs; then 64 x 64 when they fill the SMs or K is long enough for split-K to
      // make up the blocks, else 32 x 64. (Every double default fits 48 KiB: no fallback.)
      if (c_rm.rows <= 64 || tiles(128, 64) < sms) {
        if (k >= 2048 || tiles(64, 64) >= sms) {
          return gemm_packed<GemmPolicyMediumF64>(order_a, order_b, a_mem, b_mem, c_rm, e, sms, stream);
        }
        return gemm_packed<GemmPolicySmallF64>(order_a, order_b, a_mem, b_mem, c_rm, e, sms, stream);
      }
      return gemm_packed<GemmPolicyLargeF64>(order_a, order_b, a_mem, b_mem, c_rm, e, sms, stream);
    }
  } else {
    return cudaErrorInvalidValue;  // (the static_assert above has said why)
  }
}

// C = alpha * op(A) * op(B) + beta * C for matrices of T: gemm() for either element type.
template <class Policy, class T>
[[nodiscard]] cudaError_t gemm_of(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                  T alpha, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c,
                                  std::int64_t ldc, cudaStream_t stream) {
  TILECRAFT_RETURN_IF_ERROR(check_gemm_args(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc));
  // BLAS's quick return: nothing to add and C kept as is.
  if (m == 0 || n == 0 || ((alpha == T(0) || k == 0) && beta == T(1))) return cudaSuccess;
  // With alpha == 0 or k == 0 only C is scaled: no product is formed, so neither NaN in A or B
  // nor an infinite alpha times the empty sum reaches C.
  const bool scale_only = alpha == T(0) || k == 0;
  return gemm_epilogue_of<Policy>(order, op_a, op_b, m, n, scale_only ? 0 : k, a, lda, b, ldb, c, ldc,
                                  BasicLinearCombination<T>{scale_only ? T(0) : alpha, beta}, stream);
}

#endif  // __CUDACC__

}  // namespace detail

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
  return detail::gemm_epilogue_of<Policy>(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc, epi, stream);
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
  return detail::gemm_epilogue_of<Policy>(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc, epi, stream);
}

//! C = alpha * op(A) * op(B) + beta * C for float matrices in `order` (all row-major or all
//! column-major), op(A) m x k, op(B) k x n, C m x n, with BLAS semantics: beta == 0 means C is
//! not read (NaN in C does not propagate); k == 0 or alpha == 0 scales C by beta (whatever
//! alpha, A and B hold). Any sizes and leading dimensions, any float-aligned pointers
//! (16-byte-aligned operands with leading dimensions that are multiples of 4 take the vector
//! path). FP32 FMAs only (no TF32). Asynchronous on `stream`. C must not share elements with A
//! or B (not checked, as in BLAS: disjoint blocks of one allocation are fine).
//! `Policy`: a GemmPolicy, or void to choose by the shape of C as computed (row-major; a
//! column-major C is computed as its transpose): GemmPolicyLarge when it has more than 64 rows
//! and at least as many 128 x 128 tiles as the GPU has SMs (GemmPolicyLarge3 where the device
//! gives a block less shared memory than GemmPolicyLarge needs, e.g. sm_75; and
//! GemmPolicyLargeVector where both operands fill in 16-byte vectors, packed or as given, and
//! an SM holds two of its 99 KiB blocks, e.g. sm_90; there, GemmPolicyHuge's 256 x 128 tiles
//! for k >= 1024 when they fill at least half of the SMs in their last wave); else
//! GemmPolicySkinny for k >= 2048, GemmPolicyMedium when its 64 x 64 tiles fill the SMs,
//! GemmPolicySmall otherwise. When C has fewer tiles than the GPU has block slots, K is split
//! (see GemmPolicy) into slices of at least 256 when the product has at least 2^28
//! multiply-adds: the slices go to a stream-ordered workspace and are
//! summed in a fixed order, so results are deterministic. An operand whose K index is the
//! contiguous one (A row-major or B column-major as computed: the common NN case of either
//! order) is first transposed into workspace when the product reuses it enough (the other side
//! of C at least 1024 and M * N * K >= 2^30): its shared tiles then fill in 16-byte vectors,
//! about 5% faster for the cost of one copy. An operand above 64 MiB is packed in equal panels,
//! each multiplied as it is packed. Workspace comes from tilecraft's own stream-ordered pool (see
//! release_workspace()); where none can be had, the product is computed unsplit and unpacked.
//!
//! Returns cudaErrorInvalidValue, launching nothing, when: an enumerator is out of range;
//! m, n or k is negative; a leading dimension is below BLAS's minimum (max(1, elements of a
//! stored row for row-major, of a stored column for column-major)); C (m, n > 0), or A or B
//! (k > 0, whatever alpha) is null or not float-aligned; the sizes overflow 64-bit byte offsets,
//! the grid or the K steps (k / TK >= 2^31); a user Policy needs more shared memory than the
//! device gives a block. m == 0 or n == 0 is a successful no-op. Otherwise the launch status.
//! \code
//! // Row-major C (m x n) = A (m x k) * B (k x n).
//! TILECRAFT_THROW_IF_ERROR(tilecraft::gemm(tilecraft::Order::row_major, tilecraft::Op::none, tilecraft::Op::none,
//!                                          m, n, k, 1.0f, d_a, k, d_b, n, 0.0f, d_c, n, stream));
//! \endcode
template <class Policy = void>
[[nodiscard]] cudaError_t gemm(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                               float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                               float beta, float* c, std::int64_t ldc, cudaStream_t stream = nullptr) {
  return detail::gemm_of<Policy, float>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream);
}

//! C = alpha * op(A) * op(B) + beta * C for double matrices: the float gemm()'s semantics,
//! arguments and checks (pointers double-aligned: 8 bytes; 16-byte-aligned operands with even
//! leading dimensions take the vector path), with FP64 FMAs (DFMA on the SIMT pipe, not the
//! FP64 tensor cores). `Policy`: a GemmPolicy whose element type is double, or void to choose
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
  return detail::gemm_of<Policy, double>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream);
}

#endif  // __CUDACC__

}  // namespace tilecraft
