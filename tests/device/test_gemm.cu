// tilecraft::gemm, tilecraft::gemm_epilogue and the block-level tiled_gemm, for float and
// double, against a host reference (float: in double; double: in long double) and cuBLAS
// (cublasSgemm / cublasDgemm, CUBLAS_PEDANTIC_MATH: for float FP32 FMAs, no TF32): shapes from
// 1 x 1 x 1 to 2048^3 (K = 0, K = 1, 1 x 513, 513 x 1, odd sizes), both orders and every op
// combination, leading dimensions above the minimum and not multiples of 2 or 4, base pointers
// off 16-byte alignment (aligned to the element only), BLAS's scalar rules (beta = 0 never
// reads C, alpha = 0 never reads A or B, alpha = 0 with beta = 1 returns at once), split K,
// user policies, custom epilogues, and tiled_gemm inside a user's kernel on MatrixRef and
// transposed() views.
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
// (1000 x 999 x 1001, 2048^3), no shape above about 10^6 multiply-adds, one layout per case.
// Packing (the launcher transposing K-contiguous operands into a workspace, in panels when
// they exceed its budget) is forced on small shapes by lowering detail::gemm_pack_limits.
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
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <tilecraft/device/gemm.cuh>
#include <tilecraft/gemm/tiled_gemm.cuh>

#include "gemm_other_tu.cuh"
#include "test_util.cuh"

using tilecraft::BasicLinearCombination;
using tilecraft::GemmPolicy;
using tilecraft::LinearCombination;
using tilecraft::MatrixRef;
using tilecraft::Op;
using tilecraft::Order;
using tilecraft::RegBlock;
using tilecraft::test::DeviceBuffer;

