// The histogram launchers against cub::DeviceHistogram and exact host counts, by sample type,
// in one translation unit (CUB's histogram headers, the reference, cost more compile time per
// unit than the cases themselves).
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <type_traits>
#include <vector>

#include "histogram_check.cuh"

using namespace histogram_test;
using tilecraft::test::DeviceBuffer;

// tilecraft::histogram_even on 8- and 16-bit samples against cub::DeviceHistogram::HistogramEven
// and an exact host count: every size and alignment around the launch's seams, uniform, one-bin
// and sorted input, bins 1 ... 65536 (lane counters, warp sub-histograms, global counters),
// samples below lower and at upper, 64-bit counters past 2^32 samples, the flush of the 32-bit
// shared counters.
namespace even_bins {

namespace {

enum class Pattern { uniform, one_bin, sorted };

template <class Sample>
std::vector<Sample> make_samples(std::size_t count, Pattern pattern, int lo, int hi, std::uint64_t salt) {
  auto v = tilecraft::test::random_vector<Sample>(count, lo, hi, salt);
  if (pattern == Pattern::one_bin) std::fill(v.begin(), v.end(), v.empty() ? Sample{} : v[0]);
  if (pattern == Pattern::sorted) std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("uint8 samples: every size, alignment and pattern, bins 1 ... 4096, against the host count and CUB") {
  struct Bins {
    int bins, lower, upper;
  };
  // 256 over [0, 256) (one bin per value), odd bins and ranges, more bins than values.
  const Bins configs[] = {{256, 0, 256}, {1, 0, 256},    {2, 0, 256},  {255, 0, 256},
                          {257, 0, 256}, {4096, 0, 256}, {7, 10, 250}, {256, 1, 255}};
  // Sanitizer-sized runs take the largest size unaligned only (the other alignments meet the
  // same tile seams at every smaller size); racecheck takes every size unaligned only (shift 1
  // has both an unaligned head and tail, the shared counters the same accesses at any shift:
  // this case was 80 of racecheck's 195 s on this executable in the GPU check of 06498e4).
  const bool light = tilecraft::test::sanitizer_sized();
  for (std::int64_t n : sizes) {
    for (int shift : {0, 1, 7}) {
      if (light && n > 100000 && shift != 1) continue;
      if (tilecraft::test::racecheck_sized() && shift != 1) continue;
      for (Pattern pattern : {Pattern::uniform, Pattern::one_bin, Pattern::sorted}) {
        CAPTURE(n);
        CAPTURE(shift);
        CAPTURE(static_cast<int>(pattern));
        const auto host = make_samples<std::uint8_t>(static_cast<std::size_t>(n + shift), pattern, 0, 255, n + shift);
        DeviceBuffer<std::uint8_t> in(host);
        const std::uint8_t* p = in.get() + shift;
        for (const Bins& b : configs) {
          CAPTURE(b.bins);
          CAPTURE(b.lower);
          const Counts want = host_even(host, static_cast<std::size_t>(shift), n, b.bins, b.lower, b.upper);
          CHECK(run_even<unsigned>(p, n, b.bins, b.lower, b.upper) == want);
          if (tilecraft::test::peers_run() && pattern == Pattern::uniform && shift != 7) {
            CHECK(cub_even(p, n, b.bins, b.lower, b.upper) == want);
          }
        }
      }
    }
  }
  // Refusals (a negative count, no bins, lower >= upper; in the size query and in the call)
  // leave an earlier call's cudaErrorInvalidValue in the last-error slot and launch nothing:
  // the histogram keeps its poison.
  DeviceBuffer<std::uint8_t> in(16);
  DeviceBuffer<unsigned> hist(256);
  hist.poison();
  const Level<std::uint8_t> lower = 0, upper = 256;
  std::size_t bytes = 0;
  REQUIRE(tilecraft::histogram_even(nullptr, bytes, in.get(), hist.get(), 256, lower, upper, std::int64_t{16}) ==
          cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  using tilecraft::test::check_keeps_earlier_invalid_value;
  check_keeps_earlier_invalid_value([&] {
    return tilecraft::histogram_even(nullptr, bytes, in.get(), hist.get(), 256, lower, upper, std::int64_t{-1});
  });
  check_keeps_earlier_invalid_value([&] {
    return tilecraft::histogram_even(temp.get(), bytes, in.get(), hist.get(), 0, lower, upper, std::int64_t{16});
  });
  check_keeps_earlier_invalid_value([&] {
    return tilecraft::histogram_even(temp.get(), bytes, in.get(), hist.get(), 256, upper, lower, std::int64_t{16});
  });
  check_keeps_earlier_invalid_value([&] {
    std::size_t small = bytes - 1;
    return tilecraft::histogram_even(temp.get(), small, in.get(), hist.get(), 256, lower, upper, std::int64_t{16});
  });
  tilecraft::test::sync_and_check();
  CHECK(hist.unpoisoned() == 0);
}

TEST_CASE("uint16 samples: bins 256, 1000, 4096 and 65536 (global counters), below lower and at upper") {
  struct Bins {
    int bins, lower, upper;
  };
  const Bins configs[] = {{256, 0, 65536}, {1000, 1000, 60000}, {4096, 0, 65536}, {65536, 0, 65536}, {3, 65535, 65536}};
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{9}, std::int64_t{4097}, std::int64_t{(1 << 20) + 3}}) {
    for (int shift : {0, 3}) {
      for (Pattern pattern : {Pattern::uniform, Pattern::one_bin, Pattern::sorted}) {
        CAPTURE(n);
        CAPTURE(shift);
        CAPTURE(static_cast<int>(pattern));
        auto host = make_samples<std::uint16_t>(static_cast<std::size_t>(n + shift), pattern, 0, 65535, 3 * n + shift);
        // Values on the edges of [1000, 60000): below lower, lower, upper - 1, upper, the top.
        const std::uint16_t edges[] = {999, 1000, 59999, 60000, 65535, 0};
        for (std::size_t i = 0; i < host.size() && i < 64 && pattern == Pattern::uniform; ++i)
          host[i * 7 % host.size()] = edges[i % 6];
        DeviceBuffer<std::uint16_t> in(host);
        for (const Bins& b : configs) {
          CAPTURE(b.bins);
          const Counts want = host_even(host, static_cast<std::size_t>(shift), n, b.bins, b.lower, b.upper);
          CHECK(run_even<unsigned>(in.get() + shift, n, b.bins, b.lower, b.upper) == want);
        }
      }
    }
  }
}

TEST_CASE("uint8 and uint16 even bins with int levels past the samples' range, against the host count and CUB") {
  struct Bins {
    int bins, lower, upper;
    bool cub;  // CUB's own integer arithmetic is compared only where the width fits 2^31
  };
  // Below the smallest sample, above the largest + 1, both, all of int, and levels that no
  // sample reaches (nothing counted).
  const Bins u8_configs[] = {{256, -128, 384, true},      {7, -1000, 1000, true}, {5, 200, 100000, true},
                             {4, -50, 100, true},         {1, 300, 400, true},    {2, -10, 0, true},
                             {3, INT_MIN, INT_MAX, false}};
  const Bins u16_configs[] = {{256, -65536, 131072, true},
                              {1000, -5, 65541, true},
                              {17, 60000, 70000, true},
                              {4096, -70000, 65536, true},
                              {3, INT_MIN, INT_MAX, false}};
  for (std::int64_t n :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{33}, std::int64_t{70001}, std::int64_t{(1 << 20) + 3}}) {
    for (int shift : {0, 1}) {
      for (Pattern pattern : {Pattern::uniform, Pattern::one_bin}) {
        CAPTURE(n);
        CAPTURE(shift);
        CAPTURE(static_cast<int>(pattern));
        // Every configuration on one set of samples, against the host count (and CUB where it
        // takes the levels).
        auto check_configs = [&](const auto& samples, const auto& configs) {
          using Sample = typename std::decay_t<decltype(samples)>::value_type;
          DeviceBuffer<Sample> in(samples);
          for (const Bins& b : configs) {
            CAPTURE(b.bins);
            CAPTURE(b.lower);
            CAPTURE(b.upper);
            const Counts want = host_even(samples, static_cast<std::size_t>(shift), n, b.bins, b.lower, b.upper);
            CHECK(run_even<unsigned>(in.get() + shift, n, b.bins, b.lower, b.upper) == want);
            if (tilecraft::test::peers_run() && b.cub && pattern == Pattern::uniform) {
              CHECK(cub_even(in.get() + shift, n, b.bins, b.lower, b.upper) == want);
            }
          }
        };
        check_configs(make_samples<std::uint8_t>(static_cast<std::size_t>(n + shift), pattern, 0, 255, 5 * n + shift),
                      u8_configs);
        check_configs(
            make_samples<std::uint16_t>(static_cast<std::size_t>(n + shift), pattern, 0, 65535, 7 * n + shift),
            u16_configs);
      }
    }
  }
}

TEST_CASE("a policy without lane counters: one block histogram, warp copies, global counters") {
  // 128 threads, WarpsPerCopy 4: one copy (BlockHistogramAlgorithm::block); 64 threads: two.
  using One = tilecraft::HistogramPolicy<128, 2, 4, 0, 1>;
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{5000}, std::int64_t{(1 << 20) + 1}}) {
    for (Pattern pattern : {Pattern::uniform, Pattern::one_bin}) {
      CAPTURE(n);
      const auto host = make_samples<std::uint8_t>(static_cast<std::size_t>(n) + 1, pattern, 0, 255, 11 * n);
      DeviceBuffer<std::uint8_t> in(host);
      for (int bins : {64, 256, 1 << 20}) {
        CAPTURE(bins);
        DeviceBuffer<unsigned> out(static_cast<std::size_t>(bins));
        out.poison();
        std::size_t bytes = 0;
        REQUIRE(tilecraft::histogram_even<One>(nullptr, bytes, in.get() + 1, out.get(), bins, 0, 256, n) ==
                cudaSuccess);
        DeviceBuffer<unsigned char> temp(bytes);
        REQUIRE(tilecraft::histogram_even<One>(temp.get(), bytes, in.get() + 1, out.get(), bins, 0, 256, n) ==
                cudaSuccess);
        tilecraft::test::sync_and_check();
        CHECK(widen(out.download()) == host_even(host, 1, n, bins, 0, 256));
      }
    }
  }
}

