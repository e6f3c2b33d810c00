// The harness of test_gemm (one executable of several translation units, one per aspect):
// tilecraft::gemm, tilecraft::gemm_epilogue and the block-level tiled_gemm, for float and
// double, against a host reference (float: in double; double: in long double) and cuBLAS
// (cublasSgemm / cublasDgemm, CUBLAS_PEDANTIC_MATH: for float FP32 FMAs, no TF32): shapes from
// 1 x 1 x 1 to 2048^3 (K = 0, K = 1, 1 x 513, 513 x 1, odd sizes), both orders and every op
// combination, leading dimensions above the minimum and not multiples of 2 or 4, base pointers
// off 16-byte alignment (aligned to the element only), BLAS's scalar rules (beta = 0 never
// reads C, alpha = 0 never reads A or B, alpha = 0 with beta = 1 returns at once), split K,
// user policies, custom epilogues, and tiled_gemm inside a user's kernel on MatrixRef and
// transposed() views. The cases:
//   test_gemm_shapes.cu      odd shapes, K = 0, the beta / alpha rules, rejected calls
//   test_gemm_policies.cu    user configurations (float; double in test_gemm_policies_f64.cu)
//   test_gemm_policies_library.cu  the library's float policies chosen explicitly, one kernel
//                            from two files (with test_gemm_other_tu.cu)
//   test_gemm_tiled.cu       tiled_gemm in a user's kernel
//   test_gemm_launcher.cu    split K, packing and its panels, release_workspace, gemm_epilogue,
//                            large shapes against cuBLAS only
//
// Error bound from K: |got - ref| <= 2 (K + 2) u (|alpha| sum_k |a_ik b_kj| + |beta c_ij|),
// u = 2^-24 for float, 2^-53 for double (K dependent FMAs, then the alpha and beta roundings;
// twice the classical bound), with the absolute product computed on the host in the wider
// type, or for the cuBLAS-only large shapes by cuBLAS on |A| and |B| (and twice the bound:
// both results carry an error).
// Inputs are random from the printed seed; elements of the buffers outside A and B are NaN
// (a read past an operand shows in C), elements outside C are poison and must stay so.
// Built twice: as is, and with TILECRAFT_DISABLE_CP_ASYNC (synchronous fills).
// TILECRAFT_TEST_HUGE=0 (what .ci/gpu-check sets for the sanitizer runs) makes a light run:
// no cuBLAS (the sanitizers are there for tilecraft's kernels), no cuBLAS-only shapes
// (1000 x 999 x 1001, 2048^3), no shape above about 10^6 multiply-adds, one layout and two of the
// eight orders and ops per shape (combos_for, layouts_for); under racecheck one of the eight
// (TILECRAFT_TEST_SANITIZER=racecheck, which the check sets beside it).
// Split K and packing (the launcher transposing K-contiguous operands into a workspace and
// copying unaligned ones to aligned rows, in panels when they exceed its budget) are forced on small shapes by lower
// limits (detail::GemmTunables: tunables_split_small(), tunables_pack()) passed to the launcher's detail::gemm_run; the
// cases that keep the launcher's own limits call the public gemm.
//
// Included by every file of the executable: everything here is a template, inline, or a type.
#pragma once

#include <cublas_v2.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <tilecraft/device/gemm.cuh>

#include "test_util.cuh"

namespace tilecraft::test::gemm {

// The host reference's type: wider than T, so its own rounding is negligible against T's bound
// (x86's long double keeps a 64-bit significand).
template <class T>
using HostReal = std::conditional_t<std::is_same_v<T, float>, double, long double>;

// T's unit roundoff.
template <class T>
inline constexpr HostReal<T> unit_roundoff = std::is_same_v<T, float> ? HostReal<T>(0x1p-24) : HostReal<T>(0x1p-53L);

template <class T>
T nan_value() {
  return std::numeric_limits<T>::quiet_NaN();
}

// False under TILECRAFT_TEST_HUGE=0 (the sanitizer runs): see the file comment.
inline bool full_run() { return !tilecraft::test::sanitizer_sized(); }

// Light runs skip shapes above this many multiply-adds.
inline constexpr std::int64_t light_max_macs = 1100000;

// ---- problems, layouts, host data ----------------------------------------------------------

// C (m x n) = alpha op(A) op(B) + beta C of T, every matrix stored in `order`. Each leading
// dimension is BLAS's minimum plus `pad` (with round4: the minimum rounded up to a multiple
// of 4, plus 4, plus pad), each base pointer `off` elements into its buffer.
template <class T>
struct Problem {
  Order order = Order::row_major;
  Op op_a = Op::none;
  Op op_b = Op::none;
  std::int64_t m = 1, n = 1, k = 1;
  T alpha = 1;
  T beta = 0;
  std::int64_t pad_a = 0, pad_b = 0, pad_c = 0;
  std::int64_t off_a = 0, off_b = 0, off_c = 0;
  bool round4 = false;

