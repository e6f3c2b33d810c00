// tilecraft::gemm on __half and __nv_bfloat16 operands (float C, FP32 accumulation on the tensor
// cores), with the float gemm's BLAS semantics:
//   - exact products: operands (integers in [-8, 8]) / 8, C multiples of 1/8, alpha and beta from
//     {1, 2, -0.5, 0}, K <= 4096: every product, partial sum and alpha acc + beta c is exact in FP32
//     in any order, so C must equal the host's double result. Shapes 1 x 1 x 1 to 300 x 520 x 200
//     (K = 0, K = 1, partial tiles of the wgmma path's 128 x 256 x 64 on every side), both orders,
//     every op, leading dimensions at the minimum, +8 and +3 (the unaligned path), bases one element
//     off 16-byte alignment. A and B are NaN outside the operands (throughout where alpha = 0 or
//     K = 0); C is 0xff bytes (NaN) where beta = 0; the C buffer outside C must stay as it was;
//   - random reals in [-1, 1) against cublasGemmEx (CUBLAS_COMPUTE_32F): 1000 x 999 x 1001 and
//     2048^3, within 2 (K + 2) 2^-24 M + 1e-6, M = |alpha| sum |a||b| + |beta||c| by cuBLAS on the
//     absolute values: each result is within (K + 2) 2^-24 M of the exact one (K dependent FP32
//     additions, then alpha's and beta's roundings); sampled elements against the host too;
//   - random reals give the same bits on a second run, and planted Inf and NaN operands IEEE's Inf
//     and NaN, whole and with K split (slices, stream-K);
//   - rejected calls (cudaErrorInvalidValue, nothing launched, C untouched), m == 0 / n == 0;
//   - a caller's kernel before the call that lets its dependents launch early: the launcher's
//     kernels read what it wrote (C = beta C with nothing copied, operands as stored or copied);
//   - the wgmma path must run where the build defines TILECRAFT_TEST_EXPECT_WGMMA and the GPU is cc 9.0.
// Inputs come from the printed seed (TILECRAFT_TEST_SEED replays it) and each case's salt.
// TILECRAFT_TEST_HUGE=0 (the sanitizer runs) skips exact shapes above ~10^6 multiply-adds, runs
// one layout per shape and op and two of 1000 x 999 x 1001's eight orders and ops, and no 2048^3.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <tilecraft/device/gemm.cuh>

#include "gemm_problem.cuh"
#include "sixteen_bit.cuh"
#include "test_util.cuh"

// The launcher's kernels compile in tests/support/gemm_instance_bf16.cu and _f16.cu
// (tilecraft_gemm_instances).
TILECRAFT_GEMM_16BIT_INSTANCE(extern, __nv_bfloat16);
TILECRAFT_GEMM_16BIT_INSTANCE(extern, __half);

using tilecraft::Op;
using tilecraft::Order;
using tilecraft::test::DeviceBuffer;
using tilecraft::test::GemmLayout;
using tilecraft::test::to_16bit;
using tilecraft::test::to_float;

namespace {

constexpr double fp32_unit_roundoff = 0x1p-24;
constexpr std::int64_t light_max_macs = 1100000;  // light runs skip bigger shapes

template <class T>
T nan_t() {  // 0x7fff: a NaN in both formats
  std::conditional_t<std::is_same_v<T, __half>, __half_raw, __nv_bfloat16_raw> raw{};
  raw.x = 0x7fff;
  return T(raw);
}

// Leading dimensions (BLAS's minimum plus pad) and base offsets, in elements: minimum and
// aligned; +8 (16-byte rows where the minimum is a multiple of 8); +3 (odd: the unaligned path);
// A one element off; B one off with C off and odd ldc; a mix; A and B aligned, C off with odd ldc.
constexpr GemmLayout layouts[] = {{0, 0, 0, 0, 0, 0}, {8, 8, 8, 0, 0, 0}, {3, 3, 3, 0, 0, 0}, {0, 0, 0, 1, 0, 0},
                                  {8, 0, 3, 0, 1, 1}, {3, 8, 0, 1, 1, 0}, {8, 0, 3, 0, 0, 1}};
constexpr int layout_count = static_cast<int>(sizeof(layouts) / sizeof(layouts[0]));

struct Combo {
  Order order;
  Op op_a, op_b;
};
// The v-th of the eight (v in [0, 8)): row-major NN, TN, NT, TT, then column-major NN, TN, NT, TT.
constexpr Combo combo(int v) {
  return {v < 4 ? Order::row_major : Order::col_major, v & 1 ? Op::transpose : Op::none,
          v & 2 ? Op::transpose : Op::none};
}

using Problem = tilecraft::test::GemmProblem;
// The problem of combination c (combo).
Problem problem(Combo c, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, float beta, GemmLayout l) {
  return Problem{c.order, c.op_a, c.op_b, m, n, k, alpha, beta, l};
}
template <class T>
constexpr const char* type_name() {
  return std::is_same_v<T, __half> ? "half" : "bf16";
}

// The A and B buffers (NaN outside the operands) and op(A) (m x k), op(B)^T (n x k) as floats,
// row-major: draw() for each element (rounded to T) where `fill`, else NaN throughout.
template <class T>
struct Operands {
  std::vector<T> a, b;
  std::vector<float> oa, obt;
};
template <class T, class Draw>
Operands<T> make_operands(const Problem& p, bool fill, Draw&& draw) {
  const auto m = static_cast<std::size_t>(p.m), n = static_cast<std::size_t>(p.n), k = static_cast<std::size_t>(p.k);
  Operands<T> o{std::vector<T>(p.size_a(), nan_t<T>()), std::vector<T>(p.size_b(), nan_t<T>()),
                std::vector<float>(m * k), std::vector<float>(n * k)};
  if (!fill) return o;
  const auto set = [&](std::vector<T>& stored, std::vector<float>& dense, std::size_t rows, auto&& pos) {
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t q = 0; q < k; ++q) {
        const T v = to_16bit<T>(draw());
        stored[pos(std::int64_t(r), std::int64_t(q))] = v;
        dense[r * k + q] = to_float(v);
      }
    }
  };
  set(o.a, o.oa, m, [&](std::int64_t i, std::int64_t q) { return p.ia(i, q); });
  set(o.b, o.obt, n, [&](std::int64_t j, std::int64_t q) { return p.ib(q, j); });
  return o;
}