TEST_CASE("32-bit shared counters flushed between tiles give the same counts") {
  // A flush after every tile (a block sweeping 2^31 samples does it for real): the grid meets
  // before the sweep, and every block adds its counts into the output tile by tile.
  // Several tiles per block (32768 bytes each, up to ~400 resident blocks on an H200: 2^26
  // samples give each about 5, 2^25 about 2.5). Sanitizer-sized runs: 2^25, one bin count a
  // pattern; under racecheck (which tracks every shared atomic) 2^24, whose 512 tiles still
  // give about a hundred blocks a second tile after a flush.
  const bool light = tilecraft::test::sanitizer_sized();
  const std::int64_t n = (std::int64_t{1} << (tilecraft::test::racecheck_sized() ? 24 : light ? 25 : 26)) + 5;
  for (Pattern pattern : {Pattern::uniform, Pattern::one_bin}) {
    const auto host = make_samples<std::uint8_t>(static_cast<std::size_t>(n), pattern, 0, 255, 99);
    DeviceBuffer<std::uint8_t> in(host);
    for (int bins : {256, 1000}) {
      if (light && (bins == 256) != (pattern == Pattern::uniform)) continue;
      CAPTURE(bins);
      DeviceBuffer<unsigned> out(static_cast<std::size_t>(bins));
      out.poison();
      std::size_t bytes = 16;
      DeviceBuffer<unsigned char> temp(bytes);
      REQUIRE(tilecraft::detail::histogram_even_with<tilecraft::HistogramPolicy<>>(
                  temp.get(), bytes, in.get(), out.get(), bins, 0, 256, n, nullptr, 1) == cudaSuccess);
      tilecraft::test::sync_and_check();
      CHECK(widen(out.download()) == host_even(host, 0, n, bins, 0, 256));
    }
  }
}

