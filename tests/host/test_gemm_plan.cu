// The launcher's host-side plans: the split of K (detail::split_k_plan), the packing panels
// (detail::panel_extent) and the choice of GemmPolicyHuge (detail::huge_policy_pays), checked
// without a GPU on random shapes against the rules they promise, and on the measured shapes.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>

#include <tilecraft/device/gemm.cuh>

#include "test_util.cuh"

namespace {
using tilecraft::detail::GemmSplitLimits;
using tilecraft::detail::split_k_plan;
using tilecraft::detail::SplitPlan;

// Sets the launcher's split limits for one scope.
struct SplitLimits {
  GemmSplitLimits saved = tilecraft::detail::gemm_split_limits;
  explicit SplitLimits(GemmSplitLimits l) { tilecraft::detail::gemm_split_limits = l; }
  ~SplitLimits() { tilecraft::detail::gemm_split_limits = saved; }
  SplitLimits(const SplitLimits&) = delete;
  SplitLimits& operator=(const SplitLimits&) = delete;
};

// A size between 1 and 2^bits, log-uniform (so small and large sizes both come up).
std::int64_t pick(std::mt19937_64& gen, int bits) {
  const int e = static_cast<int>(gen() % static_cast<std::uint64_t>(bits + 1));
  return 1 + static_cast<std::int64_t>(gen() % (std::uint64_t{1} << e));
}

template <class Policy>
void check_random_plans(std::uint64_t salt) {
  using T = typename Policy::element_type;
  using Shape = typename Policy::tiled::shape;
  constexpr std::int64_t tk = Shape::tile_k;
  const GemmSplitLimits limits = tilecraft::detail::gemm_split_limits;
  const std::int64_t min_slice = limits.min_slice > tk ? limits.min_slice : tk;
  auto gen = tilecraft::test::rng(salt);
  int split = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t m = pick(gen, 13), n = pick(gen, 13), k = pick(gen, 17);
    const int sms = static_cast<int>(1 + gen() % 200);
    const std::int64_t tiles = ((m + Shape::tile_m - 1) / Shape::tile_m) * ((n + Shape::tile_n - 1) / Shape::tile_n);
    const SplitPlan p = split_k_plan<Policy>(m, n, k, tiles, sms);
    INFO("m = ", m, ", n = ", n, ", k = ", k, ", SMs = ", sms, ": ", p.slices, " slices of ", p.k_slice);
    REQUIRE(p.slices >= 1);
    if (p.slices == 1) {
      REQUIRE(p.k_slice == k);
      continue;
    }
    ++split;
    // Whole K steps, every slice non-empty, together exactly K.
    REQUIRE(p.k_slice % tk == 0);
    REQUIRE((p.slices - 1) * p.k_slice < k);
    REQUIRE(k <= p.slices * p.k_slice);
    // Only to fill block slots C alone leaves empty, within the limits.
    REQUIRE(p.slices <= Policy::max_split_k);
    REQUIRE(tiles * p.slices <= static_cast<std::int64_t>(sms) * Policy::min_blocks_per_sm);
    REQUIRE(p.k_slice >= min_slice);
    REQUIRE(static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >= limits.min_volume);
    REQUIRE(p.slices * m * n * static_cast<std::int64_t>(sizeof(T)) <= (std::int64_t{64} << 20));
  }
  CHECK(split >= 500);  // the shapes reach the split path often enough to test it
}
}  // namespace

TEST_CASE("split-K plans: whole K steps that add up to K, within every limit, on random shapes") {
  check_random_plans<tilecraft::GemmPolicyMedium>(1);
  check_random_plans<tilecraft::GemmPolicySkinny>(2);
  check_random_plans<tilecraft::GemmPolicySmall>(3);
  check_random_plans<tilecraft::GemmPolicyMediumF64>(4);
  check_random_plans<tilecraft::GemmPolicyLarge>(5);
  check_random_plans<tilecraft::GemmPolicy<32, 64, tilecraft::RegBlock<2, 4>, 4, 4, 3, 8, 16>>(6);  // K step 4
  // Limits below one K step, and no volume floor: slices are still whole, non-empty steps.
  const SplitLimits tiny({1, 0.0});
  check_random_plans<tilecraft::GemmPolicyMedium>(7);
  check_random_plans<tilecraft::GemmPolicy<32, 64, tilecraft::RegBlock<2, 4>, 4, 4, 3, 8, 16>>(8);
}

namespace {
template <class Policy>
void expect_plan(std::int64_t m, std::int64_t n, std::int64_t k, int slices, std::int64_t k_slice) {
  using Shape = typename Policy::tiled::shape;
  const std::int64_t tiles = ((m + Shape::tile_m - 1) / Shape::tile_m) * ((n + Shape::tile_n - 1) / Shape::tile_n);
  const SplitPlan p = split_k_plan<Policy>(m, n, k, tiles, 132);
  INFO(m, " x ", n, " x ", k, " on ", tiles, " tiles");
  CHECK(p.slices == slices);
  CHECK(p.k_slice == k_slice);
}
}  // namespace

