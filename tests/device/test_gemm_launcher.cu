// test_gemm (see gemm_testbed.cuh): the launcher's plans (split K, packing, gemm_epilogue on
// both) and the large shapes, in one translation unit (the testbed's headers cost more compile
// time per unit than these cases).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "gemm_testbed.cuh"

using namespace tilecraft::test::gemm;
using tilecraft::test::DeviceBuffer;
using tilecraft::test::Stream;

// test_gemm (see gemm_testbed.cuh): split K and the packing of operands (K-contiguous ones
// transposed, unaligned ones copied; whole and in panels of C), forced on small products by lower
// limits passed to detail::gemm_run, and release_workspace.
namespace split_pack_tests {

TEST_CASE_TEMPLATE("gemm: few C tiles and a long K (K split across blocks, summed by a second kernel)", T, float,
                   double) {
  // {64, 257, 2100}: C of 64 rows, as split_k_plan splits it (2 slices of >= 1024).
  const std::int64_t shapes[][3] = {{1, 1, 4001}, {31, 17, 2049}, {40, 130, 2500}, {9, 300, 6000}, {64, 257, 2100}};
  const auto run = run_gemm<T>(tunables_split_small());
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  std::uint64_t salt = 1500;
  for_each_case(shapes, [&](const Combo& c, const auto& s, const Layout& layout, int variant) {
    const T beta = variant % 3 == 0 ? T(0) : T(-0.5);
    const Problem<T> p = make_problem(c, s[0], s[1], s[2], layout, T(1.25), beta);
    check_gemm(p, ++salt, run, cublas, true, Fill{false, beta == T(0)});
    if (variant % 4 == 0) check_same_bits_twice(p, ++salt, run);
  });
}

// Products on Policy's tiles (by default GemmPolicyMedium's 64 x 64, 4 blocks an SM) planned
// for 4 SMs, so waves of 16 blocks (8 for GemmPolicyLarge), with K slices of at least 16
// (`balanced`: dealt K steps allowed). Each shape's plan must meet `premise` (what the test is
// about); then every layout, order and transpose against cuBLAS and the host reference, alpha
// -1.5, beta 0 or 0.75.
template <class T,
          class Policy =
              std::conditional_t<std::is_same_v<T, float>, tilecraft::GemmPolicyMedium, tilecraft::GemmPolicyMediumF64>,
          std::size_t N, class Premise>
void check_medium_on_4_sms(const std::int64_t (&shapes)[N][3], bool balanced, Premise premise, std::uint64_t salt) {
  tilecraft::detail::GemmTunables tunables;
  tunables.split = {16, 0.0, std::int64_t{64} << 20};
  tunables.split.balanced = balanced;
  tunables.sms = 4;
  for (const auto& s : shapes) {
    INFO(s[0], " x ", s[1], " x ", s[2]);
    premise(
        tilecraft::detail::split_k_plan(tilecraft::detail::facts_of<Policy>(), s[0], s[1], s[2], 4, tunables.split));
  }
  const auto run = run_gemm<T, Policy>(tunables);
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  for_each_case(shapes, [&](const Combo& c, const auto& s, const Layout& layout, int variant) {
    const T beta = variant % 2 == 0 ? T(0) : T(0.75);
    const Problem<T> p = make_problem(c, s[0], s[1], s[2], layout, T(-1.5), beta);
    check_gemm(p, ++salt, run, cublas, true, Fill{false, beta == T(0)});
    if (variant % 4 == 0) check_same_bits_twice(p, ++salt, run);
  });
}

TEST_CASE_TEMPLATE("gemm: the last wave's tiles in K slices behind whole waves (summed by a second kernel)", T, float,
                   double) {
  // Each shape leaves a last wave of 1 or 2 tiles behind whole ones, which split_k_plan splits
  // in 3 or more equal slices (the first three are small enough for the sanitizers' light runs).
  const std::int64_t shapes[][3] = {{1, 1058, 64}, {2, 1100, 100}, {1030, 3, 200}, {190, 350, 300}, {1083, 33, 1000}};
  check_medium_on_4_sms<T>(
      shapes, false,
      [](const tilecraft::detail::SplitPlan& plan) {
        REQUIRE(plan.whole >= 16);  // the test's premise: whole waves, then a split tail
        REQUIRE(plan.slices >= 3);
      },
      1700);
}

TEST_CASE_TEMPLATE("gemm: the split tiles' K steps dealt out to a wave of blocks, shares across tiles", T, float,
                   double) {
  // Each shape's split tiles (all of them under a wave, or the last wave's behind whole ones)
  // have their K steps dealt out to the 16 blocks (BalancedSplit), so shares run across tile
  // boundaries; 190 x 350 x 300 cuts a tile into up to 11 pieces of 2 steps. Operands that
  // fill in vectors deal, and so do float's that fill element by element (K-contiguous or
  // unaligned layouts: a kernel of their own); double's split K into equal slices there. The
  // last two (6 ragged tiles in 4 or 5 slices' worth of steps) are light enough for the
  // sanitizers' runs.
  const std::int64_t shapes[][3] = {{100, 100, 2000}, {130, 190, 700}, {200, 300, 1000}, {190, 350, 300},
                                    {33, 700, 1200},  {70, 130, 110},  {129, 67, 120}};
  check_medium_on_4_sms<T>(
      shapes, true,
      [](const tilecraft::detail::SplitPlan& plan) {
        REQUIRE(plan.units == 16);  // the test's premise: the steps dealt out
      },
      1800);
}

TEST_CASE_TEMPLATE("gemm: GemmPolicyLarge's split tiles' K steps dealt out, with either fill", T, float, double) {
  // As above on GemmPolicyLarge's tiles (float: 128 x 128, double: 128 x 64; a wave of 8 blocks
  // on 4 SMs), whose float element-by-element fill (K-contiguous or unaligned layouts) runs on
  // the kernel with the deal's loop whether the plan deals or not (launch_product): one tile's
  // K steps dealt to 8 blocks, 6 tiles' (float) behind whole ones or alone (double), shares
  // across tiles. Double's element fill splits K into equal slices there. The last two are
  // light enough for the sanitizers' runs.
  using Large = std::conditional_t<std::is_same_v<T, float>, tilecraft::GemmPolicyLarge, tilecraft::GemmPolicyLargeF64>;
  const std::int64_t shapes[][3] = {{100, 100, 2000}, {190, 350, 300}, {129, 67, 120}, {70, 130, 110}};
  check_medium_on_4_sms<T, Large>(
      shapes, true,
      [](const tilecraft::detail::SplitPlan& plan) {
        REQUIRE(plan.units == 8);  // the test's premise: the steps dealt out
      },
      1900);
}

TEST_CASE_TEMPLATE(
    "gemm: operands packed into a workspace (transposed or copied to aligned rows), whole and in panels "
    "of C",
    T, float, double) {
  using Large = std::conditional_t<std::is_same_v<T, float>, tilecraft::GemmPolicyLarge, tilecraft::GemmPolicyLargeF64>;
  // Panels (budgets for float; doubles get twice the bytes): 16 KiB holds 136 packed rows of
  // K = 30, so 150 rows of A (or columns of B) go in two equal panels of whole tiles (the
  // default GemmPolicySmall's 32-row tiles: 96 + 54; GemmPolicyLarge's 128: 128 + 22); 64 MiB
  // packs whole; 150 x 100: A in two panels, B whole (packed once for both). With K = 2100
  // (split K too) 600 KiB holds 73 rows: A in panels of 64 rows, B (128-column tiles) not packed.
  const std::int64_t shapes[][4] = {{150, 140, 30, 16 << 10},
                                    {150, 100, 30, 16 << 10},
                                    {150, 140, 30, std::int64_t{64} << 20},
                                    {1, 257, 9, 16 << 10},
                                    {100, 90, 2100, 600 << 10}};
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  std::uint64_t salt = 1800;
  for_each_case(shapes, [&](const Combo& c, const auto& s, const Layout& layout, int variant) {
    const tilecraft::detail::GemmTunables tunables = tunables_pack<T>(s[3], tunables_split_small());
    const Problem<T> p = make_problem(c, s[0], s[1], s[2], layout, T(0.75), variant % 2 ? T(0) : T(1.5));
    check_gemm(p, ++salt, run_gemm<T>(tunables), cublas, true, Fill{false, variant % 2 == 1});
    if (variant % 3 == 0) check_gemm(p, ++salt, run_gemm<T, Large>(tunables), nullptr, true);
    if (variant % 3 == 1) {
      // Without workspace (every request refused, as an exhausted pool refuses it): unpacked
      // and unsplit, the same result.
      tilecraft::detail::GemmTunables none = tunables;
      none.workspace_limit = 0;
      check_gemm(p, ++salt, run_gemm<T>(none), nullptr, true);
    }
  });
}

TEST_CASE_TEMPLATE("gemm: a ragged last tile row and column peeled off into thin products", T, float, double) {
  // Rows of 128 j + 1 and columns of 128 j + 2 or + 3 leave 1 to 3 ragged rows (columns) for
  // every default tile (32, 64 or 128), which edge_plan peels off with its volume limit lowered
  // (the launcher's own applies from 2^29 multiply-adds: the large cases below); 69 x 71 (light
  // enough for the sanitizers' runs), 136 x 135 and 261 x 198 leave 5 to 8 (the thin kernel of
  // 8 accumulators), 136 x 135 x 2100 with K split (the reduction after an edge of 8), and,
  // light enough for the sanitizers' runs, 2 x 136 x 2727 and 129 x 3 x 2700 (an edge of 8
  // columns or of 1 row, the rest split in 2 slices of K). K = 0 and 1, a C of one column,
  // epilogues that read C and that do not.
  tilecraft::detail::GemmTunables tunables = tunables_split_small();
  tunables.edge.min_volume = 0.0;
  const std::int64_t shapes[][3] = {{129, 67, 60}, {33, 259, 40},    {65, 130, 100},   {129, 1, 300},  {257, 131, 1},
                                    {129, 131, 0}, {385, 515, 700},  {641, 258, 2100}, {136, 135, 80}, {261, 198, 150},
                                    {69, 71, 40},  {136, 135, 2100}, {2, 136, 2727},   {129, 3, 2700}};
  tilecraft::detail::DeviceLimits limits;
  TILECRAFT_THROW_IF_ERROR(tilecraft::detail::device_limits(limits));
  for (const auto& s : shapes) {
    const auto choice = tilecraft::detail::choose_default<T>(s[0], s[1], s[2], limits, tunables.split);
    const auto edge =
        tilecraft::detail::edge_plan(tilecraft::detail::facts_of_choice(choice), s[0], s[1], s[2], tunables.edge);
    INFO(s[0], " x ", s[1], " x ", s[2]);
    REQUIRE((edge.rows > 0 || edge.cols > 0));  // the test's premise: an edge peeled off
  }
  const auto run = run_gemm<T>(tunables);
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);
  std::uint64_t salt = 1900;
  // Under racecheck (shared memory only: racecheck_sized) the light shapes with K split after
  // the edge run no kernel path that the other light shapes and the split tests' do not, and
  // took most of this case's racecheck time (38 and 34 s for float and double in the check of
  // 03ef772, against 12 s or less before they came): skipped there.
  const bool racecheck = tilecraft::test::racecheck_sized();
  for_each_case(shapes, [&](const Combo& c, const auto& s, const Layout& layout, int variant) {
    if (racecheck && s[2] >= 2048) return;
    const T beta = variant % 3 == 0 ? T(0) : T(0.5);
    // The three shapes of 10^7 multiply-adds and more against cuBLAS alone (full runs): their host
    // products, 16 cases each in long double for double, were most of test_gemm's time (the
    // smaller shapes check cuBLAS against the host).
    const bool host = cublas == nullptr || s[0] * s[1] * s[2] < 10000000;
    const Problem<T> p = make_problem(c, s[0], s[1], s[2], layout, T(-0.75), beta);
    check_gemm(p, ++salt, run, cublas, host, Fill{false, beta == T(0)});
    if (variant % 4 == 0) check_same_bits_twice(p, ++salt, run);
  });
}