// tilecraft::gemm on p (on a stream of its own) from the C buffer c0, or with `tunables` the
// launcher under those limits; returns the whole buffer.
template <class T>
std::vector<float> run_tilecraft(const Problem& p, const Operands<T>& o, const std::vector<float>& c0,
                                 const tilecraft::detail::GemmTensorTunables* tunables = nullptr) {
  DeviceBuffer<T> a(o.a), b(o.b);
  DeviceBuffer<float> c(c0);
  const tilecraft::test::Stream stream;
  if (tunables != nullptr) {
    CHECK(tilecraft::detail::gemm_16bit_run<T>(p.order, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a.get() + p.l.off_a,
                                               p.lda(), b.get() + p.l.off_b, p.ldb(), p.beta, c.get() + p.l.off_c,
                                               p.ldc(), stream, *tunables) == cudaSuccess);
  } else {
    CHECK(tilecraft::gemm(p.order, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a.get() + p.l.off_a, p.lda(),
                          b.get() + p.l.off_b, p.ldb(), p.beta, c.get() + p.l.off_c, p.ldc(), stream) == cudaSuccess);
  }
  stream.synchronize();
  tilecraft::test::sync_and_check();
  return c.download();
}

// C in `got` against want (m x n, row-major): equal, or within bound where bounds are given; the
// C buffer outside C bit for bit as it was (c0).
void check_c(const Problem& p, const std::vector<float>& got, const std::vector<float>& c0,
             const std::vector<double>& want, const std::vector<double>& bound, const char* what) {
  CAPTURE(what);
  std::vector<char> inside(got.size(), 0);
  std::int64_t bad = 0;
  std::string first_bad;
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      const std::size_t at = p.ic(i, j), r = static_cast<std::size_t>(i * p.n + j);
      inside[at] = 1;
      const double value = got[at];
      const bool ok = bound.empty() ? value == want[r] : std::abs(value - want[r]) <= bound[r];
      if (!ok && bad++ == 0) {
        char s[160];
        std::snprintf(s, sizeof s, "C(%lld, %lld) = %.9g, expected %.17g, bound %.3g", static_cast<long long>(i),
                      static_cast<long long>(j), value, want[r], bound.empty() ? 0.0 : bound[r]);
        first_bad = s;
      }
    }
  }
  CAPTURE(first_bad);
  CHECK(bad == 0);
  std::int64_t stray = 0;
  std::string first_stray;
  for (std::size_t e = 0; e < got.size(); ++e) {
    if (!inside[e] && !tilecraft::test::same_bits(got[e], c0[e]) && stray++ == 0) {
      first_stray = "buffer element " + std::to_string(e) + " (outside C) = " + std::to_string(got[e]);
    }
  }
  CAPTURE(first_stray);
  CHECK(stray == 0);
}

// p on exact operands (see the file comment): C must equal the host's result.
// The double result of p on op(A) (oa: m x k) and op(B)^T (obt: n x k), floats row-major, and C's
// buffer c0 (read only where beta != 0; A and B only where reads_ab), row-major m x n.
std::vector<double> exact_result(const Problem& p, const std::vector<float>& oa, const std::vector<float>& obt,
                                 const std::vector<float>& c0, bool reads_ab) {
  const auto n = static_cast<std::size_t>(p.n), k = static_cast<std::size_t>(p.k);
  std::vector<double> want(static_cast<std::size_t>(p.m) * n);
  for (std::size_t i = 0; i < static_cast<std::size_t>(p.m); ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const float *x = oa.data() + i * k, *y = obt.data() + j * k;
      double acc = 0;
      for (std::size_t q = 0; reads_ab && q < k; ++q) acc += double(x[q]) * double(y[q]);
      const double c_old = p.beta != 0.0f ? double(c0[p.ic(std::int64_t(i), std::int64_t(j))]) : 0.0;
      want[i * n + j] = double(p.alpha) * acc + double(p.beta) * c_old;
    }
  }
  return want;
}

template <class T>
void check_exact(const Problem& p, std::uint64_t salt,
                 const tilecraft::detail::GemmTensorTunables* tunables = nullptr) {
  const std::string problem = p.str(type_name<T>(), salt);
  CAPTURE(problem);
  auto g = tilecraft::test::rng(salt);
  const auto eighths = [&g](long long lo, long long hi) { return static_cast<float>(g.uniform_int(lo, hi)) / 8.0f; };
  const bool reads_ab = p.alpha != 0.0f && p.k > 0;  // else A and B are not to be read: all NaN
  const Operands<T> o = make_operands<T>(p, reads_ab, [&] { return eighths(-8, 8); });
  std::vector<float> c0(p.size_c());
  if (p.beta != 0.0f) {
    for (float& x : c0) x = eighths(-32, 32);
  } else {
    std::memset(c0.data(), 0xff, c0.size() * sizeof(float));  // NaN: C is not to be read
  }
  const std::vector<float> got = run_tilecraft(p, o, c0, tunables);
  check_c(p, got, c0, exact_result(p, o.oa, o.obt, c0, reads_ab), {}, "tilecraft against the exact host result");
}

