// The device GEMM's plan (device/detail/gemm_plan.cuh), pure host code checked without a GPU:
// the split of K, the packing and its panels, the choice of GemmPolicyHuge, the default policy
// by shape and device, the row-major form of a call and the grouped block order, on random
// shapes against the rules they promise and on the measured shapes; the rules of the TMA
// tensor maps the wgmma kernel reads its operands through.
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <tilecraft/device/detail/gemm_kernels.cuh>
#include <tilecraft/device/detail/gemm_plan.cuh>
#include <tilecraft/device/detail/tensor_map.cuh>

#include "test_util.cuh"

namespace {
using tilecraft::Op;
using tilecraft::Order;
using tilecraft::detail::facts_of;
using tilecraft::detail::GemmSplitLimits;
using tilecraft::detail::split_cost;
using tilecraft::detail::split_k_plan;
using tilecraft::detail::SplitPlan;

// A size between 1 and 2^bits, log-uniform (so small and large sizes both come up).
std::int64_t pick(tilecraft::test::Rng& gen, int bits) {
  const int e = static_cast<int>(gen() % static_cast<std::uint64_t>(bits + 1));
  return 1 + static_cast<std::int64_t>(gen() % (std::uint64_t{1} << e));
}

template <class Policy>
void check_random_plans(std::uint64_t salt, const GemmSplitLimits& limits = {}) {
  using T = typename Policy::element_type;
  using Shape = typename Policy::tiled::shape;
  constexpr std::int64_t tk = Shape::tile_k;
  const std::int64_t min_slice = limits.min_slice > tk ? limits.min_slice : tk;
  auto gen = tilecraft::test::rng(salt);
  int split = 0, tail_split = 0, dealt = 0;
  // 60000 shapes: each policy and limit meets the tail split about 90 to 400 times (20000 gave as few
  // as 19 on one seed).
  for (int i = 0; i < 60000; ++i) {
    const std::int64_t m = pick(gen, 13), n = pick(gen, 13), k = pick(gen, 17);
    const int sms = static_cast<int>(1 + gen() % 200);
    const std::int64_t tiles = ((m + Shape::tile_m - 1) / Shape::tile_m) * ((n + Shape::tile_n - 1) / Shape::tile_n);
    const SplitPlan p = split_k_plan(facts_of<Policy>(), m, n, k, sms, limits);
    INFO("m = ", m, ", n = ", n, ", k = ", k, ", SMs = ", sms, ": ", p.slices, " slices of ", p.k_slice);
    REQUIRE(p.slices >= 1);
    if (p.slices == 1) {
      REQUIRE(p.k_slice == k);
      REQUIRE(p.units == 0);
      continue;
    }
    ++split;
    if (p.units > 0) {
      // Dealt out: a wave of units, each at least a slice's K steps, no tile cut in more
      // pieces than the plan's slices (the workspace's), and only where balancing is allowed.
      ++dealt;
      REQUIRE(limits.balanced);
      REQUIRE(p.units == static_cast<std::int64_t>(sms) * wave_blocks_per_sm(facts_of<Policy>(), limits));
      const std::int64_t steps = (k + tk - 1) / tk;
      const tilecraft::detail::BalancedSplit deal{tiles - p.whole, steps, p.units};
      // k_slice: the shortest share, in elements of K.
      std::int64_t shortest = deal.total();
      for (std::int64_t u = 0; u < p.units; ++u) shortest = std::min(shortest, deal.begin(u + 1) - deal.begin(u));
      REQUIRE(shortest * tk == p.k_slice);
      REQUIRE(p.k_slice >= std::min<std::int64_t>(min_slice, steps * tk));
      for (std::int64_t t = 0; t < tiles - p.whole; ++t) REQUIRE(deal.pieces(t) <= p.slices);
    } else {
      // Whole K steps, every slice non-empty, together exactly K.
      REQUIRE(p.k_slice % tk == 0);
      REQUIRE((p.slices - 1) * p.k_slice < k);
      REQUIRE(k <= p.slices * p.k_slice);
    }
    // Only the tiles of a last wave (every tile, when C has less than a wave), within the
    // limits: whole waves before them, and the slices no more blocks than a wave holds.
    const std::int64_t wave = static_cast<std::int64_t>(sms) * Policy::min_blocks_per_sm;
    const std::int64_t tail = tiles - p.whole;
    REQUIRE(p.whole >= 0);
    REQUIRE(p.whole % wave == 0);
    REQUIRE(tail > 0);
    REQUIRE(tail < wave);
    if (p.whole > 0) ++tail_split;
    REQUIRE(p.slices <= Policy::max_split_k);
    // A whole product, or the last wave's tiles, split only where the estimate says it pays.
    const int per_sm = wave_blocks_per_sm(facts_of<Policy>(), limits);
    const std::int64_t split_tiles = p.whole > 0 ? tail : tiles;
    REQUIRE(split_cost(split_tiles, k, sms, per_sm, p) < split_cost(split_tiles, k, sms, per_sm, SplitPlan{1, k}));
    if (p.units == 0) REQUIRE(p.k_slice >= min_slice);
    REQUIRE(static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >= limits.min_volume);
    REQUIRE(p.slices * tail * Shape::tile_m * Shape::tile_n * static_cast<std::int64_t>(sizeof(T)) <= limits.max_bytes);
    // With the tail left whole, only products with less than a wave are split.
    GemmSplitLimits no_tail = limits;
    no_tail.split_tail = false;
    const SplitPlan q = split_k_plan(facts_of<Policy>(), m, n, k, sms, no_tail);
    REQUIRE(q.whole == 0);
    REQUIRE((q.slices > 1) == (p.slices > 1 && p.whole == 0));
  }
  INFO("split ", split, " times, ", tail_split, " of them a tail, ", dealt, " dealt out");
  CHECK(split >= 500);                      // the shapes reach the split path often enough to test it
  CHECK(tail_split >= 20);                  // and the tail split too
  if (limits.balanced) CHECK(dealt >= 20);  // and the dealt shares
}
}  // namespace

TEST_CASE("K steps dealt out: every step in exactly one share, shares within one step of each other") {
  auto gen = tilecraft::test::rng(31);
  // Up to 2^7 tiles of 2^8 steps: every step is walked, so larger ones cost seconds.
  for (int i = 0; i < 3000; ++i) {
    const std::int64_t tiles = pick(gen, 7), steps = pick(gen, 8);
    const std::int64_t total = tiles * steps;
    const std::int64_t units = 1 + static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(total));
    const tilecraft::detail::BalancedSplit deal{tiles, steps, units};
    INFO(tiles, " tiles of ", steps, " steps to ", units, " units");
    // The shares: consecutive runs from step 0 to the last, within one step of each other.
    REQUIRE(deal.begin(0) == 0);
    REQUIRE(deal.begin(units) == total);
    std::vector<std::int64_t> owner;  // every step's unit, by walking the shares in order
    owner.reserve(static_cast<std::size_t>(total));
    for (std::int64_t u = 0; u < units; ++u) {
      const std::int64_t share = deal.begin(u + 1) - deal.begin(u);
      REQUIRE(share >= total / units);
      REQUIRE(share <= total / units + 1);
      owner.insert(owner.end(), static_cast<std::size_t>(share), u);
    }
    REQUIRE(static_cast<std::int64_t>(owner.size()) == total);
    // unit_of, first and pieces against the walk: a tile's pieces are the distinct units among
    // its steps (consecutive ones), never more than most_pieces.
    for (std::int64_t x = 0; x < total; ++x) REQUIRE(deal.unit_of(x) == owner[static_cast<std::size_t>(x)]);
    for (std::int64_t t = 0; t < tiles; ++t) {
      const auto at = [&](std::int64_t j) { return owner[static_cast<std::size_t>(t * steps + j)]; };
      std::int64_t distinct = 1;
      for (std::int64_t j = 1; j < steps; ++j) distinct += at(j) != at(j - 1) ? 1 : 0;
      REQUIRE(deal.first(t) == at(0));
      REQUIRE(deal.pieces(t) == distinct);
      REQUIRE(deal.pieces(t) <= deal.most_pieces());
    }
  }
}

TEST_CASE("split-K plans: whole K steps that add up to K, within every limit, on random shapes") {
  check_random_plans<tilecraft::GemmPolicyMedium>(1);
  check_random_plans<tilecraft::GemmPolicySkinny>(2);
  check_random_plans<tilecraft::GemmPolicySmall>(3);
  check_random_plans<tilecraft::GemmPolicyMediumF64>(4);
  check_random_plans<tilecraft::GemmPolicyLarge>(5);
  check_random_plans<tilecraft::GemmPolicy<32, 64, tilecraft::RegBlock<2, 4>, 4, 4, 3, 8, 16>>(6);  // K step 4
  // Limits below one K step, and no volume floor: slices are still whole, non-empty steps.
  const GemmSplitLimits tiny{1, 0.0, std::int64_t{64} << 20};
  check_random_plans<tilecraft::GemmPolicyMedium>(7, tiny);
  check_random_plans<tilecraft::GemmPolicy<32, 64, tilecraft::RegBlock<2, 4>, 4, 4, 3, 8, 16>>(8, tiny);
  // A smaller workspace budget bounds the slices too.
  check_random_plans<tilecraft::GemmPolicySkinny>(9, GemmSplitLimits{256, 0.0, std::int64_t{1} << 20});
  // Equal slices only.
  GemmSplitLimits uniform{};
  uniform.balanced = false;
  check_random_plans<tilecraft::GemmPolicyMedium>(10, uniform);
}