  bool row() const { return order == Order::row_major; }
  bool ta() const { return op_a == Op::transpose; }
  bool tb() const { return op_b == Op::transpose; }
  // Stored shapes: A is m x k (k x m under Op::transpose), B k x n (n x k), C m x n.
  std::int64_t a_rows() const { return ta() ? k : m; }
  std::int64_t a_cols() const { return ta() ? m : k; }
  std::int64_t b_rows() const { return tb() ? n : k; }
  std::int64_t b_cols() const { return tb() ? k : n; }
  std::int64_t ld(std::int64_t rows, std::int64_t cols, std::int64_t pad) const {
    const std::int64_t need = std::max<std::int64_t>(1, row() ? cols : rows);
    return (round4 ? (need + 3) / 4 * 4 + 4 : need) + pad;
  }
  std::int64_t lda() const { return ld(a_rows(), a_cols(), pad_a); }
  std::int64_t ldb() const { return ld(b_rows(), b_cols(), pad_b); }
  std::int64_t ldc() const { return ld(m, n, pad_c); }
  // Offset of stored element (r, c) in a matrix with leading dimension ld.
  std::int64_t at(std::int64_t r, std::int64_t c, std::int64_t ld) const { return row() ? r * ld + c : c * ld + r; }
  // Buffer positions of op(A)(i, p), op(B)(p, j) and C(i, j).
  std::size_t ia(std::int64_t i, std::int64_t p) const {
    return static_cast<std::size_t>(off_a + (ta() ? at(p, i, lda()) : at(i, p, lda())));
  }
  std::size_t ib(std::int64_t p, std::int64_t j) const {
    return static_cast<std::size_t>(off_b + (tb() ? at(j, p, ldb()) : at(p, j, ldb())));
  }
  std::size_t ic(std::int64_t i, std::int64_t j) const { return static_cast<std::size_t>(off_c + at(i, j, ldc())); }
  // Buffer sizes: the offset, every stored row (column) at its full leading dimension, and 5
  // elements past the end; C's buffer `c_guard_lines` stored rows (columns) more, poisoned, so
  // that a tile written past C's last row (column) changes the buffer in full-sized runs too
  // (not only where memcheck sees writes past the allocation).
  static constexpr std::int64_t c_guard_lines = 256;
  std::size_t size(std::int64_t off, std::int64_t rows, std::int64_t cols, std::int64_t ld) const {
    return static_cast<std::size_t>(off + (row() ? rows : cols) * ld + 5);
  }
  std::size_t size_a() const { return size(off_a, a_rows(), a_cols(), lda()); }
  std::size_t size_b() const { return size(off_b, b_rows(), b_cols(), ldb()); }
  std::size_t size_c() const { return size(off_c, m, n, ldc()) + static_cast<std::size_t>(c_guard_lines * ldc()); }

  std::string str() const {
    char s[288];
    std::snprintf(s, sizeof s,
                  "%s %s %c%c m=%lld n=%lld k=%lld alpha=%g beta=%g ld=(%lld,%lld,%lld) off=(%lld,%lld,%lld)",
                  std::is_same_v<T, float> ? "float" : "double", row() ? "row-major" : "col-major", ta() ? 'T' : 'N',
                  tb() ? 'T' : 'N', static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k),
                  static_cast<double>(alpha), static_cast<double>(beta), static_cast<long long>(lda()),
                  static_cast<long long>(ldb()), static_cast<long long>(ldc()), static_cast<long long>(off_a),
                  static_cast<long long>(off_b), static_cast<long long>(off_c));
    return s;
  }
};

