// The harness of test_mma_tiled_f16 and test_mma_tiled_bf16: the block level on the tensor
// cores, tiled_gemm on 16-bit operands (GemmMath::mma16, float C or C of the operands' type) in
// three configurations (dynamic and static shared memory, warp tiles one MMA tile wide), every
// order of A, B and C, odd shapes, padded and misaligned operands, alpha and beta, on values whose
// products and sums are exact in FP32 (the result must equal the host's exactly). On sm_75 (the
// .sm75 variants) the same tests run the MMA wrappers' FMA fallbacks. One test per operand type:
// each unit compiles half of the kernels (one unit of both was the GPU check's longest sm_75 PTX
// build, 138 CPU s of test_mma's 156 there).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <tilecraft/gemm/tiled_gemm.cuh>
#include <tilecraft/util/launch.cuh>

#include "sixteen_bit.cuh"
#include "test_util.cuh"

namespace tilecraft::test::mma16 {

using tilecraft::MatrixRef;
using tilecraft::Order;

// The two configurations: the benchmark's (4 warps of 64 x 64, a K step of 32 in 3 stages:
// dynamic shared memory) and a small one in static shared memory (8 warps of 16 x 32, a K step
// of 16).
template <class T>
using Mma16Large = tilecraft::TiledGemm<128, 128, tilecraft::RegBlock<16, 8>, 32, 4, 3, T>;
template <class T>
using Mma16Small = tilecraft::TiledGemm<64, 64, tilecraft::RegBlock<4, 4>, 16, 4, 3, T>;
// Warp tiles one MMA tile wide (64 x 8 on an 8 x 4 lane grid): B's fragments by ldmatrix.x2.
template <class T>
using Mma16Narrow = tilecraft::TiledGemm<64, 64, tilecraft::RegBlock<8, 2>, 16, 8, 3, T>;
static_assert(Mma16Narrow<__half>::threads == 256 && Mma16Narrow<__half>::warp_mma::tiles_n == 1);
static_assert(Mma16Large<__half>::threads == 128 && Mma16Large<__nv_bfloat16>::smem_bytes > 48 * 1024);
static_assert(Mma16Small<__nv_bfloat16>::threads == 256 && Mma16Small<__half>::smem_bytes <= 48 * 1024);
static_assert(std::is_same_v<Mma16Large<__nv_bfloat16>::element_type, __nv_bfloat16> &&
              std::is_same_v<Mma16Large<__nv_bfloat16>::output_type, float> &&
              std::is_same_v<Mma16Small<__half>::output_type, float> &&
              Mma16Small<__half>::shape::math == tilecraft::GemmMath::mma16);

// BLAS's epilogue plus a term of the element's coordinates: alpha acc + beta C + row_step row +
// col_step col (C not read where beta == 0). A C element stored in the right place with the
// epilogue told the wrong row or column (a user's bias[row] read for another row) differs from
// the host's result. (The tensor-core store is one for every math: TF32's share it.)
struct PlacedLinearCombination {
  float alpha = 1.0f, beta = 0.0f, row_step = 0.25f, col_step = -0.125f;
  TILECRAFT_HOST_DEVICE bool reads_c() const { return beta != 0.0f; }
  TILECRAFT_HOST_DEVICE float operator()(float acc, float c_old, std::int64_t row, std::int64_t col) const {
    const float placed = static_cast<float>(row) * row_step + static_cast<float>(col) * col_step;
    return (beta != 0.0f ? alpha * acc + beta * c_old : alpha * acc) + placed;
  }
};
static_assert(tilecraft::GemmEpilogue<PlacedLinearCombination, float>);

// One tile per block of a 2-D grid: in static shared memory where the storage fits it, else in
// dynamic shared memory. Block (x, y) computes the tile at ((y - border) * tile_m + shift_m,
// (x - border) * tile_n + shift_n): with shifts in (-tile, tile) and a border of 1, tiles at
// negative origins, over every edge, and wholly outside C.
template <class G, Order OA, Order OB, Order OC, class TC>
__global__ void mma16_gemm_kernel(MatrixRef<const typename G::element_type, OA> a,
                                  MatrixRef<const typename G::element_type, OB> b, MatrixRef<TC, OC> c,
                                  PlacedLinearCombination epi, int shift_m, int shift_n, int border) {
  const std::int64_t m0 = (std::int64_t{blockIdx.y} - border) * G::shape::tile_m + shift_m;
  const std::int64_t n0 = (std::int64_t{blockIdx.x} - border) * G::shape::tile_n + shift_n;
  if constexpr (G::smem_bytes <= 48 * 1024) {
    __shared__ typename G::TempStorage storage;
    tilecraft::tiled_gemm(storage, a, b, c, m0, n0, epi);
  } else {
    extern __shared__ __align__(16) unsigned char mma16_smem[];
    tilecraft::tiled_gemm(*reinterpret_cast<typename G::TempStorage*>(mma16_smem), a, b, c, m0, n0, epi);
  }
}

// Leading dimensions and base offsets (elements): tight and aligned (the vector fills where
// the sizes allow); rounded up to a multiple of 8 elements plus more (16-byte rows: the vector
// fills on every size, ld above the minimum); odd padding with every base one element off
// (element-by-element fills, scalar C stores); a mix (A's base off by one, B's rows aligned, C
// of odd ld).
struct Mma16Layout {
  std::int64_t pad_a, pad_b, pad_c, off_a, off_b, off_c;
  bool round8;
};
inline constexpr Mma16Layout mma16_layouts[] = {
    {0, 0, 0, 0, 0, 0, false},
    {8, 16, 4, 0, 0, 0, true},
    {3, 5, 7, 1, 1, 1, false},
    {0, 8, 1, 1, 0, 0, true},
};

struct Mma16Problem {
  std::int64_t m, n, k;
  Order oa, ob, oc;
  Mma16Layout layout;
  float alpha, beta;
  // Tiles off the grid (both 0: on it): shifts in (-tile, tile) of the configuration's tiles.
  int shift_m = 0, shift_n = 0;
  // The leading dimension of a rows x cols matrix stored in order o, padded by pad.
  std::int64_t ld(Order o, std::int64_t rows, std::int64_t cols, std::int64_t pad) const {
    const std::int64_t need = o == Order::row_major ? cols : rows;
    return std::max<std::int64_t>((layout.round8 ? (need + 7) / 8 * 8 : need) + pad, 1);
  }
  std::int64_t lda() const { return ld(oa, m, k, layout.pad_a); }
  std::int64_t ldb() const { return ld(ob, k, n, layout.pad_b); }
  std::int64_t ldc() const { return ld(oc, m, n, layout.pad_c); }
  // Buffer index of element (r, c) of a matrix in order o.
  static std::size_t at(Order o, std::int64_t ld, std::int64_t off, std::int64_t r, std::int64_t c) {
    return static_cast<std::size_t>(off + (o == Order::row_major ? r * ld + c : c * ld + r));
  }
  std::size_t ia(std::int64_t r, std::int64_t c) const { return at(oa, lda(), layout.off_a, r, c); }
  std::size_t ib(std::int64_t r, std::int64_t c) const { return at(ob, ldb(), layout.off_b, r, c); }
  std::size_t ic(std::int64_t r, std::int64_t c) const { return at(oc, ldc(), layout.off_c, r, c); }
  static std::size_t size(Order o, std::int64_t ld, std::int64_t off, std::int64_t rows, std::int64_t cols) {
    return static_cast<std::size_t>(off + ld * (o == Order::row_major ? rows : cols));
  }
  std::size_t size_a() const { return size(oa, lda(), layout.off_a, m, k); }
  std::size_t size_b() const { return size(ob, ldb(), layout.off_b, k, n); }
  std::size_t size_c() const { return size(oc, ldc(), layout.off_c, m, n); }
};

inline const char* order_name(Order o) { return o == Order::row_major ? "row" : "col"; }

// A float as a C element of type TC (rounded to nearest for the 16-bit types; back: to_float).
template <class TC>
TC to_c(float v) {
  if constexpr (std::is_same_v<TC, float>) {
    return v;
  } else {
    return to_16bit<TC>(v);
  }
}
template <class T>
T from_bits(std::uint16_t bits) {
  std::conditional_t<std::is_same_v<T, __half>, __half_raw, __nv_bfloat16_raw> raw{};
  raw.x = bits;
  return T(raw);
}

// Launches mma16_gemm_kernel<G, OA, OB, OC> on p (A and B at their buffers' offsets already).
// Column-major A is the transposed() view of the row-major K x M matrix, column-major B a plain
// column-major MatrixRef: the same type either way.
template <class G, Order OA, Order OB, Order OC, class TC = float>
cudaError_t launch_mma16(const Mma16Problem& p, const typename G::element_type* a, const typename G::element_type* b,
                         TC* c) {
  using T = typename G::element_type;
  const MatrixRef<const T, OA> av = [&] {
    if constexpr (OA == Order::col_major) {
      return tilecraft::transposed(MatrixRef<const T>{a, p.k, p.m, p.lda()});
    } else {
      return MatrixRef<const T>{a, p.m, p.k, p.lda()};
    }
  }();
  const MatrixRef<const T, OB> bv{b, p.k, p.n, p.ldb()};
  const MatrixRef<TC, OC> cv{c, p.m, p.n, p.ldc()};
  const auto kernel = mma16_gemm_kernel<G, OA, OB, OC, TC>;
  const std::size_t dynamic = G::smem_bytes > 48 * 1024 ? G::smem_bytes : 0;
  const cudaError_t opted = tilecraft::opt_in_dynamic_smem(kernel, dynamic);
  if (opted != cudaSuccess) return opted;
  constexpr int tm = G::shape::tile_m, tn = G::shape::tile_n;
  const int border = p.shift_m != 0 || p.shift_n != 0 ? 1 : 0;
  const dim3 grid(static_cast<unsigned>((p.n + tn - 1) / tn + 2 * border),
                  static_cast<unsigned>((p.m + tm - 1) / tm + 2 * border));
  kernel<<<grid, G::threads, dynamic>>>(av, bv, cv, PlacedLinearCombination{p.alpha, p.beta}, p.shift_m, p.shift_n,
                                        border);
  return cudaGetLastError();
}

template <class T, class TC = float>
using Mma16Launch = cudaError_t (*)(const Mma16Problem&, const T*, const T*, TC*);

// The launcher of G for A and B in orders oa and ob, C row-major: one kernel per order pair.
template <class G>
Mma16Launch<typename G::element_type> mma16_launcher(Order oa, Order ob) {
  constexpr Order r = Order::row_major, c = Order::col_major;
  if (oa == r) return ob == r ? &launch_mma16<G, r, r, r> : &launch_mma16<G, r, c, r>;
  return ob == r ? &launch_mma16<G, c, r, r> : &launch_mma16<G, c, c, r>;
}

// Runs p through `launch` on random multiples of 1/4 in [-2, 2] (exact in FP16 and BF16; every
// product a multiple of 1/16 below 4 in magnitude, every sum over K <= 4096 a multiple of 1/16
// below 2^14: exact in FP32 in any order), C (where beta != 0) random multiples of 1/4 in
// [-8, 8], and alpha, beta whose products with those stay exact, plus the epilogue's term of
// the coordinates (PlacedLinearCombination: multiples of 1/8 below 2^10): C must equal the
// host's double-precision result exactly (a float C), or that result rounded to nearest in T (C
// of the operands' type; the float result is exact, so one rounding, which the host repeats).
// Elements of the A and B buffers outside the matrices (ld padding, the offset) are NaN; the C
// buffer, where beta == 0, is all 0xff bytes (NaN): every element of C must have been written,
// and every element of the buffer outside C (and c_slack elements past its end) kept.
template <class T, class TC = float>
void check_mma16(const Mma16Problem& p, std::uint64_t salt, Mma16Launch<T, TC> launch, const char* config) {
  CAPTURE(salt);
  const std::string what =
      std::string(config) + ": " + std::to_string(p.m) + " x " + std::to_string(p.n) + " x " + std::to_string(p.k) +
      ", A " + order_name(p.oa) + " (ld " + std::to_string(p.lda()) + ", offset " + std::to_string(p.layout.off_a) +
      "), B " + order_name(p.ob) + " (ld " + std::to_string(p.ldb()) + ", offset " + std::to_string(p.layout.off_b) +
      "), C " + order_name(p.oc) + " (ld " + std::to_string(p.ldc()) + ", offset " + std::to_string(p.layout.off_c) +
      "), alpha " + std::to_string(p.alpha) + ", beta " + std::to_string(p.beta) + ", tiles shifted by " +
      std::to_string(p.shift_m) + ", " + std::to_string(p.shift_n);
  CAPTURE(what);
  auto g = tilecraft::test::rng(salt);
  const auto quarter = [&](long long lo, long long hi) { return static_cast<float>(g.uniform_int(lo, hi)) / 4.0f; };
  const T nan16 = from_bits<T>(0x7fff);  // NaN in both formats
  std::vector<T> a(p.size_a(), nan16), b(p.size_b(), nan16);
  std::vector<float> fa(a.size()), fb(b.size());
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t q = 0; q < p.k; ++q) {
      fa[p.ia(i, q)] = quarter(-8, 8);
      a[p.ia(i, q)] = to_16bit<T>(fa[p.ia(i, q)]);
    }
  }
  for (std::int64_t q = 0; q < p.k; ++q) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      fb[p.ib(q, j)] = quarter(-8, 8);
      b[p.ib(q, j)] = to_16bit<T>(fb[p.ib(q, j)]);
    }
  }
  // C's initial values (multiples of 1/4 in [-8, 8]: exact in T too) as floats, and as stored.
  constexpr std::size_t c_slack = 256;  // past C's last element: a stray store there shows
  std::vector<float> c0(p.size_c() + c_slack);
  std::vector<TC> c0_stored(c0.size());
  if (p.beta != 0.0f) {
    for (auto& x : c0) x = quarter(-32, 32);
    for (std::size_t e = 0; e < c0.size(); ++e) c0_stored[e] = to_c<TC>(c0[e]);
  } else {
    std::memset(static_cast<void*>(c0_stored.data()), 0xff, c0_stored.size() * sizeof(TC));
  }
  DeviceBuffer<T> da(a), db(b);
  DeviceBuffer<TC> dc(c0_stored);
  TILECRAFT_THROW_IF_ERROR(launch(p, da.get() + p.layout.off_a, db.get() + p.layout.off_b, dc.get() + p.layout.off_c));
  tilecraft::test::sync_and_check();
  const auto got = dc.download();

  std::vector<char> inside(c0.size(), 0);
  int bad = 0;
  const auto report = [&](std::int64_t i, std::int64_t j, float value, const std::string& expected) {
    if (++bad <= 5) MESSAGE("C(" << i << ", " << j << ") = " << value << ", expected " << expected);
  };
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      double ref = 0;
      for (std::int64_t q = 0; q < p.k; ++q) ref += static_cast<double>(fa[p.ia(i, q)]) * fb[p.ib(q, j)];
      ref *= p.alpha;
      if (p.beta != 0.0f) ref += static_cast<double>(p.beta) * c0[p.ic(i, j)];
      const PlacedLinearCombination placed{};
      ref += static_cast<double>(i) * placed.row_step + static_cast<double>(j) * placed.col_step;
      const float value = to_float(got[p.ic(i, j)]);
      inside[p.ic(i, j)] = 1;
      // (ref is exact in float: the float epilogue computed it exactly; a 16-bit C rounds it once.)
      const double want = static_cast<double>(to_float(to_c<TC>(static_cast<float>(ref))));
      if (!(static_cast<double>(value) == want)) report(i, j, value, std::to_string(want));
    }
  }
  int outside_bad = 0;
  for (std::size_t e = 0; e < got.size(); ++e) {
    if (!inside[e] && !tilecraft::test::same_bits(got[e], c0_stored[e]) && ++outside_bad <= 5) {
      MESSAGE("the C buffer's element " << e << " (outside C) was written: " << to_float(got[e]));
    }
  }
  if (bad > 0) MESSAGE(bad << " of " << p.m * p.n << " elements of C differ");
  CHECK(bad == 0);
  CHECK(outside_bad == 0);
}