class Cublas {
 public:
  Cublas() {
    REQUIRE(cublasCreate(&handle_) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cublasSetMathMode(handle_,
                              cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)) ==
            CUBLAS_STATUS_SUCCESS);
  }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  ~Cublas() { (void)cublasDestroy(handle_); }  // (a destructor cannot report; as DeviceBuffer's)

  // p with cublasGemmEx (column-major): a row-major C is the column-major C^T = op(B)^T op(A)^T,
  // a row-major X read as column-major X^T, so the operands swap and keep their ops.
  template <class T>
  cublasStatus_t gemm(const Problem& p, float alpha, const T* a, const T* b, float beta, float* c) const {
    const cudaDataType_t type = std::is_same_v<T, __half> ? CUDA_R_16F : CUDA_R_16BF;
    auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
    auto call = [&](bool tx, bool ty, std::int64_t rows, std::int64_t cols, const T* x, std::int64_t ldx, const T* y,
                    std::int64_t ldy) {
      return cublasGemmEx(handle_, op(tx), op(ty), int(rows), int(cols), int(p.k), &alpha, x, type, int(ldx), y, type,
                          int(ldy), &beta, c, CUDA_R_32F, int(p.ldc()), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    if (p.row()) return call(p.tb(), p.ta(), p.n, p.m, b, p.ldb(), a, p.lda());
    return call(p.ta(), p.tb(), p.m, p.n, a, p.lda(), b, p.ldb());
  }

 private:
  cublasHandle_t handle_{};
};

// p on random reals in [-1, 1) against cuBLAS, within the bound of the file comment; 64 sampled
// elements of both against the host's double result (which validates the operand mapping).
template <class T>
void check_cublas(const Cublas& cublas, const Problem& p, std::uint64_t salt) {
  const std::string problem = p.str(type_name<T>(), salt);
  CAPTURE(problem);
  auto g = tilecraft::test::rng(salt);
  const Operands<T> o = make_operands<T>(p, true, [&] { return static_cast<float>(g.uniform_real(-1.0, 1.0)); });
  Operands<T> abs_o = o;
  for (auto* v : {&abs_o.a, &abs_o.b})
    for (T& x : *v) x = to_16bit<T>(std::fabs(to_float(x)));  // exact; NaN stays NaN
  std::vector<float> c0(p.size_c()), abs_c0(p.size_c(), 0.0f);
  if (p.beta != 0.0f) {
    for (std::size_t e = 0; e < c0.size(); ++e) abs_c0[e] = std::fabs(c0[e] = float(g.uniform_real(-1.0, 1.0)));
  } else {
    std::memset(c0.data(), 0xff, c0.size() * sizeof(float));
  }
  const std::vector<float> got = run_tilecraft(p, o, c0);
  auto run_cublas = [&](const Operands<T>& x, float alpha, float beta, const std::vector<float>& c_init) {
    DeviceBuffer<T> a(x.a), b(x.b);
    DeviceBuffer<float> c(c_init);
    CHECK(cublas.gemm(p, alpha, a.get() + p.l.off_a, b.get() + p.l.off_b, beta, c.get() + p.l.off_c) ==
          CUBLAS_STATUS_SUCCESS);
    tilecraft::test::sync_and_check();
    return c.download();
  };
  const std::vector<float> ref = run_cublas(o, p.alpha, p.beta, c0);
  const std::vector<float> mag = run_cublas(abs_o, std::fabs(p.alpha), std::fabs(p.beta), abs_c0);
  const double depth = double(p.k + 2);
  const auto n = static_cast<std::size_t>(p.n), k = static_cast<std::size_t>(p.k);
  std::vector<double> want(static_cast<std::size_t>(p.m) * n), bound(want.size());
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      const std::size_t r = static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j);
      want[r] = ref[p.ic(i, j)];
      bound[r] = tilecraft::test::sum_tolerance(mag[p.ic(i, j)], depth, fp32_unit_roundoff) + 1e-6;
    }
  }
  check_c(p, got, c0, want, bound, "tilecraft against cuBLAS");
  double worst_of_bound = 0.0;  // the largest |tilecraft - cuBLAS| as a fraction of its bound
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      const std::size_t r = static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j);
      worst_of_bound = std::max(worst_of_bound, std::abs(double(got[p.ic(i, j)]) - want[r]) / bound[r]);
    }
  }
  int bad = 0;
  double worst_tc = 0.0, worst_cublas = 0.0;  // the samples' |error| / M against the exact product
  for (int s = 0; s < 64; ++s) {
    const auto i = static_cast<std::size_t>(g.uniform_int(0, p.m - 1)),
               j = static_cast<std::size_t>(g.uniform_int(0, p.n - 1));
    const std::size_t at = p.ic(std::int64_t(i), std::int64_t(j));
    double exact = p.beta != 0.0f ? double(p.beta) * c0[at] : 0.0, m_ij = std::fabs(exact), acc = 0;
    for (std::size_t q = 0; q < k; ++q) {
      acc += double(o.oa[i * k + q]) * double(o.obt[j * k + q]);
      m_ij += std::fabs(double(p.alpha) * o.oa[i * k + q] * o.obt[j * k + q]);
    }
    exact += double(p.alpha) * acc;
    const double tol = tilecraft::test::sum_tolerance(m_ij, depth, fp32_unit_roundoff) + 1e-6;
    if ((!(std::abs(got[at] - exact) <= tol) || !(std::abs(ref[at] - exact) <= tol)) && ++bad <= 3)
      MESSAGE("C(" << i << ", " << j << "): tilecraft " << got[at] << ", cuBLAS " << ref[at] << ", host " << exact
                   << ", bound " << tol);
    if (m_ij > 0.0) {
      worst_tc = std::max(worst_tc, std::abs(got[at] - exact) / m_ij);
      worst_cublas = std::max(worst_cublas, std::abs(ref[at] - exact) / m_ij);
    }
  }
  CHECK(bad == 0);
  MESSAGE(problem << ": |tilecraft - cuBLAS| at most " << worst_of_bound
                  << " of the bound; against the exact product (64 samples), worst |error| / M tilecraft " << worst_tc
                  << ", cuBLAS " << worst_cublas << " (bound " << (2.0 * depth * fp32_unit_roundoff) << ")");
}

}  // namespace