// Both orders, every op combination.
struct Combo {
  Order order;
  Op op_a;
  Op op_b;
};
inline constexpr Combo combos[] = {
    {Order::row_major, Op::none, Op::none},      {Order::row_major, Op::transpose, Op::none},
    {Order::row_major, Op::none, Op::transpose}, {Order::row_major, Op::transpose, Op::transpose},
    {Order::col_major, Op::none, Op::none},      {Order::col_major, Op::transpose, Op::none},
    {Order::col_major, Op::none, Op::transpose}, {Order::col_major, Op::transpose, Op::transpose},
};

// Leading dimensions and alignments: tight and 16-byte aligned (vector fills and stores where
// the sizes are multiples of 4); padded to multiples of 4 (the vector path with ld above the
// minimum, on every size); odd padding with every base off 16-byte alignment (the
// element-by-element path); a mix; multiples of 4 with only A off alignment; even but not
// multiples of 4 (the vector path for double, element by element for float).
struct Layout {
  std::int64_t pad_a, pad_b, pad_c, off_a, off_b, off_c;
  bool round4;
};
inline constexpr Layout layouts[] = {
    {0, 0, 0, 0, 0, 0, false}, {0, 0, 0, 0, 0, 0, true}, {3, 5, 7, 1, 1, 1, false},
    {1, 0, 2, 0, 1, 0, false}, {0, 0, 0, 1, 0, 0, true}, {2, 6, 2, 0, 0, 0, true},
};
inline constexpr int layout_count = static_cast<int>(sizeof(layouts) / sizeof(layouts[0]));

// The orders and ops the s-th shape of a case runs with: all eight in a full run; two in a light
// run (the sanitizers'), a different two for each shape, so that a case's shapes still meet
// every combination; one under racecheck (see racecheck_sized: the combinations choose between
// the same kernels' fill paths, and the executable's cases still meet every one).
inline std::vector<Combo> combos_for(std::size_t s, bool full) {
  constexpr std::size_t count = sizeof(combos) / sizeof(combos[0]);
  if (full) return {combos, combos + count};
  if (tilecraft::test::racecheck_sized()) return {combos[(3 * s) % count]};  // (3 s mod 8 meets all eight in 8 shapes)
  return {combos[(2 * s) % count], combos[(2 * s + 1) % count]};
}

// The layouts of the v-th case: two in a full run, one in a light run, every layout in turn.
inline std::vector<int> layouts_for(int v, bool full) {
  if (!full) return {v % layout_count};
  return {v % layout_count, (v + 3) % layout_count};
}

// Calls case_fn(combo, shape, layout, variant) for each case of `shapes` (rows of {m, n, k, ...})
// a run checks: every shape in a full run, those of at most light_max_macs multiply-adds in a
// light one; for each, the orders and ops of combos_for, and for each of those (variant 0, 1,
// ... across the shapes) the layouts of layouts_for.
template <std::size_t N, std::size_t Columns, class CaseFn>
void for_each_case(const std::int64_t (&shapes)[N][Columns], CaseFn&& case_fn) {
  static_assert(Columns >= 3, "for_each_case: a shape is {m, n, k, ...}");
  const bool full = full_run();
  int variant = 0;
  std::size_t shape = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    for (const Combo& c : combos_for(shape++, full)) {
      for (int l : layouts_for(variant, full)) case_fn(c, s, layouts[l], variant);
      ++variant;
    }
  }
}

template <class T>
Problem<T> make_problem(const Combo& c, std::int64_t m, std::int64_t n, std::int64_t k, const Layout& l, T alpha,
                        T beta) {
  Problem<T> p;
  p.order = c.order;
  p.op_a = c.op_a;
  p.op_b = c.op_b;
  p.m = m;
  p.n = n;
  p.k = k;
  p.alpha = alpha;
  p.beta = beta;
  p.pad_a = l.pad_a;
  p.pad_b = l.pad_b;
  p.pad_c = l.pad_c;
  p.off_a = l.off_a;
  p.off_b = l.off_b;
  p.off_c = l.off_c;
  p.round4 = l.round4;
  return p;
}

