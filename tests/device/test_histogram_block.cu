// block_histogram in a kernel: every algorithm (one block histogram, warp sub-histograms, lane
// counters), one item or an array per thread, items outside [0, Bins) ignored, merged into a
// global histogram (atomics, across blocks) and stored, against a host count; a 2D block; the
// storage reused for a second histogram after a barrier.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <tilecraft/block/block_histogram.cuh>

#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

namespace {

constexpr int items_per_thread = 4;

// Each block counts its slice of `items` (Items per thread, then one more item per thread),
// merges into `merged`, and stores its own counts into stored[block * Bins ...].
template <int Bins, int Threads, BlockHistogramAlgorithm Algorithm, int Copies>
__global__ void __launch_bounds__(Threads)
    count_kernel(const int* items, int n, unsigned long long* merged, unsigned* stored) {
  __shared__ BlockHistogramStorage<Bins, Threads, Algorithm, Copies> hist;
  block_histogram_init(hist);
  const int per_block = Threads * (items_per_thread + 1);
  const int base = static_cast<int>(blockIdx.x) * per_block;
  const int tid = thread_rank();
  int mine[items_per_thread];
  for (int i = 0; i < items_per_thread; ++i) {
    const int at = base + tid * items_per_thread + i;
    mine[i] = at < n ? items[at] : -1;  // -1: not counted
  }
  block_histogram_add(hist, mine);
  const int last = base + Threads * items_per_thread + tid;
  if (last < n) block_histogram_add(hist, static_cast<long long>(items[last]));
  block_histogram_merge(hist, merged);
  block_histogram_store(hist, stored + static_cast<std::size_t>(blockIdx.x) * Bins);
  // The same storage again: a barrier after the store, then init.
  __syncthreads();
  block_histogram_init(hist);
  if (tid == 0) block_histogram_add(hist, 0);
  block_histogram_merge(hist, merged);
}

template <int Bins, int Threads, BlockHistogramAlgorithm Algorithm,
          int Copies = tilecraft::default_block_histogram_copies<Bins, Threads, Algorithm>>
void check_block_histogram(int n, int spread, bool all_equal, std::uint64_t salt, dim3 block = dim3(Threads)) {
  CAPTURE(Bins);
  CAPTURE(Threads);
  CAPTURE(Copies);
  CAPTURE(static_cast<int>(Algorithm));
  CAPTURE(n);
  CAPTURE(all_equal);
  // Items in [-spread, Bins + spread): some below 0 and at or past Bins (not counted).
  auto items = tilecraft::test::random_vector<int>(static_cast<std::size_t>(n), -spread, Bins - 1 + spread, salt);
  if (all_equal) std::fill(items.begin(), items.end(), Bins / 2);
  const int per_block = Threads * (items_per_thread + 1);
  const int blocks = std::max(1, (n + per_block - 1) / per_block);
  DeviceBuffer<int> d_items(items);
  DeviceBuffer<unsigned long long> merged(Bins);
  TILECRAFT_THROW_IF_ERROR(cudaMemset(merged.get(), 0, Bins * sizeof(unsigned long long)));
  DeviceBuffer<unsigned> stored(static_cast<std::size_t>(blocks) * Bins);
  stored.poison();
  count_kernel<Bins, Threads, Algorithm, Copies><<<blocks, block>>>(d_items.get(), n, merged.get(), stored.get());
  tilecraft::test::sync_and_check();
  std::vector<unsigned long long> want(Bins, 0);
  std::vector<unsigned> want_stored(static_cast<std::size_t>(blocks) * Bins, 0);
  for (int i = 0; i < n; ++i) {
    const int b = items[static_cast<std::size_t>(i)];
    if (b >= 0 && b < Bins) {
      ++want[static_cast<std::size_t>(b)];
      ++want_stored[static_cast<std::size_t>(i / per_block) * Bins + static_cast<std::size_t>(b)];
    }
  }
  want[0] += static_cast<unsigned long long>(blocks);  // the second histogram of every block
  CHECK(merged.download() == want);
  CHECK(stored.download() == want_stored);
}

}  // namespace

TEST_CASE("block_histogram: every algorithm against a host count, uniform and all-equal items") {
  for (int n : {0, 1, 100, 5000, 100003}) {
    for (bool all_equal : {false, true}) {
      check_block_histogram<256, 128, BlockHistogramAlgorithm::lanes>(n, 3, all_equal, 1u + n);
      check_block_histogram<256, 128, BlockHistogramAlgorithm::warps>(n, 3, all_equal, 2u + n);
      check_block_histogram<256, 128, BlockHistogramAlgorithm::block>(n, 3, all_equal, 3u + n);
      check_block_histogram<37, 96, BlockHistogramAlgorithm::lanes>(n, 50, all_equal, 4u + n);
      check_block_histogram<4096, 256, BlockHistogramAlgorithm::warps>(n, 10, all_equal, 5u + n);
      check_block_histogram<1, 64, BlockHistogramAlgorithm::block>(n, 1, all_equal, 6u + n);
      // Blocks of one partial warp.
      check_block_histogram<37, 13, BlockHistogramAlgorithm::lanes>(n, 5, all_equal, 7u + n);
      check_block_histogram<256, 1, BlockHistogramAlgorithm::warps>(n, 2, all_equal, 8u + n);
      check_block_histogram<100, 16, BlockHistogramAlgorithm::block>(n, 7, all_equal, 9u + n);
      // Copies named: per-lane counters twice over, warp sub-histograms shared by two warps; and
      // blocks whose last warp is partial.
      check_block_histogram<64, 256, BlockHistogramAlgorithm::lanes, 2>(n, 4, all_equal, 10u + n);
      check_block_histogram<300, 100, BlockHistogramAlgorithm::warps, 2>(n, 20, all_equal, 11u + n);
      check_block_histogram<37, 100, BlockHistogramAlgorithm::lanes>(n, 5, all_equal, 12u + n);
    }
  }
}

