// test_gemm (see gemm_testbed.cuh): split K and the packing of K-contiguous operands (whole and
// in panels of C), forced on small products by lower limits passed to detail::gemm_run, and
// release_workspace.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <type_traits>

#include "gemm_testbed.cuh"

using namespace tilecraft::test::gemm;

TEST_CASE_TEMPLATE("gemm: few C tiles and a long K (K split across blocks, summed by a second kernel)", T, float,
                   double) {
  // {64, 257, 2100}: C of 64 rows, as split_k_plan splits it (2 slices of >= 1024).
  const std::int64_t shapes[][3] = {{1, 1, 4001}, {31, 17, 2049}, {40, 130, 2500}, {9, 300, 6000}, {64, 257, 2100}};
  const auto run = run_gemm<T>(tunables_split_small());
  const bool full = full_run();
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  std::uint64_t salt = 1500;
  int variant = 0;
  std::size_t shape = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    for (const Combo& c : combos_for(shape++, full)) {
      for (int l : layouts_for(variant, full)) {
        const T beta = variant % 3 == 0 ? T(0) : T(-0.5);
        check_gemm(make_problem(c, s[0], s[1], s[2], layouts[l], T(1.25), beta), ++salt, run, cublas, true,
                   Fill{false, beta == T(0)});
      }
      ++variant;
    }
  }
}

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
  const bool full = full_run();
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  std::uint64_t salt = 1800;
  int variant = 0;
  std::size_t shape = 0;
  for (const auto& s : shapes) {
    if (!full && s[0] * s[1] * s[2] > light_max_macs) continue;
    const tilecraft::detail::GemmTunables tunables = tunables_pack<T>(s[3], tunables_split_small());
    for (const Combo& c : combos_for(shape++, full)) {
      for (int l : layouts_for(variant, full)) {
        const Problem<T> p = make_problem(c, s[0], s[1], s[2], layouts[l], T(0.75), variant % 2 ? T(0) : T(1.5));
        check_gemm(p, ++salt, run_gemm<T>(tunables), cublas, true, Fill{false, variant % 2 == 1});
        if (variant % 3 == 0) check_gemm(p, ++salt, run_gemm<T, Large>(tunables), nullptr, true);
      }
      ++variant;
    }
  }
}

TEST_CASE_TEMPLATE("release_workspace hands the pool's memory back; the next gemm takes new workspace", T, float,
                   double) {
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  const auto run = run_gemm<T>(tunables_pack<T>(16 << 10, tunables_split_small()));
  const Problem<T> p = make_problem(combos[0], 150, 140, 30, layouts[0], T(1), T(0));  // A packed in panels
  check_gemm(p, 1900, run, cublas, true);
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  CHECK(tilecraft::release_workspace() == cudaSuccess);
  check_gemm(p, 1901, run, cublas, true);
  const Problem<T> split = make_problem(combos[4], 31, 17, 2049, layouts[1], T(1), T(0));  // split K
  check_gemm(split, 1902, run, cublas, true);
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  CHECK(tilecraft::release_workspace() == cudaSuccess);
  CHECK(tilecraft::release_workspace() == cudaSuccess);
}