// How a problem's buffers are filled: A, B and C random in [-1, 1), or NaN.
struct Fill {
  bool nan_ab = false;
  bool nan_c = false;
};

// The three buffers, whole: NaN outside A and B, poison outside C.
template <class T>
struct HostData {
  std::vector<T> a, b, c;
};

template <class T>
HostData<T> make_data(const Problem<T>& p, std::uint64_t salt, Fill fill = {}) {
  HostData<T> d{std::vector<T>(p.size_a(), nan_value<T>()), std::vector<T>(p.size_b(), nan_value<T>()),
                std::vector<T>(p.size_c(), tilecraft::test::poison_value<T>())};
  auto g = tilecraft::test::rng(salt);
  auto dist = [](tilecraft::test::Rng& r) { return static_cast<T>(r.uniform_real(-1.0, 1.0)); };
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t q = 0; q < p.k; ++q) d.a[p.ia(i, q)] = fill.nan_ab ? nan_value<T>() : dist(g);
  for (std::int64_t q = 0; q < p.k; ++q)
    for (std::int64_t j = 0; j < p.n; ++j) d.b[p.ib(q, j)] = fill.nan_ab ? nan_value<T>() : dist(g);
  for (std::int64_t i = 0; i < p.m; ++i)
    for (std::int64_t j = 0; j < p.n; ++j) d.c[p.ic(i, j)] = fill.nan_c ? nan_value<T>() : dist(g);
  return d;
}

template <class T>
struct DeviceData {
  DeviceBuffer<T> a, b, c;
  explicit DeviceData(const HostData<T>& h) : a(h.a), b(h.b), c(h.c) {}
};

// ---- references and the comparison -------------------------------------------------------

// op(A) op(B) and |op(A)| |op(B)| in HostReal<T>, m x n row-major.
template <class T>
struct Products {
  std::vector<HostReal<T>> sum, abs;
};

template <class T>
Products<T> host_products(const Problem<T>& p, const HostData<T>& d) {
  using R = HostReal<T>;
  const auto m = static_cast<std::size_t>(p.m), n = static_cast<std::size_t>(p.n), k = static_cast<std::size_t>(p.k);
  std::vector<R> a(m * k), bt(n * k);  // op(A) and op(B)^T, K contiguous
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t q = 0; q < k; ++q) a[i * k + q] = d.a[p.ia(std::int64_t(i), std::int64_t(q))];
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t q = 0; q < k; ++q) bt[j * k + q] = d.b[p.ib(std::int64_t(q), std::int64_t(j))];
  Products<T> r{std::vector<R>(m * n), std::vector<R>(m * n)};
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const R* x = a.data() + i * k;
      const R* y = bt.data() + j * k;
      R s = 0, t = 0;
      for (std::size_t q = 0; q < k; ++q) {
        s += x[q] * y[q];
        t += std::abs(x[q] * y[q]);
      }
      r.sum[i * n + j] = s;
      r.abs[i * n + j] = t;
    }
  }
  return r;
}

// The expected C (m x n row-major) and each element's error bound.
template <class T>
struct Reference {
  std::vector<HostReal<T>> value, bound;
};

// K dependent roundings of T in the accumulation, plus `extra` more (alpha, beta, a bias):
// 2 (K + extra) u magnitude (tilecraft::test::sum_tolerance, in HostReal<T>).
template <class T>
HostReal<T> bound_for(const Problem<T>& p, HostReal<T> magnitude, int extra = 2) {
  return 2 * static_cast<HostReal<T>>(p.k + extra) * unit_roundoff<T> * magnitude + HostReal<T>(1e-30);
}

// What one product a_ik b_kj may lose before the accumulation, relative to |a_ik b_kj|:
// nothing with FMAs; TF32 rounds both operands (2^-11 each, 2^-10 + 2^-22 together); TF32x3
// keeps each operand to 2^-22 and drops the remainders' product (3 * 2^-22).
inline double product_error(tilecraft::GemmMath math) {
  switch (math) {
    case tilecraft::GemmMath::tf32:
      return 0x1p-10 + 0x1p-22;
    case tilecraft::GemmMath::tf32x3:
      return 3 * 0x1p-22;
    default:
      return 0;
  }
}