TEST_CASE("64-bit counters past 2^32 samples") {
  if (tilecraft::test::sanitizer_sized()) {
    MESSAGE("TILECRAFT_TEST_HUGE=0: skipping the 2^32 + 5 sample case");
    return;
  }
  const std::int64_t n = (std::int64_t{1} << 32) + 5;
  DeviceBuffer<std::uint8_t> in(static_cast<std::size_t>(n) + 1);
  // All samples 7 except a few marks (head, the 2^31 and 2^32 boundaries, the last), starting
  // one byte in (unaligned).
  TILECRAFT_THROW_IF_ERROR(cudaMemset(in.get(), 7, static_cast<std::size_t>(n) + 1));
  const std::uint8_t marks[] = {0, 255, 3, 200};
  const std::int64_t where[] = {1, std::int64_t{1} << 31, std::int64_t{1} << 32, n};
  for (int i = 0; i < 4; ++i)
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in.get() + where[i], &marks[i], 1, cudaMemcpyHostToDevice));
  Counts want(256, 0);
  want[7] = static_cast<unsigned long long>(n - 4);
  for (std::uint8_t m : marks) ++want[m];
  CHECK(run_even<unsigned long long>(in.get() + 1, n, 256, 0, 256) == want);
  // 32-bit counters wrap modulo 2^32, as CUB's do.
  Counts wrapped = want;
  wrapped[7] &= 0xffffffffull;
  CHECK(run_even<unsigned>(in.get() + 1, n, 256, 0, 256) == wrapped);
}

}  // namespace even_bins

// tilecraft::histogram_even and histogram_range on float samples against
// cub::DeviceHistogram and the documented host formula: edges binned exactly as the host
// reference bins them, NaN, infinities, -0, samples below lower and at upper, 64 bins over
// [-1, 1) and odd ranges and bin counts.
namespace float_bins {

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
        const auto host =
            make_samples(static_cast<std::size_t>(n + shift), b.lower - 0.1 * (b.upper - b.lower),
                         b.upper + 0.1 * (b.upper - b.lower), b.bins, b.lower, b.upper, n * 65537 + b.bins);
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
      const Counts want = host_even(uniform, static_cast<std::size_t>(shift), n, 64, -1.0f, 1.0f);
      CHECK(run_even<unsigned>(in.get() + shift, n, 64, -1.0f, 1.0f) == want);
      if (tilecraft::test::peers_run()) CHECK(cub_even(in.get() + shift, n, 64, -1.0f, 1.0f) == want);
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
        auto host = make_samples(static_cast<std::size_t>(n + shift), -1.2, 1.2, 4, -1.0f, 1.0f, n * 65537 + bins);
        for (std::size_t i = 0; i < host.size() && i < 3 * levels.size(); ++i) {
          const float l = levels[i / 3 % levels.size()];
          host[(i * 104729) % host.size()] = i % 3 == 0 ? l : std::nextafter(l, i % 3 == 1 ? 2.0f : -2.0f);
        }
        DeviceBuffer<float> in(host);
        const Counts want = host_range(host, static_cast<std::size_t>(shift), n, levels);
        CHECK(run_range<unsigned>(in.get() + shift, n, d_levels) == want);
        if (tilecraft::test::peers_run() && shift == 0 && bins <= 4096) CHECK(cub_range(in.get(), n, d_levels) == want);
      }
    }
  }
}

}  // namespace float_bins