namespace {

// The host reference's type: wider than T, so its own rounding is negligible against T's bound
// (x86's long double keeps a 64-bit significand).
template <class T>
using HostReal = std::conditional_t<std::is_same_v<T, float>, double, long double>;

// T's unit roundoff.
template <class T>
constexpr HostReal<T> unit_roundoff = std::is_same_v<T, float> ? HostReal<T>(0x1p-24) : HostReal<T>(0x1p-53L);

template <class T>
T nan_value() {
  return std::numeric_limits<T>::quiet_NaN();
}

// False under TILECRAFT_TEST_HUGE=0 (the sanitizer runs): see the file comment.
bool full_run() {
  const char* env = std::getenv("TILECRAFT_TEST_HUGE");
  return env == nullptr || std::strcmp(env, "0") != 0;
}

// Light runs skip shapes above this many multiply-adds.
constexpr std::int64_t light_max_macs = 1100000;

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
  // elements past the end.
  std::size_t size(std::int64_t off, std::int64_t rows, std::int64_t cols, std::int64_t ld) const {
    return static_cast<std::size_t>(off + (row() ? rows : cols) * ld + 5);
  }
  std::size_t size_a() const { return size(off_a, a_rows(), a_cols(), lda()); }
  std::size_t size_b() const { return size(off_b, b_rows(), b_cols(), ldb()); }
  std::size_t size_c() const { return size(off_c, m, n, ldc()); }

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
constexpr Combo combos[] = {
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
constexpr Layout layouts[] = {
    {0, 0, 0, 0, 0, 0, false}, {0, 0, 0, 0, 0, 0, true}, {3, 5, 7, 1, 1, 1, false},
    {1, 0, 2, 0, 1, 0, false}, {0, 0, 0, 1, 0, 0, true}, {2, 6, 2, 0, 0, 0, true},
};
constexpr int layout_count = static_cast<int>(sizeof(layouts) / sizeof(layouts[0]));

// The layouts of the v-th case: two in a full run, one in a light run, every layout in turn.
std::vector<int> layouts_for(int v, bool full) {
  if (!full) return {v % layout_count};
  return {v % layout_count, (v + 3) % layout_count};
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
  std::uniform_real_distribution<T> dist(-1, 1);
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

struct Stream {
  cudaStream_t s{};
  Stream() { TILECRAFT_THROW_IF_ERROR(cudaStreamCreate(&s)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { cudaStreamDestroy(s); }
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

// BLAS: alpha op(A) op(B) + beta C, where alpha == 0 or k == 0 reads neither A nor B and
// beta == 0 does not read C.
template <class T>
Reference<T> linear_reference(const Problem<T>& p, const HostData<T>& d) {
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
      r.bound[i * n + j] = bound_for(p, t + std::abs(c));
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
  ~Cublas() { cublasDestroy(handle_); }

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
const Cublas* cublas_if_full(std::optional<Cublas>& slot) {
  if (!full_run()) return nullptr;
  slot.emplace();
  return &*slot;
}

// ---- runners: (problem, A, B, C, stream) -> cudaError_t -----------------------------------------

template <class T, class Policy = void>
cudaError_t run_gemm(const Problem<T>& p, const T* a, const T* b, T* c, cudaStream_t stream) {
  return tilecraft::gemm<Policy>(p.order, p.op_a, p.op_b, p.m, p.n, p.k, p.alpha, a, p.lda(), b, p.ldb(), p.beta, c,
                                 p.ldc(), stream);
}

// Runs p on fresh device copies of `h`, returns the whole C buffer.
template <class T, class Run>
std::vector<T> run_on(const Problem<T>& p, const HostData<T>& h, Run&& run) {
  DeviceData<T> d(h);
  Stream stream;
  CHECK(run(p, d.a.get() + p.off_a, d.b.get() + p.off_b, d.c.get() + p.off_c, stream.s) == cudaSuccess);
  TILECRAFT_THROW_IF_ERROR(cudaStreamSynchronize(stream.s));
  tilecraft::test::sync_and_check();
  return d.c.download();
}

// p through `run` against the host reference (when host_ref) and cuBLAS (when given).
// With both, cuBLAS is checked against the host too (which validates the operand mapping the
// large shapes rely on); without the host, the bound comes from |alpha| |A| |B| + |beta| |C|
// computed by cuBLAS on the absolute values.
template <class T, class Run>
void check_gemm(const Problem<T>& p, std::uint64_t salt, Run&& run, const Cublas* cublas, bool host_ref,
                Fill fill = {}) {
  const std::string problem = p.str();
  CAPTURE(problem);
  CAPTURE(salt);
  const HostData<T> h = make_data(p, salt, fill);
  const std::vector<T> got = run_on(p, h, run);
  Reference<T> ref;
  if (host_ref) {
    ref = linear_reference(p, h);
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

// ---- tiled_gemm in a user's kernel ----------------------------------------------------------

template <class T>
using UserGemm = tilecraft::TiledGemm<64, 64, RegBlock<4, 4>, 8, 4, 3, T>;
static_assert(UserGemm<float>::threads == 256 && UserGemm<double>::threads == 256);

// Each block walks the 64 x 64 tiles of C from blockIdx.x in steps of gridDim.x, reusing its
// storage (tiled_gemm ends with a barrier). Any block shape of 256 threads.
template <class TA, Order OA, class TB, Order OB, class T, Order OC>
__global__ void user_gemm_kernel(MatrixRef<TA, OA> a, MatrixRef<TB, OB> b, MatrixRef<T, OC> c,
                                 BasicLinearCombination<T> epi) {
  __shared__ typename UserGemm<T>::TempStorage storage;
  const std::int64_t tiles_m = (c.rows + 63) / 64, tiles_n = (c.cols + 63) / 64;
  for (std::int64_t t = blockIdx.x; t < tiles_m * tiles_n; t += gridDim.x) {
    tilecraft::tiled_gemm<64, 64, RegBlock<4, 4>>(storage, a, b, c, t / tiles_n * 64, t % tiles_n * 64, epi);
  }
}

// The documentation's kernel: one tile per block of a 2-D grid, the default epilogue (C = A B).
template <class T>
__global__ void doc_gemm_kernel(MatrixRef<const T> a, MatrixRef<const T> b, MatrixRef<T> c) {
  __shared__ typename UserGemm<T>::TempStorage storage;
  tilecraft::tiled_gemm<64, 64, RegBlock<4, 4>>(storage, a, b, c, blockIdx.y * 64LL, blockIdx.x * 64LL);
}

// op(X) (rows x cols) as a view: the stored matrix in order O, or the transposed() view of the
// stored op(X)^T (the other order).
template <Order O, class T, class F>
void operand_view(const T* x, std::int64_t rows, std::int64_t cols, std::int64_t ld, bool transpose, F&& f) {
  if (transpose) {
    f(tilecraft::transposed(MatrixRef<const T, O>{x, cols, rows, ld}));
  } else {
    f(MatrixRef<const T, O>{x, rows, cols, ld});
  }
}

// A runner for check_gemm: user_gemm_kernel on `blocks` blocks (0: one per tile) of shape
// `block`.
struct UserKernelRun {
  unsigned blocks;
  dim3 block;
  template <Order O, class T>
  void launch(const Problem<T>& p, const T* a, const T* b, T* c, cudaStream_t stream) const {
    const std::int64_t tiles = (p.m + 63) / 64 * ((p.n + 63) / 64);
    const unsigned grid = blocks == 0 ? static_cast<unsigned>(tiles) : blocks;
    operand_view<O>(a, p.m, p.k, p.lda(), p.ta(), [&](auto av) {
      operand_view<O>(b, p.k, p.n, p.ldb(), p.tb(), [&](auto bv) {
        user_gemm_kernel<<<grid, block, 0, stream>>>(av, bv, MatrixRef<T, O>{c, p.m, p.n, p.ldc()},
                                                     BasicLinearCombination<T>{p.alpha, p.beta});
      });
    });
  }
  template <class T>
  cudaError_t operator()(const Problem<T>& p, const T* a, const T* b, T* c, cudaStream_t stream) const {
    if (p.row()) {
      launch<Order::row_major>(p, a, b, c, stream);
    } else {
      launch<Order::col_major>(p, a, b, c, stream);
    }
    return cudaGetLastError();
  }
};

// ---- user policies ------------------------------------------------------------------------------

using Policy64 = GemmPolicy<64, 64, RegBlock<4, 4>, 8, 4, 2>;                 // 2 stages
using Policy32 = GemmPolicy<32, 64, RegBlock<2, 4>, 4, 4, 3>;                 // TK = 4, float2 A fragments
using Policy128 = GemmPolicy<128, 64, RegBlock<8, 4>, 16, 4, 4>;              // TK = 16, 4 stages
using Policy64Group3 = GemmPolicy<64, 64, RegBlock<4, 4>, 8, 4, 2, 1, 3, 1>;  // groups of 3 tile rows, K never split
static_assert(Policy64::tiled::threads == 256 && Policy32::tiled::threads == 256 && Policy128::tiled::threads == 256);
// Above the 48 KiB of static shared memory: the launcher's dynamic opt-in path.
static_assert(Policy128::tiled::smem_bytes > 48 * 1024);

// Double: 2 stages; TK = 4 with 2 x 4 doubles (one double2 A vector, two B vectors); 8 x 8
// doubles per thread (128 accumulator registers: the limit of what fits); TK = 16 above 48 KiB
// (the dynamic opt-in path); groups of 3 tile rows with K never split.
using PolicyF64_64 = GemmPolicy<64, 64, RegBlock<4, 4>, 8, 4, 2, 1, 8, 16, double>;
using PolicyF64_32 = GemmPolicy<32, 64, RegBlock<2, 4>, 4, 4, 3, 1, 8, 16, double>;
using PolicyF64_8x8 = GemmPolicy<128, 128, RegBlock<8, 8>, 8, 4, 2, 1, 8, 16, double>;
using PolicyF64_128 = GemmPolicy<128, 64, RegBlock<4, 8>, 16, 4, 2, 1, 8, 16, double>;
using PolicyF64_Group3 = GemmPolicy<64, 64, RegBlock<4, 4>, 8, 4, 2, 1, 3, 1, double>;
static_assert(PolicyF64_128::tiled::smem_bytes > 48 * 1024 && PolicyF64_128::tiled::smem_bytes <= 64 * 1024);

}  // namespace

// ---- tilecraft::gemm ----------------------------------------------------------------------------

TEST_CASE_TEMPLATE("gemm: odd shapes, both orders, every op, ld and alignment variants, against the host and cuBLAS", T,
                   float, double) {
  const std::int64_t shapes[][3] = {{1, 1, 1},  {1, 513, 7},    {513, 1, 7},   {67, 45, 1},  {31, 33, 17},
                                    {4, 8, 12}, {127, 129, 65}, {128, 64, 96}, {33, 40, 701}};
  const T scalars[][2] = {{1, 0}, {1.5, -0.75}, {-0.5, 1}, {2, 0.25}};
  const bool full = full_run();
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  std::uint64_t salt = 1000;
  int group = 0;
  for (const auto& s : shapes) {
    for (const Combo& c : combos) {
      // Every layout in a full run; one, in turn, in a light run.
      for (int l = 0; l < layout_count; ++l) {
        if (!full && l != group % layout_count) continue;
        const auto& sc = scalars[(l + group) % 4];
        const Problem<T> p = make_problem(c, s[0], s[1], s[2], layouts[l], sc[0], sc[1]);
        check_gemm(p, ++salt, run_gemm<T>, cublas, true);
      }
      ++group;
    }
  }
}

namespace {
// Splits K on small products too (the launcher keeps products below 2^28 multiply-adds whole),
// with slices of at least 1024, for one scope: the split path's tests run on small matrices.
struct SplitOnSmallProducts {
  tilecraft::detail::GemmSplitLimits saved = tilecraft::detail::gemm_split_limits;
  SplitOnSmallProducts() { tilecraft::detail::gemm_split_limits = {1024, 0.0}; }
  ~SplitOnSmallProducts() { tilecraft::detail::gemm_split_limits = saved; }
  SplitOnSmallProducts(const SplitOnSmallProducts&) = delete;
  SplitOnSmallProducts& operator=(const SplitOnSmallProducts&) = delete;
};
}  // namespace

TEST_CASE_TEMPLATE("gemm: few C tiles and a long K (K split across blocks, summed by a second kernel)", T, float,
                   double) {
  // {64, 257, 2100}: C of 64 rows, as split_k_plan splits it (2 slices of >= 1024).
  const std::int64_t shapes[][3] = {{1, 1, 4001}, {31, 17, 2049}, {40, 130, 2500}, {9, 300, 6000}, {64, 257, 2100}};
  const SplitOnSmallProducts split;
  const bool full = full_run();
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  std::uint64_t salt = 1500;
  int variant = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    for (const Combo& c : combos) {
      for (int l : layouts_for(variant, full)) {
        const T beta = variant % 3 == 0 ? T(0) : T(-0.5);
        check_gemm(make_problem(c, s[0], s[1], s[2], layouts[l], T(1.25), beta), ++salt, run_gemm<T>, cublas, true,
                   Fill{false, beta == T(0)});
      }
      ++variant;
    }
  }
}

namespace {
// Lowers the launcher's packing limits for one scope, so that packing (K-contiguous operands
// transposed into a workspace) and its panels run on small matrices. `float_bytes`: the budget
// for float operands, scaled by the element size (so a budget holds as many rows of either).
template <class T>
struct PackLimits {
  tilecraft::detail::GemmPackLimits saved = tilecraft::detail::gemm_pack_limits;
  explicit PackLimits(std::int64_t float_bytes) {
    tilecraft::detail::gemm_pack_limits = {1, 1.0, float_bytes / std::int64_t{sizeof(float)} * std::int64_t{sizeof(T)}};
  }
  ~PackLimits() { tilecraft::detail::gemm_pack_limits = saved; }
  PackLimits(const PackLimits&) = delete;
  PackLimits& operator=(const PackLimits&) = delete;
};
}  // namespace

TEST_CASE_TEMPLATE("gemm: K-contiguous operands packed into a workspace, whole and in panels of C", T, float, double) {
  using Large = std::conditional_t<std::is_same_v<T, float>, tilecraft::GemmPolicyLarge, tilecraft::GemmPolicyLargeF64>;
  // Panels (budgets for float; doubles get twice the bytes): 16 KiB holds 136 packed rows of
  // K = 30, so 150 rows of A (or columns of B) go in two equal panels of whole tiles (the
  // default GemmPolicySmall's 32-row tiles: 96 + 54; GemmPolicyLarge's 128: 128 + 22); 64 MiB
  // packs whole. With K = 2100 (split K too) 600 KiB
  // holds 73 rows: A in panels of 64 rows, B (128-column tiles) not packed.
  const std::int64_t shapes[][4] = {{150, 140, 30, 16 << 10},
                                    {150, 140, 30, std::int64_t{64} << 20},
                                    {1, 257, 9, 16 << 10},
                                    {100, 90, 2100, 600 << 10}};
  const SplitOnSmallProducts split;
  const bool full = full_run();
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  std::uint64_t salt = 1800;
  int variant = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    const PackLimits<T> limits(s[3]);
    for (const Combo& c : combos) {
      for (int l : layouts_for(variant, full)) {
        const Problem<T> p = make_problem(c, s[0], s[1], s[2], layouts[l], T(0.75), variant % 2 ? T(0) : T(1.5));
        check_gemm(p, ++salt, run_gemm<T>, cublas, true, Fill{false, variant % 2 == 1});
        if (variant % 3 == 0) check_gemm(p, ++salt, run_gemm<T, Large>, nullptr, true);
      }
      ++variant;
    }
  }
}

TEST_CASE_TEMPLATE("release_workspace hands the pool's memory back; the next gemm takes new workspace", T, float,
                   double) {
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  const PackLimits<T> limits(16 << 10);
  const SplitOnSmallProducts split_small;
  const Problem<T> p = make_problem(combos[0], 150, 140, 30, layouts[0], T(1), T(0));  // A packed in panels
  check_gemm(p, 1900, run_gemm<T>, cublas, true);
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  CHECK(tilecraft::release_workspace() == cudaSuccess);
  check_gemm(p, 1901, run_gemm<T>, cublas, true);
  const Problem<T> split = make_problem(combos[4], 31, 17, 2049, layouts[1], T(1), T(0));  // split K
  check_gemm(split, 1902, run_gemm<T>, cublas, true);
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  CHECK(tilecraft::release_workspace() == cudaSuccess);
  CHECK(tilecraft::release_workspace() == cudaSuccess);
}

TEST_CASE_TEMPLATE("gemm: K = 0 scales C by beta and reads neither A nor B", T, float, double) {
  const std::int64_t shapes[][2] = {{1, 1}, {33, 17}, {130, 129}, {64, 64}};
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  std::uint64_t salt = 2000;
  int variant = 0;
  for (const auto& s : shapes) {
    for (const Combo& c : combos) {
      const Layout& l = layouts[variant++ % layout_count];
      Problem<T> p = make_problem(c, s[0], s[1], 0, l, T(1.5), T(0.75));
      check_gemm(p, ++salt, run_gemm<T>, cublas, true);
      // An infinite or NaN alpha times the empty sum adds nothing (BLAS): C = beta C.
      check_gemm(make_problem(c, s[0], s[1], 0, l, std::numeric_limits<T>::infinity(), T(0.75)), ++salt, run_gemm<T>,
                 nullptr, true);
      check_gemm(make_problem(c, s[0], s[1], 0, l, std::numeric_limits<T>::quiet_NaN(), T(0.75)), ++salt, run_gemm<T>,
                 nullptr, true);
      // A and B may be null when K = 0.
      check_gemm(
          p, ++salt,
          [](const Problem<T>& q, const T*, const T*, T* cc, cudaStream_t st) {
            return run_gemm<T>(q, nullptr, nullptr, cc, st);
          },
          nullptr, true);
      // beta = 0: C becomes zeros, NaN in it or not.
      p.beta = 0;
      check_gemm(p, ++salt, run_gemm<T>, cublas, true, Fill{false, true});
      // beta = 1: BLAS's quick return, C untouched.
      p.beta = 1;
      check_untouched(p, ++salt, run_gemm<T>);
    }
  }
}

TEST_CASE_TEMPLATE(
    "gemm: beta = 0 never reads C, alpha = 0 never reads A or B, alpha = 0 with beta = 1 returns at once", T, float,
    double) {
  const std::int64_t shapes[][3] = {{37, 41, 29}, {128, 128, 16}, {1, 513, 7}};
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  std::uint64_t salt = 3000;
  int variant = 0;
  for (const auto& s : shapes) {
    for (const Combo& c : combos) {
      const Layout& l = layouts[variant++ % layout_count];
      // beta = 0 with C full of NaN: no NaN comes out.
      check_gemm(make_problem(c, s[0], s[1], s[2], l, T(1.25), T(0)), ++salt, run_gemm<T>, cublas, true,
                 Fill{false, true});
      // alpha = 0 with NaN in A and B: C = beta C.
      check_gemm(make_problem(c, s[0], s[1], s[2], l, T(0), T(0.5)), ++salt, run_gemm<T>, nullptr, true,
                 Fill{true, false});
      // alpha = 0, beta = 0, NaN everywhere: C = 0.
      check_gemm(make_problem(c, s[0], s[1], s[2], l, T(0), T(0)), ++salt, run_gemm<T>, nullptr, true,
                 Fill{true, true});
      // alpha = 0, beta = 1: C untouched (its NaN included), A and B not read.
      check_untouched(make_problem(c, s[0], s[1], s[2], l, T(0), T(1)), ++salt, run_gemm<T>, Fill{true, true});
      // beta = 1 with alpha != 0 is no quick return: C + A B.
      check_gemm(make_problem(c, s[0], s[1], s[2], l, T(-1), T(1)), ++salt, run_gemm<T>, nullptr, true);
    }
  }
}

TEST_CASE_TEMPLATE("gemm: m == 0 or n == 0 does nothing; a rejected call launches nothing and leaves C alone", T, float,
                   double) {
  using Large = std::conditional_t<std::is_same_v<T, float>, tilecraft::GemmPolicyLarge, tilecraft::GemmPolicyLargeF64>;
  using Small = std::conditional_t<std::is_same_v<T, float>, tilecraft::GemmPolicySmall, tilecraft::GemmPolicySmallF64>;
  Problem<T> p;
  p.m = 37;
  p.n = 41;
  p.k = 29;
  p.beta = T(0.5);
  const HostData<T> h = make_data(p, 4000);
  DeviceData<T> d(h);
  const T* a = d.a.get();
  const T* b = d.b.get();
  T* c = d.c.get();
  const T* null_a = nullptr;
  const T zero = 0, one = 1;
  const auto row = Order::row_major, col = Order::col_major;
  const auto N = Op::none, TR = Op::transpose;
  CHECK(tilecraft::gemm(row, N, N, 0, p.n, p.k, one, a, p.lda(), b, p.ldb(), zero, c, p.ldc()) == cudaSuccess);
  CHECK(tilecraft::gemm(row, N, N, p.m, 0, p.k, one, a, p.lda(), b, p.ldb(), zero, c, p.ldc()) == cudaSuccess);
  CHECK(tilecraft::gemm(col, TR, TR, 0, 0, p.k, one, a, p.k, b, 1, zero, c, 1) == cudaSuccess);
  CHECK(tilecraft::gemm(row, N, N, 0, p.n, p.k, one, nullptr, p.lda(), nullptr, p.ldb(), zero, nullptr, p.ldc()) ==
        cudaSuccess);
  CHECK(tilecraft::gemm_epilogue(row, N, N, p.m, 0, p.k, a, p.lda(), b, p.ldb(), c, p.ldc(), BiasRelu<T>{nullptr}) ==
        cudaSuccess);
  CHECK(tilecraft::gemm_epilogue(row, N, N, 0, 0, p.k, null_a, p.lda(), nullptr, p.ldb(), nullptr, p.ldc(),
                                 BiasRelu<T>{nullptr}) == cudaSuccess);
  CHECK(tilecraft::gemm<Large>(row, TR, N, 0, p.n, p.k, one, a, p.m, b, p.ldb(), zero, c, p.ldc()) == cudaSuccess);
  // Rejected: lda below the minimum, negative k, a bad enumerator, a null C, a C aligned to
  // half an element.
  CHECK(tilecraft::gemm(row, N, N, p.m, p.n, p.k, one, a, p.k - 1, b, p.ldb(), zero, c, p.ldc()) ==
        cudaErrorInvalidValue);
  CHECK(tilecraft::gemm(row, N, N, p.m, p.n, -1, one, a, p.lda(), b, p.ldb(), zero, c, p.ldc()) ==
        cudaErrorInvalidValue);
  CHECK(tilecraft::gemm(row, static_cast<Op>(7), N, p.m, p.n, p.k, one, a, p.lda(), b, p.ldb(), zero, c, p.ldc()) ==
        cudaErrorInvalidValue);
  CHECK(tilecraft::gemm_epilogue(row, N, N, p.m, p.n, p.k, a, p.lda(), b, p.ldb(), static_cast<T*>(nullptr), p.ldc(),
                                 BiasRelu<T>{nullptr}) == cudaErrorInvalidValue);
  T* const half_off = reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(c) + sizeof(T) / 2);
  CHECK(tilecraft::gemm(row, N, N, p.m, p.n, p.k, one, a, p.lda(), b, p.ldb(), zero, half_off, p.ldc()) ==
        cudaErrorInvalidValue);
  // A grid of more than 2^31 - 1 blocks (checked after the launcher's device query, so here
  // rather than in the host tests), on fake addresses that must never be touched.
  {
    const std::int64_t big = std::int64_t{1} << 23;
    const auto* fa = reinterpret_cast<const T*>(std::uintptr_t{1} << 20);
    const auto* fb = reinterpret_cast<const T*>(std::uintptr_t{1} << 30);
    auto* fc = reinterpret_cast<T*>(std::uintptr_t{1} << 40);
    CHECK(tilecraft::gemm(row, N, N, big, big, 1, one, fa, 1, fb, big, zero, fc, big) == cudaErrorInvalidValue);
    CHECK(tilecraft::gemm<Small>(col, N, N, big, big, 1, one, fa, big, fb, 1, zero, fc, big) == cudaErrorInvalidValue);
    CHECK(tilecraft::gemm<Large>(row, N, N, big, big, 1, one, fa, 1, fb, big, zero, fc, big) == cudaErrorInvalidValue);
  }
  CHECK(cudaGetLastError() == cudaSuccess);
  tilecraft::test::sync_and_check();
  CHECK(same_buffer(d.c.download(), h.c));
  CHECK(same_buffer(d.a.download(), h.a));
}

// ---- user configurations -------------------------------------------------------------------------

namespace {
template <class Policy>
void check_policy() {
  using T = typename Policy::element_type;
  int device = 0, optin = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (Policy::tiled::smem_bytes > static_cast<std::size_t>(optin)) {
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
  const SplitOnSmallProducts split;  // {3, 5, 4100}: K split (unless the policy never splits)
  const bool full = full_run();
  std::uint64_t salt = 5000;
  int variant = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    for (const Combo& c : combos) {
      for (int l : layouts_for(variant, full)) {
        const Problem<T> p =
            make_problem(c, s[0], s[1], s[2], layouts[l], variant % 2 ? T(1) : T(-0.5), variant % 3 ? T(0) : T(2));
        check_gemm(p, ++salt, run_gemm<T, Policy>, nullptr, true);
      }
      ++variant;
    }
  }
}
}  // namespace

TEST_CASE_TEMPLATE("gemm<Policy>: user configurations and the defaults, chosen explicitly", Policy, Policy64, Policy32,
                   Policy128, Policy64Group3, tilecraft::GemmPolicyLarge, tilecraft::GemmPolicyLarge3,
                   tilecraft::GemmPolicyHuge, tilecraft::GemmPolicySkinny, tilecraft::GemmPolicyMedium,
                   tilecraft::GemmPolicySmall) {
  check_policy<Policy>();
}

TEST_CASE_TEMPLATE("gemm<Policy> for double: user configurations and the defaults, chosen explicitly", Policy,
                   PolicyF64_64, PolicyF64_32, PolicyF64_8x8, PolicyF64_128, PolicyF64_Group3,
                   tilecraft::GemmPolicyLargeF64, tilecraft::GemmPolicyMediumF64, tilecraft::GemmPolicySmallF64) {
  check_policy<Policy>();
}

TEST_CASE("gemm: one kernel launched from two translation units, each opting in its own copy") {
  // gemm<GemmPolicyDeep> (this file) and the vector-only launcher entry (test_gemm_other_tu.cu)
  // launch the same kernel instantiation, each file its own copy, which needs its own opt-in to
  // 52 KiB of shared memory: the launcher once remembered the opt-in per template instantiation
  // (one flag for all files), and whichever file came second failed with cudaErrorInvalidValue.
  // A^T as stored and B row-major, aligned with leading dimensions of multiples of 4, so that
  // gemm<GemmPolicyDeep> runs the vector kernel too; alternating which file goes first.
  using tilecraft::test::GemmPolicyDeep;
  auto other_tu = [](const Problem<float>& p, const float* a, const float* b, float* c, cudaStream_t stream) {
    return tilecraft::test::gemm_deep_vector_only_in_other_tu(p.m, p.n, p.k, p.alpha, a, p.lda(), b, p.ldb(), p.beta, c,
                                                              p.ldc(), stream);
  };
  std::uint64_t salt = 9100;
  for (int v = 0; v < 6; ++v) {
    const Problem<float> p =
        make_problem(combos[1], 70 + 31 * v, 45 + 17 * v, 33 + 40 * v, layouts[1], 1.0f, v % 2 ? 0.0f : -0.5f);
    if (v % 2 == 0) {
      check_gemm(p, ++salt, run_gemm<float, GemmPolicyDeep>, nullptr, true);
      check_gemm(p, ++salt, other_tu, nullptr, true);
    } else {
      check_gemm(p, ++salt, other_tu, nullptr, true);
      check_gemm(p, ++salt, run_gemm<float, GemmPolicyDeep>, nullptr, true);
    }
  }
}

// ---- custom epilogues -----------------------------------------------------------------------------

namespace {
template <class Policy, class T, class Epilogue>
cudaError_t run_epilogue(const Problem<T>& p, const T* a, const T* b, T* c, const Epilogue& epi, cudaStream_t stream) {
  return tilecraft::gemm_epilogue<Policy>(p.order, p.op_a, p.op_b, p.m, p.n, p.k, a, p.lda(), b, p.ldb(), c, p.ldc(),
                                          epi, stream);
}

// Bias + ReLU by column (C full of NaN: not read), and a row-scaled residual (reads C), on p.
template <class Policy, class T>
void check_epilogues(const Problem<T>& p, std::uint64_t salt) {
  using R = HostReal<T>;
  const std::string problem = p.str();
  CAPTURE(problem);
  CAPTURE(salt);
  const auto bias = tilecraft::test::random_vector<T>(static_cast<std::size_t>(p.n), -1, 1, salt);
  const auto scale = tilecraft::test::random_vector<T>(static_cast<std::size_t>(p.m), -2, 2, salt + 1);
  DeviceBuffer<T> d_bias(bias), d_scale(scale);
  const auto m = static_cast<std::size_t>(p.m), n = static_cast<std::size_t>(p.n);
  {
    const HostData<T> h = make_data(p, salt + 2, Fill{false, true});
    const Products<T> prod = host_products(p, h);
    Reference<T> ref{std::vector<R>(m * n), std::vector<R>(m * n)};
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        // ReLU is 1-Lipschitz: the bound of acc + bias holds after it.
        ref.value[i * n + j] = std::max(prod.sum[i * n + j] + bias[j], R(0));
        ref.bound[i * n + j] = bound_for(p, prod.abs[i * n + j] + std::abs(R(bias[j])), 1);
      }
    }
    const BiasRelu<T> epi{d_bias.get()};
    const auto got = run_on(p, h, [&](const Problem<T>& q, const T* a, const T* b, T* c, cudaStream_t s) {
      return run_epilogue<Policy>(q, a, b, c, epi, s);
    });
    check_c(p, got, ref, 1.0, "bias + ReLU");
  }
  {
    const HostData<T> h = make_data(p, salt + 3);
    const Products<T> prod = host_products(p, h);
    Reference<T> ref{std::vector<R>(m * n), std::vector<R>(m * n)};
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        const R c_old = h.c[p.ic(std::int64_t(i), std::int64_t(j))];
        ref.value[i * n + j] = scale[i] * prod.sum[i * n + j] + c_old;
        ref.bound[i * n + j] = bound_for(p, std::abs(R(scale[i])) * prod.abs[i * n + j] + std::abs(c_old));
      }
    }
    const RowScaleResidual<T> epi{d_scale.get()};
    const auto got = run_on(p, h, [&](const Problem<T>& q, const T* a, const T* b, T* c, cudaStream_t s) {
      return run_epilogue<Policy>(q, a, b, c, epi, s);
    });
    check_c(p, got, ref, 1.0, "row-scaled residual");
  }
}
}  // namespace

TEST_CASE_TEMPLATE(
    "gemm_epilogue: bias + ReLU by column, a row-scaled residual that reads C; K = 0 gives zero accumulators", T, float,
    double) {
  using Large = std::conditional_t<std::is_same_v<T, float>, tilecraft::GemmPolicyLarge, tilecraft::GemmPolicyLargeF64>;
  // {9, 5, 4500}: K split, the epilogue applied once, by the kernel that sums the slices.
  const std::int64_t shapes[][3] = {{1, 1, 1}, {5, 9, 0}, {127, 129, 65}, {200, 70, 90}, {9, 5, 4500}};
  const SplitOnSmallProducts split;
  const bool full = full_run();
  std::uint64_t salt = 6000;
  int variant = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    for (const Combo& c : combos) {
      for (int l : layouts_for(variant, full)) {
        check_epilogues<void>(make_problem(c, s[0], s[1], s[2], layouts[l], T(1), T(0)), salt += 4);
      }
      ++variant;
    }
  }
  // An explicit policy through gemm_epilogue<Policy>.
  for (const Combo& c : combos) {
    check_epilogues<Large>(make_problem(c, 129, 127, 33, layouts[2], T(1), T(0)), salt += 4);
  }
  // Packed operands in panels of C: the epilogue still gets the coordinates of the whole C.
  const PackLimits<T> limits(16 << 10);
  for (const Combo& c : combos) {
    check_epilogues<void>(make_problem(c, 150, 140, 30, layouts[variant++ % 2], T(1), T(0)), salt += 4);
    check_epilogues<Large>(make_problem(c, 300, 270, 20, layouts[0], T(1), T(0)), salt += 4);
  }
}