// BLAS: alpha op(A) op(B) + beta C, where alpha == 0 or k == 0 reads neither A nor B and
// beta == 0 does not read C. With a tensor-core math the bound adds product_error(math) of
// |alpha| sum_k |a_ik b_kj|.
template <class T>
Reference<T> linear_reference(const Problem<T>& p, const HostData<T>& d,
                              tilecraft::GemmMath math = tilecraft::GemmMath::simt) {
  using R = HostReal<T>;
  const bool product = p.alpha != T(0) && p.k > 0;
  const Products<T> prod = product ? host_products(p, d) : Products<T>{};
  const auto m = static_cast<std::size_t>(p.m), n = static_cast<std::size_t>(p.n);
  Reference<T> r{std::vector<R>(m * n), std::vector<R>(m * n)};
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const R c = p.beta != T(0) ? R(p.beta) * d.c[p.ic(std::int64_t(i), std::int64_t(j))] : R(0);
      const R s = product ? R(p.alpha) * prod.sum[i * n + j] : R(0);
      const R t = product ? std::abs(R(p.alpha)) * prod.abs[i * n + j] : R(0);
      r.value[i * n + j] = s + c;
      r.bound[i * n + j] = bound_for(p, t + std::abs(c)) + R(product_error(math)) * t;
    }
  }
  return r;
}

// Every element of C within scale * its bound (NaN fails), every element of the buffer outside
// C still poison.
template <class T>
void check_c(const Problem<T>& p, const std::vector<T>& got, const Reference<T>& ref, double scale, const char* what) {
  using R = HostReal<T>;
  CAPTURE(what);
  std::vector<char> inside(got.size(), 0);
  std::int64_t bad = 0;
  std::string first_bad;
  for (std::int64_t i = 0; i < p.m; ++i) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      const std::size_t at = p.ic(i, j);
      const std::size_t r = static_cast<std::size_t>(i * p.n + j);
      inside[at] = 1;
      const R g = got[at];
      if (!(std::abs(g - ref.value[r]) <= R(scale) * ref.bound[r])) {
        if (bad++ == 0) {
          char s[192];
          std::snprintf(s, sizeof s, "C(%lld, %lld) = %.17Lg, expected %.17Lg, bound %.3Lg", static_cast<long long>(i),
                        static_cast<long long>(j), static_cast<long double>(g), static_cast<long double>(ref.value[r]),
                        static_cast<long double>(R(scale) * ref.bound[r]));
          first_bad = s;
        }
      }
    }
  }
  CAPTURE(first_bad);
  CHECK(bad == 0);
  const T poison = tilecraft::test::poison_value<T>();
  std::int64_t stray = 0;
  for (std::size_t at = 0; at < got.size(); ++at) stray += !inside[at] && !tilecraft::test::same_bits(got[at], poison);
  CHECK(stray == 0);
}

