//! \file device/detail/gemm_kernels.cuh
//! The device GEMM's kernels: one C tile (or one K slice of a last wave's tile) per block
//! through the block-level tiled_gemm (in a grouped block order), the split-K reduction, and
//! the epilogue adapter both apply.
#pragma once

#include <cstdint>

#include "../../arch/griddepcontrol.cuh"
#include "../../config.cuh"
#include "../../gemm/tiled_gemm.cuh"
#include "../../memory/matrix_ref.cuh"
#include "gemm_plan.cuh"

namespace tilecraft::detail {

//! The user's epilogue as the launcher's kernels apply it. A column-major C is computed as the
//! row-major C^T, so the epilogue gets its own coordinates back (transposed); a K slice stores
//! its raw product (raw); a panel of C (see pack_plan) starts at (row0, col0) of the whole.
//! Run-time fields rather than more types: one set of kernels serves all.
template <class T, class Epilogue>
struct LauncherEpilogue {
  Epilogue epi;
  bool transposed = false;
  bool raw = false;
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

//! Where K is split (SplitPlan): the tiles [0, whole) (in grouped order) keep K whole and go
//! through the epilogue into C; each of the `tail` tiles after them is split into slices of
//! k_slice, slice s of tail tile t storing its raw product as the tile_m x tile_n row-major
//! block (s x tail + t) of `partial`. partial == nullptr: every tile whole. units > 0: the
//! tail tiles' K steps (`steps` each) are dealt out to `units` blocks instead (BalancedSplit),
//! piece j of tail tile t stored as block (j x tail + t); k_slice is then unused.
template <class T>
struct KSlices {
  std::int64_t whole;
  std::int64_t k_slice;
  T* partial;
  std::int64_t units = 0;
  std::int64_t steps = 0;
};

//! A C tile's coordinates in tiles.
struct TileCoord {
  std::int64_t m, n;
};

//! The tile block `block` computes in grouped order: blocks [g * G * tiles_n, (g + 1) * G *
//! tiles_n) cover tile rows [g * G, g * G + G) column by column, so a wave of blocks shares
//! the A tiles of G rows and the B tiles of its columns in L2.
TILECRAFT_HOST_DEVICE constexpr TileCoord grouped_tile(std::int64_t block, std::int64_t tiles_m, std::int64_t tiles_n,
                                                       std::int64_t group_m) {
  const std::int64_t per_group = group_m * tiles_n;
  const std::int64_t first_m = block / per_group * group_m;
  const std::int64_t rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
  const std::int64_t in_group = block % per_group;
  return {first_m + in_group % rows, in_group / rows};
}

//! How the split-K reduction covers a tail tile: `threads` threads a block, `vectors` vectors of
//! `vec` elements a thread (one 16-byte load of each slice where a tile row holds whole
//! vectors), `chunks` blocks a tile. Two vectors a thread keep a 64 x 64 tile's reduction in
//! two blocks, so every tile of a one-wave product sums in one wave of blocks.
template <class T, int TileM, int TileN>
struct SplitReduceShape {
  static constexpr int threads = 256;
  static constexpr int vec = (TileN * sizeof(T)) % 16 == 0 && 16 % sizeof(T) == 0 ? int{16 / sizeof(T)} : 1;
  static constexpr int vectors = 2;
  static constexpr int batch = 4;  // slices loaded before the first is added: their loads are in flight together
  static constexpr int tile = TileM * TileN;
  static constexpr int chunks = (tile + threads * vec * vectors - 1) / (threads * vec * vectors);
  static_assert(chunks <= 65535, "SplitReduceShape: a tile's chunks must fit a grid's y dimension (65535)");
  //! The first element (of `vec`, in the tile's row-major order) that thread `thread` of chunk
  //! `chunk` sums as its vector `j`: a block's threads cover `threads` consecutive vectors per j
  //! (coalesced), its chunk `threads * vectors` of them.
  TILECRAFT_HOST_DEVICE static constexpr int element(int chunk, int j, int thread) {
    return ((chunk * vectors + j) * threads + thread) * vec;
  }
};

#if defined(__CUDACC__)

//! One C tile, or one K slice of a tail tile, per block: unit blockIdx.x of
//! whole + tail x slices (KSlices); or, where the tail tiles' steps are dealt out
//! (KSlices::units), a share of them, the pieces of one or more tiles one after the other. Lets the kernels after it
//! launch once every block has started (the split-K reduction, which waits for it inside; the ragged edge's thin
//! products, which read none of its stores).
template <class Policy, Order OA, Order OB, bool VectorFill, bool Deal, class Epilogue>
__global__ void __launch_bounds__(Policy::tiled::threads, Policy::min_blocks_per_sm)
    gemm_kernel(MatrixRef<const typename Policy::element_type, OA> a,
                MatrixRef<const typename Policy::element_type, OB> b, MatrixRef<typename Policy::element_type> c,
                Epilogue epi, std::int64_t tiles_m, std::int64_t tiles_n,
                KSlices<typename Policy::element_type> slices) {
  using Tiled = typename Policy::tiled;
  using T = typename Policy::element_type;
  constexpr int tm = Tiled::shape::tile_m, tn = Tiled::shape::tile_n, tk = Tiled::shape::tile_k;
  extern __shared__ __align__(16) unsigned char gemm_smem[];
  auto& storage = *reinterpret_cast<typename Tiled::TempStorage*>(gemm_smem);
  // The kernels after it may launch once every block here has started: the split-K reduction
  // (its blocks wait for this grid inside) overlaps the last blocks' work, and the edge's thin
  // products take the block slots the last wave leaves free.
  arch::launch_dependents();
  // One call of the block-level GEMM for either kind of unit (two inlined copies cost the
  // whole tiles 1 to 5%): a whole tile of C, or a tail tile's K slice [k0, k0 + k_len) as a
  // product of its own, the tile's rows of A times its columns of B into the slice's block of
  // partial sums. The vector fills stay aligned: m0 and n0 are whole vectors, k0 * ld moves by
  // whole rows of vectors, and a K-contiguous operand is filled element by element.
  // A share of dealt-out steps (KSlices::units) is the steps [x, end) of the tail tiles', one
  // piece of a tile per pass; any other unit is one pass. Only kernels built to Deal do (the
  // dispatch launches those where the plan deals): a loop around the block-level GEMM costs
  // the element-by-element fill 17 registers and 3% more instructions a K step, the vector
  // fills 16 to 27 (benchmarks/TUNING.md), so the element fill's undealt products keep a
  // kernel without it (but for 128 x 128 tiles, whose element fill ran faster with it:
  // launch_product); nor do policies that never split K (GemmPolicyHuge). Without it this is
  // one pass.
  constexpr bool can_deal = Deal && Policy::max_split_k > 1;
  TILECRAFT_ASSERT((can_deal || slices.units == 0) &&
                   "gemm_kernel: dealt K steps need a kernel built to deal and a policy that splits K");
  std::int64_t x = 0, end = 0;
  if (can_deal && static_cast<std::int64_t>(blockIdx.x) >= slices.whole && slices.units > 0) {
    const BalancedSplit deal{tiles_m * tiles_n - slices.whole, slices.steps, slices.units};
    x = deal.begin(blockIdx.x - slices.whole);
    end = deal.begin(blockIdx.x - slices.whole + 1);
  }
  do {
    const std::int64_t unit = blockIdx.x;
    const bool whole = unit < slices.whole;
    const std::int64_t tail = tiles_m * tiles_n - slices.whole;
    std::int64_t slice = whole ? 0 : (unit - slices.whole) / tail;
    std::int64_t t = whole ? unit - slices.whole : (unit - slices.whole) % tail;
    std::int64_t k0 = slice * slices.k_slice;
    std::int64_t k_len = whole ? a.cols : (a.cols - k0 < slices.k_slice ? a.cols - k0 : slices.k_slice);
    if (can_deal && x < end) {
      t = x / slices.steps;
      const std::int64_t first = t * slices.steps;
      const std::int64_t stop = end < first + slices.steps ? end : first + slices.steps;
      slice = unit - slices.whole - BalancedSplit{tail, slices.steps, slices.units}.first(t);
      k0 = (x - first) * tk;
      k_len = (a.cols < (stop - first) * tk ? a.cols : (stop - first) * tk) - k0;
      x = stop;
    }
    const TileCoord tile = grouped_tile(slices.whole + t, tiles_m, tiles_n, Policy::group_m);
    const std::int64_t m0 = whole ? 0 : tile.m * tm, n0 = whole ? 0 : tile.n * tn;
    // C's rows and columns of the tile, and the operands' (a packed operand's extend to whole
    // tiles of zeros: a.rows >= c.rows, b.cols >= c.cols).
    const std::int64_t rows = whole ? c.rows : (c.rows - m0 < tm ? c.rows - m0 : tm);
    const std::int64_t cols = whole ? c.cols : (c.cols - n0 < tn ? c.cols - n0 : tn);
    const std::int64_t a_rows = whole ? a.rows : (a.rows - m0 < tm ? a.rows - m0 : tm);
    const std::int64_t b_cols = whole ? b.cols : (b.cols - n0 < tn ? b.cols - n0 : tn);
    const MatrixRef<const T, OA> a_part{OA == Order::row_major ? a.data + m0 * a.ld + k0 : a.data + k0 * a.ld + m0,
                                        a_rows, k_len, a.ld};
    const MatrixRef<const T, OB> b_part{OB == Order::row_major ? b.data + k0 * b.ld + n0 : b.data + n0 * b.ld + k0,
                                        k_len, b_cols, b.ld};
    const MatrixRef<T> out = whole ? c : MatrixRef<T>{slices.partial + (slice * tail + t) * (tm * tn), rows, cols, tn};
    Epilogue e = epi;
    e.raw = !whole;
    // (run ends with a barrier, after which the next pass may refill the storage.)
    Tiled::template run<VectorFill>(storage, a_part, b_part, out, whole ? tile.m * tm : 0, whole ? tile.n * tn : 0, e);
  } while (can_deal && x < end);
}

//! C = epi(sum of the K slices' products, C) over the tail tiles (KSlices): block (t, chunk)
//! sums its chunk of tail tile t, each element's slices in slice order (deterministic): `count`
//! slices, or the tile's pieces where its steps were dealt out (KSlices::units). Waits
//! first for the kernel before it where it is launched as a programmatic dependent: the GEMM
//! kernel, or the last of the thin kernels launched after it, whose completion implies the GEMM
//! kernel's (each waits for the kernel before it as it exits). The
//! tile's place in C is found once per block: 64-bit divisions per element made the reduction
//! of a 1024^3 product several microseconds slower, 4% of the whole. A thread issues the loads
//! of `batch` slices of both its vectors before it adds the first (a loop of one load and one
//! add waits an L2 round trip a slice), and stores C in vectors where C's row allows.
template <class T, int TileM, int TileN, int GroupM, class Epilogue>
__global__ void __launch_bounds__(SplitReduceShape<T, TileM, TileN>::threads)
    gemm_split_k_reduce_kernel(KSlices<T> slices, int count, std::int64_t tiles_m, std::int64_t tiles_n, MatrixRef<T> c,
                               Epilogue epi) {
  using Shape = SplitReduceShape<T, TileM, TileN>;
  constexpr int vec = Shape::vec, vectors = Shape::vectors, batch = Shape::batch;
  struct alignas(vec * sizeof(T)) Vec {
    T v[vec];
  };
  arch::wait_for_dependencies();  // the GEMM kernel's slices (when launched as a programmatic dependent)
  const std::int64_t t = blockIdx.x;
  if (slices.units > 0) {
    count = static_cast<int>(BalancedSplit{tiles_m * tiles_n - slices.whole, slices.steps, slices.units}.pieces(t));
  }
  TILECRAFT_ASSERT(count >= 1 && "gemm_split_k_reduce_kernel: every tail tile has at least one piece");
  const TileCoord at = grouped_tile(slices.whole + t, tiles_m, tiles_n, GroupM);
  const std::int64_t stride = (tiles_m * tiles_n - slices.whole) * Shape::tile;  // one slice's blocks
  // Element in_tile[j] of the tile, C(r[j], col[j]), `valid[j]` of its vec columns inside C (0:
  // none; a ragged tile's slices hold only C's columns, so past them nothing is read).
  int in_tile[vectors], valid[vectors];
  std::int64_t r[vectors], col[vectors];
#pragma unroll
  for (int j = 0; j < vectors; ++j) {
    in_tile[j] = Shape::element(static_cast<int>(blockIdx.y), j, static_cast<int>(threadIdx.x));
    r[j] = at.m * TileM + in_tile[j] / TileN;
    col[j] = at.n * TileN + in_tile[j] % TileN;
    const bool inside = in_tile[j] < Shape::tile && r[j] < c.rows && col[j] < c.cols;
    valid[j] = !inside ? 0 : (c.cols - col[j] < vec ? static_cast<int>(c.cols - col[j]) : vec);
  }
  const T* p = slices.partial + t * Shape::tile;
  Vec sum[vectors];
  for (int s0 = 0; s0 < count; s0 += batch) {
    Vec x[vectors][batch];
#pragma unroll
    for (int j = 0; j < vectors; ++j) {
#pragma unroll
      for (int u = 0; u < batch; ++u) {
        if (s0 + u < count) {
          const std::int64_t at_slice = (s0 + u) * stride + in_tile[j];
          if (valid[j] == vec) {
            x[j][u] = *reinterpret_cast<const Vec*>(p + at_slice);
          } else {  // a ragged tile's last columns, or none of C: nothing read outside it
#pragma unroll
            for (int i = 0; i < vec; ++i) x[j][u].v[i] = i < valid[j] ? p[at_slice + i] : T(0);
          }
        }
      }
    }
#pragma unroll
    for (int j = 0; j < vectors; ++j) {
#pragma unroll
      for (int u = 0; u < batch; ++u) {
        if (s0 + u < count) {
#pragma unroll
          for (int i = 0; i < vec; ++i) sum[j].v[i] = s0 + u == 0 ? x[j][u].v[i] : sum[j].v[i] + x[j][u].v[i];
        }
      }
    }
  }
  const bool reads = epi.reads_c();
#pragma unroll
  for (int j = 0; j < vectors; ++j) {
    if (valid[j] == 0) continue;
    T* dst = &c(r[j], col[j]);
    if (valid[j] == vec && reinterpret_cast<std::uintptr_t>(dst) % sizeof(Vec) == 0) {
      Vec old{};
      if (reads) old = *reinterpret_cast<const Vec*>(dst);
      Vec out;
#pragma unroll
      for (int i = 0; i < vec; ++i) out.v[i] = epi(sum[j].v[i], old.v[i], r[j], col[j] + i);
      *reinterpret_cast<Vec*>(dst) = out;
    } else {
#pragma unroll
      for (int i = 0; i < vec; ++i) {
        if (i < valid[j]) dst[i] = epi(sum[j].v[i], reads ? dst[i] : T(0), r[j], col[j] + i);
      }
    }
  }
}

#endif  // __CUDACC__

}  // namespace tilecraft::detail