namespace {
template <class Policy>
void expect_plan(std::int64_t m, std::int64_t n, std::int64_t k, int slices, std::int64_t k_slice,
                 std::int64_t whole = 0, std::int64_t units = 0) {
  using Shape = typename Policy::tiled::shape;
  const std::int64_t tiles = ((m + Shape::tile_m - 1) / Shape::tile_m) * ((n + Shape::tile_n - 1) / Shape::tile_n);
  GemmSplitLimits limits{};
  limits.balanced = units > 0;
  const SplitPlan p = split_k_plan(facts_of<Policy>(), m, n, k, 132, limits);
  INFO(m, " x ", n, " x ", k, " on ", tiles, " tiles");
  CHECK(p.slices == slices);
  CHECK(p.k_slice == k_slice);
  CHECK(p.whole == whole);
  CHECK(p.units == units);
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
  // 4096^3 on 128 x 128 tiles: 1024 tiles, 3 waves of 264 and 232 tiles, which stay whole.
  expect_plan<tilecraft::GemmPolicyLarge>(4096, 4096, 4096, 1, 4096);
  // 3072^3: 576 tiles, 2 waves and 48 tiles, each in 5 slices of 624 (528 whole tiles).
  expect_plan<tilecraft::GemmPolicyLarge>(3072, 3072, 3072, 5, 624, 528);
  // 1536 x 3072 x 8192: 288 tiles, a wave and 24 tiles, each in 11 slices of 752.
  expect_plan<tilecraft::GemmPolicyLarge>(1536, 3072, 8192, 11, 752, 264);
  // 2048 x 3072 x 1024: a wave and 120 tiles; the 120 split in 2 slices of 512 (240 blocks).
  expect_plan<tilecraft::GemmPolicyLarge>(2048, 3072, 1024, 2, 512, 264);
  // Fewer 128 x 128 tiles than a wave of 264: the cheapest split by split_cost.
  // 1024^3: 64 tiles; 4 slices fill 256 of the 264 slots (2 slices: a lone block an SM).
  expect_plan<tilecraft::GemmPolicyLarge>(1024, 1024, 1024, 4, 256);
  // 1025^3: 81 tiles; 3 slices fill 243 slots (4 would start a second round).
  expect_plan<tilecraft::GemmPolicyLarge>(1025, 1025, 1025, 3, 352);
  // 1100 x 1300 x 1500: 99 tiles; 5 slices: 495 blocks, two rounds, the second 87% full.
  expect_plan<tilecraft::GemmPolicyLarge>(1100, 1300, 1500, 5, 304);
  // 1000 x 999 x 1001: 64 tiles, at most 3 slices of 256 or more: 2, a lone block an SM.
  expect_plan<tilecraft::GemmPolicyLarge>(1000, 999, 1001, 2, 512);
}

TEST_CASE("K steps dealt out: the plans of the measured shapes (132 SMs, two blocks an SM)") {
  // 1100 x 1300 x 1500: 99 tiles of 94 steps to 264 blocks, 35 or 36 steps each (3 / 8 of a
  // tile's K, where 2 slices took 1 / 2 and 5 took two rounds), a tile in at most 4 pieces.
  expect_plan<tilecraft::GemmPolicyLarge>(1100, 1300, 1500, 4, 560, 0, 264);
  // 4096^3: 3 whole waves, then the last 232 tiles' steps dealt to a wave of 264.
  expect_plan<tilecraft::GemmPolicyLarge>(4096, 4096, 4096, 3, 3584, 792, 264);
  // 1024^3 keeps its 4 slices (256 of 264 slots; dealt out: 0.322 against 0.3125 rounds).
  expect_plan<tilecraft::GemmPolicyLarge>(1024, 1024, 1024, 4, 256, 0, 0);
}

TEST_CASE("split_cost: rounds of a wave, lone blocks, and the partial sums' round trip") {
  // 64 tiles on 132 SMs of 2 slots, K = 1024.
  const auto cost = [](int slices, std::int64_t k_slice) {
    return split_cost(64, 1024, 132, 2, SplitPlan{slices, k_slice});
  };
  CHECK(cost(1, 1024) == doctest::Approx(0.6));                                // a lone block an SM
  CHECK(cost(2, 512) == doctest::Approx(0.3 + 2 * 64 / 4096.0));               // still lone, half of K
  CHECK(cost(3, 352) == doctest::Approx(352 / 1024.0 + 3 * 64 / 4096.0));      // one round
  CHECK(cost(5, 208) == doctest::Approx(2 * 208 / 1024.0 + 5 * 64 / 4096.0));  // 320 blocks: two
  // Four blocks an SM: a lone block costs a whole round.
  CHECK(split_cost(64, 1024, 132, 4, SplitPlan{1, 1024}) == doctest::Approx(1.0));
  // K == 0 (a scale-only call): the rounds of the blocks, not 0 / 0.
  CHECK(split_cost(64, 0, 132, 2, SplitPlan{1, 0}) == doctest::Approx(0.6));
  CHECK(std::isfinite(split_cost(64, 0, 132, 2, SplitPlan{1, 0, 0, 64})));
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
  auto huge_policy_pays = [](std::int64_t m, std::int64_t n, std::int64_t k, int sms) {
    return tilecraft::detail::huge_policy_pays(facts_of<tilecraft::GemmPolicyHuge>(), m, n, k, sms,
                                               tilecraft::detail::GemmHugeLimits{});
  };
  // The two limits at their edges, on 132 SMs: K of 1023 / 1024; 65 or 66 tiles past the full
  // waves (256 x 128 tiles: 256 rows by 65 or 66 columns of 128, plus one or two full waves).
  CHECK_FALSE(huge_policy_pays(4096, 4096, 1023, 132));
  CHECK(huge_policy_pays(4096, 4096, 1024, 132));
  CHECK(huge_policy_pays(256, 66 * 128, 4096, 132));
  CHECK_FALSE(huge_policy_pays(256, 65 * 128, 4096, 132));
  CHECK_FALSE(huge_policy_pays(256, 65 * 128 - 127, 4096, 132));  // 65 tiles, the last ragged
  CHECK(huge_policy_pays(512, 99 * 128, 4096, 132));              // 198 tiles: 1 wave + 66
  CHECK_FALSE(huge_policy_pays(512, 98 * 128, 4096, 132));        // 196: 1 wave + 64
  CHECK(huge_policy_pays(3 * 256, 88 * 128, 4096, 132));          // 264: 2 full waves
  CHECK(huge_policy_pays(1, 1, 4096, 1));                         // one tile, one SM
  CHECK_FALSE(huge_policy_pays(1, 1, 4096, 3));                   // one tile of three SMs
  CHECK_FALSE(huge_policy_pays(0, 4096, 4096, 132));
  // The measured shapes on 132 SMs (benchmarks/TUNING.md): 4096^3 (512 tiles: 3 waves and
  // 116), 8192^3, 2048^3 (128 tiles in one wave), 6144^3 in panels of 2048 rows (384 tiles:
  // 2 waves and 120) take it; 3072^3 (288 tiles: 2 waves and 24), 5120^3 (6 waves and 8),
  // 2304^3 and K = 512 or 64 do not.
  CHECK(huge_policy_pays(4096, 4096, 4096, 132));
  CHECK(huge_policy_pays(8192, 8192, 8192, 132));
  CHECK(huge_policy_pays(2048, 2048, 2048, 132));
  CHECK(huge_policy_pays(2048, 6144, 6144, 132));
  CHECK_FALSE(huge_policy_pays(3072, 3072, 3072, 132));
  CHECK_FALSE(huge_policy_pays(5120, 5120, 5120, 132));
  CHECK_FALSE(huge_policy_pays(2304, 2304, 2304, 132));
  CHECK_FALSE(huge_policy_pays(8192, 8192, 512, 132));
  CHECK_FALSE(huge_policy_pays(8192, 8192, 64, 132));
}

namespace {
tilecraft::detail::DeviceLimits device(int sms, int optin_kib, int per_sm_kib) {
  tilecraft::detail::DeviceLimits l;
  l.sms = sms;
  l.smem_per_block_optin = optin_kib * 1024;
  l.smem_per_sm = per_sm_kib * 1024;
  return l;
}
}  // namespace

TEST_CASE("the default policy by shape and device") {
  using tilecraft::detail::choose_default;
  using C = tilecraft::detail::GemmChoice;
  const auto h200 = device(132, 227, 228), a100 = device(108, 163, 164), t4 = device(40, 64, 64);
  // Equal K slices (the plans of operands that do not fill in vectors); dealt-out steps below.
  GemmSplitLimits uniform{};
  uniform.balanced = false;
  // Large C: the tiles whose waves modeled_time finds shortest (64 x 128 at 4096^3: their
  // faster pace; 64 x 64 at 2560^3 and 2500^3: 1600 tiles fill 3 waves of 528 and a tail of 16
  // that is split, where 400 tiles of 128 x 128 take two waves of 264; 128 x 128 at 3072^3, with
  // GemmPolicyHuge where it pays on vector-filled operands), the 3-stage 128 x 128 tiles where
  // 66 KiB do not fit (sm_75).
  CHECK(choose_default<float>(4096, 4096, 4096, h200, uniform) == C::skinny);
  CHECK(choose_default<float>(4096, 4096, 4096, a100, uniform) == C::skinny);
  CHECK(choose_default<float>(4096, 4096, 4096, t4, uniform) == C::large3);
  CHECK(choose_default<float>(2560, 2560, 2560, h200, uniform) == C::skinny);
  CHECK(choose_default<float>(2500, 2501, 2503, h200, uniform) == C::skinny);
  CHECK(choose_default<float>(3072, 3072, 3072, h200, uniform) == C::skinny);
  CHECK(choose_default<float>(3072, 3072, 3072, t4, uniform) == C::large3);
  // At most 64 rows, or fewer 128 x 128 tiles than 1.6 x the SMs (a wave of two blocks an SM at
  // most 80% full): Skinny for K >= 2048, else Medium when 64 x 64 tiles fill the SMs, else Small.
  CHECK(choose_default<float>(64, 8192, 8192, h200, uniform) == C::skinny);
  // K == 0 (C = beta C only) chooses as K == 1 does (the model's costs stay numbers: a NaN made
  // every comparison fail and fell through to the largest tiles).
  for (std::int64_t mn : {std::int64_t{64}, std::int64_t{1000}, std::int64_t{4096}}) {
    CAPTURE(mn);
    CHECK(choose_default<float>(mn, mn, 0, h200, uniform) == choose_default<float>(mn, mn, 1, h200, uniform));
  }
  CHECK(choose_default<float>(64, 8192, 2047, h200, uniform) == C::small);            // 128 tiles of 64 x 64: < 132
  CHECK(choose_default<float>(64, 8192 + 64 * 4, 2047, h200, uniform) == C::medium);  // 132 tiles
  CHECK(choose_default<float>(1000, 999, 1001, h200, uniform) == C::medium);          // 64 tiles of 128: 256 of 64
  CHECK(choose_default<float>(512, 512, 512, h200, uniform) == C::small);             // 64 tiles of 64 x 64
  CHECK(choose_default<float>(2048, 1792, 512, h200, uniform) == C::skinny);          // 224 tiles of 128 x 128
  CHECK(choose_default<float>(2048, 1665, 512, h200, uniform) == C::skinny);          // ragged: 224 too
  CHECK(choose_default<float>(2048, 1664, 512, h200, uniform) == C::large);           // 208 tiles: < 211.2, split
  CHECK(choose_default<float>(300, 2000, 5000, h200, uniform) == C::skinny);          // 80 tiles, K >= 2048
  // ... and Medium there where 64 x 128 tiles fill less than 80% of a wave and 64 x 64 ones
  // fill whole waves but for a short tail (split).
  CHECK(choose_default<float>(1536, 1536, 4096, h200, uniform) == C::medium);  // 288 of 528; 576 = 528 + 48
  // ... and 128 x 128 tiles split in K where modeled_time says they finish sooner than the
  // smaller tiles (split too, or in whole waves): 1024^3 in 4 slices (0.312 rounds of the
  // largest tiles, 64 x 64 tiles in 2 slices 0.331 at their pace), 1025^3 in 3, 1024 x 3072 x
  // 4096 in 4; not 1200^3 (2 slices: 0.548, 64 x 64 tiles 0.536); not 1537 x 1539 x 1541
  // (0.768; its 625 tiles of 64 x 64 take a whole wave of 528 at their whole waves' pace and a
  // tail of 97 split: 0.689).
  CHECK(choose_default<float>(1024, 1024, 1024, h200, uniform) == C::large);
  CHECK(choose_default<float>(1025, 1025, 1025, h200, uniform) == C::large);
  CHECK(choose_default<float>(1024, 3072, 4096, h200, uniform) == C::large);
  CHECK(choose_default<float>(2048, 1536, 4096, h200, uniform) == C::large);
  CHECK(choose_default<float>(1200, 1200, 1200, h200, uniform) == C::medium);
  CHECK(choose_default<float>(1537, 1539, 1541, h200, uniform) == C::medium);
  CHECK(choose_default<float>(1536, 1536, 1536, h200, uniform) == C::medium);
  // With K steps dealt out (operands that fill in vectors) and a short K, 64 x 128 tiles where
  // modeled_time finds them sooner than both (1200^3: 0.446 rounds, 128 x 128 tiles 0.454, 64 x
  // 64 ones 0.457; measured on the H200 110.8, 112.8 and 114.0 us); not 1600^3, whose 64 x 64
  // tiles fill a whole wave (0.680 against 0.700; 214.7 us against 225.3).
  const GemmSplitLimits dealt{};
  CHECK(choose_default<float>(1200, 1200, 1200, h200, dealt) == C::skinny);
  CHECK(choose_default<float>(1300, 1300, 1300, h200, dealt) == C::skinny);
  CHECK(choose_default<float>(1200, 1200, 1900, h200, dealt) == C::skinny);
  CHECK(choose_default<float>(1600, 1600, 1600, h200, dealt) == C::medium);
  CHECK(choose_default<float>(1024, 1024, 1024, h200, dealt) == C::large);
  // K >= 2048 keeps its rule: 1088 x 2048 takes 64 x 128 tiles from that candidate at K = 2047,
  // and 128 x 128 ones at K = 2048, where its 544 tiles of 64 x 64 fill a wave (and a tail of 16)
  // and only those are weighed against 128 x 128 tiles.
  CHECK(choose_default<float>(1088, 2048, 2047, h200, dealt) == C::skinny);
  CHECK(choose_default<float>(1088, 2048, 2048, h200, dealt) == C::large);
  // modeled_time past a wave: a round per whole wave, the tail by split_cost.
  using tilecraft::detail::facts_of;
  using tilecraft::detail::modeled_time;
  // Dealt out, where the operands fill in vectors: 1100 x 1300 x 1500, 1536^3 and 1536 x 1536 x
  // 4096 on 128 x 128 tiles (a wave of 264 blocks, no lone ones), 1800^3 on 64 x 128.
  CHECK(choose_default<float>(1100, 1300, 1500, h200) == C::large);
  CHECK(choose_default<float>(1536, 1536, 1536, h200) == C::large);
  CHECK(choose_default<float>(1536, 1536, 4096, h200) == C::large);
  CHECK(choose_default<float>(1800, 1800, 1800, h200) == C::skinny);
  const GemmSplitLimits split = uniform;
  CHECK(modeled_time(facts_of<tilecraft::GemmPolicyLarge>(), 1.0, 2500, 2501, 2503, 132, split) < 1.7);
  CHECK(modeled_time(facts_of<tilecraft::GemmPolicyLarge>(), 1.0, 4096, 4096, 4096, 132, split) ==
        doctest::Approx(4.0));
  const double medium = modeled_time(facts_of<tilecraft::GemmPolicyMedium>(), 1.0, 2500, 2501, 2503, 132, split);
  CHECK(medium > 1.5);  // 3 waves of half a round's work each, and a split tail of 16 tiles
  CHECK(medium < 1.6);
  // wave_pace sets the whole waves' pace alone (0: pace): 3 waves of half a round at 0.5 take 3
  // rounds, 1.5 more than at 1.0, the tail's share the same; under a wave it changes nothing.
  auto medium_at = [&](double pace, double wave_pace, std::int64_t side) {
    return modeled_time(facts_of<tilecraft::GemmPolicyMedium>(), pace, side, side + 1, side + 3, 132, split, wave_pace);
  };
  CHECK(medium_at(1.0, 0.0, 2500) == medium);
  CHECK(medium_at(1.0, 1.0, 2500) == medium);
  CHECK(medium_at(1.0, 0.5, 2500) == doctest::Approx(medium + 1.5));
  CHECK(medium_at(0.5, 1.0, 2500) == doctest::Approx(2.0 * medium - 1.5));
  CHECK(medium_at(1.0, 0.5, 1000) == medium_at(1.0, 0.0, 1000));    // 256 tiles: under a wave of 528
  CHECK(choose_default<float>(1025, 1025, 1025, t4) == C::large3);  // where 4 stages do not fit
  // Double: 128 x 64 tiles, then 64 x 64 when they fill the SMs or K is long, then 32 x 64.
  CHECK(choose_default<double>(2048, 2048, 2048, h200) == C::large_f64);
  CHECK(choose_default<double>(64, 2048, 2048, h200) == C::medium_f64);
  CHECK(choose_default<double>(300, 300, 100, h200) == C::small_f64);
  CHECK(choose_default<double>(1000, 1000, 100, t4) == C::large_f64);
  // No SMs to fill (limits not filled in): the smallest tiles, not a division by zero.
  const auto none = device(0, 227, 228);
  CHECK(choose_default<float>(10, 10, 4096, none) == C::small);
  CHECK(choose_default<float>(4096, 4096, 4096, none) == C::small);
  CHECK(choose_default<double>(4096, 4096, 4096, none) == C::small_f64);
}

TEST_CASE("the ragged edge: a last tile row (column) of at most 8 rows peeled off large products") {
  using tilecraft::detail::edge_plan;
  using tilecraft::detail::EdgePlan;
  using tilecraft::detail::GemmEdgeLimits;
  const auto large = facts_of<tilecraft::GemmPolicyLarge>();    // 128 x 128
  const auto medium = facts_of<tilecraft::GemmPolicyMedium>();  // 64 x 64
  const GemmEdgeLimits limits{};
  auto same = [](EdgePlan got, std::int64_t rows, std::int64_t cols) { return got.rows == rows && got.cols == cols; };
  CHECK(same(edge_plan(large, 1025, 1025, 1025, limits), 1, 1));
  CHECK(same(edge_plan(large, 2049, 2048, 2049, limits), 1, 0));
  CHECK(same(edge_plan(large, 4097, 4095, 4093, limits), 1, 0));  // 4095: 127 of 128 columns, kept
  CHECK(same(edge_plan(large, 1028, 1151, 1024, limits), 4, 0));  // 4 peeled; 127 of 128 kept
  CHECK(same(edge_plan(large, 1029, 1100, 1024, limits), 5, 0));  // 5 peeled; 76 kept
  CHECK(same(edge_plan(large, 1032, 1031, 1027, limits), 8, 7));
  CHECK(same(edge_plan(large, 1033, 1100, 1300, limits), 0, 0));  // 9 and 76: kept
  CHECK(same(edge_plan(medium, 1537, 1539, 1541, limits), 1, 3));
  CHECK(same(edge_plan(large, 129, 8193, 8192, limits), 1, 1));
  CHECK(same(edge_plan(large, 100, 8193, 8192, limits), 0, 1));  // no whole tile row above the edge
  CHECK(same(edge_plan(large, 1025, 1025, 400, limits), 0, 0));  // below 2^29 multiply-adds
  CHECK(same(edge_plan(large, 1025, 1025, 400, GemmEdgeLimits{4, 0.0}), 1, 1));
  CHECK(same(edge_plan(large, 1027, 1025, 1024, GemmEdgeLimits{2, 0.0}), 0, 1));
  // At most thin_most whatever the limit says (the thin kernel's accumulators).
  CHECK(same(edge_plan(large, 1024 + 9, 1024 + 17, 1024, GemmEdgeLimits{100, 0.0}), 0, 0));
  // Every plan on random shapes: what is peeled is the ragged part of the last tile row
  // (column), at most the limit, with whole tiles before it.
  auto g = tilecraft::test::rng(7);
  for (int i = 0; i < 20000; ++i) {
    const auto& f = i % 2 ? large : medium;
    const std::int64_t m = g.uniform_int(1, 5000), n = g.uniform_int(1, 5000), k = g.uniform_int(0, 3000);
    const GemmEdgeLimits l{g.uniform_int(0, 12), i % 3 ? 0.0 : limits.min_volume};
    const EdgePlan p = edge_plan(f, m, n, k, l);
    CAPTURE(m);
    CAPTURE(n);
    CAPTURE(k);
    REQUIRE(p.rows >= 0);
    REQUIRE(p.cols >= 0);
    REQUIRE(p.rows <= std::min<std::int64_t>(l.most, tilecraft::detail::thin_most));
    REQUIRE(p.cols <= std::min<std::int64_t>(l.most, tilecraft::detail::thin_most));
    if (p.rows > 0) REQUIRE(((m - p.rows) % f.tile_m == 0 && m - p.rows > 0));
    if (p.cols > 0) REQUIRE(((n - p.cols) % f.tile_n == 0 && n - p.cols > 0));
    if (p.rows > 0 || p.cols > 0) REQUIRE(static_cast<double>(m) * n * k >= l.min_volume);
  }
}

TEST_CASE("the ragged edge's thin grids: 2^31 - 1 blocks of 4 lines (one row) or of 8 (2 to 8 rows)") {
  using tilecraft::detail::EdgePlan;
  using tilecraft::detail::edges_fit;
  using tilecraft::detail::thin_kernel_rows;
  using tilecraft::detail::thin_lines_per_block;
  // The thin kernels launch_thin runs: 1 accumulator for one row, 4 up to 4, else 8; their blocks
  // take 4 lines (one row) or 8.
  const int rows_of[] = {1, 4, 4, 4, 8, 8, 8, 8};
  for (int r = 1; r <= 8; ++r) {
    CAPTURE(r);
    CHECK(thin_kernel_rows(r) == rows_of[r - 1]);
    CHECK(thin_lines_per_block(r) == (r == 1 ? 4 : 8));
  }
  const std::int64_t most = INT_MAX;
  // The bottom rows' product over the n columns.
  CHECK(edges_fit(129, 4 * most, EdgePlan{1, 0}));
  CHECK(!edges_fit(129, 4 * most + 1, EdgePlan{1, 0}));
  CHECK(edges_fit(130, 8 * most, EdgePlan{2, 0}));  // 8 lines a block from 2 rows on
  CHECK(!edges_fit(130, 8 * most + 1, EdgePlan{2, 0}));
  CHECK(edges_fit(136, 8 * most, EdgePlan{8, 0}));
  // The right columns' product over the rows above the peeled ones.
  CHECK(edges_fit(4 * most + 3, 129, EdgePlan{3, 1}));
  CHECK(!edges_fit(4 * most + 4, 129, EdgePlan{3, 1}));
  CHECK(edges_fit(8 * most + 1, 130, EdgePlan{1, 2}));
  CHECK(!edges_fit(8 * most + 2, 130, EdgePlan{1, 2}));
  // No edge: nothing to launch.
  CHECK(edges_fit(std::int64_t{1} << 62, std::int64_t{1} << 62, EdgePlan{0, 0}));
}

TEST_CASE("the row-major form of a call: a column-major C is the row-major C^T with the operands swapped") {
  using tilecraft::detail::row_major_problem;
  float a[1] = {}, b[1] = {}, c[1] = {};
  const auto r = row_major_problem(Order::row_major, Op::transpose, Op::none, 5, 7, 3, a, 5, b, 7, c, 7);
  CHECK(r.order_a == Order::col_major);  // A^T of a row-major A: its column-major view
  CHECK(r.order_b == Order::row_major);
  CHECK((r.a.data == a && r.a.rows == 5 && r.a.cols == 3 && r.a.ld == 5));
  CHECK((r.b.data == b && r.b.rows == 3 && r.b.cols == 7 && r.b.ld == 7));
  CHECK((r.c.rows == 5 && r.c.cols == 7 && !r.transposed));
  // Column-major C (5 x 7) = A (5 x 3) B^T (B stored 7 x 3): C^T (7 x 5) = B (7 x 3) A^T.
  const auto t = row_major_problem(Order::col_major, Op::none, Op::transpose, 5, 7, 3, a, 5, b, 7, c, 5);
  CHECK(t.transposed);
  CHECK((t.a.data == b && t.a.rows == 7 && t.a.cols == 3 && t.a.ld == 7));
  CHECK(t.order_a == Order::col_major);  // B column-major, transposed twice
  CHECK((t.b.data == a && t.b.rows == 3 && t.b.cols == 5 && t.b.ld == 5));
  CHECK(t.order_b == Order::row_major);  // A^T of a column-major A: row-major
  CHECK((t.c.rows == 7 && t.c.cols == 5 && t.c.ld == 5));
}

TEST_CASE("the grouped block order covers every tile once, in groups of group_m tile rows") {
  using tilecraft::detail::grouped_tile;
  auto gen = tilecraft::test::rng(21);
  for (int i = 0; i < 300; ++i) {
    const std::int64_t tiles_m = 1 + static_cast<std::int64_t>(gen() % 40);
    const std::int64_t tiles_n = 1 + static_cast<std::int64_t>(gen() % 40);
    const std::int64_t group = 1 + static_cast<std::int64_t>(gen() % 12);
    INFO(tiles_m, " x ", tiles_n, " tiles, groups of ", group);
    std::vector<int> seen(static_cast<std::size_t>(tiles_m * tiles_n), 0);
    for (std::int64_t b = 0; b < tiles_m * tiles_n; ++b) {
      const auto t = grouped_tile(b, tiles_m, tiles_n, group);
      REQUIRE((t.m >= 0 && t.m < tiles_m && t.n >= 0 && t.n < tiles_n));
      REQUIRE(t.m / group == b / (group * tiles_n));  // the block's group of tile rows
      ++seen[static_cast<std::size_t>(t.m * tiles_n + t.n)];
    }
    for (int s : seen) REQUIRE(s == 1);
  }
}

TEST_CASE(
    "packing: operands that do not fill in vectors as given, when the product pays, in panels within the budget") {
  using tilecraft::MatrixRef;
  using tilecraft::detail::GemmPackLimits;
  using tilecraft::detail::GemmProblem;
  using tilecraft::detail::pack_plan;
  alignas(16) static float buffer[8];
  const float* al = buffer;       // 16-byte aligned
  const float* off = buffer + 1;  // not
  auto problem = [&](Order oa, Order ob, std::int64_t m, std::int64_t n, std::int64_t k, const float* base,
                     std::int64_t ld_pad) {
    const std::int64_t lda = (oa == Order::row_major ? k : m) + ld_pad;
    const std::int64_t ldb = (ob == Order::row_major ? n : k) + ld_pad;
    return GemmProblem<float>{oa,
                              ob,
                              MatrixRef<const float>{base, m, k, lda},
                              MatrixRef<const float>{base, k, n, ldb},
                              MatrixRef<float>{nullptr, m, n, n},
                              false};
  };
  const GemmPackLimits limits{};
  // NN (row-major A, row-major B): A is K-contiguous and packed at 4096^3; B is not.
  auto p = pack_plan(problem(Order::row_major, Order::row_major, 4096, 4096, 4096, al, 0), 256, 128, limits);
  CHECK((p.pack_a && !p.pack_b));
  CHECK(p.panel_m == 4096);  // 4096 x 4096 floats: exactly the 64 MiB budget
  CHECK(p.a_elems == 4096 * 4096);
  // Below the volume (3 x 2^30 multiply-adds: 1024^3, 1100 x 1300 x 1500 and 1400^3 run faster
  // unpacked) or the other side (8192 x 1000 x 8192): nothing. At 1600^3 (4.1e9) and up A is
  // packed: unpacked, 1600^3 lost 11%.
  const std::int64_t unpacked[][3] = {
      {1000, 999, 1001}, {1024, 1024, 1024}, {1100, 1300, 1500}, {1400, 1400, 1400}, {8192, 1000, 8192}};
  for (const auto& s : unpacked) {
    INFO(s[0], " x ", s[1], " x ", s[2]);
    CHECK_FALSE(
        pack_plan(problem(Order::row_major, Order::row_major, s[0], s[1], s[2], al, 0), 128, 128, limits).packs());
  }
  for (const std::int64_t side : {1600, 1800}) {
    INFO(side, "^3");
    CHECK(pack_plan(problem(Order::row_major, Order::row_major, side, side, side, al, 0), 128, 128, limits).pack_a);
  }
  // The other operand (filled by rows) not vector-aligned: copied to aligned rows beside A's
  // transpose (its leading dimension padded to whole tiles), so that both fill in vectors,
  // from 2^32 multiply-adds on; below that nothing is packed.
  CHECK_FALSE(
      pack_plan(problem(Order::row_major, Order::row_major, 1025, 1025, 1025, al, 0), 128, 128, limits).packs());
  CHECK_FALSE(
      pack_plan(problem(Order::row_major, Order::row_major, 1537, 1539, 1541, al, 0), 128, 128, limits).packs());
  for (const auto& q : {problem(Order::row_major, Order::row_major, 4096, 4096, 4096, off, 0),
                        problem(Order::row_major, Order::row_major, 4096, 4096, 4096, al, 1),
                        problem(Order::row_major, Order::row_major, 1625, 1625, 1627, al, 0)}) {
    p = pack_plan(q, 128, 128, limits);
    CHECK((p.pack_a && p.pack_b));
    CHECK(p.panel_n == q.c.cols);
    CHECK(p.ld_b == tilecraft::round_up<std::int64_t>(q.c.cols, 128));
    CHECK(p.b_elems == q.a.cols * p.ld_b);
  }
  // Unaligned and not K-contiguous, alone: copied, to a leading dimension of whole tiles;
  // aligned and not K-contiguous: left as is.
  p = pack_plan(problem(Order::col_major, Order::row_major, 2049, 2051, 2047, al, 0), 128, 128, limits);
  CHECK((p.pack_a && p.pack_b));
  CHECK(p.ld_a == 2176);
  CHECK(p.ld_b == 2176);
  CHECK_FALSE(
      pack_plan(problem(Order::col_major, Order::row_major, 2048, 2048, 2048, al, 0), 128, 128, limits).packs());
  // An unaligned operand that is not copied (the other side too short for packing to pay)
  // keeps the kernel off the vector fill: nothing is packed.
  CHECK_FALSE(pack_plan(problem(Order::row_major, Order::row_major, 600, 8192, 8192, al, 1), 128, 128, limits).packs());
  // TN as computed (A column-major, B column-major): B packed, A not.
  p = pack_plan(problem(Order::col_major, Order::col_major, 4096, 4096, 4096, al, 0), 128, 128, limits);
  CHECK((!p.pack_a && p.pack_b));
  // Both K-contiguous, 6144^3: each in three equal panels of 2048 (of 256-row tiles).
  p = pack_plan(problem(Order::row_major, Order::col_major, 6144, 6144, 6144, al, 0), 256, 128, limits);
  CHECK((p.pack_a && p.pack_b));
  CHECK(p.panel_m == 2048);
  CHECK(p.panel_n == 2048);
  CHECK(p.a_elems * 4 <= limits.bytes);
  CHECK(p.b_elems * 4 <= limits.bytes);
  // A whole operand whose rows round up past the budget goes in panels: 5590 rows of K = 3001
  // floats fit 64 MiB (5590 <= 5591 rows), rounded up to whole 256-row tiles (5632) they do not.
  p = pack_plan(problem(Order::row_major, Order::row_major, 5590, 4096, 3001, al, 0), 256, 128, limits);
  CHECK(p.pack_a);
  CHECK(p.a_elems * 4 <= limits.bytes);
  CHECK(p.panel_m < 5590);
  // The budget: limits.bytes, or a share of the device's memory where that is more.
  using tilecraft::detail::pack_budget;
  CHECK(pack_budget(limits, 0) == limits.bytes);
  CHECK(pack_budget(limits, std::int64_t{16} << 30) == std::int64_t{256} << 20);
  CHECK(pack_budget(limits, std::int64_t{2} << 30) == limits.bytes);
  CHECK(pack_budget(GemmPackLimits{1024, 1.0, 4096, 1.0, 0}, std::int64_t{16} << 30) == 4096);
  // Random shapes, budgets and panel tiles: panels of whole tiles within the budget, leading
  // dimensions of the panels rounded up to whole tiles, no more.
  auto gen = tilecraft::test::rng(31);
  for (int i = 0; i < 5000; ++i) {
    const std::int64_t m = pick(gen, 14), n = pick(gen, 14), k = pick(gen, 14);
    const GemmPackLimits small{1, 1.0, std::int64_t{4} << (gen() % 16), gen() % 2 ? 1.0 : 1e6, 0};
    const Order oa = gen() % 2 ? Order::row_major : Order::col_major;
    const Order ob = gen() % 2 ? Order::row_major : Order::col_major;
    const auto q = problem(oa, ob, m, n, k, gen() % 4 ? al : off, static_cast<std::int64_t>(gen() % 3));
    const std::int64_t tile_m = std::int64_t{32} << (gen() % 4), tile_n = std::int64_t{32} << (gen() % 4);
    p = pack_plan(q, tile_m, tile_n, small);
    INFO(m, " x ", n, " x ", k, " in ", small.bytes, " bytes, tiles ", tile_m, " x ", tile_n);
    // Nothing aligned and not K-contiguous is packed; an unaligned one left as it is leaves
    // everything as it is.
    const bool a_ready = oa == Order::col_major && tilecraft::rows_vector_aligned(q.a);
    const bool b_ready = ob == Order::row_major && tilecraft::rows_vector_aligned(q.b);
    REQUIRE(!(a_ready && p.pack_a));
    REQUIRE(!(b_ready && p.pack_b));
    if ((oa == Order::col_major && !a_ready && !p.pack_a) || (ob == Order::row_major && !b_ready && !p.pack_b)) {
      REQUIRE_FALSE(p.packs());
    }
    if (p.pack_a) {
      REQUIRE((p.panel_m == m || p.panel_m % tile_m == 0));
      REQUIRE(p.ld_a == tilecraft::round_up(p.panel_m, tile_m));  // whole tiles (of whole vectors)
      REQUIRE(p.a_elems * 4 <= small.bytes);                      // the workspace budget, rounded rows included
    } else {
      REQUIRE(p.panel_m == m);
    }
    if (p.pack_b) {
      REQUIRE((p.panel_n == n || p.panel_n % tile_n == 0));
      REQUIRE(p.ld_b == tilecraft::round_up(p.panel_n, tile_n));
      REQUIRE(p.b_elems * 4 <= small.bytes);
    } else {
      REQUIRE(p.panel_n == n);
    }
  }
}

TEST_CASE("the wgmma kernel's plan: full waves whole, the last wave's K in slices, within every limit") {
  using tilecraft::detail::wgmma_slices_plan;
  using tilecraft::detail::WgmmaPlan;
  auto gen = tilecraft::test::rng(0x3a7e);
  const GemmSplitLimits limits{};
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t tiles = pick(gen, 12), ktiles = pick(gen, 10) - 1;
    const int sms = 1 + static_cast<int>(gen() % 200), tile_k = 32 << (gen() % 2);
    const std::int64_t k = ktiles * tile_k;
    const double volume = static_cast<double>(pick(gen, 34));
    const WgmmaPlan p = wgmma_slices_plan(tiles, ktiles, volume, tile_k, 128 * 256, sms, 16, limits);
    INFO("tiles = ", tiles, ", K steps = ", ktiles, ", SMs = ", sms, ": ", p.whole, " whole, the rest in ", p.slices,
         " slices of ", p.slice_steps, " steps");
    REQUIRE(p.tiles == tiles);
    REQUIRE(p.ktiles == ktiles);
    REQUIRE(!p.stream_k());
    const std::int64_t tail = tiles - p.whole;
    REQUIRE(p.blocks == std::min<std::int64_t>(p.units(), sms));
    // launch_wgmma_tma runs every tile whole as wgmma_whole_plan(tiles, ktiles, blocks): a plan
    // without split K exactly as planned, a split one (its workspace refused) on no more blocks.
    const WgmmaPlan w = tilecraft::detail::wgmma_whole_plan(p.tiles, p.ktiles, p.blocks);
    REQUIRE(w.whole == tiles);
    REQUIRE(w.blocks <= p.blocks);
    REQUIRE(w.blocks == std::min<std::int64_t>(tiles, p.blocks));
    if (!p.split()) {
      REQUIRE(w.blocks == p.blocks);
      REQUIRE(w.slices == p.slices);
      REQUIRE(w.slice_steps == p.slice_steps);
      REQUIRE(w.whole == p.whole);
      REQUIRE(tail == 0);
      continue;
    }
    // Only the last wave (at most half of the SMs), only for large products, within the limits.
    REQUIRE(p.whole % sms == 0);
    REQUIRE(tail == tiles % sms);
    REQUIRE(2 * tail <= sms);
    REQUIRE(volume >= limits.min_volume);
    REQUIRE(p.slices >= 2);
    REQUIRE(p.slices <= 16);
    REQUIRE(tail * p.slices <= sms);
    REQUIRE(tail * p.slices * 128 * 256 * 4 <= limits.max_bytes);
    // Whole K steps, every slice non-empty, together exactly K.
    REQUIRE(p.slice_steps * tile_k >= limits.min_slice);
    REQUIRE((p.slices - 1) * p.slice_steps < ktiles);
    REQUIRE(ktiles <= p.slices * p.slice_steps);
    (void)k;
  }
  // The measured shapes on 132 SMs (128 x 256 tiles, 64 K elements a step): 3072^3 has 288
  // tiles, a last wave of 24 in 5 slices of 640; 2304^3 162, a last wave of 30 in 4 of 576;
  // 128 x 8192 x 8192 32 tiles, all in 4 slices of 2048; 4096^3 (512 tiles: 116 of 132 in the
  // last wave) and 512^3 (below 2^28 multiply-adds) whole.
  auto plan = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    const std::int64_t tiles = (m + 127) / 128 * ((n + 255) / 256);
    return wgmma_slices_plan(tiles, (k + 63) / 64, double(m) * double(n) * double(k), 64, 128 * 256, 132, 16, limits);
  };
  auto expect = [](const WgmmaPlan& p, std::int64_t whole, std::int64_t tail, int slices, std::int64_t k_slice) {
    CHECK(p.whole == whole);
    CHECK(p.tiles - p.whole == tail);
    CHECK(p.slices == slices);
    CHECK(p.slice_steps * 64 == k_slice);
  };
  expect(plan(3072, 3072, 3072), 264, 24, 5, 640);
  expect(plan(2304, 2304, 2304), 132, 30, 4, 576);
  expect(plan(128, 8192, 8192), 0, 32, 4, 2048);
  expect(plan(4096, 4096, 4096), 512, 0, 1, 4096);
  expect(plan(512, 512, 512), 8, 0, 1, 512);
}