template <class T>
bool same_buffer(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

// ---- cuBLAS ------------------------------------------------------------------------------------

class Cublas {
 public:
  Cublas() {
    REQUIRE(cublasCreate(&handle_) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH) == CUBLAS_STATUS_SUCCESS);
  }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  ~Cublas() { (void)cublasDestroy(handle_); }  // (a destructor cannot report; as DeviceBuffer's)

  // p's product with cuBLAS (column-major): a row-major C is the column-major C^T =
  // op(B)^T op(A)^T, and a row-major X read as column-major is X^T, so the operands swap and
  // keep their ops. cublasSgemm for float, cublasDgemm for double.
  template <class T>
  cublasStatus_t gemm(const Problem<T>& p, T alpha, const T* a, const T* b, T beta, T* c, cudaStream_t stream) const {
    const cublasStatus_t s = cublasSetStream(handle_, stream);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
    const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
    const int lda = static_cast<int>(p.lda()), ldb = static_cast<int>(p.ldb()), ldc = static_cast<int>(p.ldc());
    auto call = [&](auto... args) {
      if constexpr (std::is_same_v<T, float>) {
        return cublasSgemm(handle_, args...);
      } else {
        return cublasDgemm(handle_, args...);
      }
    };
    if (p.row()) return call(op(p.tb()), op(p.ta()), n, m, k, &alpha, b, ldb, a, lda, &beta, c, ldc);
    return call(op(p.ta()), op(p.tb()), m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
  }

 private:
  cublasHandle_t handle_{};
};

// A handle in `slot` in a full run; null in a light one.
inline const Cublas* cublas_if_full(std::optional<Cublas>& slot) {
  if (!full_run()) return nullptr;
  slot.emplace();
  return &*slot;
}

// ---- the launcher's limits -------------------------------------------------------------------

// Splits K on small products too (the launcher keeps products below 2^28 multiply-adds whole),
// with slices of at least 1024: the split path's tests run on small matrices.
inline tilecraft::detail::GemmTunables tunables_split_small() {
  tilecraft::detail::GemmTunables t;
  t.split = {1024, 0.0, std::int64_t{64} << 20};
  return t;
}

// `base` with packing (K-contiguous operands transposed into a workspace) on every product and
// each packed operand at most `float_bytes` for float, scaled by the element size (so a budget
// holds as many rows of either type), so that packing and its panels run on small matrices.
template <class T>
tilecraft::detail::GemmTunables tunables_pack(std::int64_t float_bytes, tilecraft::detail::GemmTunables base = {}) {
  base.pack = {1, 1.0, float_bytes / std::int64_t{sizeof(float)} * std::int64_t{sizeof(T)}, 1.0, 0};
  return base;
}

// ---- runners: (problem, A, B, C, stream) -> cudaError_t -----------------------------------------

// run_gemm<T, Policy>: the public tilecraft::gemm<Policy> (the launcher's own limits), a runner
// itself; run_gemm<T, Policy>(tunables): a runner through detail::gemm_run with other limits.
template <class T, class Policy>
struct GemmRunner {
  cudaError_t operator()(const Problem<T>& p, const T* a, const T* b, T* c, cudaStream_t stream) const {
    return tilecraft::gemm<Policy>(p.order, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a, p.lda(), b, p.ldb(), p.beta, c,
                                   p.ldc(), stream);
  }
  auto operator()(const tilecraft::detail::GemmTunables& tunables) const {
    return [tunables](const Problem<T>& p, const T* a, const T* b, T* c, cudaStream_t stream) {
      return tilecraft::detail::gemm_run<Policy, T>(p.order, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a, p.lda(), b,
                                                    p.ldb(), p.beta, c, p.ldc(), tunables, stream);
    };
  }
};
template <class T, class Policy = void>
inline constexpr GemmRunner<T, Policy> run_gemm{};

// Runs p on fresh device copies of `h`, returns the whole C buffer.
template <class T, class Run>
std::vector<T> run_on(const Problem<T>& p, const HostData<T>& h, Run&& run) {
  DeviceData<T> d(h);
  Stream stream;
  CHECK(run(p, d.a.get() + p.off_a, d.b.get() + p.off_b, d.c.get() + p.off_c, stream.get()) == cudaSuccess);
  TILECRAFT_THROW_IF_ERROR(cudaStreamSynchronize(stream.get()));
  tilecraft::test::sync_and_check();
  return d.c.download();
}

// p through `run` against the host reference (when host_ref) and cuBLAS (when given).
// With both, cuBLAS is checked against the host too (which validates the operand mapping the
// large shapes rely on); without the host, the bound comes from |alpha| |A| |B| + |beta| |C|
// computed by cuBLAS on the absolute values.
// With a tensor-core math (float only), against the host with that math's bound.
template <class T, class Run>
void check_gemm(const Problem<T>& p, std::uint64_t salt, Run&& run, const Cublas* cublas, bool host_ref, Fill fill = {},
                tilecraft::GemmMath math = tilecraft::GemmMath::simt) {
  const std::string problem = p.str();
  CAPTURE(problem);
  CAPTURE(salt);
  const HostData<T> h = make_data(p, salt, fill);
  const std::vector<T> got = run_on(p, h, run);
  Reference<T> ref;
  if (host_ref) {
    ref = linear_reference(p, h, math);
    check_c(p, got, ref, 1.0, "tilecraft against the host");
  }
  if (cublas == nullptr) return;
  auto run_cublas = [&](T alpha, T beta, const HostData<T>& data) {
    return run_on(p, data, [&](const Problem<T>& q, const T* a, const T* b, T* c, cudaStream_t s) {
      return cublas->gemm(q, alpha, a, b, beta, c, s) == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
    });
  };
  const std::vector<T> want = run_cublas(p.alpha, p.beta, h);
  const auto m = static_cast<std::size_t>(p.m), n = static_cast<std::size_t>(p.n);
  if (host_ref) {
    check_c(p, want, ref, 1.0, "cuBLAS against the host");
  } else {
    HostData<T> abs_data = h;
    for (auto* v : {&abs_data.a, &abs_data.b, &abs_data.c})
      for (T& x : *v) x = std::abs(x);
    const std::vector<T> magnitude = run_cublas(std::abs(p.alpha), std::abs(p.beta), abs_data);
    ref.bound.resize(m * n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j)
        ref.bound[i * n + j] = bound_for(p, HostReal<T>(magnitude[p.ic(std::int64_t(i), std::int64_t(j))]));
  }
  ref.value.resize(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) ref.value[i * n + j] = want[p.ic(std::int64_t(i), std::int64_t(j))];
  check_c(p, got, ref, 2.0, "tilecraft against cuBLAS");
}

// p through `run` twice on the same random data gives the same bits: the launchers add split K's
// slices, dealt shares and the peeled edges' partial sums in one order on every run.
template <class T, class Run>
void check_same_bits_twice(const Problem<T>& p, std::uint64_t salt, Run&& run) {
  const std::string problem = p.str();
  CAPTURE(problem);
  const HostData<T> h = make_data(p, salt);
  const std::vector<T> first = run_on(p, h, run);
  CHECK(same_buffer(first, run_on(p, h, run)));
}

// p through `run` leaves the C buffer bit for bit as it was.
template <class T, class Run>
void check_untouched(const Problem<T>& p, std::uint64_t salt, Run&& run, Fill fill = {}) {
  const std::string problem = p.str();
  CAPTURE(problem);
  const HostData<T> h = make_data(p, salt, fill);
  CHECK(same_buffer(run_on(p, h, run), h.c));
}

// ---- epilogues -------------------------------------------------------------------------------

// ReLU(acc + bias[col]); C is write-only.
template <class T>
struct BiasRelu {
  const T* bias;
  TILECRAFT_HOST_DEVICE bool reads_c() const { return false; }
  TILECRAFT_HOST_DEVICE T operator()(T acc, T, std::int64_t, std::int64_t col) const {
    const T x = acc + bias[col];
    return x > T(0) ? x : T(0);
  }
};

// scale[row] * acc + C: reads C, and uses the row.
template <class T>
struct RowScaleResidual {
  const T* scale;
  TILECRAFT_HOST_DEVICE bool reads_c() const { return true; }
  TILECRAFT_HOST_DEVICE T operator()(T acc, T c_old, std::int64_t row, std::int64_t) const {
    return scale[row] * acc + c_old;
  }
};

// gemm<Policy> on odd shapes over every order, layout and K split; a policy the device cannot
// hold must be refused, C untouched.
template <class Policy>
void check_policy() {
  using T = typename Policy::element_type;
  int device = 0, optin = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (tilecraft::gemm_policy_t<Policy>::tiled::smem_bytes > static_cast<std::size_t>(optin)) {
    // More shared memory than this device gives a block (GemmPolicyLarge and GemmPolicyHuge on
    // sm_75): refused before anything runs, C left alone.
    MESSAGE("the policy does not fit this device: checking that gemm refuses it");
    const Problem<T> p = make_problem(combos[0], 33, 31, 17, layouts[0], T(1), T(0));
    const HostData<T> h = make_data(p, 4999);
    DeviceData<T> d(h);
    CHECK(run_gemm<T, Policy>(p, d.a.get(), d.b.get(), d.c.get(), nullptr) == cudaErrorInvalidValue);
    tilecraft::test::sync_and_check();
    CHECK(same_buffer(d.c.download(), h.c));
    return;
  }
  const std::int64_t shapes[][3] = {{1, 1, 1},     {33, 31, 17},  {127, 129, 65}, {300, 200, 33},
                                    {70, 90, 300}, {64, 128, 40}, {3, 5, 4100}};
  // {3, 5, 4100}: K split (unless the policy never splits).
  const auto run = run_gemm<T, Policy>(tunables_split_small());
  std::uint64_t salt = 5000;
  for_each_case(shapes, [&](const Combo& c, const auto& s, const Layout& layout, int variant) {
    const Problem<T> p =
        make_problem(c, s[0], s[1], s[2], layout, variant % 2 ? T(1) : T(-0.5), variant % 3 ? T(0) : T(2));
    check_gemm(p, ++salt, run, nullptr, true);
  });
}

}  // namespace tilecraft::test::gemm