// 64-bit bin indices: a bin past 2^32 is not counted, whatever its low 32 bits (nor a negative
// one whose low bits are a bin, nor an unsigned one of 2^63 or more), through the one-item and
// the array overloads, every algorithm.
template <BlockHistogramAlgorithm Algorithm>
__global__ void wide_items_kernel(const long long* items, int n, unsigned* stored) {
  __shared__ BlockHistogramStorage<64, 128, Algorithm> hist;
  block_histogram_init(hist);
  for (int i = static_cast<int>(threadIdx.x); i < n; i += 128) {
    block_histogram_add(hist, items[i]);
    const unsigned long long as_unsigned[2] = {static_cast<unsigned long long>(items[i]),
                                               static_cast<unsigned long long>(items[i])};
    block_histogram_add(hist, as_unsigned);
  }
  block_histogram_store(hist, stored);
}

template <BlockHistogramAlgorithm Algorithm>
void check_wide_items(std::uint64_t salt) {
  CAPTURE(static_cast<int>(Algorithm));
  auto g = tilecraft::test::rng(salt);
  std::vector<long long> items;
  for (int i = 0; i < 3000; ++i) {
    const long long bin = static_cast<long long>(g() % 64);
    // 2^32 and a random multiple of it above or below the bin, 2^63 as unsigned, or none.
    const long long offsets[] = {1ll << 32,
                                 (static_cast<long long>(g() % 1000) + 1) * (1ll << 32),
                                 -(1ll << 32),
                                 std::numeric_limits<long long>::min(),
                                 0,
                                 0};
    items.push_back(bin + offsets[g() % 6]);
  }
  std::vector<unsigned> want(64, 0);
  // Each item counts three times (once as long long, twice as unsigned long long) when valid.
  for (const long long x : items) {
    if (x >= 0 && x < 64) want[static_cast<std::size_t>(x)] += 3;
  }
  DeviceBuffer<long long> d_items(items);
  DeviceBuffer<unsigned> stored(64);
  stored.poison();
  wide_items_kernel<Algorithm><<<1, 128>>>(d_items.get(), static_cast<int>(items.size()), stored.get());
  tilecraft::test::sync_and_check();
  CHECK(stored.download() == want);
}

TEST_CASE("block_histogram: 64-bit bins at and past 2^32 are not counted") {
  static_assert(!detail::histogram_bin_valid<64>((1ull << 32) + 3));
  static_assert(!detail::histogram_bin_valid<64>((1ull << 63) + 3));
  static_assert(!detail::histogram_bin_valid<64>(-(1ll << 32) + 3));
  static_assert(detail::histogram_bin_valid<64>(63ull) && !detail::histogram_bin_valid<64>(64));
  check_wide_items<BlockHistogramAlgorithm::lanes>(11);
  check_wide_items<BlockHistogramAlgorithm::warps>(12);
  check_wide_items<BlockHistogramAlgorithm::block>(13);
}

TEST_CASE("block_histogram: a 2D block ranks threads x fastest") {
  check_block_histogram<256, 128, BlockHistogramAlgorithm::lanes>(20000, 2, false, 7, dim3(32, 4));
  check_block_histogram<4096, 256, BlockHistogramAlgorithm::warps>(20000, 2, false, 8, dim3(16, 16));
}

// Storage sizes and defaults (checked where the file compiles).
static_assert(BlockHistogramStorage<256, 256>::algorithm == BlockHistogramAlgorithm::lanes);
static_assert(BlockHistogramStorage<256, 256>::bytes == 256 * 128);
static_assert(BlockHistogramStorage<257, 256>::algorithm == BlockHistogramAlgorithm::warps);
static_assert(BlockHistogramStorage<257, 256>::copies == 8);
static_assert(BlockHistogramStorage<4096, 256>::copies == 2);
static_assert(BlockHistogramStorage<4096, 256>::bytes == 2 * 4096 * 4);
static_assert(BlockHistogramStorage<100, 64, BlockHistogramAlgorithm::block>::bytes == 400);
static_assert(std::is_trivially_default_constructible_v<BlockHistogramStorage<256, 256>>);
