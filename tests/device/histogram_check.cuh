// Shared by the histogram tests: the launchers through their two-phase API on a poisoned
// output, cub::DeviceHistogram beside them, and exact host counts (the documented formulas).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <cub/device/device_histogram.cuh>

#include <tilecraft/device/histogram.cuh>

#include "test_util.cuh"

namespace histogram_test {

using tilecraft::test::DeviceBuffer;
using Counts = std::vector<unsigned long long>;

template <class Counter>
Counts widen(const std::vector<Counter>& v) {
  return Counts(v.begin(), v.end());
}

// Level is int for integer samples, float for float ones (tilecraft::histogram_level_t).
template <class Sample>
using Level = tilecraft::histogram_level_t<Sample>;

//! The documented bin of x, or -1: integers exact, floats in float arithmetic.
template <class Sample>
long long host_even_bin(Sample x, int bins, Level<Sample> lower, Level<Sample> upper) {
  if constexpr (std::is_same_v<Sample, float>) {
    if (!(x >= lower && x < upper)) return -1;
    const float scale = static_cast<float>(bins) / (upper - lower);
    const float d = x - lower;
    const float p = d * scale;
    return std::min(static_cast<long long>(static_cast<int>(p)), static_cast<long long>(bins - 1));
  } else {
    const auto v = static_cast<long long>(x);
    if (v < lower || v >= upper) return -1;
    return (v - lower) * bins / (static_cast<long long>(upper) - lower);
  }
}

template <class Sample>
Counts host_even(const std::vector<Sample>& v, std::size_t first, std::int64_t n, int bins, Level<Sample> lower,
                 Level<Sample> upper) {
  Counts c(static_cast<std::size_t>(bins), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const long long b = host_even_bin(v[first + static_cast<std::size_t>(i)], bins, lower, upper);
    if (b >= 0) ++c[static_cast<std::size_t>(b)];
  }
  return c;
}

//! The largest i with levels[i] <= x, if levels[0] <= x < levels[bins]; else -1.
template <class Sample>
Counts host_range(const std::vector<Sample>& v, std::size_t first, std::int64_t n,
                  const std::vector<Level<Sample>>& levels) {
  const int bins = static_cast<int>(levels.size()) - 1;
  Counts c(static_cast<std::size_t>(bins), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto x = static_cast<Level<Sample>>(v[first + static_cast<std::size_t>(i)]);
    if (!(x >= levels.front() && x < levels.back())) continue;
    const auto it = std::upper_bound(levels.begin(), levels.end(), x);
    ++c[static_cast<std::size_t>(it - levels.begin() - 1)];
  }
  return c;
}

// Poisoned guard counters on both sides of the histogram: a count written past either end
// (a sample at upper or below lower put in bin -1 or `bins`) fails the run.
constexpr std::size_t histogram_guard = 16;

// The histogram of `bins` counters between the guards of `out`, after checking the guards.
template <class Counter>
Counts unguarded(const DeviceBuffer<Counter>& out, int bins) {
  const auto all = out.download();
  int touched = 0;
  for (std::size_t i = 0; i < histogram_guard; ++i) {
    touched += !tilecraft::test::same_bits(all[i], tilecraft::test::poison_value<Counter>());
    touched += !tilecraft::test::same_bits(all[histogram_guard + static_cast<std::size_t>(bins) + i],
                                           tilecraft::test::poison_value<Counter>());
  }
  CHECK_MESSAGE(touched == 0, "counters written outside the histogram");
  const auto first = all.begin() + static_cast<std::ptrdiff_t>(histogram_guard);
  return Counts(first, first + bins);
}

template <class Counter, class Sample>
Counts run_even(const Sample* d, std::int64_t n, int bins, Level<Sample> lower, Level<Sample> upper) {
  DeviceBuffer<Counter> out(static_cast<std::size_t>(bins) + 2 * histogram_guard);
  out.poison();  // the launcher zeroes the histogram itself
  Counter* hist = out.get() + histogram_guard;
  std::size_t bytes = 0;
  REQUIRE(tilecraft::histogram_even(nullptr, bytes, d, hist, bins, lower, upper, n) == cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  REQUIRE(tilecraft::histogram_even(temp.get(), bytes, d, hist, bins, lower, upper, n) == cudaSuccess);
  tilecraft::test::sync_and_check();
  return unguarded(out, bins);
}

template <class Counter, class Sample>
Counts run_range(const Sample* d, std::int64_t n, const DeviceBuffer<Level<Sample>>& levels) {
  const int bins = static_cast<int>(levels.size()) - 1;
  DeviceBuffer<Counter> out(static_cast<std::size_t>(bins) + 2 * histogram_guard);
  out.poison();
  Counter* hist = out.get() + histogram_guard;
  std::size_t bytes = 0;
  REQUIRE(tilecraft::histogram_range(nullptr, bytes, d, hist, bins, levels.get(), n) == cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  REQUIRE(tilecraft::histogram_range(temp.get(), bytes, d, hist, bins, levels.get(), n) == cudaSuccess);
  tilecraft::test::sync_and_check();
  return unguarded(out, bins);
}

template <class Sample>
Counts cub_even(const Sample* d, std::int64_t n, int bins, Level<Sample> lower, Level<Sample> upper) {
  DeviceBuffer<unsigned> out(static_cast<std::size_t>(bins));
  std::size_t bytes = 0;
  TILECRAFT_THROW_IF_ERROR(
      cub::DeviceHistogram::HistogramEven(nullptr, bytes, d, out.get(), bins + 1, lower, upper, n));
  DeviceBuffer<unsigned char> temp(bytes);
  TILECRAFT_THROW_IF_ERROR(
      cub::DeviceHistogram::HistogramEven(temp.get(), bytes, d, out.get(), bins + 1, lower, upper, n));
  tilecraft::test::sync_and_check();
  return widen(out.download());
}

template <class Sample>
Counts cub_range(const Sample* d, std::int64_t n, const DeviceBuffer<Level<Sample>>& levels) {
  const int bins = static_cast<int>(levels.size()) - 1;
  DeviceBuffer<unsigned> out(static_cast<std::size_t>(bins));
  std::size_t bytes = 0;
  TILECRAFT_THROW_IF_ERROR(
      cub::DeviceHistogram::HistogramRange(nullptr, bytes, d, out.get(), bins + 1, levels.get(), n));
  DeviceBuffer<unsigned char> temp(bytes);
  TILECRAFT_THROW_IF_ERROR(
      cub::DeviceHistogram::HistogramRange(temp.get(), bytes, d, out.get(), bins + 1, levels.get(), n));
  tilecraft::test::sync_and_check();
  return widen(out.download());
}

//! Sizes around the launch's seams: empty, one, below and at a 16-byte vector, odd, past one
//! tile of the default policy for wider samples (256 threads x 8 vectors; uint8's default tiles
//! are 65536 samples), many tiles.
inline const std::int64_t sizes[] = {0, 1, 2, 15, 17, 31, 1000, 4097, 32768 + 5, (1 << 20) + 7};

}  // namespace histogram_test