// p with tiles off the grid of `tile` x `tile` tiles: random shifts in (-tile, tile), both
// multiples of 8 half of the time (whole 16-byte vectors of A, B and C where the layout allows:
// the vector paths) and any number of elements otherwise (the element fills and stores beside
// the near edges).
inline Mma16Problem shifted(Mma16Problem p, int tile, std::uint64_t salt) {
  auto g = tilecraft::test::rng(salt + 0x5a5a);
  p.shift_m = static_cast<int>(g() % static_cast<unsigned>(2 * tile - 1)) - (tile - 1);
  p.shift_n = static_cast<int>(g() % static_cast<unsigned>(2 * tile - 1)) - (tile - 1);
  if (g() % 2 == 0) {
    p.shift_m -= p.shift_m % 8;
    p.shift_n -= p.shift_n % 8;
  }
  return p;
}

// tiled_gemm on 16-bit operands (GemmMath::mma16) equals the exact product, every order and
// layout, on the 128 x 128 configuration (Large) or on the 64 x 64 one with a column-major C too.
// (One configuration a test unit: with both, FP16's unit compiled for 148 s in the GPU check of
// 24f3422, whose plain build, which the sanitizers wait for, took 153 s.)
template <class T, bool Large>
void check_every_order_and_layout() {
  // Every shape with each A and B order pair; the layouts and epilogues in turn, so that every
  // pair meets every layout and every epilogue over the shapes (the orders decide the fills:
  // K-major tiles from M- or N-contiguous operands, L x TK tiles from K-contiguous ones). C
  // row-major there; column-major C (scalar stores) on the small configuration, once per
  // shape. K = 0 leaves C = beta C.
  const std::int64_t shapes[][3] = {{1, 1, 1},       {64, 64, 64},  {127, 129, 65},
                                    {200, 130, 301}, {33, 17, 100}, {40, 24, 0}};
  constexpr float epilogues[][2] = {{1.0f, 0.0f}, {1.5f, -0.5f}, {-0.5f, 0.0f}, {2.0f, 0.75f}};
  constexpr int layout_count = static_cast<int>(sizeof(mma16_layouts) / sizeof(mma16_layouts[0]));
  constexpr int config = Large ? 0 : 1;
  const bool light = tilecraft::test::sanitizer_sized();
  std::uint64_t salt = (std::is_same_v<T, __half> ? 9000 : 9500) + (Large ? 0 : 100);
  for (int s = 0; s < static_cast<int>(sizeof(shapes) / sizeof(shapes[0])); ++s) {
    const std::int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
    if (light && m * n * k > 1100000) continue;  // the sanitizers' runs
    for (int pair = 0; pair < 4; ++pair) {
      const Order oa = pair % 2 ? Order::col_major : Order::row_major;
      const Order ob = pair / 2 ? Order::col_major : Order::row_major;
      const auto& e = epilogues[(3 * pair + s + config) % 4];
      Mma16Problem p{m, n, k, oa, ob, Order::row_major, mma16_layouts[(pair + s) % layout_count], e[0], e[1]};
      if ((pair + s + config) % 2 == 1) p = shifted(p, Large ? 128 : 64, salt);
      if constexpr (Large) {
        check_mma16<T>(p, ++salt, mma16_launcher<Mma16Large<T>>(oa, ob), "128 x 128, K step 32");
      } else {
        check_mma16<T>(p, ++salt, mma16_launcher<Mma16Small<T>>(oa, ob), "64 x 64, K step 16");
      }
    }
  }
  if constexpr (!Large) {
    for (int s = 0; s < static_cast<int>(sizeof(shapes) / sizeof(shapes[0])); ++s) {
      const std::int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
      if (light && m * n * k > 1100000) continue;
      const auto& e = epilogues[(s + 1) % 4];
      const Mma16Problem p{
          m, n, k, Order::col_major, Order::row_major, Order::col_major, mma16_layouts[s % layout_count], e[0], e[1]};
      check_mma16<T>(p, ++salt, &launch_mma16<Mma16Small<T>, Order::col_major, Order::row_major, Order::col_major>,
                     "64 x 64, K step 16, column-major C");
    }
  }
}