// ---- tiled_gemm inside a user's kernel --------------------------------------------------------------

TEST_CASE_TEMPLATE(
    "tiled_gemm in a user kernel: MatrixRef and transposed() views of both orders, 1-D, 2-D and 3-D blocks, "
    "a persistent loop",
    T, float, double) {
  const std::int64_t shapes[][3] = {{1, 1, 1}, {64, 64, 64}, {127, 129, 65}, {200, 130, 77}};
  const bool full = full_run();
  std::uint64_t salt = 7000;
  int variant = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    for (const Combo& c : combos) {
      for (int l : layouts_for(variant, full)) {
        const Problem<T> p = make_problem(c, s[0], s[1], s[2], layouts[l], T(1.5), variant % 2 ? T(-0.5) : T(0));
        check_gemm(p, ++salt, UserKernelRun{0, dim3(256)}, nullptr, true);    // a block per tile
        check_gemm(p, ++salt, UserKernelRun{3, dim3(32, 8)}, nullptr, true);  // 3 blocks loop over the tiles
        if (variant % 4 == 0) check_gemm(p, ++salt, UserKernelRun{2, dim3(16, 4, 4)}, nullptr, true);
      }
      ++variant;
    }
  }
  // The documentation's kernel (row-major views, the default epilogue), and A as a MatrixRef of
  // non-const T with one block looping over every tile.
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    Problem<T> p = make_problem(combos[0], s[0], s[1], s[2], layouts[2], T(1), T(0));
    check_gemm(
        p, ++salt,
        [](const Problem<T>& q, const T* a, const T* b, T* c, cudaStream_t st) {
          const dim3 grid(static_cast<unsigned>((q.n + 63) / 64), static_cast<unsigned>((q.m + 63) / 64));
          doc_gemm_kernel<T><<<grid, UserGemm<T>::threads, 0, st>>>(MatrixRef<const T>{a, q.m, q.k, q.lda()},
                                                                    MatrixRef<const T>{b, q.k, q.n, q.ldb()},
                                                                    MatrixRef<T>{c, q.m, q.n, q.ldc()});
          return cudaGetLastError();
        },
        nullptr, true);
    p = make_problem(combos[0], s[0], s[1], s[2], layouts[0], T(0.5), T(2));
    check_gemm(
        p, ++salt,
        [](const Problem<T>& q, const T* a, const T* b, T* c, cudaStream_t st) {
          user_gemm_kernel<<<1, UserGemm<T>::threads, 0, st>>>(
              MatrixRef<T>{const_cast<T*>(a), q.m, q.k, q.lda()}, MatrixRef<const T>{b, q.k, q.n, q.ldb()},
              MatrixRef<T>{c, q.m, q.n, q.ldc()}, BasicLinearCombination<T>{q.alpha, q.beta});
          return cudaGetLastError();
        },
        nullptr, true);
  }
}