TEST_CASE("the wgmma kernel's plan: whole waves, then stream-K shares that cover every K step of every tile once") {
  using tilecraft::detail::GemmTensorTunables;
  using tilecraft::detail::wgmma_plan_steps;
  using tilecraft::detail::wgmma_stream_k_begin;
  using tilecraft::detail::wgmma_stream_k_plan;
  using tilecraft::detail::WgmmaPlan;
  auto gen = tilecraft::test::rng(0x3a7e);
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t tiles = pick(gen, 11), ktiles = pick(gen, 9) - 1;
    const int sms = 1 + static_cast<int>(gen() % 200), tile_k = 32 << (gen() % 2);
    const double volume = static_cast<double>(pick(gen, 34));
    const std::int64_t tile_elems = std::int64_t{128} * (64 << (gen() % 3));
    GemmTensorTunables t;
    t.stream_k = static_cast<int>(gen() % 2);
    t.fixup = static_cast<double>(gen() % 5);
    t.stream_k_step = 1.0 + 0.25 * static_cast<double>(gen() % 5);
    const double step = t.stream_k_step;
    const WgmmaPlan p = wgmma_stream_k_plan(tiles, ktiles, volume, tile_k, tile_elems, sms, t);
    INFO("tiles = ", tiles, ", K steps = ", ktiles, ", SMs = ", sms, ", stream_k = ", t.stream_k, ": ", p.whole,
         " whole on ", p.blocks, " blocks");
    REQUIRE(p.tiles == tiles);
    REQUIRE(p.ktiles == ktiles);
    REQUIRE(p.blocks >= 1);
    REQUIRE(p.blocks <= sms);
    const WgmmaPlan dp = tilecraft::detail::wgmma_whole_plan(tiles, ktiles, sms);
    // The whole-tile run of a plan whose workspace is refused (launch_wgmma_tma): every tile, on
    // at most the plan's blocks; the very plan where there is no stream-K part.
    const WgmmaPlan w = tilecraft::detail::wgmma_whole_plan(p.tiles, p.ktiles, p.blocks);
    REQUIRE(w.whole == tiles);
    REQUIRE(w.blocks == std::min<std::int64_t>(tiles, p.blocks));
    if (!p.stream_k()) REQUIRE((w.blocks == p.blocks && w.whole == p.whole && w.slice_steps == p.slice_steps));
    REQUIRE(!p.split());
    if (!p.stream_k()) {
      REQUIRE(p.blocks == dp.blocks);
      // Stream-K where it may run is taken when forced, and when it takes less time.
      const bool may = ktiles >= 2 && volume >= t.split.min_volume && tiles % sms != 0 &&
                       (tiles > sms ? std::int64_t{sms} * tile_elems * 4 <= t.split.max_bytes : false);
      if (may) REQUIRE(t.stream_k <= 0);
      continue;
    }
    REQUIRE(volume >= t.split.min_volume);
    REQUIRE(ktiles >= 2);
    REQUIRE(p.blocks * tile_elems * 4 <= t.split.max_bytes);
    if (t.stream_k == 0) REQUIRE(wgmma_plan_steps(p, step, t.fixup) < wgmma_plan_steps(dp, step, t.fixup));
    // The whole tiles fill whole waves of every SM; the stream-K tiles are the last partial wave
    // and one full one, or, with fewer tiles than SMs, every tile on more blocks than tiles.
    if (tiles > sms) {
      REQUIRE(p.blocks == sms);
      REQUIRE(p.whole % sms == 0);
      REQUIRE(tiles - p.whole == tiles % sms + sms);
    } else {
      REQUIRE(p.whole == 0);
      REQUIRE(p.blocks > tiles);
    }
    // Every block's share non-empty, together every step once; a share of at least a tile's
    // steps past one wave (a tile meets two blocks at most), at least min_slice of K otherwise.
    const std::int64_t steps = (tiles - p.whole) * ktiles;
    REQUIRE(wgmma_stream_k_begin(p, 0) == 0);
    REQUIRE(wgmma_stream_k_begin(p, p.blocks) == steps);
    std::vector<std::int64_t> covered(static_cast<std::size_t>(tiles - p.whole), 0);
    std::vector<int> owners(covered.size(), 0);
    for (int b = 0; b < p.blocks; ++b) {
      const std::int64_t begin = wgmma_stream_k_begin(p, b), end = wgmma_stream_k_begin(p, b + 1);
      REQUIRE(end > begin);
      REQUIRE(end - begin <= wgmma_stream_k_begin(p, 1));
      if (tiles > sms) REQUIRE(end - begin >= ktiles);
      if (tiles <= sms) REQUIRE((end - begin) * tile_k >= std::min<std::int64_t>(t.split.min_slice, ktiles * tile_k));
      // The pieces of the share, one a tile, cut as for_each_wgmma_unit cuts them (from the
      // share's end back): only the share's first piece may start inside a tile, only its last
      // may stop inside one (a partial, which a later share continues); a tile's owner is the
      // piece holding its last step, and its other pieces lie in earlier shares.
      for (std::int64_t i = end; i > begin;) {
        const std::int64_t tile_begin = (i - 1) / ktiles * ktiles, i0 = std::max(tile_begin, begin);
        const std::int64_t x = tile_begin / ktiles, kt0 = i0 - tile_begin, kt1 = i - tile_begin;
        if (kt1 < ktiles) REQUIRE(i == end);
        if (kt1 == ktiles) {
          ++owners[static_cast<std::size_t>(x)];
          // The owner's loop: the blocks before it whose shares end inside the tile hold the
          // rest of it, each in its share's last piece.
          std::int64_t rest = kt0;
          for (int j = b - 1; j >= 0 && wgmma_stream_k_begin(p, j + 1) > tile_begin; --j) {
            const std::int64_t piece_end = wgmma_stream_k_begin(p, j + 1);
            const std::int64_t piece_begin = std::max(tile_begin, wgmma_stream_k_begin(p, j));
            REQUIRE(piece_end - tile_begin < ktiles);
            rest -= piece_end - piece_begin;
          }
          REQUIRE(rest == 0);
        }
        covered[static_cast<std::size_t>(x)] += kt1 - kt0;
        i = i0;
      }
    }
    for (std::size_t x = 0; x < covered.size(); ++x) {
      REQUIRE(covered[x] == ktiles);
      REQUIRE(owners[x] == 1);
    }
  }
  // The choice (wgmma_plan_for, 132 SMs): TF32x3 (128 x 128 tiles, 32 K elements a step)
  // stream-K with fewer tiles than SMs (1024^3: 64 tiles of 32 steps; 128 x 8192 x 8192: 64 of
  // 256), K slices or whole tiles otherwise (4096^3: 1024 tiles, 100 in the last wave, slices
  // only for a last wave of at most half of the SMs: whole); other maths K slices (BF16 128 x 256
  // at 3072^3: 264 whole, 24 in 5 slices), stream-K only when forced.
  auto choose = [](std::int64_t m, std::int64_t n, std::int64_t k, int tile_n, int tile_k, bool compute_bound,
                   int stream_k) {
    GemmTensorTunables t;
    t.stream_k = stream_k;
    return tilecraft::detail::wgmma_plan_for(m, n, k, 128, tile_n, tile_k, 132, 16, compute_bound, t);
  };
  CHECK(choose(1024, 1024, 1024, 128, 32, true, 0).stream_k());
  CHECK(choose(128, 8192, 8192, 128, 32, true, 0).stream_k());
  CHECK(!choose(4096, 4096, 4096, 128, 32, true, 0).stream_k());
  CHECK(!choose(1024, 1024, 1024, 128, 32, true, -1).stream_k());
  const WgmmaPlan bf16 = choose(3072, 3072, 3072, 256, 64, false, 0);
  CHECK(bf16.split());
  CHECK(bf16.whole == 264);
  CHECK(bf16.slices == 5);
  const WgmmaPlan forced = choose(1536, 1536, 1536, 256, 64, false, 1);
  CHECK(forced.stream_k());
  CHECK(forced.whole == 0);
  CHECK(forced.blocks == 124);  // shares of 14 of the 72 tiles' 24 steps
}

