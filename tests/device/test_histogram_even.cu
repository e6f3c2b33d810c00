// tilecraft::histogram_even on 8- and 16-bit samples against cub::DeviceHistogram::HistogramEven
// and an exact host count: every size and alignment around the launch's seams, uniform, one-bin
// and sorted input, bins 1 ... 65536 (lane counters, warp sub-histograms, global counters),
// samples below lower and at upper, 64-bit counters past 2^32 samples, the flush of the 32-bit
// shared counters.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "histogram_check.cuh"

using namespace histogram_test;
using tilecraft::test::DeviceBuffer;

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
  for (std::int64_t n : sizes) {
    for (int shift : {0, 1, 7}) {
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
          if (pattern == Pattern::uniform && shift != 7) CHECK(cub_even(p, n, b.bins, b.lower, b.upper) == want);
        }
      }
    }
  }
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
  // Several tiles per block (32768 bytes each, up to ~400 resident blocks on an H200).
  const std::int64_t n = (std::int64_t{1} << 26) + 5;
  for (Pattern pattern : {Pattern::uniform, Pattern::one_bin}) {
    const auto host = make_samples<std::uint8_t>(static_cast<std::size_t>(n), pattern, 0, 255, 99);
    DeviceBuffer<std::uint8_t> in(host);
    for (int bins : {256, 1000}) {
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
  if (const char* env = std::getenv("TILECRAFT_TEST_HUGE"); env != nullptr && std::strcmp(env, "0") == 0) {
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