TEST_CASE_TEMPLATE("gemm: a product that reads the C of a peeled product before it, in one stream", T, float, double) {
  // The peeled edge's thin kernels run beside the whole tiles' kernel (as its programmatic
  // dependents); the next work in the stream must still see all of C. D = (A B + beta C0) E with
  // no synchronization between the two products: the second one reads every element of the
  // first's C, its peeled rows and columns included. Each chain runs twice, unsynchronized and
  // with the stream synchronized between the products, and the two D must be the same bits (the
  // products are deterministic); both products are checked against a reference as well (the
  // host's for the small shapes, cublasDgemm's for the long K). The long K (full runs only,
  // 4 x 10^9 multiply-adds): each thin block walks all of K while the tiles split it into 64
  // slices, so the edge takes about as long as the tiles or longer, and a chain that did not
  // wait for it would likely read an unfinished edge. (On an H200 the test
  // also passed with the exit waits removed, when the edge was launched before the tiles: the
  // order held there without them, see benchmarks/TUNING.md; the waits stay, as the programming
  // model asks.) 136 x 135 peels 8 and 7 (the thin kernel of 8 accumulators). Packed operands
  // (in panels) and C read (beta) as variants. C and D are poisoned first. Under racecheck
  // (racecheck_sized), which sees shared memory only and not the order in global memory this
  // test is about, each shape runs one variant (packed on two shapes, not on the other two; C
  // read on two) and the unsynchronized chain alone, against the host: the same kernels and
  // paths at an eighth of the work (it was a third of the racecheck time of test_gemm).
  const bool racecheck = tilecraft::test::racecheck_sized();
  std::optional<Cublas> slot;
  const Cublas* cublas = cublas_if_full(slot);  // (the long K's reference)
  tilecraft::detail::GemmTunables split = tunables_split_small();
  split.edge.min_volume = 0.0;
  const tilecraft::detail::GemmTunables packed = tunables_pack<T>(16 << 10, split);
  std::vector<std::array<std::int64_t, 4>> shapes = {
      {129, 131, 67, 130}, {257, 385, 300, 259}, {385, 130, 1000, 387}, {136, 135, 80, 134}};
  if (full_run()) shapes.push_back({129, 129, 262144, 130});
  tilecraft::detail::DeviceLimits limits;
  TILECRAFT_THROW_IF_ERROR(tilecraft::detail::device_limits(limits));
  auto peeled = [&](std::int64_t rows, std::int64_t cols, std::int64_t depth) {
    const auto choice = tilecraft::detail::choose_default<T>(rows, cols, depth, limits, split.split);
    const auto edge =
        tilecraft::detail::edge_plan(tilecraft::detail::facts_of_choice(choice), rows, cols, depth, split.edge);
    return edge.rows > 0 && edge.cols > 0;
  };
  std::uint64_t salt = 1950;
  int shape_index = 0;
  for (const auto& s : shapes) {
    const int racecheck_variant = shape_index++ % 4;  // packed: 1 and 3; C read: 2 and 3
    const std::int64_t m = s[0], n = s[1], k = s[2], p = s[3];
    INFO(m, " x ", n, " x ", k, ", then x ", p);
    REQUIRE(peeled(m, n, k));  // the test's premise: both products peel a row and a column edge
    REQUIRE(peeled(m, p, n));
    tilecraft::test::Rng rng = tilecraft::test::rng(++salt);
    auto random = [&](std::int64_t count) {
      std::vector<T> v(static_cast<std::size_t>(count));
      for (T& x : v) x = static_cast<T>(rng.uniform_real(-1.0, 1.0));
      return v;
    };
    const std::vector<T> a = random(m * k), b = random(k * n), c0 = random(m * n), e = random(n * p);
    DeviceBuffer<T> da(a), db(b), de(e), dc(static_cast<std::size_t>(m * n)), dd(static_cast<std::size_t>(m * p));
    const bool small = m * n * k <= 100'000'000;
    for (int variant = 0; variant < (small ? 4 : 1); ++variant) {
      if (racecheck && variant != racecheck_variant) continue;
      const bool pack = variant & 1;
      const T beta = variant & 2 ? T(0.5) : T(0);
      INFO("packed: ", pack, ", beta: ", beta);
      auto chain = [&](bool synchronize) {
        dc.upload(c0);
        dd.poison();
        if (beta == T(0)) dc.poison();
        Stream stream;
        using tilecraft::Op;
        const auto row = tilecraft::Order::row_major;
        const auto& tunables = pack ? packed : split;
        REQUIRE(tilecraft::detail::gemm_run<void, T>(row, Op::none, Op::none, m, n, k, T(1), da.get(), k, db.get(), n,
                                                     beta, dc.get(), n, tunables, stream.get()) == cudaSuccess);
        if (synchronize) TILECRAFT_THROW_IF_ERROR(cudaStreamSynchronize(stream.get()));
        REQUIRE(tilecraft::detail::gemm_run<void, T>(row, Op::none, Op::none, m, p, n, T(1), dc.get(), n, de.get(), p,
                                                     T(0), dd.get(), p, tunables, stream.get()) == cudaSuccess);
        TILECRAFT_THROW_IF_ERROR(cudaStreamSynchronize(stream.get()));
        tilecraft::test::sync_and_check();
        return dd.download();
      };
      const std::vector<T> got = chain(false);
      if (!racecheck) CHECK(same_buffer(got, chain(true)));
      // C's reference and sum |a b| + |beta c0|, for a bound on the two products' roundings: C's
      // error (2 (k + 2) (u + u_ref) sum |a b| + |beta c0|, u_ref the reference's own unit
      // roundoff) carried through E, plus D's own. Small shapes: on the host in long double
      // (u_ref negligible). The long K, too large for the host: cublasDgemm on the operands in
      // double (u_ref = 2^-53: far below float's bound; for double as large as the library's
      // own error, so the bound counts it twice).
      const long double u = std::is_same_v<T, float> ? 0x1p-24L : 0x1p-53L;
      long double u_ref = 0;
      std::vector<long double> c_ref(static_cast<std::size_t>(m * n)), c_abs(c_ref.size());
      if (small) {
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = 0; j < n; ++j) {
            long double sum = static_cast<long double>(beta) * c0[i * n + j];
            long double mag = std::fabs(sum);
            for (std::int64_t kk = 0; kk < k; ++kk) {
              sum += static_cast<long double>(a[i * k + kk]) * b[kk * n + j];
              mag += std::fabs(static_cast<long double>(a[i * k + kk]) * b[kk * n + j]);
            }
            c_ref[i * n + j] = sum;
            c_abs[i * n + j] = mag;
          }
      } else {
        REQUIRE(cublas != nullptr);
        u_ref = 0x1p-53L;
        auto product = [&](bool absolute) {  // A B (or |A| |B|), row-major, in double
          auto wide = [&](const std::vector<T>& x) {
            std::vector<double> w(x.size());
            for (std::size_t i = 0; i < x.size(); ++i) w[i] = absolute ? std::fabs(double(x[i])) : double(x[i]);
            return w;
          };
          DeviceBuffer<double> wa(wide(a)), wb(wide(b)), wc(static_cast<std::size_t>(m * n));
          wc.poison();
          Problem<double> q;
          q.m = m;
          q.n = n;
          q.k = k;
          Stream stream;
          REQUIRE(cublas->gemm(q, 1.0, wa.get(), wb.get(), 0.0, wc.get(), stream.get()) == CUBLAS_STATUS_SUCCESS);
          TILECRAFT_THROW_IF_ERROR(cudaStreamSynchronize(stream.get()));
          return wc.download();
        };
        const std::vector<double> ab = product(false), ab_abs = product(true);
        for (std::size_t i = 0; i < c_ref.size(); ++i) {
          const long double scaled = static_cast<long double>(beta) * c0[i];
          c_ref[i] = ab[i] + scaled;
          c_abs[i] = ab_abs[i] + std::fabs(scaled);
        }
      }
      int bad = 0;
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t l = 0; l < p; ++l) {
          long double sum = 0, carried = 0, mag = 0;
          for (std::int64_t j = 0; j < n; ++j) {
            const long double x = e[j * p + l];
            sum += c_ref[i * n + j] * x;
            carried += 2 * (k + 2) * (u + u_ref) * c_abs[i * n + j] * std::fabs(x);
            mag += std::fabs(c_ref[i * n + j] * x);
          }
          const long double bound = carried + 2 * (n + 2) * u * (mag + carried);
          const T v = got[i * p + l];
          if (!(std::fabs(static_cast<long double>(v) - sum) <= bound) && ++bad <= 3) {
            FAIL_CHECK("D(", i, ", ", l, ") = ", v, ", want ", static_cast<double>(sum), " within ",
                       static_cast<double>(bound));
          }
        }
      CHECK(bad == 0);
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

TEST_CASE("the workspace pool keeps the most it has held, until release_workspace") {
  // 200 MiB: above workspace_keep_bytes, below a sixteenth of any GPU that runs these tests.
  std::size_t free_bytes = 0, total_bytes = 0;
  TILECRAFT_THROW_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t bytes = std::size_t{200} << 20;
  if (bytes > total_bytes / tilecraft::workspace_keep_fraction || bytes > free_bytes / 2) {
    MESSAGE("skipped: the device has too little memory");
    return;
  }
  int device = 0;
  TILECRAFT_THROW_IF_ERROR(cudaGetDevice(&device));
  auto attribute = [&](cudaMemPoolAttr which) {
    cudaMemPool_t pool = nullptr;
    REQUIRE(tilecraft::detail::workspace_pool(device, pool, false, tilecraft::workspace_keep_bytes) == cudaSuccess);
    REQUIRE(pool != nullptr);
    std::uint64_t value = 0;
    REQUIRE(cudaMemPoolGetAttribute(pool, which, &value) == cudaSuccess);
    return value;
  };
  auto reserved = [&] { return attribute(cudaMemPoolAttrReservedMemCurrent); };
  CHECK(tilecraft::release_workspace() == cudaSuccess);
  for (int round = 0; round < 2; ++round) {
    void* p = nullptr;
    REQUIRE(tilecraft::detail::workspace_alloc(&p, bytes, nullptr) == cudaSuccess);
    REQUIRE(p != nullptr);
    TILECRAFT_THROW_IF_ERROR(cudaMemsetAsync(p, round, bytes, nullptr));
    REQUIRE(tilecraft::detail::workspace_free(p, nullptr) == cudaSuccess);
    TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());  // a pool releases beyond its threshold here
    CHECK(reserved() >= bytes);
    CHECK(attribute(cudaMemPoolAttrReleaseThreshold) >= bytes);  // kept until released
    CHECK(tilecraft::release_workspace() == cudaSuccess);
    CHECK(reserved() == 0);
    // What it keeps is workspace_keep_bytes again: a later phase of small work keeps no more.
    CHECK(attribute(cudaMemPoolAttrReleaseThreshold) == tilecraft::workspace_keep_bytes);
  }
}

