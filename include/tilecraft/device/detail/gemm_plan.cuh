//! \file device/detail/gemm_plan.cuh
//! The device GEMM's plan: pure host functions, each decision made here once. The argument
//! checks, the row-major form of the problem, the split of K, the packing of K-contiguous
//! operands and its panels, the GemmPolicyHuge rule and the default policy by shape. The
//! dispatch (gemm_dispatch.cuh) only follows the plan. Host code (g++) can include it, so host
//! tests check every rule. The tunable limits (GemmTunables) are arguments, never globals.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>

#include "../../config.cuh"
#include "../../memory/matrix_ref.cuh"
#include "../../util/device_cache.cuh"
#include "../../util/math.cuh"
#include "../gemm_policy.cuh"

namespace tilecraft::detail {

// ---- the tunable limits ---------------------------------------------------------------------

//! When K is split (see split_k_plan): slices at least min_slice long, only for products of at
//! least min_volume multiply-adds (the workspace round trip and the second kernel cost a few
//! microseconds), the workspace at most max_bytes. The SIMT kernel's waves (split_k_plan only)
//! hold wave_blocks_per_sm blocks an SM (0: the policy's min_blocks_per_sm); split_tail: the
//! tiles of a last partial wave behind whole ones are split too (false: only products with
//! fewer tiles than a wave). balanced: the split tiles' K steps may also be dealt out to a
//! wave of blocks in equal shares (see BalancedSplit) where split_cost says that pays.
struct GemmSplitLimits {
  std::int64_t min_slice = 256;
  double min_volume = 268435456.0;  // 2^28 multiply-adds
  std::int64_t max_bytes = std::int64_t{64} << 20;
  int wave_blocks_per_sm = 0;
  bool split_tail = true;
  bool balanced = true;
};

//! When an operand is packed (see pack_plan): the other side of C at least min_side and the
//! product at least min_volume multiply-adds (the transpose reads and writes the operand once,
//! so it pays when the product reuses each element often: on the H200, for float, it cost 1024^3
//! 6%, 1024 x 1024 x 2800 4%, 1100 x 1300 x 1500 and 1280^3 3% against the same product
//! unpacked, and gained 1600^3 11%, 1800^3 3.5%, 4097 x 4095 x 4093 7%: a packed operand pays
//! where whole waves of tiles run long K, not where a wave's split K hides the element fill),
//! at least copy_min_volume where an operand that is not K-contiguous has to be copied to
//! aligned rows for it (below that the vector fill gained less than the copies cost:
//! benchmarks/TUNING.md). Each packed operand at most `bytes`, or 1 / memory_share of the
//! device's memory where that is more (see pack_budget; 0: `bytes` alone); larger ones go in
//! panels.
struct GemmPackLimits {
  std::int64_t min_side = 1024;
  double min_volume = 3221225472.0;  // 3 x 2^30 multiply-adds
  std::int64_t bytes = std::int64_t{64} << 20;
  double copy_min_volume = 4294967296.0;  // 2^32 multiply-adds
  int memory_share = 64;
};

//! The workspace a packed operand may take on a device with `memory` bytes of global memory:
//! limits.bytes, or memory / limits.memory_share where that is more. Panels cost a product
//! whole waves of tiles (6144^3 in three panels, 5001 x 4999 x 5003 in two: 0.72 against 0.95
//! of cuBLAS's time whole), so the budget grows with the device (2.2 GB on an H200; the
//! workspace pool keeps up to a sixteenth of the memory anyway).
inline std::int64_t pack_budget(const GemmPackLimits& limits, std::int64_t memory) {
  const std::int64_t share = limits.memory_share > 0 ? memory / limits.memory_share : 0;
  return share > limits.bytes ? share : limits.bytes;
}

//! GemmPolicyHuge runs only for K >= min_k: a lone block per SM hides neither a short K's
//! prologue nor the epilogue of its 128 accumulators a thread.
struct GemmHugeLimits {
  std::int64_t min_k = 1024;
};

//! The most rows (columns) a thin product has (gemm_thin_kernel's accumulators a thread).
inline constexpr std::int64_t thin_most = 8;

//! gemm_thin_kernel's block for R accumulators a thread: 256 threads, `lines` lines of the long
//! side and k_threads threads along K for each, `loads` loads of the wide operand in flight a
//! thread (a chunk of K: loads x k_threads). Measured on an H200 (benchmarks/TUNING.md): one
//! row, 4 lines of 64 threads and a chunk of 2048 (one round trip for most edges' K); four
//! rows, 8 lines of 32 and a chunk of 512 (the wider chunk took 212 registers and ran slower);
//! eight rows, 8 lines of 32 and a chunk of 256 (8 accumulators, 8 wide loads and 8 staged
//! values a thread fit 128 registers without spilling).
template <int R>
struct ThinShape {
  static constexpr int threads = 256;
  static constexpr int lines = R == 1 ? 4 : 8;
  static constexpr int k_threads = threads / lines;
  static constexpr int loads = R == 1 ? 32 : R <= 4 ? 16 : 8;
  static constexpr int chunk = loads * k_threads;
  static_assert(lines * k_threads == threads, "ThinShape: the block's threads are lines x k_threads");
  static_assert(chunk >= threads && R * chunk % threads == 0,
                "ThinShape: a chunk must hold a partial sum for every thread (the staging buffer is reused for "
                "them) and split evenly over the threads' staging loads");
};

//! The accumulators of the thin kernel launch_thin runs for r (1 ... thin_most) rows: one for the
//! commonest edge (1025 = 8 x 128 + 1), four up to 4 rows, else thin_most (a thread's
//! accumulators and loads grow with R, so the fewest that hold r).
constexpr int thin_kernel_rows(std::int64_t r) { return r == 1 ? 1 : r <= 4 ? 4 : static_cast<int>(thin_most); }

//! The lines of the long side one block of that kernel takes.
constexpr int thin_lines_per_block(std::int64_t r) {
  return r == 1 ? ThinShape<1>::lines : r <= 4 ? ThinShape<4>::lines : ThinShape<static_cast<int>(thin_most)>::lines;
}

//! When the default policy's ragged last tile row (column) is peeled off C into a thin product
//! of its own (see edge_plan): at most `most` rows (columns), for products of at least
//! min_volume multiply-adds (below that the thin product's launch costs more than the tile row
//! it saves).
struct GemmEdgeLimits {
  std::int64_t most = thin_most;
  double min_volume = 536870912.0;  // 2^29 multiply-adds
};

//! Every limit the plan uses, passed to the dispatch (gemm() uses the defaults; tests and
//! experiments pass others).
struct GemmTunables {
  GemmSplitLimits split{};
  GemmPackLimits pack{};
  GemmHugeLimits huge{};
  GemmEdgeLimits edge{};
  //! The SMs the plan fills (0: the device's; tests plan for a few, so that small products
  //! have whole waves and a last one).
  int sms = 0;
  //! The most bytes of workspace one request may take (negative: no limit); a larger request
  //! is refused as an exhausted pool refuses it, and the call takes its path without workspace
  //! (tests: those paths on any GPU).
  std::int64_t workspace_limit = -1;
};

//! The tensor-core launchers' limits (16-bit operands, and float operands in GemmMath::tf32 /
//! tf32x3): gemm() uses the defaults; tests and experiments pass others.
struct GemmTensorTunables {
  //! When the wgmma kernel splits the last wave's K (wgmma_slices_plan) or runs its last waves
  //! stream-K (wgmma_stream_k_plan): min_slice, the least K of a slice or a block's share;
  //! min_volume; max_bytes, their partial sums.
  GemmSplitLimits split{};
  //! Float operands: the wgmma kernel runs only when its blocks (tiles times K slices) fill at
  //! least this share of the SMs; fewer run faster as the mma.sync fallback's smaller tiles,
  //! without packing (benchmarks/TUNING.md).
  double min_wave_fill = 0.5;
  //! 16-bit operands that the wgmma kernel cannot read as stored (not 16-byte aligned) are
  //! copied into aligned workspace for it from this many multiply-adds on (2^26); smaller
  //! products run on mma.sync as they are.
  double pack_min_volume = 67108864.0;
  //! The SMs the plan fills (0: the device's; tests plan for a few, so that small products
  //! have full waves and a last one).
  int sms = 0;
  //! The width of the wgmma kernel's tiles (16-bit operands and TF32): 0 chooses by shape
  //! (wgmma_tile_width), 64, 128, 192 or 256 forces it (tests, experiments), and so do 144 and
  //! 168 for 16-bit operands whose Y (the B of the row-major form) is K-contiguous (192
  //! elsewhere).
  int tile_width = 0;
  //! The shared memory a block of the float operands' mma.sync path may take (bytes; 0: what
  //! the device lets a block opt in to). Its configurations take 80 KiB (TF32, 4 stages) and 81
  //! KiB (TF32x3, 3 stages); below that (sm_75 opts in to 64 KiB) the same tiles run one stage
  //! fewer (60 and 54 KiB). Tests pass 65536 to run those on any GPU.
  int fallback_smem_limit = 0;
  //! What a column of a 128- and of a 192-wide tile costs against a 256-wide one's
  //! (wgmma_tile_width): measured on the H200, BF16 at 4096^3 (benchmarks/TUNING.md); the
  //! 64-wide option is a tile of 64 x 128 (one computing warpgroup), which costs cost_narrow
  //! per 128 rows x 64 columns.
  double cost_128 = 1.3;
  double cost_narrow = 1.6;
  double cost_192 = 1.1;
  //! A column of a 144- or 168-wide tile (16-bit operands, Y K-contiguous; benchmarks/TUNING.md,
  //! "Tiles of 144 and 168 columns"): between 1.10 and 1.25 fits every shape measured.
  double cost_144_168 = 1.2;
  //! A row-major NN product of 16-bit operands (X K-contiguous, Y not) runs as its transpose,
  //! C^T = Y X^T (X as wgmma's K-contiguous B, C stored transposed through shared memory), where
  //! that takes tiles of 144 or 168 columns, or tiles of 64 x 128 over a K of at least this where
  //! C has no more columns than rows (their K step runs 6 to 8% faster with a K-contiguous B; the
  //! staged store costs a tile more than the direct one: benchmarks/TUNING.md, "A row-major NN
  //! product as its transpose"). 0: 64 x 128 tiles at every K (tests); negative: never.
  std::int64_t transpose_min_k = 2048;
  //! What a stream-K K step costs against a whole tile's, and what a partial sum costs,
  //! written or read, in K steps (wgmma_plan_steps): TF32x3 on the H200 (benchmarks/TUNING.md;
  //! 16-bit operands measured 1.3 to 2.1 a step, stream-K off for them by default).
  double stream_k_step = 1.0;
  double fixup = 3.0;
  //! Stream-K (wgmma_plan_for): 0 for TF32x3 where the plan's cost says it pays (the other
  //! maths split the last wave's K in slices), 1 for every math wherever it may run (tests),
  //! -1 never (K slices for TF32x3 too).
  int stream_k = 0;
  //! TF32 with an operand that is not K-contiguous and has 16-byte aligned rows: it goes to
  //! wgmma from registers as it is stored (true), or is transposed into workspace first (false:
  //! tests, experiments; benchmarks/TUNING.md). An N-contiguous B (the row-major B of C = A B)
  //! beside a K-contiguous A: C^T = B^T A^T, C stored transposed. An M-contiguous A (row-major
  //! op(A) = A^T): C = A B as it is, B transposed into workspace first where it is not
  //! K-contiguous either.
  bool registers_operand = true;
  //! TF32 (not split): a K-contiguous operand read as stored whose rows start 16 bytes off a
  //! 32-byte boundary (a leading dimension of 4 mod 8 floats, or such an address) is copied
  //! into 128-byte aligned rows first on products of at least this many elements of C
  //! (negative: never; 0: always, tests): the wgmma kernel's B always, its A only on tiles of
  //! 128 columns or fewer (64 x 128, 128 x 128). TMA brought such rows at about half its rate
  //! on the H200, and the copy paid on every such shape measured, from 1024 x 1024 on, but for
  //! the A of 192- and 256-column tiles (benchmarks/TUNING.md).
  std::int64_t pack_unaligned_min = std::int64_t{1} << 20;
  //! 16-bit operands: the wgmma kernel's B (Y, or X where the product runs as its transpose)
  //! read as stored with rows that start 16 bytes off a 32-byte boundary (a leading dimension
  //! of 8 mod 16 elements, or such an address) is copied into 128-byte aligned rows first on
  //! products of at least pack_16bit_pair_min elements of C where the kernel's A has such rows
  //! too, and of at least pack_16bit_b_min where it does not. Its A stays as stored: copying it
  //! too, or B on smaller products, lost on the H200 (2048 x 2048 x 2040 NN 0.93 -> 0.75 with
  //! the A copied; with the B alone, B's rows the only ones off, 2048 x 2048 x 2040 TT 0.85 ->
  //! 0.76, but 6000 x 2000 x 3000 TT 0.69 -> 0.88; both sides off, 3000 x 1000 x 3000 0.61 ->
  //! 0.71 and 3000^3 0.60 -> 0.77: benchmarks/TUNING.md). Negative: never; 0: always (tests).
  std::int64_t pack_16bit_pair_min = std::int64_t{1} << 21;
  std::int64_t pack_16bit_b_min = std::int64_t{10} << 20;
  //! As GemmTunables::workspace_limit: a request above it is refused as an exhausted pool
  //! refuses it, and the call takes its path without workspace.
  std::int64_t workspace_limit = -1;
};

// ---- arguments --------------------------------------------------------------------------------

//! Elements spanned by a matrix of T stored as `rows x cols` in `order` with leading dimension
//! ld, or -1 when that overflows 64-bit byte offsets.
template <class T>
std::int64_t matrix_span(Order order, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  const std::int64_t major = order == Order::row_major ? rows : cols;
  const std::int64_t minor = order == Order::row_major ? cols : rows;
  if (major == 0 || minor == 0) return 0;
  constexpr std::int64_t max_elems = INT64_MAX / static_cast<std::int64_t>(sizeof(T));
  if (ld > max_elems / major) return -1;
  return (major - 1) * ld + minor;
}

//! BLAS's argument checks (see gemm()): cudaSuccess when the call is valid. C may hold another
//! type than A and B (float C for 16-bit operands).
template <class T, class TC = T>
cudaError_t check_gemm_args(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a,
                            std::int64_t lda, const T* b, std::int64_t ldb, const TC* c, std::int64_t ldc) {
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
  const std::int64_t c_span = matrix_span<TC>(order, m, n, ldc);
  const std::int64_t a_span = k > 0 ? matrix_span<T>(order, a_rows, a_cols, lda) : 0;
  const std::int64_t b_span = k > 0 ? matrix_span<T>(order, b_rows, b_cols, ldb) : 0;
  if (c_span < 0 || a_span < 0 || b_span < 0) return cudaErrorInvalidValue;
  // Elements must be aligned to their type. (C sharing elements with A or B is not checked, as
  // in BLAS: disjoint blocks of one allocation with one leading dimension, as in a blocked LU
  // update, are valid, and an exact check would cost more than the call.)
  auto misaligned = [](const void* p, std::size_t align) { return reinterpret_cast<std::uintptr_t>(p) % align != 0; };
  if (misaligned(c, alignof(TC)) || (k > 0 && (misaligned(a, alignof(T)) || misaligned(b, alignof(T))))) {
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

// ---- the problem as computed: C row-major -----------------------------------------------------

//! C (row-major, rows x cols) = op(A) (rows x k, in order_a) * op(B) (k x cols, in order_b). A
//! column-major C is the row-major C^T = op(B)^T op(A)^T: the operands swap and `transposed`
//! tells the epilogue to swap its coordinates back.
template <class T>
struct GemmProblem {
  Order order_a;
  Order order_b;
  MatrixRef<const T> a;  //!< rows x k, stored in order_a
  MatrixRef<const T> b;  //!< k x cols, stored in order_b
  MatrixRef<T> c;        //!< rows x cols, row-major
  bool transposed;
};

//! The row-major form of a checked gemm() call.
template <class T>
GemmProblem<T> row_major_problem(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                                 const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T* c, std::int64_t ldc) {
  const bool row = order == Order::row_major;
  // op(X) of a row-major X is row-major, of a column-major X column-major; a transpose flips it.
  auto op_order = [&](Op op) { return row != (op == Op::transpose) ? Order::row_major : Order::col_major; };
  auto flip = [](Order o) { return o == Order::row_major ? Order::col_major : Order::row_major; };
  if (row) return {op_order(op_a), op_order(op_b), {a, m, k, lda}, {b, k, n, ldb}, {c, m, n, ldc}, false};
  return {flip(op_order(op_b)), flip(op_order(op_a)), {b, n, k, ldb}, {a, k, m, lda}, {c, n, m, ldc}, true};
}

//! BLAS's quick return for C = alpha op(A) op(B) + beta C: nothing to compute (m or n is 0), or
//! nothing to add and C kept as it is (not rewritten as 1 * C).
template <class S>
constexpr bool blas_quick_return(std::int64_t m, std::int64_t n, std::int64_t k, S alpha, S beta) {
  return m == 0 || n == 0 || ((alpha == S(0) || k == 0) && beta == S(1));
}

//! Whether a call only scales C (alpha == 0 or k == 0): C = beta C whatever alpha is, with no
//! product formed, so that neither NaN in A or B nor an infinite alpha times the empty sum reaches
//! C (BLAS reads neither A nor B then).
template <class S>
constexpr bool blas_scale_only(std::int64_t k, S alpha) {
  return alpha == S(0) || k == 0;
}

//! A checked call's operands in the form the tensor-core kernels take: C (rows x cols,
//! row-major) = X (rows x k) Y^T, with Y cols x k. A column-major C is the row-major
//! C^T = op(B)^T op(A)^T. x_k / y_k: K is the contiguous side of X / Y.
template <class T>
struct TensorOperands {
  std::int64_t rows, cols;
  const T* x;
  std::int64_t ldx;
  bool x_k;
  const T* y;
  std::int64_t ldy;
  bool y_k;
};

template <class T>
TensorOperands<T> tensor_operands(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, const T* a,
                                  std::int64_t lda, const T* b, std::int64_t ldb) {
  if (order == Order::row_major) return {m, n, a, lda, op_a == Op::none, b, ldb, op_b == Op::transpose};
  return {n, m, b, ldb, op_b == Op::none, a, lda, op_a == Op::transpose};
}

//! Whether an operand stored in `order` (a: rows x K, b: K x cols) reaches its K-major shared
//! tile element by element (its K index is the contiguous one): a row-major a, a column-major b.
constexpr bool k_contiguous_a(Order order_a) { return order_a == Order::row_major; }
constexpr bool k_contiguous_b(Order order_b) { return order_b == Order::col_major; }

//! Whether both operands fill their shared tiles in 16-byte vectors: a column-major and b
//! row-major, each with 16-byte aligned rows (the one rule TiledGemm::vector_fill_ok checks).
template <class T>
bool both_fill_in_vectors(const GemmProblem<T>& p) {
  return !k_contiguous_a(p.order_a) && !k_contiguous_b(p.order_b) && rows_vector_aligned(p.a) &&
         rows_vector_aligned(p.b);
}

// ---- what a policy contributes to the plan ---------------------------------------------------

//! The numbers of a policy the plan needs (so the rules are plain functions).
struct PolicyFacts {
  int tile_m, tile_n, tile_k, min_blocks_per_sm, max_split_k, element_bytes;
};
template <class Policy>
constexpr PolicyFacts facts_of() {
  return {Policy::tile_m,      Policy::tile_n,
          Policy::tile_k,      Policy::min_blocks_per_sm,
          Policy::max_split_k, static_cast<int>(sizeof(typename Policy::element_type))};
}

//! C tiles of `f` over rows x cols.
constexpr std::int64_t tile_count(const PolicyFacts& f, std::int64_t rows, std::int64_t cols) {
  return ceil_div<std::int64_t>(rows, f.tile_m) * ceil_div<std::int64_t>(cols, f.tile_n);
}

//! The blocks an SM holds in one of the SIMT kernel's waves of `f`: limits.wave_blocks_per_sm,
//! or the policy's min_blocks_per_sm where that is 0.
constexpr int wave_blocks_per_sm(const PolicyFacts& f, const GemmSplitLimits& limits) {
  return limits.wave_blocks_per_sm > 0 ? limits.wave_blocks_per_sm : f.min_blocks_per_sm;
}

// ---- split-K -----------------------------------------------------------------------------------

//! A split of K: `slices` slices of k_slice (a whole number of K steps; the last may be
//! shorter), or slices == 1 and k_slice == k. split_k_plan: the tiles [0, whole) (in the
//! kernel's order) keep K whole, the others are split. units > 0: the split tiles' K steps are
//! dealt out to `units` blocks in equal shares instead (BalancedSplit); k_slice is then the
//! shortest share (in elements of K) and slices the most pieces a tile is cut into, the slices
//! of partial sums a tile needs.
struct SplitPlan {
  int slices;
  std::int64_t k_slice;
  std::int64_t whole = 0;
  std::int64_t units = 0;
};

//! The K steps of `tiles` tiles (`steps` each, S = tiles x steps in all, tile after tile and
//! each tile's in K order) dealt out to `units` blocks in equal shares: unit u takes the steps
//! [begin(u), begin(u + 1)), begin(u) = floor(u S / units), so the shares differ by at most
//! one step and one may run across the end of a tile into the next. Piece j of tile t is the
//! part of it unit first(t) + j holds; its partial sums are slice j of the tile. Every C tile
//! then takes the same K steps as its share of the wave, where equal slices of each tile leave
//! some SMs one block short (99 tiles of 2 slices on 264 slots: the SMs with two blocks set
//! the time; dealt out, every slot takes 3 / 8 of a tile's K instead of 1 / 2). Needs S >= units
//! (no empty share) and units x S < 2^63. The same arithmetic on the host (plan, workspace,
//! reduction) and in the kernel.
struct BalancedSplit {
  std::int64_t tiles, steps, units;
  TILECRAFT_HOST_DEVICE constexpr std::int64_t total() const { return tiles * steps; }
  //! The first step of unit u's share (begin(units) == total()).
  TILECRAFT_HOST_DEVICE constexpr std::int64_t begin(std::int64_t u) const { return u * total() / units; }
  //! The unit whose share holds step x: the last u with begin(u) <= x.
  TILECRAFT_HOST_DEVICE constexpr std::int64_t unit_of(std::int64_t x) const {
    return ((x + 1) * units + total() - 1) / total() - 1;
  }
  //! The unit holding tile t's first step.
  TILECRAFT_HOST_DEVICE constexpr std::int64_t first(std::int64_t t) const { return unit_of(t * steps); }
  //! The pieces tile t is cut into (its slices of partial sums).
  TILECRAFT_HOST_DEVICE constexpr std::int64_t pieces(std::int64_t t) const {
    return unit_of((t + 1) * steps - 1) - first(t) + 1;
  }
  //! At least pieces(t) for every t: a tile's steps meet at most ceil(steps / shortest share)
  //! shares whole, and one more where they start inside a share.
  TILECRAFT_HOST_DEVICE constexpr std::int64_t most_pieces() const {
    return (steps + total() / units - 1) / (total() / units) + 1;
  }
};

//! K in `wanted` slices or fewer: at most max_slices, each at least limits.min_slice and whole
//! tile_k steps long, slice_bytes of partial sums each within limits.max_bytes; slices == 1
//! (and k_slice == k) when fewer than 2 remain.
inline SplitPlan k_slices(std::int64_t wanted, std::int64_t k, int tile_k, std::int64_t max_slices,
                          std::int64_t slice_bytes, const GemmSplitLimits& limits) {
  const SplitPlan whole{1, k};
  std::int64_t slices = wanted < max_slices ? wanted : max_slices;
  const std::int64_t by_k = k / (limits.min_slice > tile_k ? limits.min_slice : tile_k);
  const std::int64_t by_bytes = limits.max_bytes / slice_bytes;
  if (slices > by_k) slices = by_k;
  if (slices > by_bytes) slices = by_bytes;
  if (slices < 2) return whole;
  // Whole K steps per slice; rounding up can leave fewer slices than asked for (even one).
  const std::int64_t k_slice = round_up<std::int64_t>(ceil_div<std::int64_t>(k, slices), tile_k);
  const std::int64_t rounded = ceil_div<std::int64_t>(k, k_slice);
  return rounded < 2 ? whole : SplitPlan{static_cast<int>(rounded), k_slice};
}

//! split_k_plan's estimate of the time a product of `tiles` tiles takes split as `plan` says,
//! in rounds of a wave with K whole (every SM's slots busy for the whole of K). The blocks
//! spread over the SMs one an SM first: a lone block of a policy with at most two blocks an
//! SM (8 warps or more) keeps its SM about 85% as busy as two (0.6 of a round), one with more
//! blocks an SM counts a whole round. Past the SMs, blocks fill the slots, and every further
//! start of a round costs a whole one (the blocks of an SM end together, and the next ones take
//! its freed slots together, not one an SM). Each slice also writes and reads its partial sums:
//! on the H100 / H200 an SM does about 15 multiply-adds per byte the GPU moves, so a slice costs
//! tiles / (2 k per_sm) of a round.
//! A balanced plan (units > 0) takes tiles / units of a round's K on its units and writes
//! and reads units + tiles - 1 pieces at most.
inline double split_cost(std::int64_t tiles, std::int64_t k, int sms, int per_sm, const SplitPlan& plan) {
  // (K == 0, a scale-only call: whole rounds of no K, not 0 / 0.)
  const double kd = static_cast<double>(k > 0 ? k : 1);
  if (plan.units > 0) {
    const std::int64_t wave = static_cast<std::int64_t>(sms) * per_sm;
    const double rounds =
        plan.units <= sms ? (per_sm <= 2 ? 0.6 : 1.0) : static_cast<double>(ceil_div(plan.units, wave));
    const double share = static_cast<double>(tiles) / static_cast<double>(plan.units);
    const double pieces = static_cast<double>(plan.units + tiles - 1);
    return rounds * share + pieces / (2.0 * kd * per_sm);
  }
  const std::int64_t units = tiles * plan.slices;
  const std::int64_t wave = static_cast<std::int64_t>(sms) * per_sm;
  const double rounds = units <= sms ? (per_sm <= 2 ? 0.6 : 1.0) : static_cast<double>(ceil_div(units, wave));
  const double share = k > 0 ? static_cast<double>(plan.k_slice) / kd : 1.0;
  const double reduce = plan.slices > 1 ? static_cast<double>(tiles) / (2.0 * kd * per_sm) : 0.0;
  return rounds * share + reduce * plan.slices;
}

//! The K steps of `tiles` tiles dealt out to a wave of blocks (BalancedSplit), or slices == 1
//! where that breaks a limit: shares of at least limits.min_slice (and one K step), at most
//! f.max_split_k pieces a tile, their partial sums within limits.max_bytes.
inline SplitPlan balanced_split(const PolicyFacts& f, std::int64_t tiles, std::int64_t k, int sms, int per_sm,
                                const GemmSplitLimits& limits) {
  const SplitPlan whole{1, k};
  const std::int64_t units = static_cast<std::int64_t>(sms) * per_sm;
  const std::int64_t steps = ceil_div<std::int64_t>(k, f.tile_k);
  const std::int64_t min_steps = limits.min_slice > f.tile_k ? ceil_div<std::int64_t>(limits.min_slice, f.tile_k) : 1;
  if (!limits.balanced || tiles <= 0 || units <= tiles || steps > INT64_MAX / 4 / tiles) return whole;
  const std::int64_t total = tiles * steps;
  if (total / units < min_steps || total > INT64_MAX / 4 / units) return whole;
  const BalancedSplit deal{tiles, steps, units};
  const std::int64_t pieces = deal.most_pieces();
  const std::int64_t tile_bytes = static_cast<std::int64_t>(f.tile_m) * f.tile_n * f.element_bytes;
  if (pieces > f.max_split_k || pieces * tiles > limits.max_bytes / tile_bytes) return whole;
  return SplitPlan{static_cast<int>(pieces), total / units * f.tile_k, 0, units};
}

//! The split of K with the least split_cost for a product with fewer tiles than a wave (every
//! tile split alike, or the tiles' K steps dealt out to a wave: balanced_split), among the
//! slice counts k_slices allows.
inline SplitPlan cheapest_split(const PolicyFacts& f, std::int64_t tiles, std::int64_t k, int sms, int per_sm,
                                const GemmSplitLimits& limits) {
  const std::int64_t tile_bytes = static_cast<std::int64_t>(f.tile_m) * f.tile_n * f.element_bytes;
  SplitPlan best{1, k};
  double best_cost = split_cost(tiles, k, sms, per_sm, best);
  for (int wanted = 2; wanted <= f.max_split_k; ++wanted) {  // at most 64 (GemmPolicy)
    const SplitPlan plan = k_slices(wanted, k, f.tile_k, f.max_split_k, tiles * tile_bytes, limits);
    const double cost = split_cost(tiles, k, sms, per_sm, plan);
    if (cost < best_cost) {
      best = plan;
      best_cost = cost;
    }
  }
  const SplitPlan dealt = balanced_split(f, tiles, k, sms, per_sm, limits);
  if (dealt.units > 0 && split_cost(tiles, k, sms, per_sm, dealt) < best_cost) best = dealt;
  return best;
}

//! The SIMT kernel's split of K. A wave is sms x limits.wave_blocks_per_sm blocks (the policy's
//! min_blocks_per_sm by default). When C has fewer tiles than a wave, every tile is split into
//! the slices cheapest_split finds. Otherwise (limits.split_tail) the tiles fill whole waves
//! and leave `tail` tiles, the last wave: those are split as cheapest_split finds for them
//! alone (the blocks of the waves before pick their slices up as they finish), and the tiles
//! before them keep K whole. The partial sums take tail tiles of tile_m x tile_n elements a
//! slice. Only for products of at least limits.min_volume
//! multiply-adds, at most f.max_split_k slices.
inline SplitPlan split_k_plan(const PolicyFacts& f, std::int64_t m, std::int64_t n, std::int64_t k, int sms,
                              const GemmSplitLimits& limits) {
  const SplitPlan whole{1, k};
  if (m <= 0 || n <= 0 || sms <= 0 || f.max_split_k == 1) return whole;
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < limits.min_volume) return whole;
  const std::int64_t tiles = tile_count(f, m, n);
  const int per_sm = wave_blocks_per_sm(f, limits);
  const std::int64_t wave = static_cast<std::int64_t>(sms) * per_sm;
  if (tiles < wave) return cheapest_split(f, tiles, k, sms, per_sm, limits);
  const std::int64_t tail = tiles % wave;
  if (tail == 0 || !limits.split_tail) return whole;
  SplitPlan plan = cheapest_split(f, tail, k, sms, per_sm, limits);
  if (plan.slices < 2) return whole;
  plan.whole = tiles - tail;
  return plan;
}

// ---- the wgmma kernel's waves --------------------------------------------------------------------

//! How the wgmma kernel's `blocks` persistent blocks (one per SM) cover C's `tiles` tiles of
//! `ktiles` K steps each: tiles [0, whole) whole, tile u by block u % blocks (the full waves);
//! then the last tiles, [whole, tiles), in one of two ways:
//!   - slices > 1 (K slices): each in `slices` slices of slice_steps K steps (the last one
//!     shorter), units whole + s x tail + x (slice s of tile whole + x, tail = tiles - whole)
//!     continuing the round robin, each slice's sums to a tile of floats in workspace, summed in
//!     slice order by a second kernel (gemm_wgmma_slices_reduce_kernel);
//!   - otherwise stream-K (when whole < tiles): their K steps, tile after tile, dealt out to the
//!     blocks in equal shares (wgmma_stream_k_begin); a tile's steps that fall to several blocks
//!     are summed by the block holding its last one (the owner), which waits for the earlier
//!     blocks' partial sums and adds them in a fixed order; whole is then a multiple of blocks.
//! Either way the same bits on every run.
struct WgmmaPlan {
  std::int64_t tiles = 0;
  std::int64_t whole = 0;
  std::int64_t ktiles = 0;
  int blocks = 0;
  int slices = 1;
  std::int64_t slice_steps = 0;
  TILECRAFT_HOST_DEVICE constexpr bool split() const { return slices > 1; }
  TILECRAFT_HOST_DEVICE constexpr bool stream_k() const { return slices <= 1 && whole < tiles; }
  //! Units of the round robin: whole tiles and K slices (stream-K shares come after them).
  TILECRAFT_HOST_DEVICE constexpr std::int64_t units() const {
    return whole + (split() ? (tiles - whole) * slices : 0);
  }
};

//! Whether the wgmma kernel can run `plan`: it counts its units and K steps in 32 bits.
TILECRAFT_HOST_DEVICE constexpr bool wgmma_plan_fits(const WgmmaPlan& plan) {
  return plan.units() <= INT_MAX && plan.ktiles <= INT_MAX && plan.blocks > 0;
}

//! The first stream-K step of block b's share (plan.blocks + 1 values for b = 0 ... blocks: the
//! shares differ by one step at most, the longer ones first).
TILECRAFT_HOST_DEVICE constexpr std::int64_t wgmma_stream_k_begin(const WgmmaPlan& plan, std::int64_t b) {
  const std::int64_t steps = (plan.tiles - plan.whole) * plan.ktiles;
  const std::int64_t q = steps / plan.blocks, r = steps % plan.blocks;
  return b * q + (b < r ? b : r);
}

//! Every tile whole: one wave of min(tiles, sms) blocks at a time.
constexpr WgmmaPlan wgmma_whole_plan(std::int64_t tiles, std::int64_t ktiles, int sms) {
  return WgmmaPlan{tiles, tiles, ktiles, static_cast<int>(tiles < sms ? tiles : sms), 1, ktiles};
}

//! The last wave in K slices: a wave of `tail` < sms tiles takes as long as a full one, so its
//! K is split into about sms / tail slices (slices at least limits.min_slice and whole tile_k
//! steps long, at most max_slices, their partial sums at most limits.max_bytes: tail x
//! tile_elems floats a slice), for products of at least limits.min_volume multiply-adds; a tail
//! of more than half of the SMs, or a slice count below 2, leaves every tile whole.
inline WgmmaPlan wgmma_slices_plan(std::int64_t tiles, std::int64_t ktiles, double volume, int tile_k,
                                   std::int64_t tile_elems, int sms, int max_slices, const GemmSplitLimits& limits) {
  const WgmmaPlan whole = wgmma_whole_plan(tiles, ktiles, sms);
  if (tiles <= 0 || sms <= 0 || ktiles <= 0 || volume < limits.min_volume) return whole;
  const std::int64_t tail = tiles % sms;
  if (tail == 0) return whole;
  const SplitPlan split = k_slices(sms / tail, ktiles * tile_k, tile_k, max_slices,
                                   tail * tile_elems * static_cast<std::int64_t>(sizeof(float)), limits);
  if (split.slices < 2) return whole;
  const std::int64_t units = tiles - tail + tail * split.slices;
  return WgmmaPlan{tiles,        tiles - tail,          ktiles, static_cast<int>(units < sms ? units : sms),
                   split.slices, split.k_slice / tile_k};
}

//! What stream-K `plan` takes, in K steps of its whole tiles: the whole tiles' waves, then the
//! longest share, its steps costing `step` each, and its partial sums (`fixup` steps each: the
//! one a block writes when its share ends inside a tile, and the ones the owner reads: a
//! tile's steps meet ceil(ktiles / share) + 1 blocks at most).
inline double wgmma_plan_steps(const WgmmaPlan& plan, double step, double fixup) {
  if (plan.blocks <= 0) return 0.0;
  const double waves = static_cast<double>(ceil_div<std::int64_t>(plan.whole, plan.blocks));
  double steps = waves * static_cast<double>(plan.ktiles);
  if (plan.stream_k()) {
    const std::int64_t share = wgmma_stream_k_begin(plan, 1);  // the longest share
    steps += step * static_cast<double>(share) +
             fixup * static_cast<double>(1 + ceil_div<std::int64_t>(plan.ktiles, share > 0 ? share : 1));
  }
  return steps;
}

//! Stream-K where wgmma_plan_steps (with t.stream_k_step and t.fixup) says it takes less time
//! than every tile whole (t.stream_k > 0: wherever it may run): the last partial wave with one
//! full wave before it (so that each share holds at least a tile's K steps and a tile's steps
//! fall to two blocks at most), or, with fewer tiles than SMs, every tile, on the number of
//! blocks (more than tiles, at most sms) that wgmma_plan_steps finds fastest among those that
//! give each one at least t.split.min_slice of K. Never below t.split.min_volume multiply-adds,
//! with whole waves, or with partial sums (a tile of floats a block) above t.split.max_bytes.
inline WgmmaPlan wgmma_stream_k_plan(std::int64_t tiles, std::int64_t ktiles, double volume, int tile_k,
                                     std::int64_t tile_elems, int sms, const GemmTensorTunables& t) {
  const GemmSplitLimits& limits = t.split;
  const WgmmaPlan dp = wgmma_whole_plan(tiles, ktiles, sms);
  if (tiles <= 0 || sms <= 0 || ktiles <= 1 || volume < limits.min_volume) return dp;
  const std::int64_t tail = tiles % sms;
  if (tiles >= sms && tail == 0) return dp;
  const std::int64_t sk = tiles > sms ? tail + sms : tiles;
  const std::int64_t max_blocks = limits.max_bytes / (tile_elems * static_cast<std::int64_t>(sizeof(float)));
  WgmmaPlan stream_k{tiles, tiles - sk, ktiles, sms, 1, ktiles};
  if (tiles > sms) {
    if (sms > max_blocks) return dp;
  } else {
    // Fewer tiles than SMs: the block count whose plan takes least time (fewer blocks: longer
    // shares, a tile's steps on fewer of them), each share at least min_slice of K.
    const std::int64_t min_steps =
        ceil_div<std::int64_t>(limits.min_slice > tile_k ? limits.min_slice : tile_k, tile_k);
    std::int64_t most = sk * ktiles / min_steps;
    if (most > sms) most = sms;
    if (most > max_blocks) most = max_blocks;
    if (most <= tiles) return dp;
    double best = 0.0;
    for (std::int64_t blocks = tiles + 1; blocks <= most; ++blocks) {
      const WgmmaPlan candidate{tiles, 0, ktiles, static_cast<int>(blocks), 1, ktiles};
      const double steps = wgmma_plan_steps(candidate, t.stream_k_step, t.fixup);
      if (blocks == tiles + 1 || steps < best) {
        best = steps;
        stream_k = candidate;
      }
    }
  }
  const bool faster =
      wgmma_plan_steps(stream_k, t.stream_k_step, t.fixup) < wgmma_plan_steps(dp, t.stream_k_step, t.fixup);
  return t.stream_k > 0 || faster ? stream_k : dp;
}

//! The plan of the wgmma kernel on C (rows x cols) x k in tiles of tile_m x tile_n with K steps
//! of tile_k on `sms` SMs: stream-K (wgmma_stream_k_plan) for compute-bound products (TF32x3:
//! three products a stage, so blocks that read their operands at other K than their
//! neighbours lose little) with fewer tiles than SMs, or wherever t.stream_k > 0; else the last
//! wave in K slices (wgmma_slices_plan, at most max_slices). Measured on the H200
//! (benchmarks/TUNING.md): TF32x3 stream-K 1.3 to 2.7 times faster than whole tiles with fewer
//! tiles than SMs, 3 to 18% slower at 4096^3; 16-bit and TF32 operands slower stream-K almost
//! everywhere (their K steps run 1.3 to 2.1 times slower in stream-K shares).
inline WgmmaPlan wgmma_plan_for(std::int64_t rows, std::int64_t cols, std::int64_t k, int tile_m, int tile_n,
                                int tile_k, int sms, int max_slices, bool compute_bound, const GemmTensorTunables& t) {
  const std::int64_t tiles = ceil_div<std::int64_t>(rows, tile_m) * ceil_div<std::int64_t>(cols, tile_n);
  const std::int64_t ktiles = ceil_div<std::int64_t>(k, tile_k);
  const double volume = static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(k);
  const std::int64_t tile_elems = std::int64_t{tile_m} * tile_n;
  if (t.stream_k > 0 || (t.stream_k == 0 && compute_bound && tiles < sms)) {
    return wgmma_stream_k_plan(tiles, ktiles, volume, tile_k, tile_elems, sms, t);
  }
  return wgmma_slices_plan(tiles, ktiles, volume, tile_k, tile_elems, sms, max_slices, t.split);
}

//! The width of the wgmma kernel's tiles (tile_m x width, width 256, 192, 128 or 64) for C (rows x
//! cols) on `sms` SMs: the one that takes least time, counted as waves of tiles (whole: a wave
//! that is not full takes as long as a full one) times a tile's columns times what a column
//! costs at that width against 256 (cost_128, cost_64: a thinner tile reads more operand bytes
//! from L2 a multiply-add, (128 + 64) x 64 elements for 128 x 64 x 64 of them against
//! (128 + 256) x 64 for 128 x 256 x 64; at 64 it runs at about 56% of the wide tile's rate on
//! the H200); ties go to the wider tile. So products whose wide tiles fill less than a wave run
//! thinner ones: 1024^3 has 32 wide tiles for 132 SMs, 128 of 128 x 64. narrow_m > 0: the
//! 64-wide option is a tile of narrow_m x (tile_m x 64 / narrow_m) instead (the same elements:
//! 16-bit operands run 64 x 128), its waves counted on those tiles. cost_192 > 0: 192 columns are
//! an option too (16-bit operands: 1536^3 has 72 wide tiles for 132 SMs, 96 of 192 columns;
//! 3072^3 fills 2.2 waves of wide tiles, 2.9 of 192 columns). cost_144_168 > 0: so are 168 and
//! 144 columns, at that cost each (16-bit operands whose Y is K-contiguous: 1536^3 fills the 132
//! SMs with 12 x 11 tiles of 144 columns, 2304^3 two waves with 18 x 14 tiles of 168).
inline int wgmma_tile_width(std::int64_t rows, std::int64_t cols, int tile_m, int sms, double cost_128, double cost_64,
                            int narrow_m = 0, double cost_192 = 0.0, double cost_144_168 = 0.0) {
  if (rows <= 0 || cols <= 0 || sms <= 0 || tile_m <= 0) return 256;
  auto time = [&](std::int64_t tm, std::int64_t tn, double cost) {
    const std::int64_t tiles = ceil_div<std::int64_t>(rows, tm) * ceil_div<std::int64_t>(cols, tn);
    return static_cast<double>(ceil_div<std::int64_t>(tiles, sms)) * static_cast<double>(tm * tn / tile_m) * cost;
  };
  int best = 256;
  double best_time = time(tile_m, 256, 1.0);
  if (cost_192 > 0.0 && time(tile_m, 192, cost_192) < best_time) {
    best = 192;
    best_time = time(tile_m, 192, cost_192);
  }
  if (cost_144_168 > 0.0) {
    for (int w : {168, 144}) {
      if (time(tile_m, w, cost_144_168) < best_time) {
        best = w;
        best_time = time(tile_m, w, cost_144_168);
      }
    }
  }
  if (time(tile_m, 128, cost_128) < best_time) {
    best = 128;
    best_time = time(tile_m, 128, cost_128);
  }
  const std::int64_t m64 = narrow_m > 0 ? narrow_m : tile_m;
  if (time(m64, std::int64_t{tile_m} * 64 / m64, cost_64) < best_time) best = 64;
  return best;
}

// ---- GemmPolicyHuge ------------------------------------------------------------------------------

//! Whether a product whose operands both fill in vectors runs on the huge policy `f` (one block
//! of 256 x 128 per SM) rather than on two smaller blocks per SM: K at least limits.min_k, and
//! a last wave of C's tiles that fills at least half of the SMs (a tile short of a full wave
//! waits for the whole of one, where a smaller block alone on an SM runs faster than two).
inline bool huge_policy_pays(const PolicyFacts& f, std::int64_t m, std::int64_t n, std::int64_t k, int sms,
                             const GemmHugeLimits& limits) {
  if (k < limits.min_k || m <= 0 || n <= 0 || sms <= 0) return false;
  const std::int64_t last_wave = tile_count(f, m, n) % sms;
  return last_wave == 0 || 2 * last_wave >= sms;
}

// ---- packing -----------------------------------------------------------------------------------

//! The extent of each panel when `extent` rows (or columns) are packed at most `most` at a time
//! (a multiple of `tile`, at least one tile): as few panels as that allows, of equal size in
//! whole tiles (the last may be shorter). Equal rather than as large as possible: a short last
//! panel is a product of few tiles that leaves most SMs idle.
inline std::int64_t panel_extent(std::int64_t extent, std::int64_t most, std::int64_t tile) {
  if (extent <= most || most < tile) return extent;  // (most < tile: pack_plan excludes it)
  const std::int64_t panels = ceil_div<std::int64_t>(extent, most);
  return round_up<std::int64_t>(ceil_div<std::int64_t>(extent, panels), tile);
}

//! Which operands are packed (copied once into a workspace, so that their shared tiles fill in
//! 16-byte vectors: a K-contiguous operand transposed, one whose rows are not 16-byte aligned
//! copied as it is, with a leading dimension of whole tiles, zeros past its extent) and the
//! panels of C the product then runs in: rows panel_m of A (and C), columns panel_n of B (and
//! C); packed leading dimensions ld_a, ld_b (multiples of the panels' tile, so of a vector);
//! a_elems + b_elems elements of workspace.
struct PackPlan {
  bool pack_a = false, pack_b = false;
  std::int64_t panel_m = 0, panel_n = 0;
  std::int64_t ld_a = 0, ld_b = 0;
  std::int64_t a_elems = 0, b_elems = 0;
  bool packs() const { return pack_a || pack_b; }
};

//! The packing of problem `p`: an operand that does not fill in vectors as given (K-contiguous,
//! or rows not 16-byte aligned) is packed when the product reuses it enough (limits), whole or
//! (beyond limits.bytes, which the dispatch sets to pack_budget) in equal panels of whole `panel_tile_m` x
//! `panel_tile_n` tiles (of every policy that may multiply them) within limits.bytes. Nothing is packed when an operand
//! that is not K-contiguous must stay unaligned: its element-wise fill keeps the kernel off the vector fill, through
//! which alone packing pays.
template <class T>
PackPlan pack_plan(const GemmProblem<T>& p, std::int64_t panel_tile_m, std::int64_t panel_tile_n,
                   const GemmPackLimits& limits) {
  const std::int64_t m = p.c.rows, n = p.c.cols, k = p.a.cols;
  PackPlan plan;
  plan.panel_m = m;
  plan.panel_n = n;
  const bool a_scattered = k_contiguous_a(p.order_a), b_scattered = k_contiguous_b(p.order_b);
  const bool pays =
      k > 0 && static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >= limits.min_volume;
  if (!pays) return plan;
  constexpr std::int64_t vector = 16 / static_cast<std::int64_t>(sizeof(T));
  // Packed rows of K elements the budget holds; a packed operand's leading dimension is its
  // panel's extent rounded up to whole tiles (whole vectors too), the rows past the extent
  // zeroed, so that every tile of it is whole for the fills; panels are whole tiles.
  const std::int64_t budget_rows = limits.bytes / (k * static_cast<std::int64_t>(sizeof(T)));
  auto whole = [&](std::int64_t extent, std::int64_t tile) { return round_up(extent, tile) <= budget_rows; };
  const bool a_ready = !a_scattered && rows_vector_aligned(p.a);
  const bool b_ready = !b_scattered && rows_vector_aligned(p.b);
  const bool copies_pay =
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >= limits.copy_min_volume;
  const bool a_copyable = a_scattered || copies_pay;
  const bool b_copyable = b_scattered || copies_pay;
  plan.pack_a =
      !a_ready && a_copyable && n >= limits.min_side && (whole(m, panel_tile_m) || budget_rows >= panel_tile_m);
  plan.pack_b =
      !b_ready && b_copyable && m >= limits.min_side && (whole(n, panel_tile_n) || budget_rows >= panel_tile_n);
  if ((!a_scattered && !a_ready && !plan.pack_a) || (!b_scattered && !b_ready && !plan.pack_b)) {
    plan.pack_a = plan.pack_b = false;
  }
  auto panel = [&](bool pack, std::int64_t extent, std::int64_t tile) {
    return pack && !whole(extent, tile) ? panel_extent(extent, budget_rows / tile * tile, tile) : extent;
  };
  plan.panel_m = panel(plan.pack_a, m, panel_tile_m);
  plan.panel_n = panel(plan.pack_b, n, panel_tile_n);
  plan.ld_a = round_up<std::int64_t>(plan.panel_m, plan.pack_a ? panel_tile_m : vector);
  plan.ld_b = round_up<std::int64_t>(plan.panel_n, plan.pack_b ? panel_tile_n : vector);
  plan.a_elems = plan.pack_a ? k * plan.ld_a : 0;
  plan.b_elems = plan.pack_b ? k * plan.ld_b : 0;
  return plan;
}

// ---- the default policy by shape -------------------------------------------------------------

//! A policy's time for C as split_k_plan runs it, in rounds of 128 x 128 tiles two an SM, at a
//! kernel pace relative to GemmPolicyLarge's (measured on the H200): split_cost at `pace` where
//! it has fewer tiles than a wave; else a round per whole wave at `wave_pace` (0: `pace`), and
//! the last partial wave by split_cost at `pace` (its tiles split as split_k_plan says, or
//! whole).
inline double modeled_time(const PolicyFacts& f, double pace, std::int64_t rows, std::int64_t cols, std::int64_t k,
                           int sms, const GemmSplitLimits& limits, double wave_pace = 0.0) {
  if (sms <= 0) return std::numeric_limits<double>::infinity();
  const int per_sm = wave_blocks_per_sm(f, limits);
  const std::int64_t tiles = tile_count(f, rows, cols);
  const std::int64_t wave = static_cast<std::int64_t>(sms) * per_sm;
  const SplitPlan plan = split_k_plan(f, rows, cols, k, sms, limits);
  const double slot_work = static_cast<double>(f.tile_m) * f.tile_n * per_sm / (128.0 * 128.0 * 2.0);
  if (tiles < wave) return split_cost(tiles, k, sms, per_sm, plan) * slot_work / pace;
  const std::int64_t tail = tiles % wave;
  double time = static_cast<double>(tiles / wave) / (wave_pace > 0.0 ? wave_pace : pace);
  if (tail > 0) time += split_cost(tail, k, sms, per_sm, plan.slices > 1 ? plan : SplitPlan{1, k}) / pace;
  return time * slot_work;
}

//! The SIMT kernels' paces relative to GemmPolicyLarge's, for modeled_time, measured on the H200
//! (benchmarks/TUNING.md): where C has fewer 128 x 128 tiles than 1.6 x the SMs (products split
//! in K, a wave or less: fitted to every policy forced on 19 shapes from 1024^3 to 1700^3, where
//! 64 x 128 tiles ran 0.98-1.05x and 64 x 64 ones 1.04-1.15x the time of 128 x 128 ones against
//! a model that gave them 0.95-1.00x and 0.85-1.00x), and where it has more (whole waves, since
//! the mainloop's refill was rewritten: 64 x 128 tiles 1.01 to 1.09 of 128 x 128 ones' pace at
//! 2048^3 to 8192^3; in the split region too, for the whole waves of the smaller tiles: 1600^3's
//! 625 tiles of 64 x 64).
struct PolicyPaces {
  double skinny, medium, small;
};
inline constexpr PolicyPaces split_paces{0.975, 0.85, 0.7};
inline constexpr PolicyPaces wave_paces{1.03, 0.92, 0.77};

//! The defaults gemm() chooses among (large_huge: GemmPolicyLarge, and GemmPolicyHuge where
//! huge_policy_pays on operands that fill in vectors).
enum class GemmChoice { large, large3, large_huge, skinny, medium, small, large_f64, medium_f64, small_f64 };

//! The default policy for C (row-major, rows x cols) and k on a device with `limits`. Where C
//! has at most 64 rows or fewer 128 x 128 tiles than 1.6 x the SMs (a wave of two blocks an SM
//! at most 80% full): with a long K, 64 x 128 tiles and split-K (64 x 64 where those fill their
//! waves better); with a short one, 64 x 64 tiles where they give every SM a block (else 32 x
//! 64); and, past 64 rows, 64 x 128 tiles (short K) or 128 x 128 tiles, split in K, instead of
//! those where modeled_time says they finish sooner (split_paces, and wave_paces for the whole
//! waves of the smaller tiles). Elsewhere (float): the 3-stage 128 x 128 tiles where the 4-stage
//! ones do not fit; else the 64 x 128, 64 x 64 or 128 x 128 tiles whose waves modeled_time
//! (wave_paces) finds shortest, the last as large_huge where GemmPolicyHuge fits. Double: 128 x
//! 64 tiles when C has more than 64 rows and as many tiles as SMs, else 64 x 64 ones when those
//! fill the SMs or K is long, else 32 x 64.
template <class T>
GemmChoice choose_default(std::int64_t rows, std::int64_t cols, std::int64_t k, const DeviceLimits& limits,
                          const GemmSplitLimits& split = {}) {
  auto tiles = [&](std::int64_t tm, std::int64_t tn) { return ceil_div(rows, tm) * ceil_div(cols, tn); };
  const std::int64_t sms = limits.sms;
  // (No SMs to fill: the smallest tiles, as every other plan falls back to its plainest form;
  // the waves below would divide by zero.)
  if (sms <= 0) {
    if constexpr (std::is_same_v<T, double>) {
      return GemmChoice::small_f64;
    } else {
      return GemmChoice::small;
    }
  }
  if constexpr (std::is_same_v<T, double>) {
    if (rows > 64 && tiles(128, 64) >= sms) return GemmChoice::large_f64;
    return k >= 2048 || tiles(64, 64) >= sms ? GemmChoice::medium_f64 : GemmChoice::small_f64;
  } else {
    const auto optin = static_cast<std::size_t>(limits.smem_per_block_optin);
    const GemmChoice large = GemmPolicyLarge::tiled::smem_bytes > optin ? GemmChoice::large3 : GemmChoice::large;
    if (rows <= 64 || 5 * tiles(128, 128) < 8 * sms) {
      GemmChoice small = tiles(64, 64) >= sms ? GemmChoice::medium : GemmChoice::small;
      if (k >= 2048) {
        // 64 x 64 tiles instead where 64 x 128 ones fill less than 80% of a wave and the 64 x 64
        // ones fill whole waves but for a tail that split_k_plan splits.
        const std::int64_t skinny_wave = GemmPolicySkinny::min_blocks_per_sm * sms;
        const std::int64_t medium_wave = GemmPolicyMedium::min_blocks_per_sm * sms;
        const std::int64_t medium = tiles(64, 64), tail = medium % medium_wave;
        const bool medium_fills = medium >= medium_wave && 2 * tail <= sms;
        small = 5 * tiles(64, 128) < 4 * skinny_wave && medium_fills ? GemmChoice::medium : GemmChoice::skinny;
      }
      if (rows <= 64) return small;
      // Larger tiles split in K instead where modeled_time says they take less time than the
      // smaller ones: their kernels keep a faster pace (split_paces). With a short K, 64 x 128
      // tiles are a candidate too (1200^3, 1300^3: 3-6% sooner than 64 x 64 tiles, 2% sooner
      // than 128 x 128 ones).
      const PolicyPaces& pace = split_paces;
      const PolicyPaces& wave = wave_paces;
      auto time_of = [&](GemmChoice choice) {
        return choice == GemmChoice::skinny
                   ? modeled_time(facts_of<GemmPolicySkinny>(), pace.skinny, rows, cols, k, sms, split, wave.skinny)
               : choice == GemmChoice::medium
                   ? modeled_time(facts_of<GemmPolicyMedium>(), pace.medium, rows, cols, k, sms, split, wave.medium)
                   : modeled_time(facts_of<GemmPolicySmall>(), pace.small, rows, cols, k, sms, split, wave.small);
      };
      double small_time = time_of(small);
      if (k < 2048) {  // (small is 64 x 64 or 32 x 64 there)
        const double skinny_time = time_of(GemmChoice::skinny);
        if (skinny_time < small_time) {
          small = GemmChoice::skinny;
          small_time = skinny_time;
        }
      }
      const double large_time = modeled_time(facts_of<GemmPolicyLarge>(), 1.0, rows, cols, k, sms, split);
      return large_time < small_time ? large : small;
    }
    if (large == GemmChoice::large3) return large;
    // Whole waves: the tiles whose waves modeled_time finds shortest at wave_paces (64 x 128 ones
    // keep a faster pace than 128 x 128 ones there, and 64 x 64 ones fill some waves better).
    const double large_time = modeled_time(facts_of<GemmPolicyLarge>(), 1.0, rows, cols, k, sms, split);
    const double skinny_time = modeled_time(facts_of<GemmPolicySkinny>(), wave_paces.skinny, rows, cols, k, sms, split);
    const double medium_time = modeled_time(facts_of<GemmPolicyMedium>(), wave_paces.medium, rows, cols, k, sms, split);
    if (skinny_time <= large_time && skinny_time <= medium_time) return GemmChoice::skinny;
    if (medium_time < large_time) return GemmChoice::medium;
    return GemmPolicyHuge::tiled::smem_bytes > optin ? GemmChoice::large : GemmChoice::large_huge;
  }
}

//! The tile (and the rest of PolicyFacts) of a default choice: GemmPolicyLarge's for large_huge
//! (GemmPolicyHuge's 256 rows are two of its tile rows).
inline PolicyFacts facts_of_choice(GemmChoice choice) {
  switch (choice) {
    case GemmChoice::large:
    case GemmChoice::large_huge:
      return facts_of<GemmPolicyLarge>();
    case GemmChoice::large3:
      return facts_of<GemmPolicyLarge3>();
    case GemmChoice::skinny:
      return facts_of<GemmPolicySkinny>();
    case GemmChoice::medium:
      return facts_of<GemmPolicyMedium>();
    case GemmChoice::small:
      return facts_of<GemmPolicySmall>();
    case GemmChoice::large_f64:
      return facts_of<GemmPolicyLargeF64>();
    case GemmChoice::medium_f64:
      return facts_of<GemmPolicyMediumF64>();
    default:
      return facts_of<GemmPolicySmallF64>();
  }
}

// ---- the ragged edge ---------------------------------------------------------------------------

//! The rows and columns of C peeled off its bottom and right edges (0: none).
struct EdgePlan {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

//! Where C's last tile row holds only a few rows (1025 rows of 128-row tiles: one), the whole
//! tile row costs a wave's share of the product for almost nothing: the tiles of the rows
//! before it run alone, and its rows go to a thin product of their own (gemm_thin_kernel: read
//! bound, a few microseconds). So: the rows % tile_m rows of the last tile row when they are at
//! most limits.most and thin_most (and C has whole tile rows before them), the same for the
//! columns, for products of at least limits.min_volume multiply-adds.
inline EdgePlan edge_plan(const PolicyFacts& f, std::int64_t rows, std::int64_t cols, std::int64_t k,
                          const GemmEdgeLimits& limits) {
  EdgePlan plan;
  if (static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(k) < limits.min_volume) return plan;
  const std::int64_t most = limits.most < thin_most ? limits.most : thin_most;
  const std::int64_t ragged_rows = rows % f.tile_m, ragged_cols = cols % f.tile_n;
  if (ragged_rows > 0 && ragged_rows <= most && rows > f.tile_m) plan.rows = ragged_rows;
  if (ragged_cols > 0 && ragged_cols <= most && cols > f.tile_n) plan.cols = ragged_cols;
  return plan;
}

//! Whether the thin products of `edge` on C of m x n fit launch_thin's grids of 2^31 - 1 blocks:
//! the bottom rows' product over n lines, the right columns' over the m - edge.rows rows above.
//! The dispatch asks before the whole tiles' product launches, so that an edge launch_thin would
//! refuse never follows launched work.
inline bool edges_fit(std::int64_t m, std::int64_t n, const EdgePlan& edge) {
  auto fits = [](std::int64_t r, std::int64_t lines) {
    return r == 0 || ceil_div(lines, std::int64_t{thin_lines_per_block(r)}) <= INT_MAX;
  };
  return fits(edge.rows, n) && fits(edge.cols, m - edge.rows);
}

}  // namespace tilecraft::detail