TEST_CASE("the wgmma kernel's tile width: thinner tiles where the wide ones leave SMs idle") {
  using tilecraft::detail::wgmma_tile_width;
  auto gen = tilecraft::test::rng(0x7a11);
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t rows = pick(gen, 16), cols = pick(gen, 16);
    const int sms = 1 + static_cast<int>(gen() % 200);
    INFO(rows, " x ", cols, " on ", sms, " SMs");
    const int width = wgmma_tile_width(rows, cols, 128, sms, 1.3, 1.8);
    REQUIRE((width == 64 || width == 128 || width == 256));
    const std::int64_t tiles_m = (rows + 127) / 128;
    auto tiles = [&](int w) { return tiles_m * ((cols + w - 1) / w); };
    // Wide tiles in whole waves on columns in whole wide tiles never lose to thinner ones
    // (twice or four times the tiles, each at least 1.3 times the cost a column).
    if (tiles(256) % sms == 0 && cols % 256 == 0) REQUIRE(width == 256);
    // 128 x 64 tiles in one wave beat every other width (64 x 1.8 < 128 x 1.3 < 256).
    if (tiles(64) <= sms) REQUIRE(width == 64);
    // Thinner tiles that cost as much as four times the wide ones a column never pay.
    REQUIRE(wgmma_tile_width(rows, cols, 128, sms, 4.0, 4.0) == 256);
    // 16-bit operands: the 64 option is a 64 x 128 tile, its waves counted on those tiles.
    const int narrow = wgmma_tile_width(rows, cols, 128, sms, 1.3, 1.6, 64);
    REQUIRE((narrow == 64 || narrow == 128 || narrow == 256));
    const std::int64_t narrow_tiles = ((rows + 63) / 64) * ((cols + 127) / 128);
    if (narrow_tiles <= sms) REQUIRE(narrow == 64);
    // (Rows in whole 128-row tiles: where the last one holds 64 rows or fewer, a 64-row tile
    // wastes less.)
    if (tiles(256) % sms == 0 && cols % 256 == 0 && rows % 128 == 0) REQUIRE(narrow == 256);
    // Where 64 x 128 and 128 x 64 tiles come to the same count, so does the choice.
    if (narrow_tiles == tiles(64)) REQUIRE(narrow == wgmma_tile_width(rows, cols, 128, sms, 1.3, 1.6));
    REQUIRE(wgmma_tile_width(rows, cols, 128, sms, 4.0, 4.0, 64) == 256);
    // With 192 columns an option (16-bit operands): the choice is 192 or what it was without,
    // and whole waves of wide tiles on whole wide tiles still win.
    const int with192 = wgmma_tile_width(rows, cols, 128, sms, 1.3, 1.6, 64, 1.1);
    if (with192 != 192) REQUIRE(with192 == narrow);
    if (tiles(256) % sms == 0 && cols % 256 == 0 && rows % 128 == 0) REQUIRE(with192 == 256);
    REQUIRE(wgmma_tile_width(rows, cols, 128, sms, 4.0, 4.0, 64, 4.0) == 256);
    // With 144 and 168 columns options as well (16-bit operands whose Y is K-contiguous): the
    // choice is one of them or what it was with 192 alone; priced out, they never win.
    const int with_odd = wgmma_tile_width(rows, cols, 128, sms, 1.3, 1.6, 64, 1.1, 1.2);
    if (with_odd != 144 && with_odd != 168) REQUIRE(with_odd == with192);
    REQUIRE(wgmma_tile_width(rows, cols, 128, sms, 1.3, 1.6, 64, 1.1, 100.0) == with192);
  }
  // The rule as the dispatch runs it for 16-bit and TF32 operands alike (GemmTensorTunables'
  // defaults; its 64-wide option a tile of 64 x 128), on 132 SMs: 1024^3 runs 128 tiles of
  // 64 x 128, and M = 64 or 128 with N = 8192 64 or 128 of them (a 128 x 64 tile would leave
  // half its rows empty at M = 64); 2048 x 1024 and 1024 x 2048 (256 narrow tiles: two waves)
  // run 128 columns; 1536^2 (96 tiles), 3072^2 (384 tiles: 3 waves, against 3 of 288 wide ones)
  // and 2304^2 (216 against 162: 2 waves each) run 192; 2048^2, 4096^2 and 8192^2 (whole waves of
  // wide tiles) and 1024 x 4096 run 256.
  const tilecraft::detail::GemmTensorTunables defaults{};
  auto width = [&](std::int64_t m, std::int64_t n) {
    return wgmma_tile_width(m, n, 128, 132, defaults.cost_128, defaults.cost_narrow, 64, defaults.cost_192);
  };
  CHECK(width(1024, 1024) == 64);
  CHECK(width(64, 8192) == 64);
  CHECK(width(128, 8192) == 64);
  CHECK(width(2048, 1024) == 128);
  CHECK(width(1024, 2048) == 128);
  CHECK(width(1536, 1536) == 192);
  CHECK(width(3072, 3072) == 192);
  CHECK(width(2304, 2304) == 192);
  CHECK(width(2048, 2048) == 256);
  CHECK(width(4096, 4096) == 256);
  CHECK(width(8192, 8192) == 256);
  CHECK(width(1024, 4096) == 256);
  CHECK(width(0, 1024) == 256);
  // Where Y is K-contiguous, 16-bit operands may take 144 or 168 columns as well: 1536^2 runs 132
  // tiles of 144 (one whole wave), 2304^2 252 of 168 (two, against 216 of 192 and 162 of 256:
  // two each), and the other shapes above keep their widths.
  auto width_k = [&](std::int64_t m, std::int64_t n) {
    return wgmma_tile_width(m, n, 128, 132, defaults.cost_128, defaults.cost_narrow, 64, defaults.cost_192,
                            defaults.cost_144_168);
  };
  CHECK(width_k(1536, 1536) == 144);
  CHECK(width_k(2304, 2304) == 168);
  for (const auto& [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1024, 1024},
                                                                               {64, 8192},
                                                                               {128, 8192},
                                                                               {2048, 1024},
                                                                               {1024, 2048},
                                                                               {3072, 3072},
                                                                               {2048, 2048},
                                                                               {4096, 4096},
                                                                               {8192, 8192},
                                                                               {1024, 4096},
                                                                               {0, 1024}}) {
    CAPTURE(m);
    CAPTURE(n);
    CHECK(width_k(m, n) == width(m, n));
  }
}