// The default-policy launchers every file of the executable calls, compiled once: declared
// here (extern), each instantiated in one file (TILECRAFT_GEMM_INSTANCE: gemm_run<void, float>
// in test_gemm_shapes.cu, <void, double> in test_gemm_tiled.cu; the BiasRelu epilogues in
// test_gemm_policies.cu and test_gemm_policies_f64.cu), so each file compiles only its
// own kernels and no file all of them, and every build of the executable (each compat variant,
// the synchronous twin) compiles them for its own architecture and macros. (The same works in
// a user's project with many files that call gemm().)
#define TILECRAFT_TEST_GEMM_EPILOGUE_RUN(PREFIX, T)                                                              \
  PREFIX template cudaError_t tilecraft::detail::gemm_epilogue_run<void, T, tilecraft::test::gemm::BiasRelu<T>>( \
      tilecraft::Order, tilecraft::Op, tilecraft::Op, std::int64_t, std::int64_t, std::int64_t, const T*,        \
      std::int64_t, const T*, std::int64_t, T*, std::int64_t, const tilecraft::test::gemm::BiasRelu<T>&,         \
      const tilecraft::detail::GemmTunables&, cudaStream_t)
// One default policy's kernels for BLAS's epilogue (what gemm<Policy> and gemm<> share).
#define TILECRAFT_TEST_GEMM_PRODUCT(PREFIX, P, T)                                                                   \
  PREFIX template cudaError_t tilecraft::detail::launch_product<P, false, T, tilecraft::BasicLinearCombination<T>>( \
      const tilecraft::detail::GemmProblem<T>&,                                                                     \
      tilecraft::detail::LauncherEpilogue<T, tilecraft::BasicLinearCombination<T>>, int,                            \
      const tilecraft::detail::GemmSplitLimits&, cudaStream_t, const tilecraft::detail::LaunchAfter&, std::int64_t)