// tilecraft::histogram_range (and histogram_even on 32-bit integers) against
// cub::DeviceHistogram and an exact host count: levels evenly and unevenly spaced, repeated
// levels (empty bins), samples on every level, below the first and at the last, bins 1 ...
// 65536 (lookup table in shared memory, binary search over global levels), uint8, uint16 and
// int32 samples.
namespace range_bins {

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
          if (tilecraft::test::peers_run() && shift == 0 && bins <= 4096)
            CHECK(cub_range(in.get(), n, d_levels) == want);
        }
      }
    }
  }
}

// histogram_range does not check the levels' order (they are in device memory): levels out of
// order or NaN give unspecified bins, but a sample is counted once exactly where it lies in
// [levels[0], levels[bins]) (never otherwise) and nothing is written outside the histogram
// (run_range checks the guards on both sides), on the shared table's path (up to 4096 bins) and
// the global one. (Racecheck covers the table's build: a block with levels out of order skips it.)
TEST_CASE("range bins: levels out of order or NaN count each sample in their outer range once, inside the histogram") {
  auto total = [](const Counts& c) {
    unsigned long long t = 0;
    for (const auto v : c) t += v;
    return t;
  };
  const std::int64_t n = (1 << 16) + 7;
  for (int bins : {64, 4096, 65536}) {
    CAPTURE(bins);
    // Decreasing integer levels, with some pairs swapped on top (never the last level: bins - 3
    // is no multiple of 5), so the first level lies above the last and no sample counts.
    auto levels = make_levels(bins, -100000, 100000, true, 7u * bins);
    std::reverse(levels.begin(), levels.end());
    for (std::size_t i = 0; i + 3 < levels.size(); i += 5) std::swap(levels[i], levels[i + 3]);
    REQUIRE(levels.front() > levels.back());
    const DeviceBuffer<int> d_levels(levels);
    const DeviceBuffer<int> in(make_samples<int>(static_cast<std::size_t>(n), -120000, 120000, levels, bins));
    CHECK(total(run_range<unsigned>(in.get(), n, d_levels)) == 0);
    // Increasing integer levels with interior pairs swapped (a dip, never the first or the last
    // level): the blocks search every level (no table), and every sample in [first, last)
    // counts once.
    auto dipped = make_levels(bins, -100000, 100000, true, 11u * bins);
    for (std::size_t i = 1; i + 4 < dipped.size(); i += 5) std::swap(dipped[i], dipped[i + 3]);
    REQUIRE(dipped.front() < dipped.back());
    const auto int_samples = make_samples<int>(static_cast<std::size_t>(n), -120000, 120000, dipped, bins);
    const auto int_inside = static_cast<unsigned long long>(std::count_if(
        int_samples.begin(), int_samples.end(), [&](int x) { return x >= dipped.front() && x < dipped.back(); }));
    const DeviceBuffer<int> d_dipped(dipped);
    const DeviceBuffer<int> din(int_samples);
    CHECK(total(run_range<unsigned>(din.get(), n, d_dipped)) == int_inside);
    // Increasing float levels over [-1, 1] with NaN at every seventh (never the first or the
    // last): every sample in [-1, 1) counts once.
    std::vector<float> f(static_cast<std::size_t>(bins) + 1);
    for (std::size_t i = 0; i < f.size(); ++i) {
      f[i] = i % 7 == 3 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(-1.0 + 2.0 * i / bins);
    }
    REQUIRE((f.front() == -1.0f && f.back() == 1.0f));
    const auto samples = tilecraft::test::random_vector<float>(static_cast<std::size_t>(n), -1.2, 1.2, 31 + bins);
    const auto inside = static_cast<unsigned long long>(
        std::count_if(samples.begin(), samples.end(), [](float x) { return x >= -1.0f && x < 1.0f; }));
    const DeviceBuffer<float> d_f(f);
    const DeviceBuffer<float> fin(samples);
    CHECK(total(run_range<unsigned>(fin.get(), n, d_f)) == inside);
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

// Range levels past the samples' type (negative, above its largest value), repeated and all
// equal levels, and float levels at -Inf and +Inf, against the host count (a sample x counts
// where levels.front() <= x < levels.back(), in the bin std::upper_bound gives: -Inf counts
// where the first level is -Inf, +Inf and NaN never).
TEST_CASE("range bins: int levels past uint8 / uint16, repeated and equal levels, float levels at infinity") {
  const std::int64_t n = (1 << 16) + 3;
  const auto m = static_cast<std::size_t>(n);
  auto g = tilecraft::test::rng(4711);
  std::vector<std::uint8_t> h8(m);
  std::vector<std::uint16_t> h16(m);
  std::vector<float> hf(m);
  for (std::size_t i = 0; i < m; ++i) {
    h8[i] = static_cast<std::uint8_t>(g());
    h16[i] = static_cast<std::uint16_t>(g());
    hf[i] = static_cast<float>(g.uniform_real(-2.0, 2.0));
  }
  for (std::size_t v = 0; v < 256; ++v) h8[v * 7] = static_cast<std::uint8_t>(v);  // every value
  const std::uint16_t edges16[] = {0, 1, 999, 1000, 1001, 65534, 65535};
  for (std::size_t k = 0; k < std::size(edges16); ++k) h16[k * 11] = edges16[k];
  const float inf = std::numeric_limits<float>::infinity();
  const float planted[] = {inf, -inf, std::numeric_limits<float>::quiet_NaN(), -1.0f, -0.5f, 0.0f, -0.0f, 0.25f, 1.0f};
  for (std::size_t k = 0; k < 9 * std::size(planted); ++k) hf[k * 13] = planted[k % std::size(planted)];
  DeviceBuffer<std::uint8_t> in8(h8);
  DeviceBuffer<std::uint16_t> in16(h16);
  DeviceBuffer<float> inf_(hf);
  const std::vector<std::vector<int>> levels8 = {
      {-1000, -5, 0, 3, 100, 255, 256, 70000}, {5, 5, 5}, {-3, 0, 0, 7, 7, 300}, {255, 256}, {-1, 0}};
  for (const auto& levels : levels8) {
    CAPTURE(levels.front());
    CAPTURE(levels.size());
    DeviceBuffer<int> d(levels);
    CHECK(run_range<unsigned>(in8.get(), n, d) == host_range(h8, 0, n, levels));
  }
  const std::vector<std::vector<int>> levels16 = {{-7, 1000, 65535, 65536, 1 << 20}, {65535, 65535}, {1000, 1001}};
  for (const auto& levels : levels16) {
    CAPTURE(levels.front());
    CAPTURE(levels.size());
    DeviceBuffer<int> d(levels);
    CHECK(run_range<unsigned>(in16.get(), n, d) == host_range(h16, 0, n, levels));
  }
  const std::vector<std::vector<float>> levelsf = {
      {-inf, -1.0f, 0.0f, 1.0f, inf}, {-inf, inf}, {-inf, -0.5f, -0.5f, 0.25f}, {0.25f, inf}};
  for (const auto& levels : levelsf) {
    CAPTURE(levels.front());
    CAPTURE(levels.size());
    DeviceBuffer<float> d(levels);
    CHECK(run_range<unsigned>(inf_.get(), n, d) == host_range(hf, 0, n, levels));
  }
}

TEST_CASE("int32 even bins: exact at every edge, the full int range, bins 1 ... 65536, more bins than values") {
  struct Bins {
    int bins, lower, upper;
  };
  const Bins configs[] = {{1, -5, 5},
                          {2, -1000000, 1000000},
                          {2048, -1000000, 1000001},
                          {4096, INT_MIN, INT_MAX},
                          {65536, -70000, 70000},
                          {1000, 17, 1017 * 3 + 5},
                          // More bins than values: most bins stay empty, each value's own bin.
                          {1000, 0, 10},
                          {65536, INT_MIN, INT_MIN + 3}};
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{7}, std::int64_t{4099}, std::int64_t{(1 << 20) + 1}}) {
    for (const Bins& b : configs) {
      CAPTURE(n);
      CAPTURE(b.bins);
      CAPTURE(b.lower);
      auto host = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n) + 1,
                                                      b.lower - 10.0 * (b.lower > INT_MIN + 10),
                                                      static_cast<double>(b.upper), n + b.bins);
      // Bin edges lower + ceil(k * range / bins) with their neighbours, for k spread over 0 ...
      // bins (every edge up to 999 bins), lower - 1, lower, upper - 1 and upper among them.
      const long long range = static_cast<long long>(b.upper) - b.lower;
      for (std::size_t i = 0; i < host.size() && i < 3000; ++i) {
        const long long k = static_cast<long long>(i / 3) * b.bins / 999;
        const long long edge = b.lower + (k * range + b.bins - 1) / b.bins + static_cast<long long>(i % 3) - 1;
        host[(i * 7919) % host.size()] = static_cast<int>(std::clamp<long long>(edge, INT_MIN, INT_MAX));
      }
      DeviceBuffer<int> in(host);
      const Counts want = host_even(host, 1, n, b.bins, b.lower, b.upper);
      CHECK(run_even<unsigned>(in.get() + 1, n, b.bins, b.lower, b.upper) == want);
    }
  }
}