// ---- large shapes: cuBLAS only ----------------------------------------------------------------------

TEST_CASE_TEMPLATE("gemm against cuBLAS: 1000 x 999 x 1001 in both orders with every op, and 2048^3", T, float,
                   double) {
  if (!full_run()) {
    MESSAGE("TILECRAFT_TEST_HUGE=0: skipping the 1000 x 999 x 1001 and 2048^3 cases");
    return;
  }
  Cublas cublas;
  std::uint64_t salt = 8000;
  int variant = 0;
  for (const Combo& c : combos) {
    const Problem<T> p = make_problem(c, 1000, 999, 1001, layouts[variant % layout_count], variant % 2 ? T(1) : T(0.75),
                                      variant % 3 ? T(0) : T(-1.5));
    check_gemm(p, ++salt, run_gemm<T>, &cublas, false);
    ++variant;
  }
  // The large default by shape (float: 256 tiles of 128 x 128, double: 512 of 128 x 64); once
  // aligned with vector paths, once column-major with odd leading dimensions and unaligned
  // bases (the element-by-element path) and beta != 0.
  check_gemm(make_problem(combos[0], 2048, 2048, 2048, layouts[0], T(1), T(0)), ++salt, run_gemm<T>, &cublas, false);
  check_gemm(make_problem(combos[5], 2048, 2048, 2048, layouts[2], T(-1), T(0.5)), ++salt, run_gemm<T>, &cublas, false);
  // Where both operands fill in vectors (and the GPU holds two GemmPolicyLargeVector blocks per
  // SM, e.g. sm_90), float takes GemmPolicyHuge (256 x 128) for K >= 1024 when C's tiles fill
  // at least half of a last wave, else GemmPolicyLargeVector (K step 32). Huge's shape comes
  // from this GPU's SM count: 2000 rows (7.8 tiles of 256) by as many ragged 128-column tiles as
  // make 8 x floor(SMs / 8) tiles (132 SMs: 2020 columns, 128 tiles), K = 1037 (64.8 steps of
  // 16). A^T as stored (no packing): that and 2048^3; A packed: that and 1537 x 1544 x 37
  // (LargeVector, ragged along M, a K of one and a bit steps).
  int device = 0, sms = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::int64_t huge_n = 128 * std::max(sms / 8, 1) - 28;
  CHECK(tilecraft::detail::huge_policy_pays<tilecraft::GemmPolicyHuge>(2000, huge_n, 1037, sms));
  check_gemm(make_problem(combos[1], 2048, 2048, 2048, layouts[1], T(1), T(0.5)), ++salt, run_gemm<T>, &cublas, false);
  check_gemm(make_problem(combos[1], 2000, huge_n, 1037, layouts[1], T(-1), T(0)), ++salt, run_gemm<T>, &cublas, false);
  const PackLimits<T> limits(std::int64_t{64} << 20);
  check_gemm(make_problem(combos[0], 1537, 1544, 37, layouts[1], T(0.75), T(0)), ++salt, run_gemm<T>, &cublas, false);
  check_gemm(make_problem(combos[0], 2000, huge_n, 1037, layouts[1], T(0.5), T(2)), ++salt, run_gemm<T>, &cublas,
             false);
}