TEST_CASE("tensor maps: what TMA can read, checked before the driver is asked") {
  using tilecraft::detail::encode_tensor_map_2d;
  using tilecraft::detail::tensor_map_fits;
  alignas(16) static float floats[64];
  alignas(16) static std::uint16_t halves[64];
  const auto* bf16 = reinterpret_cast<const __nv_bfloat16*>(halves);
  CHECK(tensor_map_fits(floats, 5, 3, 8));            // rows 32 bytes apart
  CHECK(tensor_map_fits(bf16, 5, 3, 8));              // 16 bytes apart
  CHECK_FALSE(tensor_map_fits(floats + 1, 5, 3, 8));  // base not 16-byte aligned
  CHECK_FALSE(tensor_map_fits(floats, 5, 3, 6));      // 24 bytes apart
  CHECK_FALSE(tensor_map_fits(bf16, 5, 3, 4));        // ld below the row
  CHECK_FALSE(tensor_map_fits(floats, 0, 3, 8));      // empty
  CHECK_FALSE(tensor_map_fits(floats, 5, 0, 8));
  CHECK_FALSE(tensor_map_fits(floats, std::int64_t{1} << 31, 1, std::int64_t{1} << 31));  // 32-bit coordinates
  CHECK_FALSE(tensor_map_fits(floats, 4, 1, std::int64_t{1} << 38));                      // rows 2^40 bytes apart
  CUtensorMap map{};
  CHECK(encode_tensor_map_2d(map, floats + 1, 8, 8, 8, 32, 8) == cudaErrorInvalidValue);
  CHECK(encode_tensor_map_2d(map, floats, 8, 8, 8, 16, 8) == cudaErrorInvalidValue);    // a box row is 128 bytes
  CHECK(encode_tensor_map_2d(map, floats, 8, 8, 8, 32, 257) == cudaErrorInvalidValue);  // at most 256 rows
  CHECK(encode_tensor_map_2d(map, bf16, 8, 8, 8, 32, 8) == cudaErrorInvalidValue);      // 64 16-bit elements a row
}

