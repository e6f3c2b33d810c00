// tilecraft::gemm called from a .cpp file (g++): the host compiler's forms declare the launchers,
// and the program's CUDA units (tilecraft_gemm_instances: TILECRAFT_GEMM_INSTANCE,
// TILECRAFT_GEMM_16BIT_INSTANCE, TILECRAFT_GEMM_TF32_INSTANCE) define them with their kernels.
// Everywhere: refusals (cudaErrorInvalidValue, before any CUDA call) and the empty product's
// quick return, for every operand type and math. With a GPU: odd-sized products in both orders
// and every transpose, against a double-precision host product, C poisoned with NaN first.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <tilecraft/device/gemm.cuh>

using tilecraft::GemmMath;
using tilecraft::Op;
using tilecraft::Order;

namespace {

// Which product a case runs: the operand type, and for float operands the math.
enum class Kind { f32, f64, bf16, f16, tf32, tf32x3 };

template <Kind K>
using Operand = std::conditional_t<
    K == Kind::f64, double,
    std::conditional_t<K == Kind::bf16, __nv_bfloat16, std::conditional_t<K == Kind::f16, __half, float>>>;
template <Kind K>
using Result = std::conditional_t<K == Kind::f64, double, float>;

template <Kind K>
cudaError_t run(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k, Result<K> alpha,
                const Operand<K>* a, std::int64_t lda, const Operand<K>* b, std::int64_t ldb, Result<K> beta,
                Result<K>* c, std::int64_t ldc) {
  if constexpr (K == Kind::tf32) {
    return tilecraft::gemm<GemmMath::tf32>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else if constexpr (K == Kind::tf32x3) {
    return tilecraft::gemm<GemmMath::tf32x3>(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    return tilecraft::gemm(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
}

template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return static_cast<double>(__bfloat162float(v));
  } else if constexpr (std::is_same_v<T, __half>) {
    return static_cast<double>(__half2float(v));
  } else {
    return static_cast<double>(v);
  }
}

template <class T>
T from_float(float v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16(v);
  } else if constexpr (std::is_same_v<T, __half>) {
    return __float2half(v);
  } else {
    return static_cast<T>(v);
  }
}

// The bound of each math on |C - exact| relative to M = |alpha| sum |a||b| + |beta||c|, as
// gemm()'s documentation states it (16-bit operands: exact products, FP32 sums).
template <Kind K>
double relative_bound(std::int64_t k) {
  const double kk = static_cast<double>(k);
  if constexpr (K == Kind::f64) return (kk + 2.0) * std::ldexp(1.0, -53);
  if constexpr (K == Kind::tf32) return std::ldexp(1.0, -9) + (kk + 2.0) * std::ldexp(1.0, -24);
  if constexpr (K == Kind::tf32x3) return std::ldexp(1.0, -20) + (3.0 * kk + 2.0) * std::ldexp(1.0, -24);
  return (kk + 2.0) * std::ldexp(1.0, -24);
}

template <class T>
T* fake(std::uintptr_t where) {
  return reinterpret_cast<T*>(where);
}

template <Kind K>
void check_refusals() {
  using T = Operand<K>;
  using R = Result<K>;
  const auto* a = fake<const T>(std::uintptr_t{1} << 20);
  const auto* b = fake<const T>(std::uintptr_t{1} << 30);
  auto* c = fake<R>(std::uintptr_t{1} << 34);
  const R one = 1, zero = 0;
  // A row-major A of 33 x 17 with a leading dimension of 16: refused before any CUDA call.
  CHECK(run<K>(Order::row_major, Op::none, Op::none, 33, 9, 17, one, a, 16, b, 9, zero, c, 9) == cudaErrorInvalidValue);
  CHECK(run<K>(Order::row_major, Op::none, Op::none, -1, 9, 17, one, a, 17, b, 9, zero, c, 9) == cudaErrorInvalidValue);
  CHECK(run<K>(Order::col_major, Op::transpose, Op::none, 33, 9, 17, one, a, 17, b, 17, zero, nullptr, 33) ==
        cudaErrorInvalidValue);
  CHECK(run<K>(Order::row_major, static_cast<Op>(7), Op::none, 33, 9, 17, one, a, 17, b, 9, zero, c, 9) ==
        cudaErrorInvalidValue);
  // An empty C is a successful no-op, whatever the pointers.
  CHECK(run<K>(Order::row_major, Op::none, Op::none, 0, 9, 17, one, nullptr, 17, nullptr, 9, zero, nullptr, 9) ==
        cudaSuccess);
  if constexpr (K == Kind::f32 || K == Kind::f64) {
    // gemm<void> and gemm<> name the default policy too, as under nvcc.
    CHECK(tilecraft::gemm<void>(Order::row_major, Op::none, Op::none, 33, 9, 17, one, a, 16, b, 9, zero, c, 9) ==
          cudaErrorInvalidValue);
    CHECK(tilecraft::gemm<>(Order::row_major, Op::none, Op::none, 0, 9, 17, one, a, 17, b, 9, zero, c, 9) ==
          cudaSuccess);
  }
}

bool have_gpu() {
  int devices = 0;
  const bool found = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  (void)cudaGetLastError();
  return found;
}

// One product on the GPU from this file, against a double host product.
template <Kind K>
void check_product(std::mt19937& rng, Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                   float alpha, float beta) {
  using T = Operand<K>;
  using R = Result<K>;
  CAPTURE(static_cast<int>(K));
  CAPTURE(static_cast<int>(order));
  CAPTURE(static_cast<int>(op_a));
  CAPTURE(static_cast<int>(op_b));
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(k);
  CAPTURE(beta);
  const bool row = order == Order::row_major;
  // Stored shapes: op(A) is m x k, so A is stored m x k or k x m; likewise B and C.
  const std::int64_t a_rows = (op_a == Op::none) == row ? m : k, a_cols = (op_a == Op::none) == row ? k : m;
  const std::int64_t b_rows = (op_b == Op::none) == row ? k : n, b_cols = (op_b == Op::none) == row ? n : k;
  const std::int64_t c_rows = row ? m : n, c_cols = row ? n : m;
  const std::int64_t lda = a_cols + 3, ldb = b_cols + 1, ldc = c_cols + 2;  // padded rows
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<T> ha(static_cast<std::size_t>(a_rows * lda)), hb(static_cast<std::size_t>(b_rows * ldb));
  std::vector<R> hc(static_cast<std::size_t>(c_rows * ldc));
  for (auto& v : ha) v = from_float<T>(dist(rng));
  for (auto& v : hb) v = from_float<T>(dist(rng));
  for (auto& v : hc) v = beta == 0.0f ? static_cast<R>(NAN) : static_cast<R>(dist(rng));  // beta 0: never read
  // Element (i, j) of op(X) for X stored with `rows_major` rows of leading dimension ld.
  const auto at = [row](const auto& x, std::int64_t ld, Op op, std::int64_t i, std::int64_t j) {
    const bool stored_ij = (op == Op::none) == row;  // X(i, j) at row i, column j of the stored rows
    return to_double(x[static_cast<std::size_t>(stored_ij ? i * ld + j : j * ld + i)]);
  };
  T* da = nullptr;
  T* db = nullptr;
  R* dc = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&da), ha.size() * sizeof(T)) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&db), hb.size() * sizeof(T)) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&dc), hc.size() * sizeof(R)) == cudaSuccess);
  REQUIRE(cudaMemcpy(da, ha.data(), ha.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(db, hb.data(), hb.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(dc, hc.data(), hc.size() * sizeof(R), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(run<K>(order, op_a, op_b, m, n, k, static_cast<R>(alpha), da, lda, db, ldb, static_cast<R>(beta), dc, ldc) ==
          cudaSuccess);
  std::vector<R> got(hc.size());
  REQUIRE(cudaMemcpy(got.data(), dc, got.size() * sizeof(R), cudaMemcpyDeviceToHost) == cudaSuccess);
  (void)cudaFree(da);
  (void)cudaFree(db);
  (void)cudaFree(dc);
  const double bound = relative_bound<K>(k);
  double worst = 0.0;  // the worst error relative to its element's bound scale
  int bad = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      // The reference in long double (64-bit mantissa on x86): its own error stays far below
      // even double's bound.
      long double sum = 0.0L, magnitude = 0.0L;
      for (std::int64_t p = 0; p < k; ++p) {
        const long double xy = static_cast<long double>(at(ha, lda, op_a, i, p)) * at(hb, ldb, op_b, p, j);
        sum += xy;
        magnitude += std::fabs(xy);
      }
      const std::size_t ci = static_cast<std::size_t>(row ? i * ldc + j : j * ldc + i);
      const long double c0 = beta == 0.0f ? 0.0L : static_cast<long double>(hc[ci]);
      const double exact =
          static_cast<double>(static_cast<long double>(alpha) * sum + static_cast<long double>(beta) * c0);
      const double scale = static_cast<double>(std::fabs(static_cast<long double>(alpha)) * magnitude +
                                               std::fabs(static_cast<long double>(beta) * c0));
      const double err = std::fabs(static_cast<double>(got[ci]) - exact);
      if (!(err <= bound * scale + 1e-300)) ++bad;  // (NaN fails too)
      if (scale > 0.0) worst = std::fmax(worst, err / scale);
    }
  }
  // Elements between the rows (the padding) are C's and stay as they were.
  for (std::int64_t r = 0; r < c_rows; ++r) {
    for (std::int64_t col = c_cols; col < ldc; ++col) {
      const std::size_t ci = static_cast<std::size_t>(r * ldc + col);
      const bool same =
          std::isnan(static_cast<double>(hc[ci])) ? std::isnan(static_cast<double>(got[ci])) : got[ci] == hc[ci];
      if (!same) ++bad;
    }
  }
  CAPTURE(worst);
  CAPTURE(bound);
  CHECK(bad == 0);
}

template <Kind K>
void check_products(std::mt19937& rng) {
  std::uniform_int_distribution<int> size(1, 150);
  for (const Order order : {Order::row_major, Order::col_major}) {
    for (const Op op_a : {Op::none, Op::transpose}) {
      for (const Op op_b : {Op::none, Op::transpose}) {
        // (Drawn one by one: the order of a call's arguments is unspecified, and the printed
        // seed must give the same shapes under every compiler.)
        const std::int64_t m = size(rng);
        const std::int64_t n = size(rng);
        const std::int64_t k = size(rng);
        check_product<K>(rng, order, op_a, op_b, m, n, k, 1.5f, 0.0f);
      }
    }
  }
  check_product<K>(rng, Order::row_major, Op::none, Op::none, 97, 61, 257, -0.75f, 0.5f);
}

}  // namespace

TEST_CASE("gemm from a .cpp file: refusals and the empty product, every operand type and math") {
  check_refusals<Kind::f32>();
  check_refusals<Kind::f64>();
  check_refusals<Kind::bf16>();
  check_refusals<Kind::f16>();
  check_refusals<Kind::tf32>();
  check_refusals<Kind::tf32x3>();
}

TEST_CASE("gemm from a .cpp file: products on the GPU against a double host product") {
  if (!have_gpu()) {
    MESSAGE("no GPU: the products are left to a machine with one");
    return;
  }
  const unsigned seed = std::random_device{}();
  std::printf("test_gemm_from_cpp: seed %u\n", seed);
  CAPTURE(seed);
  std::mt19937 rng(seed);
  check_products<Kind::f32>(rng);
  check_products<Kind::f64>(rng);
  check_products<Kind::bf16>(rng);
  check_products<Kind::f16>(rng);
  check_products<Kind::tf32>(rng);
  check_products<Kind::tf32x3>(rng);
}
