// test_gemm (see gemm_testbed.cuh): the public tilecraft::gemm with the launcher's own limits
// on odd shapes (both orders, every op, every layout), K = 0, BLAS's beta and alpha rules,
// m == 0 or n == 0 and the calls it rejects.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "gemm_testbed.cuh"

using namespace tilecraft::test::gemm;

// Compiled here for the whole executable (see gemm_testbed.cuh).
TILECRAFT_TEST_GEMM_DEFAULT_PRODUCTS();
TILECRAFT_GEMM_INSTANCE(, float);
using tilecraft::Op;
using tilecraft::Order;

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
  std::size_t shape = 0;
  for (const auto& s : shapes) {
    for (const Combo& c : combos_for(shape++, full)) {
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

TEST_CASE_TEMPLATE("gemm: K = 0 scales C by beta and reads neither A nor B", T, float, double) {
  const std::int64_t shapes[][2] = {{1, 1}, {33, 17}, {130, 129}, {64, 64}};
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  std::uint64_t salt = 2000;
  int variant = 0;
  std::size_t shape = 0;
  for (const auto& s : shapes) {
    for (const Combo& c : combos_for(shape++, full_run())) {
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
      // beta = 1: BLAS's quick return, C untouched. (C all NaN: a rewrite, even as 1 * C + 0,
      // would leave the GPU's canonical NaN, whose bits differ from the host's quiet NaN.)
      p.beta = 1;
      check_untouched(p, ++salt, run_gemm<T>, Fill{false, true});
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
  std::size_t shape = 0;
  for (const auto& s : shapes) {
    for (const Combo& c : combos_for(shape++, full_run())) {
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
  // A grid of more than 2^31 - 1 blocks (checked by the dispatch for the policy's tile, before
  // it asks the device or allocates), on fake addresses that must never be touched.
  {
    const std::int64_t big = std::int64_t{1} << 23;
    const auto* fa = reinterpret_cast<const T*>(std::uintptr_t{1} << 20);
    const auto* fb = reinterpret_cast<const T*>(std::uintptr_t{1} << 30);
    auto* fc = reinterpret_cast<T*>(std::uintptr_t{1} << 40);
    CHECK(tilecraft::gemm(row, N, N, big, big, 1, one, fa, 1, fb, big, zero, fc, big) == cudaErrorInvalidValue);
    CHECK(tilecraft::gemm<Small>(col, N, N, big, big, 1, one, fa, big, fb, 1, zero, fc, big) == cudaErrorInvalidValue);
    CHECK(tilecraft::gemm<Large>(row, N, N, big, big, 1, one, fa, 1, fb, big, zero, fc, big) == cudaErrorInvalidValue);
    // A ragged last row peeled off into a thin product whose grid (a block per 4 columns) would
    // exceed 2^31 - 1 blocks, though the whole tiles' grid fits: refused before the whole tiles'
    // product launches (the edge launches after it). The premise is the default plan's edge.
    const std::int64_t m = 129, n = (std::int64_t{1} << 33) + 256;
    tilecraft::detail::DeviceLimits limits{};
    REQUIRE(tilecraft::detail::device_limits(limits) == cudaSuccess);
    const tilecraft::detail::GemmTunables defaults{};
    const auto choice = tilecraft::detail::choose_default<T>(m, n, 1, limits, defaults.split);
    REQUIRE(tilecraft::detail::edge_plan(tilecraft::detail::facts_of_choice(choice), m, n, 1, defaults.edge).rows == 1);
    CHECK(tilecraft::gemm(row, N, N, m, n, 1, one, fa, 1, fb, n, zero, fc, n) == cudaErrorInvalidValue);
  }
  CHECK(cudaGetLastError() == cudaSuccess);
  // An earlier call's error of the same code stays in the last-error slot for its owner.
  tilecraft::test::check_keeps_earlier_invalid_value(
      [&] { return tilecraft::gemm(row, N, N, p.m, p.n, -1, one, a, p.lda(), b, p.ldb(), zero, c, p.ldc()); });
  tilecraft::test::check_keeps_earlier_invalid_value([&] {
    return tilecraft::gemm_epilogue(row, N, N, p.m, p.n, p.k, a, p.lda(), b, p.ldb(), static_cast<T*>(nullptr), p.ldc(),
                                    BiasRelu<T>{nullptr});
  });
  tilecraft::test::sync_and_check();
  CHECK(same_buffer(d.c.download(), h.c));
  CHECK(same_buffer(d.a.download(), h.a));
}
