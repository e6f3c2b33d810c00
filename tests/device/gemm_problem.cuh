// The problem the tensor-core GEMM tests (test_gemm_16bit, test_gemm_tf32) run: C (m x n) =
// alpha op(A) op(B) + beta C with float scalars, all three matrices in one order, stored in
// buffers whose leading dimensions and base offsets a Layout sets; the buffer positions of
// every element, and the description a failure prints. Also the caller's kernel that lets its
// dependents launch early (late_writer).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <tilecraft/arch/griddepcontrol.cuh>
#include <tilecraft/device/gemm.cuh>

#include "test_util.cuh"

namespace tilecraft::test {

// A caller's kernel that lets the kernel after it launch at once (griddepcontrol.launch_dependents
// first thing, as a kernel written for programmatic dependent launch may), then writes C and A
// after about `cycles` clocks: a launcher whose first kernel went as a programmatic dependent
// without waiting for it would read them before.
template <class T>
__global__ void late_writer(const float* __restrict__ c_new, float* __restrict__ c, std::size_t c_count,
                            const T* __restrict__ a_new, T* __restrict__ a, std::size_t a_count, long long cycles) {
  tilecraft::arch::launch_dependents();
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  for (std::size_t i = threadIdx.x; i < c_count; i += blockDim.x) c[i] = c_new[i];
  for (std::size_t i = threadIdx.x; i < a_count; i += blockDim.x) a[i] = a_new[i];
}

// Leading dimensions (BLAS's minimum plus pad) and base offsets, in elements.
struct GemmLayout {
  std::int64_t pad_a, pad_b, pad_c, off_a, off_b, off_c;
};

// The launchers' caller-kernel cases (late_writer before the call): k == 0 and alpha == 0
// (C = beta C), then two products, the second with leading dimensions 3 past the minimum
// (rows no copy finds aligned); and the kernel's wait, about a millisecond at the H200's clock.
struct LateWriterCase {
  std::int64_t k;
  float alpha, beta;
  GemmLayout layout;
};
inline constexpr LateWriterCase late_writer_cases[] = {{0, 1.0f, 2.0f, {0, 0, 0, 0, 0, 0}},
                                                       {70, 0.0f, -0.5f, {0, 0, 0, 0, 0, 0}},
                                                       {70, 1.0f, 2.0f, {0, 0, 0, 0, 0, 0}},
                                                       {70, 2.0f, 1.0f, {3, 3, 3, 0, 0, 0}}};
inline constexpr long long late_writer_cycles = 2'000'000;

struct GemmProblem {
  Order order;
  Op op_a, op_b;
  std::int64_t m, n, k;
  float alpha, beta;
  GemmLayout l;

  bool row() const { return order == Order::row_major; }
  bool ta() const { return op_a == Op::transpose; }
  bool tb() const { return op_b == Op::transpose; }
  // Stored shapes: A m x k (k x m transposed), B k x n (n x k), C m x n.
  std::int64_t ld(std::int64_t rows, std::int64_t cols, std::int64_t pad) const {
    return std::max<std::int64_t>(1, row() ? cols : rows) + pad;
  }
  std::int64_t lda() const { return ta() ? ld(k, m, l.pad_a) : ld(m, k, l.pad_a); }
  std::int64_t ldb() const { return tb() ? ld(n, k, l.pad_b) : ld(k, n, l.pad_b); }
  std::int64_t ldc() const { return ld(m, n, l.pad_c); }
  std::size_t at(std::int64_t off, std::int64_t ld, std::int64_t r, std::int64_t c) const {
    return static_cast<std::size_t>(off + (row() ? r * ld + c : c * ld + r));
  }
  // Buffer positions of op(A)(i, q), op(B)(q, j), C(i, j).
  std::size_t ia(std::int64_t i, std::int64_t q) const {
    return ta() ? at(l.off_a, lda(), q, i) : at(l.off_a, lda(), i, q);
  }
  std::size_t ib(std::int64_t q, std::int64_t j) const {
    return tb() ? at(l.off_b, ldb(), j, q) : at(l.off_b, ldb(), q, j);
  }
  std::size_t ic(std::int64_t i, std::int64_t j) const { return at(l.off_c, ldc(), i, j); }
  // Buffers: the offset, every stored row (column) at its full leading dimension, 5 more.
  std::size_t size(std::int64_t off, std::int64_t rows, std::int64_t cols, std::int64_t ld) const {
    return static_cast<std::size_t>(off + (row() ? rows : cols) * ld + 5);
  }
  std::size_t size_a() const { return ta() ? size(l.off_a, k, m, lda()) : size(l.off_a, m, k, lda()); }
  std::size_t size_b() const { return tb() ? size(l.off_b, n, k, ldb()) : size(l.off_b, k, n, ldb()); }
  std::size_t size_c() const { return size(l.off_c, m, n, ldc()); }

  // The problem in `math` (a name), the run's seed and the case's salt, for the failure report.
  std::string str(const char* math, std::uint64_t salt) const {
    const auto ll = [](std::int64_t x) { return static_cast<long long>(x); };
    char s[320];
    std::snprintf(s, sizeof s,
                  "%s %s %c%c m=%lld n=%lld k=%lld alpha=%g beta=%g ld=(%lld,%lld,%lld) off=(%lld,%lld,%lld) "
                  "seed=%llu salt=%llu",
                  math, row() ? "row-major" : "col-major", ta() ? 'T' : 'N', tb() ? 'T' : 'N', ll(m), ll(n), ll(k),
                  double(alpha), double(beta), ll(lda()), ll(ldb()), ll(ldc()), ll(l.off_a), ll(l.off_b), ll(l.off_c),
                  static_cast<unsigned long long>(seed()), static_cast<unsigned long long>(salt));
    return s;
  }
};

}  // namespace tilecraft::test
