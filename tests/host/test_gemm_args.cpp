// The GEMM's argument checks (device/detail/gemm_plan.cuh: check_gemm_args, the one function
// gemm() and gemm_epilogue() call before anything else): BLAS's rules, on a CPU machine. That
// the launcher checks before its quick return: tests/host/test_validation.cu; its rejections
// on a GPU (nothing launched, C untouched, the grid limit): tests/device/test_gemm_shapes.cu.
#include <doctest/doctest.h>

#include <cstdint>
#include <type_traits>

#include <tilecraft/device/detail/gemm_plan.cuh>

using tilecraft::Op;
using tilecraft::Order;

namespace {
// gemm()'s and gemm_epilogue()'s arguments as their checks see them (alpha, beta and the
// epilogue take no part in them).
template <class T>
cudaError_t gemm(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k, T, const T* a,
                 std::int64_t lda, const T* b, std::int64_t ldb, T, T* c, std::int64_t ldc) {
  return tilecraft::detail::check_gemm_args(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
}
template <class T>
cudaError_t gemm_epilogue(Order order, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a,
                          std::int64_t lda, const T* b, std::int64_t ldb, T* c, std::int64_t ldc) {
  return tilecraft::detail::check_gemm_args(order, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
}
// p moved by `bytes`: a pointer off its type's alignment (or off 16 bytes only).
template <class P>
P* moved(P* p, std::uintptr_t bytes) {
  return reinterpret_cast<P*>(reinterpret_cast<std::uintptr_t>(p) + bytes);
}
}  // namespace

TEST_CASE_TEMPLATE("gemm rejects bad arguments before launching", T, float, double) {
  auto* a = reinterpret_cast<const T*>(std::uintptr_t{1} << 20);
  auto* b = reinterpret_cast<const T*>(std::uintptr_t{1} << 30);
  auto* c = reinterpret_cast<T*>(std::uintptr_t{1} << 40);
  constexpr cudaError_t bad = cudaErrorInvalidValue;
  const Op ops[] = {Op::none, Op::transpose};
  const std::int64_t m = 5, n = 6, k = 7;
  // Each rejection below comes from its one bad argument: the valid call beside it passes.
  for (Order order : {Order::row_major, Order::col_major}) {
    const bool row = order == Order::row_major;
    for (Op op_a : ops) {
      for (Op op_b : ops) {
        CAPTURE(row);
        CAPTURE(op_a == Op::transpose);
        CAPTURE(op_b == Op::transpose);
        // BLAS's minimum: the elements of a stored row (row-major) or column (column-major).
        const bool ta = op_a == Op::transpose, tb = op_b == Op::transpose;
        const std::int64_t lda = row ? (ta ? m : k) : (ta ? k : m);
        const std::int64_t ldb = row ? (tb ? k : n) : (tb ? n : k);
        const std::int64_t ldc = row ? n : m;
        for (T alpha : {T(0), T(1)}) {
          const T beta = alpha == T(0) ? T(1) : T(0);
          auto call = [&](std::int64_t mm, std::int64_t nn, std::int64_t kk, const T* pa, std::int64_t la, const T* pb,
                          std::int64_t lb, T* pc, std::int64_t lc) {
            return gemm(order, op_a, op_b, mm, nn, kk, alpha, pa, la, pb, lb, beta, pc, lc);
          };
          if (alpha == T(0)) CHECK(call(m, n, k, a, lda, b, ldb, c, ldc) == cudaSuccess);
          CHECK(call(m, n, k, a, lda - 1, b, ldb, c, ldc) == bad);
          CHECK(call(m, n, k, a, lda, b, ldb - 1, c, ldc) == bad);
          CHECK(call(m, n, k, a, lda, b, ldb, c, ldc - 1) == bad);
          CHECK(call(-1, n, k, a, lda, b, ldb, c, ldc) == bad);
          CHECK(call(m, -1, k, a, lda, b, ldb, c, ldc) == bad);
          CHECK(call(m, n, -1, a, lda, b, ldb, c, ldc) == bad);
          CHECK(call(m, n, k, nullptr, lda, b, ldb, c, ldc) == bad);
          CHECK(call(m, n, k, a, lda, nullptr, ldb, c, ldc) == bad);
          CHECK(call(m, n, k, a, lda, b, ldb, nullptr, ldc) == bad);
          // Not aligned to T (a float* 2 bytes off, a double* 4 bytes off: 4-byte aligned only).
          constexpr std::uintptr_t half = sizeof(T) / 2;
          CHECK(call(m, n, k, moved(a, half), lda, b, ldb, c, ldc) == bad);
          CHECK(call(m, n, k, a, lda, moved(b, half), ldb, c, ldc) == bad);
          CHECK(call(m, n, k, a, lda, b, ldb, moved(c, half), ldc) == bad);
          // Aligned to T but not to 16 bytes is fine (the element-by-element path).
          if (alpha == T(0)) {
            CHECK(call(m, n, k, moved(a, sizeof(T)), lda, moved(b, sizeof(T)), ldb, moved(c, sizeof(T)), ldc) ==
                  cudaSuccess);
          }
          // C beside A is fine (C sharing elements with A or B is the caller's mistake, unchecked
          // as in BLAS: disjoint blocks of one allocation, as in a blocked LU update, are valid).
          const std::int64_t span_a = (row ? (ta ? k : m) : (ta ? m : k)) - 1;  // stored rows (columns) - 1
          const std::int64_t end_a = span_a * lda + (row ? (ta ? m : k) : (ta ? k : m));
          const std::int64_t end_c = (row ? m - 1 : n - 1) * ldc + (row ? n : m);
          auto* ca = const_cast<T*>(a);
          if (alpha == T(0)) {
            CHECK(call(m, n, k, a, lda, b, ldb, ca + end_a, ldc) == cudaSuccess);
            CHECK(call(m, n, k, a, lda, b, ldb, ca - end_c, ldc) == cudaSuccess);
          }
          // Byte offsets that overflow 64 bits.
          CHECK(call(m, n, k, a, INT64_MAX / 2, b, ldb, c, ldc) == bad);
          CHECK(call(m, n, k, a, lda, b, ldb, c, INT64_MAX / 4) == bad);
          // K = 0: A and B are not read (may be null), but their leading dimensions still obey
          // max(1, ...).
          const std::int64_t lda0 = row ? (ta ? m : 1) : (ta ? 1 : m);
          const std::int64_t ldb0 = row ? (tb ? 1 : n) : (tb ? n : 1);
          if (alpha == T(0)) CHECK(call(m, n, 0, nullptr, lda0, nullptr, ldb0, c, ldc) == cudaSuccess);
          CHECK(call(m, n, 0, nullptr, lda0 - 1, nullptr, ldb0, c, ldc) == bad);
          CHECK(call(m, n, 0, nullptr, lda0, nullptr, ldb0 - 1, c, ldc) == bad);
          CHECK(call(m, n, 0, nullptr, lda0, nullptr, ldb0, nullptr, ldc) == bad);
          // m == 0 or n == 0: a successful no-op, null pointers included (leading dimensions
          // are still checked).
          const std::int64_t lda_m0 = row ? (ta ? 1 : k) : (ta ? k : 1);
          const std::int64_t ldc_m0 = row ? n : 1;
          CHECK(call(0, n, k, nullptr, lda_m0, nullptr, ldb, nullptr, ldc_m0) == cudaSuccess);
          CHECK(call(0, n, k, nullptr, lda_m0, nullptr, ldb, nullptr, ldc_m0 - 1) == bad);
          CHECK(call(0, n, -1, nullptr, lda_m0, nullptr, ldb, nullptr, ldc_m0) == bad);
          const std::int64_t ldb_n0 = row ? (tb ? k : 1) : (tb ? 1 : k);
          const std::int64_t ldc_n0 = row ? 1 : m;
          CHECK(call(m, 0, k, nullptr, lda, nullptr, ldb_n0, nullptr, ldc_n0) == cudaSuccess);
        }
      }
    }
  }
  // Enumerators out of range, even for an empty product.
  const Order row = Order::row_major;
  const T zero = 0, one = 1;
  CHECK(gemm(static_cast<Order>(7), Op::none, Op::none, m, n, k, zero, a, k, b, n, one, c, n) == bad);
  CHECK(gemm(row, static_cast<Op>(7), Op::none, m, n, k, zero, a, k, b, n, one, c, n) == bad);
  CHECK(gemm(row, Op::none, static_cast<Op>(7), m, n, k, zero, a, k, b, n, one, c, n) == bad);
  CHECK(gemm(row, static_cast<Op>(-1), Op::none, 0, 0, 0, one, a, 1, b, 1, zero, c, 1) == bad);
  CHECK(gemm(static_cast<Order>(2), Op::none, Op::none, 0, 0, 0, one, a, 1, b, 1, zero, c, 1) == bad);
  // (A grid of more than 2^31 - 1 blocks is rejected too, by the dispatch for the policy's
  // tile: see tests/device/test_gemm_shapes.cu.)
}

TEST_CASE_TEMPLATE("gemm_epilogue rejects bad arguments before launching", T, float, double) {
  auto* a = reinterpret_cast<const T*>(std::uintptr_t{1} << 20);
  auto* b = reinterpret_cast<const T*>(std::uintptr_t{1} << 30);
  auto* c = reinterpret_cast<T*>(std::uintptr_t{1} << 40);
  const Order row = Order::row_major, col = Order::col_major;
  const Op none = Op::none, t = Op::transpose;
  CHECK(gemm_epilogue(row, none, none, -1, 6, 7, a, 7, b, 6, c, 6) == cudaErrorInvalidValue);
  CHECK(gemm_epilogue(col, t, none, 5, 6, 7, a, 6, b, 7, c, 5) == cudaErrorInvalidValue);
  CHECK(gemm_epilogue(col, none, t, 5, 6, 7, a, 5, b, 6, static_cast<T*>(nullptr), 5) == cudaErrorInvalidValue);
  CHECK(gemm_epilogue(row, static_cast<Op>(3), none, 5, 6, 7, a, 7, b, 6, c, 6) == cudaErrorInvalidValue);
  CHECK(gemm_epilogue(row, none, none, 5, 6, 7, moved(a, sizeof(T) / 2), 7, b, 6, c, 6) == cudaErrorInvalidValue);
  // m == 0 or n == 0 with null pointers: a no-op.
  const T* none_a = nullptr;
  CHECK(gemm_epilogue<T>(row, none, none, 0, 6, 7, none_a, 7, nullptr, 6, nullptr, 6) == cudaSuccess);
  CHECK(gemm_epilogue<T>(col, none, none, 5, 0, 7, none_a, 5, nullptr, 7, nullptr, 5) == cudaSuccess);
}

// 16-bit operands with a float C (the tensor-core launchers' check_gemm_args<T, float>): A and
// B aligned to 2 bytes, C to 4, C's span counted in floats.
TEST_CASE_TEMPLATE("16-bit operands with float C: alignment and spans by each one's type", T, __half, __nv_bfloat16) {
  auto* a = reinterpret_cast<const T*>(std::uintptr_t{1} << 20);
  auto* b = reinterpret_cast<const T*>(std::uintptr_t{1} << 30);
  auto* c = reinterpret_cast<float*>(std::uintptr_t{1} << 40);
  const Order row = Order::row_major;
  const Op none = Op::none;
  using tilecraft::detail::check_gemm_args;
  CHECK(check_gemm_args<T, float>(row, none, none, 5, 6, 7, a, 7, b, 6, c, 6) == cudaSuccess);
  // A and B 2-byte aligned (an odd 2-byte offset is fine), not 1.
  CHECK(check_gemm_args<T, float>(row, none, none, 5, 6, 7, moved(a, 2), 7, moved(b, 6), 6, c, 6) == cudaSuccess);
  CHECK(check_gemm_args<T, float>(row, none, none, 5, 6, 7, moved(a, 1), 7, b, 6, c, 6) == cudaErrorInvalidValue);
  CHECK(check_gemm_args<T, float>(row, none, none, 5, 6, 7, a, 7, moved(b, 1), 6, c, 6) == cudaErrorInvalidValue);
  // C float-aligned: 2 bytes off is refused.
  CHECK(check_gemm_args<T, float>(row, none, none, 5, 6, 7, a, 7, b, 6, moved(c, 2), 6) == cudaErrorInvalidValue);
  // Spans: C's bytes counted for floats (a leading dimension that fits 2-byte elements but not
  // 4-byte ones is refused for C, accepted for A).
  const std::int64_t half_fit = INT64_MAX / 2 / 2, float_fit = INT64_MAX / 4 / 2;
  CHECK(check_gemm_args<T, float>(row, none, none, 2, 1, 1, a, half_fit, b, 1, c, 1) == cudaSuccess);
  CHECK(check_gemm_args<T, float>(row, none, none, 2, 1, 1, a, 1, b, 1, c, float_fit) == cudaSuccess);
  CHECK(check_gemm_args<T, float>(row, none, none, 2, 1, 1, a, 1, b, 1, c, float_fit + 1) == cudaErrorInvalidValue);
  CHECK(check_gemm_args<T, float>(row, none, none, 2, 1, 1, a, half_fit + 1, b, 1, c, 1) == cudaErrorInvalidValue);
}