// The defaults' kernels: instantiated with gemm_run<void, T> (float in test_gemm_shapes.cu,
// double in test_gemm_tiled.cu), not again where a test names a default policy.
#define TILECRAFT_TEST_GEMM_DEFAULT_PRODUCTS(PREFIX)                       \
  TILECRAFT_TEST_GEMM_PRODUCT(PREFIX, tilecraft::GemmPolicyLarge, float);  \
  TILECRAFT_TEST_GEMM_PRODUCT(PREFIX, tilecraft::GemmPolicyLarge3, float); \
  TILECRAFT_TEST_GEMM_PRODUCT(PREFIX, tilecraft::GemmPolicySkinny, float); \
  TILECRAFT_TEST_GEMM_PRODUCT(PREFIX, tilecraft::GemmPolicyMedium, float); \
  TILECRAFT_TEST_GEMM_PRODUCT(PREFIX, tilecraft::GemmPolicySmall, float)
#define TILECRAFT_TEST_GEMM_DEFAULT_PRODUCTS_F64(PREFIX)                       \
  TILECRAFT_TEST_GEMM_PRODUCT(PREFIX, tilecraft::GemmPolicyLargeF64, double);  \
  TILECRAFT_TEST_GEMM_PRODUCT(PREFIX, tilecraft::GemmPolicyMediumF64, double); \
  TILECRAFT_TEST_GEMM_PRODUCT(PREFIX, tilecraft::GemmPolicySmallF64, double)
TILECRAFT_TEST_GEMM_DEFAULT_PRODUCTS(extern);
TILECRAFT_TEST_GEMM_DEFAULT_PRODUCTS_F64(extern);
TILECRAFT_GEMM_INSTANCE(extern, float);
TILECRAFT_GEMM_INSTANCE(extern, double);
TILECRAFT_TEST_GEMM_EPILOGUE_RUN(extern, float);
TILECRAFT_TEST_GEMM_EPILOGUE_RUN(extern, double);