// tiled_gemm on 16-bit operands with C of the same type: the exact product rounded once
template <class T>
void check_c_of_operand_type() {
  // C in T: row-major (pairs of 2-byte elements in one 4-byte store where aligned; element by
  // element where the layout's offset or odd ld breaks that) and column-major, with and without
  // beta (C's old value read into the float epilogue). Products that exceed T's precision make
  // the rounding visible.
  const std::int64_t shapes[][3] = {{1, 1, 1}, {127, 129, 65}, {33, 17, 100}, {64, 64, 64}};
  constexpr float epilogues[][2] = {{1.0f, 0.0f}, {1.5f, -0.5f}, {2.0f, 0.75f}, {-0.5f, 0.0f}};
  constexpr int layout_count = static_cast<int>(sizeof(mma16_layouts) / sizeof(mma16_layouts[0]));
  std::uint64_t salt = std::is_same_v<T, __half> ? 9300 : 9800;
  for (int s = 0; s < static_cast<int>(sizeof(shapes) / sizeof(shapes[0])); ++s) {
    const std::int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
    for (int variant = 0; variant < 2; ++variant) {
      const auto& e = epilogues[(2 * s + variant) % 4];
      const Mma16Layout& layout = mma16_layouts[(s + variant) % layout_count];
      if (variant == 0) {
        Mma16Problem p{m, n, k, Order::row_major, Order::col_major, Order::row_major, layout, e[0], e[1]};
        if (s % 2 == 1) p = shifted(p, 64, salt);  // 2-byte C stores at any origin
        check_mma16<T, T>(p, ++salt,
                          &launch_mma16<Mma16Small<T>, Order::row_major, Order::col_major, Order::row_major, T>,
                          "64 x 64, K step 16, C of the operands' type, row-major");
      } else {
        Mma16Problem p{m, n, k, Order::col_major, Order::row_major, Order::col_major, layout, e[0], e[1]};
        if (s % 2 == 0) p = shifted(p, 64, salt);
        check_mma16<T, T>(p, ++salt,
                          &launch_mma16<Mma16Small<T>, Order::col_major, Order::row_major, Order::col_major, T>,
                          "64 x 64, K step 16, C of the operands' type, column-major");
      }
    }
  }
}