// The plans the cases above do not reach on an H200: one block an SM (bins too many for the
// policy's blocks per SM to share one, few enough for one block: even int bins from about
// 19,200 and range bins, with their levels and lookup cells, from about 8,300), 64-bit counters
// on the global counters (more bins than one block holds), and a policy that counts a 16-byte
// vector of one value sample by sample (VectorRuns false).
TEST_CASE("one block an SM, 64-bit global counters, and a policy without vector runs") {
  // Sanitizer-sized: fewer samples, and one bin count of each kind (a one-block launch zeroes
  // and merges tens of thousands of shared counters in each of 132 blocks: racecheck's slowest).
  const bool light = tilecraft::test::sanitizer_sized();
  const std::int64_t n = light ? 30011 : (1 << 20) + 5;
  const auto m = static_cast<std::size_t>(n);
  const std::vector<int> even_bins = light ? std::vector<int>{20000} : std::vector<int>{20000, 40000};
  const std::vector<int> range_bins = light ? std::vector<int>{10000} : std::vector<int>{10000, 20000};
  for (int bins : even_bins) {
    CAPTURE(bins);
    const auto host = tilecraft::test::random_vector<int>(m + 1, -1000010.0, 1000010.0, 31u * bins);
    DeviceBuffer<int> in(host);
    const Counts want = host_even(host, 1, n, bins, -1000000, 1000000);
    CHECK(run_even<unsigned>(in.get() + 1, n, bins, -1000000, 1000000) == want);
  }
  for (int bins : range_bins) {
    for (bool even : {true, false}) {
      CAPTURE(bins);
      CAPTURE(even);
      const auto levels = make_levels(bins, -100000, 100000, even, 37u * bins + even);
      DeviceBuffer<int> d_levels(levels);
      const auto host = make_samples<int>(m, -120000, 120000, levels, 41u * bins + even);
      DeviceBuffer<int> in(host);
      CHECK(run_range<unsigned>(in.get(), n, d_levels) == host_range(host, 0, n, levels));
    }
  }
  {
    const auto h16 = tilecraft::test::random_vector<std::uint16_t>(m, 0, 65535, 43);
    DeviceBuffer<std::uint16_t> in16(h16);
    CHECK(run_even<unsigned long long>(in16.get(), n, 65536, 0, 65536) == host_even(h16, 0, n, 65536, 0, 65536));
    const auto levels = make_levels(65536, -100000, 100000, false, 47);
    DeviceBuffer<int> d_levels(levels);
    const auto host = make_samples<int>(m, -120000, 120000, levels, 53);
    DeviceBuffer<int> in(host);
    CHECK(run_range<unsigned long long>(in.get(), n, d_levels) == host_range(host, 0, n, levels));
  }
  using NoRuns = tilecraft::HistogramPolicy<256, 8, 4, 256, 3, false>;
  for (bool one_value : {false, true}) {
    CAPTURE(one_value);
    auto bytes = tilecraft::test::random_vector<std::uint8_t>(m + 3, 0, 255, 59u + one_value);
    if (one_value) std::fill(bytes.begin(), bytes.end(), std::uint8_t{201});
    DeviceBuffer<std::uint8_t> in(bytes);
    DeviceBuffer<unsigned> out(256);
    out.poison();
    std::size_t temp_bytes = 0;
    REQUIRE(tilecraft::histogram_even<NoRuns>(nullptr, temp_bytes, in.get() + 3, out.get(), 256, 0, 256, n) ==
            cudaSuccess);
    DeviceBuffer<unsigned char> temp(temp_bytes);
    REQUIRE(tilecraft::histogram_even<NoRuns>(temp.get(), temp_bytes, in.get() + 3, out.get(), 256, 0, 256, n) ==
            cudaSuccess);
    tilecraft::test::sync_and_check();
    CHECK(widen(out.download()) == host_even(bytes, 3, n, 256, 0, 256));
  }
}

}  // namespace range_bins