TEST_CASE("gemm on 16-bit operands: the Hopper wgmma path runs where the build has sm_90a code and the GPU is cc 9.0") {
  int device = 0, major = 0, minor = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const bool wgmma = tilecraft::detail::gemm_wgmma_runs_on(device);
  MESSAGE("sm_" << major << minor << ": 16-bit gemm runs "
                << std::string(wgmma ? "the wgmma path (sm_90a)" : "a non-wgmma path"));
#ifdef TILECRAFT_TEST_EXPECT_WGMMA
  if (major == 9 && minor == 0) CHECK(wgmma);
#endif
}

TEST_CASE_TEMPLATE(
    "gemm on 16-bit operands: exact products, odd shapes, both orders, every op, ld and alignment variants", T, __half,
    __nv_bfloat16) {
  // Multiples of 8 (72, 136, 264, 520, ...) let every order and op take the wgmma path with
  // partial tiles (where the layout keeps A and B 16-byte aligned); the odd sizes the other path.
  const std::int64_t shapes[][3] = {{1, 1, 1},       {1, 1, 0},      {33, 17, 0},    {67, 45, 1},    {7, 5, 3},
                                    {64, 64, 64},    {72, 264, 40},  {131, 263, 77}, {136, 264, 72}, {257, 129, 515},
                                    {264, 136, 520}, {128, 256, 64}, {300, 520, 200}};
  constexpr float scalars[] = {1.0f, 2.0f, -0.5f, 0.0f};
  const bool full = !tilecraft::test::sanitizer_sized();
  // (144 and 168 where B, in the row-major form, is K-contiguous, or A is and the product runs as
  // its transpose; 192 elsewhere. 64 with transpose_min_k 0: a row-major NN product as its
  // transpose on 64 x 128 tiles, which gemm() takes only from K = 2048 on, where C has no more
  // columns than rows.)
  tilecraft::detail::GemmTensorTunables widths[6];
  widths[0].tile_width = 128;
  widths[1].tile_width = 144;
  widths[2].tile_width = 168;
  widths[3].tile_width = 192;
  widths[4].tile_width = 256;
  widths[5].tile_width = 64;
  widths[5].transpose_min_k = 0;
  // The kernel's B with rows that start 16 bytes off a 32-byte boundary (leading dimensions of
  // 8 mod 16 elements) copied into 128-byte rows at every size on the 128-, 168-, 256- and
  // 64-wide runs; read as stored on the others, as gemm() reads them on products below 2^21
  // elements of C.
  for (int w : {0, 2, 4, 5}) widths[w].pack_16bit_pair_min = widths[w].pack_16bit_b_min = 0;
  std::uint64_t salt = std::is_same_v<T, __half> ? 16000 : 17000;
  // A row-major NN product run as its transpose on 64 x 128 tiles: X (A, rows of 520 elements)
  // is the kernel's B and is copied, beside a Y (B) whose rows of 136 elements are off too (the
  // pair threshold) or whose rows of 128 are not (the single one). In light runs too.
  check_exact<T>(problem(combo(0), 264, 136, 520, 1.0f, 0.5f, layouts[0]), ++salt, &widths[5]);
  check_exact<T>(problem(combo(0), 264, 128, 520, -0.5f, 0.0f, layouts[0]), ++salt, &widths[5]);
  int v = 0;  // (shape, op) pairs so far
  for (std::size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); ++si) {
    const auto& s = shapes[si];
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    for (int c = 0; c < 8; ++c, ++v) {
      // Two layouts (one in a light run) per shape and op, every layout on every shape; alpha
      // moves with the shape (each op meets alpha = 0, A and B unread, on a quarter of its runs),
      // every alpha and beta pair over the shapes.
      // Six runs in seven force the wgmma kernel's 128-, 144-, 168-, 192-, 256- or 64-wide tiles
      // (gemm() takes the 64-wide ones, 64 x 128, for every product here); the width moves with
      // the shape, so that every op meets every width (v % 8 is the op).
      for (int r = 0; r < (full ? 2 : 1); ++r) {
        const float alpha = scalars[(c + static_cast<int>(si) + r) % 4], beta = scalars[(v / 4 + r) % 4];
        const int w = (c + static_cast<int>(si) + 3 * r) % 7;
        check_exact<T>(problem(combo(c), s[0], s[1], s[2], alpha, beta, layouts[(v + 3 * r) % layout_count]), ++salt,
                       w ? &widths[w - 1] : nullptr);
      }
    }
  }
}

// The K split forced wherever it may run (slices and shares of whole 64-element K steps, at
// least one; partial sums that cost the plan nothing) and operands copied at any size: calls
// f(tunables) for the last wave's K in slices, then stream-K, each planned for the device's SMs
// and for 4, with workspace requests above workspace_limit refused (negative: none).
template <class F>
void for_each_forced_split(std::int64_t workspace_limit, F&& f) {
  tilecraft::detail::GemmTensorTunables forced;
  forced.split = {64, 0.0, std::int64_t{64} << 20};
  forced.fixup = 0.0;
  forced.pack_min_volume = 0.0;
  forced.workspace_limit = workspace_limit;
  for (int stream_k : {-1, 1}) {
    forced.stream_k = stream_k;
    // Rows 16 bytes off a 32-byte boundary read as stored by the slices, copied into 128-byte
    // rows for stream-K (without workspace: read as stored, the copy left out).
    forced.pack_16bit_pair_min = forced.pack_16bit_b_min = stream_k == 1 ? 0 : -1;
    for (int sms : {0, 4}) {
      forced.sms = sms;
      CAPTURE(stream_k);
      CAPTURE(sms);
      f(forced);
    }
  }
}