TEST_CASE("rows_off_32_bytes: rows that do not all start 32-byte aligned, whatever the element size") {
  using tilecraft::detail::rows_off_32_bytes;
  alignas(32) static float floats[64];
  alignas(32) static std::uint16_t halves[64];
  const auto* bf16 = reinterpret_cast<const __nv_bfloat16*>(halves);
  CHECK_FALSE(rows_off_32_bytes(floats, 8));  // rows 32 bytes apart
  CHECK_FALSE(rows_off_32_bytes(floats, 0));  // one row
  CHECK(rows_off_32_bytes(floats, 4));        // 16 bytes apart: every other row off
  CHECK(rows_off_32_bytes(floats, 2300));     // 9200 bytes apart (4 mod 8 floats)
  CHECK(rows_off_32_bytes(floats + 4, 8));    // every row 16 bytes off
  CHECK(rows_off_32_bytes(floats + 8 + 4, 2304));
  CHECK_FALSE(rows_off_32_bytes(floats + 8, 2304));
  CHECK_FALSE(rows_off_32_bytes(bf16, 16));
  CHECK(rows_off_32_bytes(bf16, 8));     // 16 bytes apart
  CHECK(rows_off_32_bytes(bf16, 3000));  // 6000 bytes apart (8 mod 16 elements)
  CHECK(rows_off_32_bytes(bf16 + 8, 16));
  CHECK_FALSE(rows_off_32_bytes(bf16 + 16, 4096));
  CHECK_FALSE(rows_off_32_bytes(floats, (std::int64_t{1} << 38) - 8));  // large strides: no overflow
  CHECK(rows_off_32_bytes(floats, (std::int64_t{1} << 38) - 4));
}