// Cases an audit found no test would catch: the most bins with few samples, vector runs on words
// that repeat while their elements differ, the 32-bit counters' flush under histogram_range, and
// the stream order.
namespace histogram_gaps {

// The most bins either launcher takes (2^22, counted in global memory): where the bin estimates
// of 32-bit samples come nearest the one step their correction makes, and where a launch of few
// samples still zeroes 16 or 32 MiB of output (its grid sized for that, not for the samples).
// int32 even bins over the whole int range with bin edges planted, uint16 samples (64 bins a
// value), and range bins (the levels searched in global memory); 32- and 64-bit counters.
TEST_CASE("the most bins, 2^22, in global counters: few samples and many, bin edges planted") {
  constexpr int bins = 1 << 22;
  static_assert(bins == tilecraft::detail::histogram_max_bins);
  const std::vector<std::int64_t> sizes = tilecraft::test::sanitizer_sized()
                                              ? std::vector<std::int64_t>{0, 1000}
                                              : std::vector<std::int64_t>{0, 1000, (1 << 20) + 3};
  for (const std::int64_t n : sizes) {
    CAPTURE(n);
    const auto m = static_cast<std::size_t>(n);
    auto host = tilecraft::test::random_vector<int>(m + 1, INT_MIN, INT_MAX, 61u + m);
    // Edges INT_MIN + ceil(k * range / bins) with their neighbours, k spread over every bin.
    const long long range = static_cast<long long>(INT_MAX) - INT_MIN;
    for (std::size_t i = 0; i < host.size() && i < 30000; ++i) {
      const long long k = static_cast<long long>(i / 3) * bins / 9999;
      const long long edge = INT_MIN + (k * range + bins - 1) / bins + static_cast<long long>(i % 3) - 1;
      host[(i * 7919) % host.size()] = static_cast<int>(std::clamp<long long>(edge, INT_MIN, INT_MAX));
    }
    DeviceBuffer<int> in(host);
    const Counts want = host_even(host, 1, n, bins, INT_MIN, INT_MAX);
    CHECK(run_even<unsigned>(in.get() + 1, n, bins, INT_MIN, INT_MAX) == want);
    CHECK(run_even<unsigned long long>(in.get() + 1, n, bins, INT_MIN, INT_MAX) == want);

    const auto h16 = tilecraft::test::random_vector<std::uint16_t>(m, 0, 65535, 67u + m);
    DeviceBuffer<std::uint16_t> in16(h16);
    CHECK(run_even<unsigned>(in16.get(), n, bins, 0, 65536) == host_even(h16, 0, n, bins, 0, 65536));

    const auto levels = range_bins::make_levels(bins, -(1ll << 30), 1ll << 30, false, 71u + m);
    DeviceBuffer<int> d_levels(levels);
    const auto samples = range_bins::make_samples<int>(m, -(1ll << 30) - 5, (1ll << 30) + 5, levels, 73u + m);
    DeviceBuffer<int> d_samples(samples);
    CHECK(run_range<unsigned>(d_samples.get(), n, d_levels) == host_range(samples, 0, n, levels));
  }
}

// A 16-byte vector whose four words are equal counts as one value only when the word is one
// element repeated: bytes 1, 2, 3, 4 in every word (or 16-bit a, b) must count every element.
TEST_CASE("vectors of one repeated word whose elements differ count every element") {
  for (std::int64_t n : {std::int64_t{4096 + 16}, std::int64_t{(1 << 20) + 7}}) {
    // (Sanitizer-sized runs: the small size, the same kernels.)
    if (tilecraft::test::sanitizer_sized() && n > 100000) continue;
    CAPTURE(n);
    const auto m = static_cast<std::size_t>(n);
    std::vector<std::uint8_t> bytes(m);
    for (std::size_t i = 0; i < m; ++i) bytes[i] = static_cast<std::uint8_t>(1 + i % 4);
    DeviceBuffer<std::uint8_t> in8(bytes);
    CHECK(run_even<unsigned>(in8.get(), n, 256, 0, 256) == host_even(bytes, 0, n, 256, 0, 256));
    std::vector<std::uint16_t> halves(m);
    for (std::size_t i = 0; i < m; ++i) halves[i] = i % 2 ? std::uint16_t{40000} : std::uint16_t{7};
    DeviceBuffer<std::uint16_t> in16(halves);
    CHECK(run_even<unsigned>(in16.get(), n, 1000, 0, 65536) == host_even(halves, 0, n, 1000, 0, 65536));
    // The same in range bins (the lookup of each element, not of the run's first).
    const std::vector<int> levels = {0, 2, 10, 50000, 65536};  // 7 in bin 1, 40000 in bin 2
    DeviceBuffer<int> d_levels(levels);
    CHECK(run_range<unsigned>(in16.get(), n, d_levels) == host_range(halves, 0, n, levels));
  }
}

// histogram_range with a flush of the 32-bit shared counters after every tile.
TEST_CASE("32-bit shared counters flushed between tiles give the same counts in range bins") {
  // (Sanitizer-sized: 2^22 ints are 512 tiles of 8192, which give some of the ~400 resident blocks
  // a second tile after a flush.)
  const std::int64_t n = (std::int64_t{1} << (tilecraft::test::sanitizer_sized() ? 22 : 25)) + 5;
  const auto host = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n), -1000, 1000, 71);
  DeviceBuffer<int> in(host);
  for (int bins : {100, 3000}) {
    CAPTURE(bins);
    // Random levels, repeats kept (empty bins), most samples inside.
    const auto levels = range_bins::make_levels(bins, -900, 900, false, 7u * static_cast<unsigned>(bins));
    DeviceBuffer<int> d_levels(levels);
    DeviceBuffer<unsigned> out(static_cast<std::size_t>(bins));
    out.poison();
    std::size_t bytes = 16;
    DeviceBuffer<unsigned char> temp(bytes);
    REQUIRE(tilecraft::detail::histogram_range_with<tilecraft::HistogramPolicy<>>(
                temp.get(), bytes, in.get(), out.get(), bins, d_levels.get(), n, nullptr, 1) == cudaSuccess);
    tilecraft::test::sync_and_check();
    CHECK(widen(out.download()) == host_range(host, 0, n, levels));
  }
}

