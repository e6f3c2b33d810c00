// tilecraft::histogram_even and histogram_range on float samples against
// cub::DeviceHistogram and the documented host formula: edges binned exactly as the host
// reference bins them, NaN, infinities, -0, samples below lower and at upper, 64 bins over
// [-1, 1) and odd ranges and bin counts.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "histogram_check.cuh"

using namespace histogram_test;
using tilecraft::test::DeviceBuffer;

namespace {

// Samples uniform in [lo, hi) with the edges of `bins` bins over [lower, upper) planted: each
// lower + k * (upper - lower) / bins as float, its neighbours up and down, lower, upper, NaN,
// the infinities and -0.
std::vector<float> make_samples(std::size_t count, double lo, double hi, int bins, float lower, float upper,
                                std::uint64_t salt) {
  auto v = tilecraft::test::random_vector<float>(count, lo, hi, salt);
  std::vector<float> planted = {lower,
                                upper,
                                std::nextafter(lower, -1e30f),
                                std::nextafter(upper, -1e30f),
                                std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity(),
                                -0.0f,
                                0.0f};
  for (int k = 0; k <= bins && k < 5000; ++k) {
    const float edge = static_cast<float>(lower + (static_cast<double>(upper) - lower) * k / bins);
    planted.push_back(edge);
    planted.push_back(std::nextafter(edge, 1e30f));
    planted.push_back(std::nextafter(edge, -1e30f));
  }
  for (std::size_t i = 0; i < planted.size() && !v.empty(); ++i) v[(i * 7919) % v.size()] = planted[i];
  return v;
}

}  // namespace

TEST_CASE("float even bins: the host formula at every edge, NaN and infinities, against CUB on [-1, 1)") {
  struct Bins {
    int bins;
    float lower, upper;
  };
  const Bins configs[] = {{64, -1.0f, 1.0f},  {1, -1.0f, 1.0f},     {2, 0.0f, 1.0f},     {255, 0.1f, 0.7f},
                          {256, -3.0f, 5.0f}, {257, -1e-3f, 2e-3f}, {4096, -1.0f, 1.0f}, {65536, -100.0f, 100.0f}};
  for (std::int64_t n : sizes) {
    for (int shift : {0, 1, 3}) {
      for (const Bins& b : configs) {
        CAPTURE(n);
        CAPTURE(shift);
        CAPTURE(b.bins);
        CAPTURE(b.lower);
        const auto host = make_samples(static_cast<std::size_t>(n + shift), b.lower - 0.1 * (b.upper - b.lower),
                                       b.upper + 0.1 * (b.upper - b.lower), b.bins, b.lower, b.upper, n + b.bins);
        DeviceBuffer<float> in(host);
        const Counts want = host_even(host, static_cast<std::size_t>(shift), n, b.bins, b.lower, b.upper);
        CHECK(run_even<unsigned>(in.get() + shift, n, b.bins, b.lower, b.upper) == want);
      }
      // CUB agrees where its unclamped product stays below the bin count. Over [-1, 1) with 64
      // bins that is every float but the largest below 1: x - (-1) rounds to 2.0 there, so the
      // product is 64, which tilecraft clamps into bin 63 (the documented formula; the test
      // above checks it against the host) and CUB drops. Such a draw becomes 0.5 here.
      auto uniform = tilecraft::test::random_vector<float>(static_cast<std::size_t>(n + shift), -1.0, 1.0, 5 * n);
      for (float& x : uniform) {
        if ((x - -1.0f) * 32.0f >= 64.0f) x = 0.5f;
      }
      DeviceBuffer<float> in(uniform);
      CHECK(run_even<unsigned>(in.get() + shift, n, 64, -1.0f, 1.0f) == cub_even(in.get() + shift, n, 64, -1.0f, 1.0f));
    }
  }
}

TEST_CASE("float even bins: all samples in one bin, sorted samples, 64-bit counters") {
  const std::int64_t n = (1 << 22) + 1;
  std::vector<float> same(static_cast<std::size_t>(n), 0.5f);
  DeviceBuffer<float> in(same);
  CHECK(run_even<unsigned long long>(in.get(), n, 64, -1.0f, 1.0f) == host_even(same, 0, n, 64, -1.0f, 1.0f));
  auto sorted = tilecraft::test::random_vector<float>(static_cast<std::size_t>(n), -1.0, 1.0, 31);
  std::sort(sorted.begin(), sorted.end());
  in.upload(sorted);
  CHECK(run_even<unsigned>(in.get(), n, 64, -1.0f, 1.0f) == host_even(sorted, 0, n, 64, -1.0f, 1.0f));
  CHECK(run_even<unsigned>(in.get(), n, 1000, -0.5f, 0.25f) == host_even(sorted, 0, n, 1000, -0.5f, 0.25f));
}

TEST_CASE("float range bins: levels with -0, negative and positive values, NaN never counted, against CUB") {
  for (int bins : {1, 64, 255, 2048, 4096, 65536}) {
    // Uneven levels: squares of an even grid over [-1, 1), sign kept, so they crowd near 0.
    std::vector<float> levels(static_cast<std::size_t>(bins) + 1);
    for (int i = 0; i <= bins; ++i) {
      const double t = -1.0 + 2.0 * i / bins;
      levels[static_cast<std::size_t>(i)] = static_cast<float>(t < 0 ? -t * t : t * t);
    }
    if (bins % 2 == 0) levels[static_cast<std::size_t>(bins / 2)] = -0.0f;
    DeviceBuffer<float> d_levels(levels);
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{31}, std::int64_t{4097}, std::int64_t{(1 << 20) + 5}}) {
      for (int shift : {0, 1}) {
        CAPTURE(bins);
        CAPTURE(n);
        CAPTURE(shift);
        auto host = make_samples(static_cast<std::size_t>(n + shift), -1.2, 1.2, 4, -1.0f, 1.0f, n + bins);
        for (std::size_t i = 0; i < host.size() && i < 3 * levels.size(); ++i) {
          const float l = levels[i / 3 % levels.size()];
          host[(i * 104729) % host.size()] = i % 3 == 0 ? l : std::nextafter(l, i % 3 == 1 ? 2.0f : -2.0f);
        }
        DeviceBuffer<float> in(host);
        const Counts want = host_range(host, static_cast<std::size_t>(shift), n, levels);
        CHECK(run_range<unsigned>(in.get() + shift, n, d_levels) == want);
        if (shift == 0 && bins <= 4096) CHECK(cub_range(in.get(), n, d_levels) == want);
      }
    }
  }
}
