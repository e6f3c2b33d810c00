// tilecraft::histogram_range (and histogram_even on 32-bit integers) against
// cub::DeviceHistogram and an exact host count: levels evenly and unevenly spaced, repeated
// levels (empty bins), samples on every level, below the first and at the last, bins 1 ...
// 65536 (lookup table in shared memory, binary search over global levels), uint8, uint16 and
// int32 samples.
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "histogram_check.cuh"

using namespace histogram_test;
using tilecraft::test::DeviceBuffer;

namespace {

// bins + 1 increasing levels in [lo, hi]: evenly spaced, or random (sorted, repeats kept).
std::vector<int> make_levels(int bins, long long lo, long long hi, bool even, std::uint64_t salt) {
  std::vector<int> levels(static_cast<std::size_t>(bins) + 1);
  if (even) {
    for (int i = 0; i <= bins; ++i) levels[static_cast<std::size_t>(i)] = static_cast<int>(lo + (hi - lo) * i / bins);
  } else {
    auto r = tilecraft::test::random_vector<long long>(levels.size(), static_cast<double>(lo), static_cast<double>(hi),
                                                       salt);
    std::sort(r.begin(), r.end());
    for (std::size_t i = 0; i < r.size(); ++i) levels[i] = static_cast<int>(r[i]);
  }
  return levels;
}

// Samples uniform in [lo, hi], then every level, its neighbours and the extremes planted.
template <class Sample>
std::vector<Sample> make_samples(std::size_t count, long long lo, long long hi, const std::vector<int>& levels,
                                 std::uint64_t salt) {
  auto v = tilecraft::test::random_vector<Sample>(count, static_cast<double>(lo), static_cast<double>(hi), salt);
  std::size_t at = 0;
  auto plant = [&](long long x) {
    if (x >= lo && x <= hi && at < v.size()) v[(at++ * 7919) % v.size()] = static_cast<Sample>(x);
  };
  for (int level : levels) {
    plant(level);
    plant(static_cast<long long>(level) - 1);
  }
  plant(lo);
  plant(hi);
  return v;
}

}  // namespace

TEST_CASE("int32 range bins: even and uneven levels, bins 1 ... 65536, against the host count and CUB") {
  for (int bins : {1, 2, 255, 256, 257, 2048, 4096, 65536}) {
    for (bool even : {true, false}) {
      const auto levels = make_levels(bins, -100000, 100000, even, 5u * bins + even);
      DeviceBuffer<int> d_levels(levels);
      for (std::int64_t n : {std::int64_t{0}, std::int64_t{33}, std::int64_t{4097}, std::int64_t{(1 << 20) + 9}}) {
        for (int shift : {0, 1}) {
          CAPTURE(bins);
          CAPTURE(even);
          CAPTURE(n);
          CAPTURE(shift);
          const auto host = make_samples<int>(static_cast<std::size_t>(n + shift), -120000, 120000, levels, bins + n);
          DeviceBuffer<int> in(host);
          const Counts want = host_range(host, static_cast<std::size_t>(shift), n, levels);
          CHECK(run_range<unsigned>(in.get() + shift, n, d_levels) == want);
          if (shift == 0 && bins <= 4096) CHECK(cub_range(in.get(), n, d_levels) == want);
        }
      }
    }
  }
}

TEST_CASE("int32 range bins: all samples in one bin, sorted samples, the whole int range") {
  const std::int64_t n = (1 << 20) + 3;
  for (int bins : {64, 2048}) {
    // Levels spanning almost the whole int range: INT_MIN ... INT_MAX.
    auto levels = make_levels(bins, INT_MIN, INT_MAX, true, 1);
    DeviceBuffer<int> d_levels(levels);
    std::vector<int> same(static_cast<std::size_t>(n), levels[static_cast<std::size_t>(bins / 2)]);
    DeviceBuffer<int> in(same);
    CHECK(run_range<unsigned>(in.get(), n, d_levels) == host_range(same, 0, n, levels));
    auto sorted = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n), INT_MIN, INT_MAX, 77);
    std::sort(sorted.begin(), sorted.end());
    in.upload(sorted);
    CHECK(run_range<unsigned>(in.get(), n, d_levels) == host_range(sorted, 0, n, levels));
  }
}

TEST_CASE("uint8 and uint16 range bins with int levels") {
  for (int bins : {1, 5, 256}) {
    const auto levels8 = make_levels(bins, 0, 256, bins != 5, 3u * bins);
    DeviceBuffer<int> d8(levels8);
    const auto levels16 = make_levels(bins, 100, 65536, bins != 5, 7u * bins);
    DeviceBuffer<int> d16(levels16);
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{100}, std::int64_t{(1 << 19) + 11}}) {
      for (int shift : {0, 5}) {
        CAPTURE(bins);
        CAPTURE(n);
        CAPTURE(shift);
        const auto h8 = make_samples<std::uint8_t>(static_cast<std::size_t>(n + shift), 0, 255, levels8, n);
        DeviceBuffer<std::uint8_t> in8(h8);
        CHECK(run_range<unsigned>(in8.get() + shift, n, d8) ==
              host_range(h8, static_cast<std::size_t>(shift), n, levels8));
        const auto h16 = make_samples<std::uint16_t>(static_cast<std::size_t>(n + shift), 0, 65535, levels16, n + 1);
        DeviceBuffer<std::uint16_t> in16(h16);
        CHECK(run_range<unsigned>(in16.get() + shift, n, d16) ==
              host_range(h16, static_cast<std::size_t>(shift), n, levels16));
      }
    }
  }
}

TEST_CASE("int32 even bins: exact at every edge, the full int range, bins 1 ... 65536") {
  struct Bins {
    int bins, lower, upper;
  };
  const Bins configs[] = {{1, -5, 5},
                          {2, -1000000, 1000000},
                          {2048, -1000000, 1000001},
                          {4096, INT_MIN, INT_MAX},
                          {65536, -70000, 70000},
                          {1000, 17, 1017 * 3 + 5}};
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{7}, std::int64_t{4099}, std::int64_t{(1 << 20) + 1}}) {
    for (const Bins& b : configs) {
      CAPTURE(n);
      CAPTURE(b.bins);
      CAPTURE(b.lower);
      auto host = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n) + 1,
                                                      b.lower - 10.0 * (b.lower > INT_MIN + 10),
                                                      static_cast<double>(b.upper), n + b.bins);
      // Every bin edge lower + ceil(k * range / bins), its neighbours, lower - 1 and upper.
      const long long range = static_cast<long long>(b.upper) - b.lower;
      for (std::size_t i = 0; i < host.size() && i < 3000; ++i) {
        const long long k = static_cast<long long>(i / 3) % (b.bins + 1);
        const long long edge = b.lower + (k * range + b.bins - 1) / b.bins + static_cast<long long>(i % 3) - 1;
        host[(i * 7919) % host.size()] = static_cast<int>(std::clamp<long long>(edge, INT_MIN, INT_MAX));
      }
      DeviceBuffer<int> in(host);
      const Counts want = host_even(host, 1, n, b.bins, b.lower, b.upper);
      CHECK(run_even<unsigned>(in.get() + 1, n, b.bins, b.lower, b.upper) == want);
    }
  }
}