// Where the GPU refuses the cooperative launch (MPS, green contexts), a memset zeroes the output
// and the grid runs without its barrier: forced here (cooperative_allowed false) over a poisoned
// output, in shared counters (256 and 1000 bins), with flushes after every tile, in global
// counters (2^20 bins), and in range bins.
TEST_CASE("the grid without its barrier, where a cooperative launch is refused: the same counts") {
  // (Under racecheck, which tracks every shared atomic, 2^20 samples.)
  const std::int64_t n = (std::int64_t{1} << (tilecraft::test::racecheck_sized()   ? 20
                                              : tilecraft::test::sanitizer_sized() ? 22
                                                                                   : 25)) +
                         5;
  const auto host =
      even_bins::make_samples<std::uint8_t>(static_cast<std::size_t>(n), even_bins::Pattern::uniform, 0, 255, 123);
  DeviceBuffer<std::uint8_t> in(host);
  std::size_t bytes = 16;
  DeviceBuffer<unsigned char> temp(bytes);
  for (int bins : {256, 1000}) {
    for (std::int64_t flush : {tilecraft::detail::histogram_flush_samples, std::int64_t{1}}) {
      CAPTURE(bins);
      CAPTURE(flush);
      DeviceBuffer<unsigned> out(static_cast<std::size_t>(bins));
      out.poison();
      REQUIRE(tilecraft::detail::histogram_even_with<tilecraft::HistogramPolicy<>>(
                  temp.get(), bytes, in.get() + 1, out.get(), bins, 0, 256, n - 1, nullptr, flush, false) ==
              cudaSuccess);
      tilecraft::test::sync_and_check();
      CHECK(widen(out.download()) == host_even(host, 1, n - 1, bins, 0, 256));
    }
  }
  // Global counters: more bins than shared memory holds.
  const auto ints = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n), -1 << 20, 1 << 20, 124);
  DeviceBuffer<int> iin(ints);
  const int many = 1 << 20;
  DeviceBuffer<unsigned> out(static_cast<std::size_t>(many));
  out.poison();
  REQUIRE(tilecraft::detail::histogram_even_with<tilecraft::HistogramPolicy<>>(
              temp.get(), bytes, iin.get(), out.get(), many, -(1 << 20), 1 << 20, n, nullptr,
              tilecraft::detail::histogram_flush_samples, false) == cudaSuccess);
  tilecraft::test::sync_and_check();
  CHECK(widen(out.download()) == host_even(ints, 0, n, many, -(1 << 20), 1 << 20));
  // Range bins.
  const auto levels = range_bins::make_levels(3000, -(1 << 20), 1 << 20, false, 125u);
  DeviceBuffer<int> d_levels(levels);
  DeviceBuffer<unsigned> range_out(3000);
  range_out.poison();
  REQUIRE(tilecraft::detail::histogram_range_with<tilecraft::HistogramPolicy<>>(
              temp.get(), bytes, iin.get(), range_out.get(), 3000, d_levels.get(), n, nullptr,
              tilecraft::detail::histogram_flush_samples, false) == cudaSuccess);
  tilecraft::test::sync_and_check();
  CHECK(widen(range_out.download()) == host_range(ints, 0, n, levels));
}