TEST_CASE("split-K plans of the measured shapes (132 SMs, as on the H100 / H200)") {
  // 1000 x 999 x 1001 on 64 x 64 tiles: 256 tiles, 528 slots: 2 slices of 32 K steps.
  expect_plan<tilecraft::GemmPolicyMedium>(1000, 999, 1001, 2, 512);
  // 768^3: 144 tiles: 3 slices of 256.
  expect_plan<tilecraft::GemmPolicyMedium>(768, 768, 768, 3, 256);
  // 512^3 on 32 x 64 tiles: below 2^28 multiply-adds, kept whole.
  expect_plan<tilecraft::GemmPolicySmall>(512, 512, 512, 1, 512);
  // 64 x 8192 x 8192 on 64 x 128 tiles: 64 tiles, 528 slots: 8 slices of 1024.
  expect_plan<tilecraft::GemmPolicySkinny>(64, 8192, 8192, 8, 1024);
  // 4096^3 on 128 x 128 tiles: more tiles than slots, never split.
  expect_plan<tilecraft::GemmPolicyLarge>(4096, 4096, 4096, 1, 4096);
}

TEST_CASE("packing panels: as few as the budget allows, equal in whole tiles, covering the extent") {
  using tilecraft::detail::panel_extent;
  auto gen = tilecraft::test::rng(11);
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t tile = std::int64_t{1} << (gen() % 9);  // 1 .. 256
    const std::int64_t extent = pick(gen, 20);
    const std::int64_t most = tile * (1 + static_cast<std::int64_t>(gen() % 64));
    const std::int64_t p = panel_extent(extent, most, tile);
    INFO(extent, " in panels of at most ", most, " (tile ", tile, "): ", p);
    if (extent <= most) {
      REQUIRE(p == extent);
      continue;
    }
    REQUIRE(p % tile == 0);
    REQUIRE(p <= most);
    const std::int64_t panels = (extent + p - 1) / p;
    REQUIRE(panels == (extent + most - 1) / most);       // no more panels than the budget needs
    REQUIRE(extent - (panels - 1) * p > 0);              // the last panel is not empty
    REQUIRE(p - (extent + panels - 1) / panels < tile);  // equal, but for the rounding to tiles
  }
  // 6144 rows of K = 6144 floats in 64 MiB on 256-row tiles: three panels of 2048 rows (the
  // largest that fit would leave 1024 for the third).
  const std::int64_t most = (std::int64_t{64} << 20) / (6144 * 4) / 256 * 256;
  CHECK(most == 2560);
  CHECK(panel_extent(6144, most, 256) == 2048);
  CHECK(panel_extent(8192, (std::int64_t{64} << 20) / (8192 * 4) / 256 * 256, 256) == 2048);
}

TEST_CASE("GemmPolicyHuge: a long K, and C's tiles filling at least half of the last wave") {
  using tilecraft::GemmPolicyHuge;
  using tilecraft::detail::huge_policy_pays;
  // The two limits at their edges, on 132 SMs: K of 1023 / 1024; 65 or 66 tiles past the full
  // waves (256 x 128 tiles: 256 rows by 65 or 66 columns of 128, plus one or two full waves).
  CHECK_FALSE(huge_policy_pays<GemmPolicyHuge>(4096, 4096, 1023, 132));
  CHECK(huge_policy_pays<GemmPolicyHuge>(4096, 4096, 1024, 132));
  CHECK(huge_policy_pays<GemmPolicyHuge>(256, 66 * 128, 4096, 132));
  CHECK_FALSE(huge_policy_pays<GemmPolicyHuge>(256, 65 * 128, 4096, 132));
  CHECK_FALSE(huge_policy_pays<GemmPolicyHuge>(256, 65 * 128 - 127, 4096, 132));  // 65 tiles, the last ragged
  CHECK(huge_policy_pays<GemmPolicyHuge>(512, 99 * 128, 4096, 132));              // 198 tiles: 1 wave + 66
  CHECK_FALSE(huge_policy_pays<GemmPolicyHuge>(512, 98 * 128, 4096, 132));        // 196: 1 wave + 64
  CHECK(huge_policy_pays<GemmPolicyHuge>(3 * 256, 88 * 128, 4096, 132));          // 264: 2 full waves
  CHECK(huge_policy_pays<GemmPolicyHuge>(1, 1, 4096, 1));                         // one tile, one SM
  CHECK_FALSE(huge_policy_pays<GemmPolicyHuge>(1, 1, 4096, 3));                   // one tile of three SMs
  CHECK_FALSE(huge_policy_pays<GemmPolicyHuge>(0, 4096, 4096, 132));
  // The measured shapes on 132 SMs (benchmarks/TUNING.md): 4096^3 (512 tiles: 3 waves and
  // 116), 8192^3, 2048^3 (128 tiles in one wave), 6144^3 in panels of 2048 rows (384 tiles:
  // 2 waves and 120) take it; 3072^3 (288 tiles: 2 waves and 24), 5120^3 (6 waves and 8),
  // 2304^3 and K = 512 or 64 do not.
  CHECK(huge_policy_pays<GemmPolicyHuge>(4096, 4096, 4096, 132));
  CHECK(huge_policy_pays<GemmPolicyHuge>(8192, 8192, 8192, 132));
  CHECK(huge_policy_pays<GemmPolicyHuge>(2048, 2048, 2048, 132));
  CHECK(huge_policy_pays<GemmPolicyHuge>(2048, 6144, 6144, 132));
  CHECK_FALSE(huge_policy_pays<GemmPolicyHuge>(3072, 3072, 3072, 132));
  CHECK_FALSE(huge_policy_pays<GemmPolicyHuge>(5120, 5120, 5120, 132));
  CHECK_FALSE(huge_policy_pays<GemmPolicyHuge>(2304, 2304, 2304, 132));
  CHECK_FALSE(huge_policy_pays<GemmPolicyHuge>(8192, 8192, 512, 132));
  CHECK_FALSE(huge_policy_pays<GemmPolicyHuge>(8192, 8192, 64, 132));
}
