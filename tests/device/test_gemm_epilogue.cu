// test_gemm (see gemm_testbed.cuh): gemm_epilogue with a bias + ReLU by column (C not read) and
// a row-scaled residual (C read), on split K and on packed operands in panels of C, through
// detail::gemm_epilogue_run with lower limits.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "gemm_testbed.cuh"

using namespace tilecraft::test::gemm;
using tilecraft::test::DeviceBuffer;

// ---- custom epilogues -----------------------------------------------------------------------------

namespace {
// gemm_epilogue<Policy> with `tunables` for the launcher's limits.
template <class Policy, class T, class Epilogue>
cudaError_t run_epilogue(const Problem<T>& p, const T* a, const T* b, T* c, const Epilogue& epi,
                         const tilecraft::detail::GemmTunables& tunables, cudaStream_t stream) {
  return tilecraft::detail::gemm_epilogue_run<Policy>(p.order, p.op_a, p.op_b, p.m, p.n, p.k, a, p.lda(), b, p.ldb(), c,
                                                      p.ldc(), epi, tunables, stream);
}

// Bias + ReLU by column (C full of NaN: not read), and a row-scaled residual (reads C), on p.
// The residual goes through Policy, or GemmPolicyLarge(F64) for the default (void): a custom
// epilogue instantiates every kernel of its policies, and the default's are seven policies of
// seven kernels each for every architecture; what reads C is the same code in all of them (the
// tile's store, the split-K reduce), and bias + ReLU takes the default's every policy.
template <class Policy, class T>
void check_epilogues(const Problem<T>& p, std::uint64_t salt, const tilecraft::detail::GemmTunables& tunables) {
  using Large = std::conditional_t<std::is_same_v<T, float>, tilecraft::GemmPolicyLarge, tilecraft::GemmPolicyLargeF64>;
  using ResidualPolicy = std::conditional_t<std::is_void_v<Policy>, Large, Policy>;
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
      return run_epilogue<Policy>(q, a, b, c, epi, tunables, s);
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
      return run_epilogue<ResidualPolicy>(q, a, b, c, epi, tunables, s);
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
  const tilecraft::detail::GemmTunables split = tunables_split_small();
  const bool full = full_run();
  std::uint64_t salt = 6000;
  int variant = 0;
  std::size_t shape = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    for (const Combo& c : combos_for(shape++, full)) {
      for (int l : layouts_for(variant, full)) {
        check_epilogues<void>(make_problem(c, s[0], s[1], s[2], layouts[l], T(1), T(0)), salt += 4, split);
      }
      ++variant;
    }
  }
  // An explicit policy through gemm_epilogue<Policy>.
  for (const Combo& c : combos_for(shape++, full)) {
    check_epilogues<Large>(make_problem(c, 129, 127, 33, layouts[2], T(1), T(0)), salt += 4, split);
  }
  // Packed operands in panels of C: the epilogue still gets the coordinates of the whole C.
  const tilecraft::detail::GemmTunables packed = tunables_pack<T>(16 << 10, split);
  for (const Combo& c : combos_for(shape++, full)) {
    check_epilogues<void>(make_problem(c, 150, 140, 30, layouts[variant++ % 2], T(1), T(0)), salt += 4, packed);
    check_epilogues<Large>(make_problem(c, 300, 270, 20, layouts[0], T(1), T(0)), salt += 4, packed);
  }
}