TEST_CASE_TEMPLATE("gemm on 16-bit operands: K split across blocks (slices, stream-K), unaligned operands copied", T,
                   __half, __nv_bfloat16) {
  // Planned for the device's SMs, every product below with more than one K step splits every
  // tile's K; planned for 4 SMs, products of more than 4 tiles run their full waves whole, then
  // the last wave in slices (300 x 600 x 330: 9 tiles of 128 x 256, the last one in 4 slices;
  // 200 x 1100: 10 tiles, the last 2 in 2 slices) or all but two waves' tiles stream-K
  // (300 x 600 x 330: 4 whole, 5 in shares of 8 K steps).
  const std::int64_t shapes[][3] = {{1, 1, 1},       {33, 17, 0},   {67, 45, 130},   {131, 263, 77},  {136, 264, 520},
                                    {257, 129, 515}, {8, 300, 200}, {300, 600, 330}, {200, 1100, 200}};
  const bool full = !tilecraft::test::sanitizer_sized();
  std::uint64_t salt = std::is_same_v<T, __half> ? 26000 : 27000;
  int v = 0;
  for_each_forced_split(-1, [&](tilecraft::detail::GemmTensorTunables forced) {
    for (const auto& s : shapes) {
      for (int c = 0; c < 8; ++c, ++v) {
        if (!full && v % 4 != 0) continue;
        const float alpha = v % 5 == 4 ? 0.0f : (v % 2 ? 1.0f : -0.5f), beta = v % 3 == 0 ? 0.0f : 2.0f;
        // Every tile width (64, 128, 144, 168, 192, 256) with every op (v % 8; light runs: ops 0
        // and 4); a row-major NN product as its transpose wherever it may run, or never.
        constexpr int tile_widths[] = {64, 128, 144, 168, 192, 256};
        forced.tile_width = tile_widths[(v % 8 + v / 8) % 6];
        forced.transpose_min_k = (v / 6) % 2 == 0 ? 0 : -1;
        check_exact<T>(problem(combo(c), s[0], s[1], s[2], alpha, beta, layouts[v % layout_count]), ++salt, &forced);
      }
    }
  });
}

// The launcher's kernels follow a caller's kernel that lets its dependents launch early
// (late_writer: C and A written about a millisecond after it starts) and read what it wrote:
// k == 0 and alpha == 0 (C = beta C), operands read as stored or copied first (K-contiguous
// rows of 70 elements and +3 leading dimensions are not 16-byte aligned), NN, NT and TT, K in
// slices and stream-K. Exact data: C must equal the double result of what that kernel wrote.
TEST_CASE_TEMPLATE("gemm on 16-bit operands: a caller's kernel that lets its dependents launch early is waited for", T,
                   __half, __nv_bfloat16) {
  using tilecraft::test::late_writer_cases;
  const long long cycles = tilecraft::test::late_writer_cycles;
  std::uint64_t salt = std::is_same_v<T, __half> ? 28000 : 29000;
  for_each_forced_split(-1, [&](tilecraft::detail::GemmTensorTunables forced) {
    for (const auto& cs : late_writer_cases) {
      for (int v : {0, 2, 3}) {
        const Problem p = problem(combo(v), 130, 260, cs.k, cs.alpha, cs.beta, cs.layout);
        const std::string name = p.str(type_name<T>(), salt);
        CAPTURE(name);
        auto g = tilecraft::test::rng(salt++);
        const auto eighths = [&g](long long lo, long long hi) {
          return static_cast<float>(g.uniform_int(lo, hi)) / 8.0f;
        };
        // What A, B and C hold when the caller's kernel starts, and what it writes into A and C.
        const Operands<T> before = make_operands<T>(p, true, [&] { return eighths(-8, 8); });
        const Operands<T> after = make_operands<T>(p, true, [&] { return eighths(-8, 8); });
        std::vector<float> c_before(p.size_c()), c_after(p.size_c());
        for (float& x : c_before) x = eighths(-32, 32);
        for (float& x : c_after) x = eighths(-32, 32);
        DeviceBuffer<T> a(before.a), b(before.b), a_new(after.a);
        DeviceBuffer<float> c(c_before), c_new(c_after);
        const tilecraft::test::Stream stream;
        tilecraft::test::late_writer<T>
            <<<1, 256, 0, stream>>>(c_new.get(), c.get(), c_new.size(), a_new.get(), a.get(), a_new.size(), cycles);
        CHECK(cudaGetLastError() == cudaSuccess);
        CHECK(tilecraft::detail::gemm_16bit_run<T>(p.order, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a.get() + p.l.off_a,
                                                   p.lda(), b.get() + p.l.off_b, p.ldb(), p.beta, c.get() + p.l.off_c,
                                                   p.ldc(), stream, forced) == cudaSuccess);
        stream.synchronize();
        tilecraft::test::sync_and_check();
        // A as the caller's kernel wrote it, B as it was.
        check_c(p, c.download(), c_after, exact_result(p, after.oa, before.obt, c_after, true), {},
                "tilecraft after a caller's early-triggering kernel");
      }
    }
  });
}