// On a non-blocking stream behind an asynchronous upload: a launch on any other stream would
// read the samples before they arrive (the device copy starts as zeros).
TEST_CASE("histogram_even runs in the order of the stream it is given") {
  if (tilecraft::test::racecheck_sized()) return;  // (the order between kernels and copies: no shared memory in it)
  const std::int64_t n = std::int64_t{1} << (tilecraft::test::sanitizer_sized() ? 20 : 26);
  const auto m = static_cast<std::size_t>(n);
  tilecraft::test::PinnedBuffer<std::uint8_t> pinned(m);
  for (std::size_t i = 0; i < m; ++i) pinned[i] = static_cast<std::uint8_t>(200 + i % 7);
  const std::vector<std::uint8_t> host(pinned.get(), pinned.get() + m);
  DeviceBuffer<std::uint8_t> in(m);
  TILECRAFT_THROW_IF_ERROR(cudaMemset(in.get(), 0, m));
  DeviceBuffer<unsigned> out(256);
  const tilecraft::test::Stream stream(cudaStreamNonBlocking);
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  std::size_t bytes = 0;
  REQUIRE(tilecraft::histogram_even(nullptr, bytes, in.get(), out.get(), 256, 0, 256, n, stream) == cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  TILECRAFT_THROW_IF_ERROR(cudaMemcpyAsync(in.get(), pinned.get(), m, cudaMemcpyHostToDevice, stream));
  REQUIRE(tilecraft::histogram_even(temp.get(), bytes, in.get(), out.get(), 256, 0, 256, n, stream) == cudaSuccess);
  stream.synchronize();
  CHECK(widen(out.download()) == host_even(host, 0, n, 256, 0, 256));
}

// No samples and no sample array: the histogram is written, all zeros, in even and range bins.
TEST_CASE("zero samples from a null array give a zeroed histogram") {
  DeviceBuffer<unsigned char> temp(16);
  std::size_t bytes = 16;
  DeviceBuffer<unsigned> even(256 + 2 * histogram_guard);
  even.poison();
  REQUIRE(tilecraft::histogram_even(temp.get(), bytes, static_cast<const std::uint8_t*>(nullptr),
                                    even.get() + histogram_guard, 256, 0, 256, std::int64_t{0}) == cudaSuccess);
  tilecraft::test::sync_and_check();
  CHECK(unguarded(even, 256) == Counts(256, 0));
  const std::vector<int> levels = {0, 1, 2, 3};
  DeviceBuffer<int> d_levels(levels);
  DeviceBuffer<unsigned> range(3 + 2 * histogram_guard);
  range.poison();
  REQUIRE(tilecraft::histogram_range(temp.get(), bytes, static_cast<const int*>(nullptr), range.get() + histogram_guard,
                                     3, d_levels.get(), std::int64_t{0}) == cudaSuccess);
  tilecraft::test::sync_and_check();
  CHECK(unguarded(range, 3) == Counts(3, 0));
}

}  // namespace histogram_gaps