// tiled_gemm on 16-bit operands: warp tiles one MMA tile wide (B fragments by ldmatrix.x2)
template <class T>
void check_narrow_warp_tiles() {
  // Both fills of B: column-major (an L x TK tile read with plain ldmatrix) and row-major (a
  // K-major tile read with .trans), each with the other order of A.
  const std::int64_t shapes[][3] = {{127, 129, 65}, {64, 64, 64}, {33, 17, 100}};
  constexpr int layout_count = static_cast<int>(sizeof(mma16_layouts) / sizeof(mma16_layouts[0]));
  std::uint64_t salt = std::is_same_v<T, __half> ? 9400 : 9900;
  for (int s = 0; s < static_cast<int>(sizeof(shapes) / sizeof(shapes[0])); ++s) {
    const std::int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
    const Mma16Problem rc{m,
                          n,
                          k,
                          Order::row_major,
                          Order::col_major,
                          Order::row_major,
                          mma16_layouts[s % layout_count],
                          1.5f,
                          s % 2 ? -0.5f : 0.0f};
    check_mma16<T>(rc, ++salt, &launch_mma16<Mma16Narrow<T>, Order::row_major, Order::col_major, Order::row_major>,
                   "64 x 64, warps of 64 x 8, A row-major, B column-major");
    const Mma16Problem cr{
        m,    n,   k, Order::col_major, Order::row_major, Order::row_major, mma16_layouts[(s + 1) % layout_count],
        1.0f, 0.0f};
    check_mma16<T>(cr, ++salt, &launch_mma16<Mma16Narrow<T>, Order::col_major, Order::row_major, Order::row_major>,
                   "64 x 64, warps of 64 x 8, A column-major, B row-major");
  }
}

}  // namespace tilecraft::test::mma16