TEST_CASE_TEMPLATE("gemm: Inf and NaN operands give IEEE's Inf and NaN, whole, split in K and with peeled edges", T,
                   float, double) {
  // Operands (integers in [-8, 8]) / 8 and C likewise: every finite sum is exact in any order,
  // and whether a result is NaN, +Inf or -Inf does not depend on the order either. Planted: Inf
  // in row 3 of op(A) at K 5, with zeros in row 5 of op(B) at columns 0 ... 9 (Inf x 0: NaN);
  // -Inf in column 7 of op(B) at the last K (the last slice where K is split); NaN in row 10
  // of op(A). The shapes run whole, split in K (2500) and with a ragged row and column peeled
  // off (129 x 67).
  tilecraft::detail::GemmTunables tunables = tunables_split_small();
  tunables.edge.min_volume = 0.0;
  const auto run = run_gemm<T>(tunables);
  const std::int64_t shapes[][3] = {{37, 45, 30}, {20, 40, 2500}, {129, 67, 60}};
  std::uint64_t salt = 2100;
  for (const auto& s : shapes) {
    for (const Combo& c : {combos[0], combos[5]}) {
      const Problem<T> p = make_problem(c, s[0], s[1], s[2], layouts[0], T(1), T(0.5));
      CAPTURE(p.str());
      HostData<T> h = make_data(p, ++salt);
      auto g = tilecraft::test::rng(salt);
      auto eighths = [&] { return static_cast<T>(static_cast<int>(g() % 17) - 8) / T(8); };
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t q = 0; q < p.k; ++q) h.a[p.ia(i, q)] = eighths();
      for (std::int64_t q = 0; q < p.k; ++q)
        for (std::int64_t j = 0; j < p.n; ++j) h.b[p.ib(q, j)] = eighths();
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t j = 0; j < p.n; ++j) h.c[p.ic(i, j)] = eighths();
      const T inf = std::numeric_limits<T>::infinity();
      h.a[p.ia(3, 5)] = inf;
      for (std::int64_t j = 0; j < 10; ++j) h.b[p.ib(5, j)] = T(0);
      h.b[p.ib(p.k - 1, 7)] = -inf;
      h.a[p.ia(10, 2)] = std::numeric_limits<T>::quiet_NaN();
      const std::vector<T> got = run_on(p, h, run);
      std::int64_t bad = 0;
      for (std::int64_t i = 0; i < p.m; ++i) {
        for (std::int64_t j = 0; j < p.n; ++j) {
          long double want = 0.0L;
          for (std::int64_t q = 0; q < p.k; ++q)
            want += static_cast<long double>(h.a[p.ia(i, q)]) * static_cast<long double>(h.b[p.ib(q, j)]);
          want = want + 0.5L * static_cast<long double>(h.c[p.ic(i, j)]);
          const long double x = got[p.ic(i, j)];
          const bool ok = std::isnan(want) ? std::isnan(x) : x == want;
          if (!ok && bad++ == 0)
            MESSAGE("C(" << i << ", " << j << ") = " << double(x) << ", expected " << double(want));
        }
      }
      CHECK(bad == 0);
    }
  }
}

}  // namespace split_pack_tests