// Random reals give the same bits on a second run: the plan, not the order in which blocks
// finish, fixes the order of every sum (slices and stream-K shares add in K order).
template <class T>
void check_same_bits_twice(const Problem& p, std::uint64_t salt,
                           const tilecraft::detail::GemmTensorTunables* tunables) {
  const std::string problem = p.str(type_name<T>(), salt);
  CAPTURE(problem);
  auto g = tilecraft::test::rng(salt);
  const Operands<T> o = make_operands<T>(p, true, [&] { return static_cast<float>(g.uniform_real(-1.0, 1.0)); });
  std::vector<float> c0(p.size_c());
  for (float& x : c0) x = static_cast<float>(g.uniform_real(-1.0, 1.0));
  const std::vector<float> first = run_tilecraft(p, o, c0, tunables), second = run_tilecraft(p, o, c0, tunables);
  std::int64_t differ = 0;
  for (std::size_t e = 0; e < first.size(); ++e) differ += tilecraft::test::same_bits(first[e], second[e]) ? 0 : 1;
  CHECK(differ == 0);
}

// Inf and NaN operands give IEEE's Inf and NaN. Operands (integers in [-8, 8]) / 8 and C
// likewise, so that every finite sum is exact in any order, and whether a result is NaN, +Inf or
// -Inf does not depend on the order either. Planted: Inf in row 3 of op(A) at K 5, with zeros in
// row 5 of op(B) at columns 0 ... 9 (Inf x 0: NaN); -Inf in column 7 of op(B) at the last K (the
// last slice where K is split); NaN in row 10 of op(A).
template <class T>
void check_inf_nan(const Problem& p, std::uint64_t salt, const tilecraft::detail::GemmTensorTunables* tunables) {
  const std::string problem = p.str(type_name<T>(), salt);
  CAPTURE(problem);
  REQUIRE(p.m > 10);
  REQUIRE(p.n > 9);
  REQUIRE(p.k > 5);
  auto g = tilecraft::test::rng(salt);
  const auto eighths = [&g](long long lo, long long hi) { return static_cast<float>(g.uniform_int(lo, hi)) / 8.0f; };
  Operands<T> o = make_operands<T>(p, true, [&] { return eighths(-8, 8); });
  const auto k = static_cast<std::size_t>(p.k);
  const auto set_a = [&](std::int64_t i, std::int64_t q, float v) {
    o.a[p.ia(i, q)] = to_16bit<T>(v);
    o.oa[static_cast<std::size_t>(i) * k + static_cast<std::size_t>(q)] = v;
  };
  const auto set_b = [&](std::int64_t q, std::int64_t j, float v) {
    o.b[p.ib(q, j)] = to_16bit<T>(v);
    o.obt[static_cast<std::size_t>(j) * k + static_cast<std::size_t>(q)] = v;
  };
  const float inf = std::numeric_limits<float>::infinity();
  set_a(3, 5, inf);
  for (std::int64_t j = 0; j < 10; ++j) set_b(5, j, 0.0f);
  set_b(p.k - 1, 7, -inf);
  set_a(10, 2, std::numeric_limits<float>::quiet_NaN());
  REQUIRE(std::isinf(to_float(o.a[p.ia(3, 5)])));
  REQUIRE(std::isnan(to_float(o.a[p.ia(10, 2)])));
  std::vector<float> c0(p.size_c());
  for (float& x : c0) x = eighths(-32, 32);
  const std::vector<float> got = run_tilecraft(p, o, c0, tunables);
  std::int64_t bad = 0, nans = 0, infs = 0;
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      const float *x = o.oa.data() + static_cast<std::size_t>(i) * k,
                  *y = o.obt.data() + static_cast<std::size_t>(j) * k;
      long double acc = 0.0L;
      for (std::size_t q = 0; q < k; ++q) acc += static_cast<long double>(x[q]) * static_cast<long double>(y[q]);
      const long double want = static_cast<long double>(p.alpha) * acc +
                               static_cast<long double>(p.beta) * static_cast<long double>(c0[p.ic(i, j)]);
      const long double value = got[p.ic(i, j)];
      nans += std::isnan(want) ? 1 : 0;
      infs += std::isinf(want) ? 1 : 0;
      const bool ok = std::isnan(want) ? std::isnan(value) : value == want;
      if (!ok && bad++ == 0)
        MESSAGE("C(" << i << ", " << j << ") = " << double(value) << ", expected " << double(want));
    }
  }
  CHECK(bad == 0);
  CHECK(nans >= p.n);  // (row 10 all NaN: the premise holds)
  CHECK(infs > 0);
}

TEST_CASE_TEMPLATE(
    "gemm on 16-bit operands: the same bits on a second run, Inf and NaN operands give IEEE's Inf and "
    "NaN, whole and K split (slices, stream-K)",
    T, __half, __nv_bfloat16) {
  // The default plan, then the split forced (for_each_forced_split: slices and stream-K, planned
  // for the device's SMs and for 4); layouts aligned (wgmma), +8 and +3 (operands copied).
  const std::int64_t shapes[][3] = {{67, 45, 130}, {257, 129, 515}, {300, 600, 330}};
  const bool full = !tilecraft::test::sanitizer_sized();
  std::uint64_t salt = std::is_same_v<T, __half> ? 30000 : 31000;
  int v = 0;
  const auto each = [&](const tilecraft::detail::GemmTensorTunables* tunables) {
    for (const auto& s : shapes) {
      const int w = v++;
      if (!full && w % 4 != 0) continue;
      const Problem p = problem(combo((w * 3) % 8), s[0], s[1], s[2], w % 2 ? 1.0f : -0.5f, 0.5f, layouts[w % 3]);
      check_same_bits_twice<T>(p, ++salt, tunables);
      check_inf_nan<T>(p, ++salt, tunables);
    }
  };
  each(nullptr);
  for_each_forced_split(-1, [&](const tilecraft::detail::GemmTensorTunables& forced) { each(&forced); });
}