// Gaps an audit found in the host tests of the launchers' argument helpers: matrix_span at its
// exact bound, BLAS's quick return and scale-only cases with NaN and -0 alphas, and the operand
// form every tensor-core path takes (tensor_operands), checked element by element.
TEST_CASE("matrix_span: the elements a stored matrix spans, -1 exactly where its bytes overflow") {
  using tilecraft::Order;
  using tilecraft::detail::matrix_span;
  constexpr std::int64_t max_elems = INT64_MAX / 4;
  CHECK(matrix_span<float>(Order::row_major, 3, 5, 7) == 2 * 7 + 5);
  CHECK(matrix_span<float>(Order::col_major, 3, 5, 7) == 4 * 7 + 3);
  CHECK(matrix_span<float>(Order::row_major, 0, 5, 7) == 0);
  CHECK(matrix_span<float>(Order::col_major, 3, 0, 7) == 0);
  CHECK(matrix_span<float>(Order::row_major, 2, 1, max_elems / 2) == max_elems / 2 + 1);
  CHECK(matrix_span<float>(Order::row_major, 2, 1, max_elems / 2 + 1) == -1);
  CHECK(matrix_span<double>(Order::col_major, 1, 4, INT64_MAX / 8 / 4 + 1) == -1);
}

TEST_CASE("BLAS's quick return and scale-only calls: NaN alpha computes, -0 alpha does not") {
  using tilecraft::detail::blas_quick_return;
  using tilecraft::detail::blas_scale_only;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(blas_quick_return<float>(0, 5, 5, 1.0f, 0.0f));
  CHECK(blas_quick_return<float>(5, 0, 5, 1.0f, 0.0f));
  CHECK(blas_quick_return<float>(5, 5, 5, 0.0f, 1.0f));
  CHECK(blas_quick_return<float>(5, 5, 5, -0.0f, 1.0f));
  CHECK(blas_quick_return<float>(5, 5, 0, nan, 1.0f));  // nothing to add: C kept, even with a NaN alpha
  CHECK_FALSE(blas_quick_return<float>(5, 5, 5, nan, 1.0f));
  CHECK_FALSE(blas_quick_return<float>(5, 5, 0, 1.0f, 2.0f));  // C scaled by beta
  CHECK_FALSE(blas_quick_return<float>(5, 5, 5, 0.0f, nan));
  CHECK(blas_scale_only<float>(5, -0.0f));
  CHECK(blas_scale_only<float>(0, nan));
  CHECK_FALSE(blas_scale_only<float>(5, nan));
  CHECK_FALSE(blas_scale_only<double>(5, std::numeric_limits<double>::infinity()));
}