// test_gemm (see gemm_testbed.cuh): gemm_epilogue with a bias + ReLU by column (C not read) and
// a row-scaled residual (C read), on split K and on packed operands in panels of C, through
// detail::gemm_epilogue_run with lower limits.
namespace epilogue_tests {

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
  // The ragged edge peeled off (bias + ReLU through the default: the thin products' epilogue
  // gets the coordinates of the whole C).
  tilecraft::detail::GemmTunables edge = split;
  edge.edge.min_volume = 0.0;
  for (const Combo& c : combos_for(shape++, full)) {
    check_epilogues<void>(make_problem(c, 129, 259, 31, layouts[variant++ % 2], T(1), T(0)), salt += 4, edge);
  }
  // Packed operands in panels of C: the epilogue still gets the coordinates of the whole C.
  const tilecraft::detail::GemmTunables packed = tunables_pack<T>(16 << 10, split);
  for (const Combo& c : combos_for(shape++, full)) {
    check_epilogues<void>(make_problem(c, 150, 140, 30, layouts[variant++ % 2], T(1), T(0)), salt += 4, packed);
    check_epilogues<Large>(make_problem(c, 300, 270, 20, layouts[0], T(1), T(0)), salt += 4, packed);
  }
}

}  // namespace epilogue_tests