TEST_CASE_TEMPLATE("gemm on 16-bit operands without workspace: copies become mma.sync, split K every tile whole", T,
                   __half, __nv_bfloat16) {
  // workspace_limit 0: every workspace request refused, as an exhausted pool refuses it.
  // Operands that would be copied for wgmma (ld + 3) run on mma.sync as stored; aligned ones run
  // wgmma with the K split forced, which without workspace for the partial sums runs every tile
  // whole; a B whose rows start 16 bytes off a 32-byte boundary (136, 264, 520, 600 or 200
  // elements as stored), which the stream-K runs would copy into aligned rows, is read as stored.
  const std::int64_t shapes[][3] = {{136, 264, 520}, {304, 600, 336}, {200, 1104, 200}, {67, 45, 130}};
  const bool full = !tilecraft::test::sanitizer_sized();
  std::uint64_t salt = std::is_same_v<T, __half> ? 28000 : 29000;
  int v = 0;
  for_each_forced_split(0, [&](const tilecraft::detail::GemmTensorTunables& forced) {
    for (const auto& s : shapes) {
      for (int c : {0, 1, 5, 6}) {
        const int w = v++;
        if (!full && w % 4 != 0) continue;
        const float alpha = w % 5 == 4 ? 0.0f : (w % 2 ? 1.0f : -0.5f), beta = w % 3 == 0 ? 0.0f : 2.0f;
        const GemmLayout& l = (w / 4) % 2 == 0 ? layouts[c == 0 ? 0 : 1] : layouts[2];
        check_exact<T>(problem(combo(c), s[0], s[1], s[2], alpha, beta, l), ++salt, &forced);
      }
    }
  });
}

TEST_CASE_TEMPLATE("gemm on 16-bit operands against cublasGemmEx: 1000 x 999 x 1001, both orders, and 2048^3", T,
                   __half, __nv_bfloat16) {
  const bool full = !tilecraft::test::sanitizer_sized();
  Cublas cublas;
  std::uint64_t salt = std::is_same_v<T, __half> ? 18000 : 19000;
  for (int v = 0; v < 8; ++v) {
    if (!full && v != 0 && v != 5) continue;  // light: row-major NN, column-major TN
    const Problem p =
        problem(combo(v), 1000, 999, 1001, v % 2 ? 1.0f : 0.75f, v % 3 ? 0.0f : -1.5f, layouts[v % layout_count]);
    check_cublas<T>(cublas, p, ++salt);
  }
  if (!full) {
    MESSAGE("TILECRAFT_TEST_HUGE=0: skipping 2048^3");
    return;
  }
  check_cublas<T>(cublas, problem(combo(0), 2048, 2048, 2048, 1.0f, 0.0f, layouts[0]), ++salt);
  check_cublas<T>(cublas, problem(combo(5), 2048, 2048, 2048, -1.0f, 0.5f, layouts[1]), ++salt);
  check_cublas<T>(cublas, problem(combo(1), 2048, 2048, 2048, 1.0f, 0.0f, layouts[2]), ++salt);  // unaligned path
}