TEST_CASE("tensor_operands: C (rows x cols, row-major) = X Y^T names every element of op(A) op(B)") {
  using tilecraft::Op;
  using tilecraft::Order;
  // Fake base addresses, compared as offsets: the element a form names is the element BLAS's
  // call names, for every order and op.
  const auto* a = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
  const auto* b = reinterpret_cast<const float*>(std::uintptr_t{1} << 30);
  const std::int64_t m = 3, n = 4, k = 5;
  for (Order order : {Order::row_major, Order::col_major}) {
    for (Op op_a : {Op::none, Op::transpose}) {
      for (Op op_b : {Op::none, Op::transpose}) {
        CAPTURE(static_cast<int>(order));
        CAPTURE(static_cast<int>(op_a));
        CAPTURE(static_cast<int>(op_b));
        const bool row = order == Order::row_major;
        // Leading dimensions past the minimum (padding), BLAS's stored shapes.
        const std::int64_t a_rows = op_a == Op::none ? m : k, a_cols = op_a == Op::none ? k : m;
        const std::int64_t b_rows = op_b == Op::none ? k : n, b_cols = op_b == Op::none ? n : k;
        const std::int64_t lda = (row ? a_cols : a_rows) + 2, ldb = (row ? b_cols : b_rows) + 3;
        auto stored = [&](const float* base, std::int64_t ld, std::int64_t r, std::int64_t c) {
          return row ? base + r * ld + c : base + c * ld + r;
        };
        auto op_a_at = [&](std::int64_t i, std::int64_t kk) {
          return op_a == Op::none ? stored(a, lda, i, kk) : stored(a, lda, kk, i);
        };
        auto op_b_at = [&](std::int64_t kk, std::int64_t j) {
          return op_b == Op::none ? stored(b, ldb, kk, j) : stored(b, ldb, j, kk);
        };
        const auto t = tilecraft::detail::tensor_operands(order, op_a, op_b, m, n, a, lda, b, ldb);
        auto form_at = [](const float* base, std::int64_t ld, bool k_contiguous, std::int64_t r, std::int64_t kk) {
          return k_contiguous ? base + r * ld + kk : base + kk * ld + r;
        };
        CHECK(t.rows == (row ? m : n));
        CHECK(t.cols == (row ? n : m));
        int wrong = 0;
        for (std::int64_t i = 0; i < m; ++i) {
          for (std::int64_t j = 0; j < n; ++j) {
            // C(i, j) is the form's (r, c) = (i, j) row-major, (j, i) column-major (C^T).
            const std::int64_t r = row ? i : j, c = row ? j : i;
            for (std::int64_t kk = 0; kk < k; ++kk) {
              const float* x = form_at(t.x, t.ldx, t.x_k, r, kk);
              const float* y = form_at(t.y, t.ldy, t.y_k, c, kk);
              // Row-major: X(r, k) = op(A)(i, k), Y(c, k) = op(B)(k, j); column-major the roles swap.
              wrong +=
                  row ? (x != op_a_at(i, kk) || y != op_b_at(kk, j)) : (x != op_b_at(kk, j) || y != op_a_at(i, kk));
            }
          }
        }
        CHECK(wrong == 0);
      }
    }
  }
}

namespace {
// Every element of a tile summed by exactly one thread's vector of the split-K reduction, no
// vector across a row of the tile, and no chunk (block) without an element.
template <class T, int TileM, int TileN>
void check_split_reduce_cover() {
  using Shape = tilecraft::detail::SplitReduceShape<T, TileM, TileN>;
  CAPTURE(sizeof(T));
  CAPTURE(TileM);
  CAPTURE(TileN);
  std::vector<int> hits(static_cast<std::size_t>(Shape::tile), 0);
  for (int chunk = 0; chunk < Shape::chunks; ++chunk) {
    CHECK(Shape::element(chunk, 0, 0) < Shape::tile);
    for (int j = 0; j < Shape::vectors; ++j) {
      for (int t = 0; t < Shape::threads; ++t) {
        const int e = Shape::element(chunk, j, t);
        if (e >= Shape::tile) continue;
        CHECK(e % TileN + Shape::vec <= TileN);
        for (int i = 0; i < Shape::vec; ++i) ++hits[static_cast<std::size_t>(e + i)];
      }
    }
  }
  CHECK(std::count(hits.begin(), hits.end(), 1) == Shape::tile);
}
}  // namespace

TEST_CASE("the split-K reduction's threads cover each tile element once, in whole vectors of a row") {
  check_split_reduce_cover<float, 64, 64>();
  check_split_reduce_cover<float, 128, 128>();
  check_split_reduce_cover<float, 64, 128>();
  check_split_reduce_cover<float, 32, 64>();
  check_split_reduce_cover<double, 128, 64>();
  check_split_reduce_cover<double, 64, 64>();
  check_split_reduce_cover<float, 16, 6>();  // rows of 24 bytes: one element a vector
  check_split_reduce_cover<double, 24, 3>();
  check_split_reduce_cover<float, 8, 4>();  // a tile smaller than one block's vectors
}