// test_gemm (see gemm_testbed.cuh): large shapes against cuBLAS only (no host reference):
// 1000 x 999 x 1001 in both orders with every op, 2048^3, and a shape that takes GemmPolicyHuge,
// with the operands as given and packed. Skipped in a
// light run (TILECRAFT_TEST_HUGE=0).
namespace large_tests {

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
  // Fewer 128 x 128 tiles than a wave, which choose_default splits in K where modeled_time says
  // they finish sooner than smaller tiles (132 SMs, float: 1100 x 1300 x 1500's 99 tiles, filled
  // element by element here, their K steps dealt to 264 blocks); 1025^3 (float) has its last
  // row and column peeled off (edge_plan), its 64 whole tiles in 4 slices.
  check_gemm(make_problem(combos[3], 1025, 1025, 1025, layouts[0], T(1), T(0.25)), ++salt, run_gemm<T>, &cublas, false);
  check_gemm(make_problem(combos[6], 1100, 1300, 1500, layouts[2], T(-0.5), T(0)), ++salt, run_gemm<T>, &cublas, false);
  // The large default by shape (float: 256 tiles of 128 x 128, double: 512 of 128 x 64); once
  // aligned with vector paths, once column-major with odd leading dimensions and unaligned
  // bases (the element-by-element path) and beta != 0.
  check_gemm(make_problem(combos[0], 2048, 2048, 2048, layouts[0], T(1), T(0)), ++salt, run_gemm<T>, &cublas, false);
  check_gemm(make_problem(combos[5], 2048, 2048, 2048, layouts[2], T(-1), T(0.5)), ++salt, run_gemm<T>, &cublas, false);
  // Where both operands fill in vectors and choose_default takes 128 x 128 tiles (large_huge),
  // float takes GemmPolicyHuge (256 x 128) for K >= 1024 when its tiles fill at least half of a
  // last wave. The shape comes from this GPU: 2064 rows, K = 1037 (64.8 steps of 16), and the
  // first column count from 1024 on (in steps of 36: ragged tiles) where both hold (132 SMs:
  // 2716). A^T as stored (no packing): that and 2048^3; A packed: that and 1537 x 1544 x 37
  // (ragged along M, a K of one and a bit steps).
  check_gemm(make_problem(combos[1], 2048, 2048, 2048, layouts[1], T(1), T(0.5)), ++salt, run_gemm<T>, &cublas, false);
  const auto packed = run_gemm<T>(tunables_pack<T>(std::int64_t{64} << 20));
  check_gemm(make_problem(combos[0], 1537, 1544, 37, layouts[1], T(0.75), T(0)), ++salt, packed, &cublas, false);
  tilecraft::detail::DeviceLimits limits;
  TILECRAFT_THROW_IF_ERROR(tilecraft::detail::device_limits(limits));
  std::int64_t huge_n = 0;
  for (std::int64_t n = 1024; n <= 8192 && huge_n == 0; n += 36) {
    if (tilecraft::detail::choose_default<float>(2064, n, 1037, limits) == tilecraft::detail::GemmChoice::large_huge &&
        tilecraft::detail::huge_policy_pays(tilecraft::detail::facts_of<tilecraft::GemmPolicyHuge>(), 2064, n, 1037,
                                            limits.sms, tilecraft::detail::GemmHugeLimits{})) {
      huge_n = n;
    }
  }
  if (huge_n == 0) {
    MESSAGE("no shape of 2064 x N x 1037 takes GemmPolicyHuge on this GPU: those cases skipped");
    return;
  }
  check_gemm(make_problem(combos[1], 2064, huge_n, 1037, layouts[1], T(-1), T(0)), ++salt, run_gemm<T>, &cublas, false);
  check_gemm(make_problem(combos[0], 2064, huge_n, 1037, layouts[1], T(0.5), T(2)), ++salt, packed, &cublas, false);
}

}  // namespace large_tests