// BLAS: with k == 0 C = beta C, A and B unread, whatever alpha is: alpha x 0 must not turn C into
// NaN when alpha is Inf or NaN. beta == 0: C is not read (NaN there).
TEST_CASE_TEMPLATE("gemm on 16-bit operands: k == 0 scales C by beta whatever alpha is, Inf and NaN included", T,
                   __half, __nv_bfloat16) {
  const std::int64_t m = 37, n = 41;  // row-major C, ldc = n + 3
  const std::int64_t ldc = n + 3;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  auto g = tilecraft::test::rng(4000);
  std::vector<float> c0(static_cast<std::size_t>(m * ldc));
  for (float& x : c0) x = static_cast<float>(g.uniform_int(-64, 64)) / 8.0f;
  const T* null_ab = nullptr;
  for (float alpha : {inf, -inf, nan, 0.0f, 3.0f}) {
    for (float beta : {0.5f, 0.0f}) {
      CAPTURE(alpha);
      CAPTURE(beta);
      std::vector<float> start = c0;
      if (beta == 0.0f) std::fill(start.begin(), start.end(), nan);  // not read
      DeviceBuffer<float> dc(start);
      CHECK(tilecraft::gemm(Order::row_major, Op::none, Op::none, m, n, 0, alpha, null_ab, 1, null_ab, n, beta,
                            dc.get(), ldc) == cudaSuccess);
      tilecraft::test::sync_and_check();
      const std::vector<float> got = dc.download();
      int wrong = 0;
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          const auto at = static_cast<std::size_t>(i * ldc + j);
          const float want = beta == 0.0f ? 0.0f : beta * c0[at];  // exact: beta is a power of 2
          if (!(got[at] == want)) ++wrong;
        }
      }
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE_TEMPLATE("gemm on 16-bit operands: rejected calls launch nothing and leave C alone; m or n == 0 does nothing",
                   T, __half, __nv_bfloat16) {
  const std::int64_t m = 37, n = 41, k = 29;  // row-major NN: lda = k, ldb = n, ldc = n
  DeviceBuffer<T> da(static_cast<std::size_t>(m * k + 8)), db(static_cast<std::size_t>(k * n + 8));
  DeviceBuffer<float> dc(static_cast<std::size_t>(m * n + 8));
  // C all NaN of payload 0xffffffff: a call that rewrote C, even as 1 * C + 0, would leave the
  // GPU's canonical NaN (0x7fffffff) instead.
  TILECRAFT_THROW_IF_ERROR(cudaMemset(dc.get(), 0xff, static_cast<std::size_t>(m * n + 8) * sizeof(float)));
  const std::vector<float> before = dc.download();
  const T* a = da.get();
  const T* b = db.get();
  float* c = dc.get();
  const T* null_ab = nullptr;
  float* null_c = nullptr;
  const auto row = Order::row_major, col = Order::col_major;
  const auto N = Op::none, TR = Op::transpose;
  const auto bad = cudaErrorInvalidValue;
  CHECK(tilecraft::gemm(row, N, N, -1, n, k, 1.0f, a, k, b, n, 0.0f, c, n) == bad);
  CHECK(tilecraft::gemm(row, N, N, m, -1, k, 1.0f, a, k, b, n, 0.0f, c, n) == bad);
  CHECK(tilecraft::gemm(row, N, N, m, n, -1, 1.0f, a, k, b, n, 0.0f, c, n) == bad);
  // Leading dimensions one below BLAS's minimum: row-major A (k), A^T (m), column-major A (m); B, C.
  CHECK(tilecraft::gemm(row, N, N, m, n, k, 1.0f, a, k - 1, b, n, 0.0f, c, n) == bad);
  CHECK(tilecraft::gemm(row, TR, N, m, n, k, 1.0f, a, m - 1, b, n, 0.0f, c, n) == bad);
  CHECK(tilecraft::gemm(col, N, N, m, n, k, 1.0f, a, m - 1, b, k, 0.0f, c, m) == bad);
  CHECK(tilecraft::gemm(row, N, N, m, n, k, 1.0f, a, k, b, n - 1, 0.0f, c, n) == bad);
  CHECK(tilecraft::gemm(row, N, N, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n - 1) == bad);
  // Null operands with k > 0, a null C.
  CHECK(tilecraft::gemm(row, N, N, m, n, k, 1.0f, null_ab, k, b, n, 0.0f, c, n) == bad);
  CHECK(tilecraft::gemm(row, N, N, m, n, k, 1.0f, a, k, null_ab, n, 0.0f, c, n) == bad);
  CHECK(tilecraft::gemm(row, N, N, m, n, k, 1.0f, a, k, b, n, 0.0f, null_c, n) == bad);
  // Misaligned: C one byte off (4-byte alignment), A and B one byte off (2-byte alignment).
  float* const c_off = reinterpret_cast<float*>(reinterpret_cast<char*>(c) + 1);
  const T* const a_off = reinterpret_cast<const T*>(reinterpret_cast<const char*>(a) + 1);
  const T* const b_off = reinterpret_cast<const T*>(reinterpret_cast<const char*>(b) + 1);
  CHECK(tilecraft::gemm(row, N, N, m, n, k, 1.0f, a, k, b, n, 0.0f, c_off, n) == bad);
  CHECK(tilecraft::gemm(row, N, N, m, n, k, 1.0f, a_off, k, b, n, 0.0f, c, n) == bad);
  CHECK(tilecraft::gemm(row, N, N, m, n, k, 1.0f, a, k, b_off, n, 0.0f, c, n) == bad);
  // Bad enumerators.
  CHECK(tilecraft::gemm(row, static_cast<Op>(7), N, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n) == bad);
  CHECK(tilecraft::gemm(row, N, static_cast<Op>(7), m, n, k, 1.0f, a, k, b, n, 0.0f, c, n) == bad);
  CHECK(tilecraft::gemm(static_cast<Order>(7), N, N, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n) == bad);
  // More tiles than 2^31 - 1 on every shape the plan may take (though not on 256 x 256 tiles),
  // with an A that would be copied first (lda = 1, no multiple of 8): refused before the copy,
  // on fake addresses that must never be touched.
  {
    constexpr std::int64_t big_m = std::int64_t{1} << 23, big_n = (std::int64_t{1} << 24) - 256;
    static_assert((big_m + 255) / 256 * ((big_n + 255) / 256) <= INT_MAX,
                  "the premise: 256 x 256 tiles fit, so the chosen shape's plan is what refuses");
    const auto* fa = reinterpret_cast<const T*>(std::uintptr_t{1} << 20);
    const auto* fb = reinterpret_cast<const T*>(std::uintptr_t{1} << 30);
    auto* fc = reinterpret_cast<float*>(std::uintptr_t{1} << 40);
    CHECK(tilecraft::gemm(row, N, N, big_m, big_n, 1, 1.0f, fa, 1, fb, big_n, 0.0f, fc, big_n) == bad);
  }
  // m == 0 or n == 0: nothing to do, null pointers included.
  CHECK(tilecraft::gemm(row, N, N, 0, n, k, 1.0f, null_ab, k, null_ab, n, 0.0f, null_c, n) == cudaSuccess);
  CHECK(tilecraft::gemm(row, N, N, m, 0, k, 1.0f, null_ab, k, null_ab, 1, 0.0f, null_c, 1) == cudaSuccess);
  CHECK(tilecraft::gemm(col, TR, TR, 0, 0, k, 1.0f, null_ab, k, null_ab, 1, 0.0f, null_c, 1) == cudaSuccess);
  CHECK(tilecraft::gemm(row, N, N, 0, n, k, 1.0f, a, k, b, n, 0.0f, c, n) == cudaSuccess);
  // k == 0 with null A and B is allowed: C = beta C (beta = 1: C as it was).
  CHECK(tilecraft::gemm(row, N, N, m, n, 0, 1.0f, null_ab, 1, null_ab, n, 1.0f, c, n) == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
  // An earlier call's error of the same code stays in the last-error slot for its owner.
  tilecraft::test::check_keeps_earlier_invalid_value(
      [&] { return tilecraft::gemm(row, N, N, -1, n, k, 1.0f, a, k, b, n, 0.0f, c, n); });
  tilecraft::test::sync_and_check();
  const std::vector<float> after = dc.download();
  CHECK(std::memcmp(after.data(), before.data(), before.size() * sizeof(float)) == 0);
}
