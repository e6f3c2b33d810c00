// The scans' and stream compaction's argument checks in nvcc's form (scan_select_argument_cases.h;
// test_scan_validation.cpp runs them in a host compiler's), and their tile plans' compile-time
// rules. Every rejection happens before the first CUDA call, so these run without a GPU.
#include <doctest/doctest.h>

#include <cstdint>
#include <utility>

#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/select.cuh>
#include <tilecraft/util/functional.cuh>

#include "scan_select_argument_cases.h"

using namespace tilecraft;

// The look-back walks back with a warp reduction only where any association gives the same bits.
static_assert(tilecraft::detail::reassociable_v<tilecraft::Sum, int>);
static_assert(tilecraft::detail::reassociable_v<tilecraft::Sum, std::int64_t>);
static_assert(tilecraft::detail::reassociable_v<tilecraft::Min, unsigned>);
static_assert(tilecraft::detail::reassociable_v<tilecraft::Max, long long>);
static_assert(!tilecraft::detail::reassociable_v<tilecraft::Sum, float>);
static_assert(!tilecraft::detail::reassociable_v<tilecraft::Min, double>);

TEST_CASE("the default scan tiles keep every thread's run whole 16-byte vectors") {
  using detail::DefaultScanPolicyLarge;
  using detail::DefaultScanPolicySmall;
  using detail::TileStage;
  // 4-byte types: 128 x 64 in two passes over shared memory (32 KiB staged), 256 x 32 in
  // registers (select_if), 256 x 8 for small inputs; 8-byte types 128 x 32 in two passes.
  CHECK(DefaultScanPolicyLarge<float, float>::threads == 128);
  CHECK(DefaultScanPolicyLarge<float, float>::items == 64);
  CHECK(detail::two_pass_tile<DefaultScanPolicyLarge<float, float>, float, float>);
  CHECK(detail::two_pass_tile<DefaultScanPolicyLarge<std::int64_t, std::int64_t>, std::int64_t, std::int64_t>);
  CHECK(DefaultScanPolicyLarge<std::int64_t, std::int64_t>::tile_items == 4096);
  CHECK(detail::DefaultScanPolicyRegisters<float, float>::threads == 256);
  CHECK(detail::DefaultScanPolicyRegisters<float, float>::items == 32);
  CHECK(!detail::two_pass_tile<detail::DefaultScanPolicyRegisters<float, float>, float, float>);
  CHECK(!detail::two_pass_tile<DefaultScanPolicyLarge<std::uint8_t, std::int64_t>, std::uint8_t, std::int64_t>);
  // 1- and 2-byte sums accumulate in int: 256 x 64 holds 256 bytes of accumulators a thread, in
  // two passes; 1-byte accumulators (Max, Min on bytes) keep 64 bytes in registers.
  CHECK(detail::two_pass_tile<DefaultScanPolicyLarge<std::int8_t, std::int8_t>, std::int8_t, std::int8_t, int>);
  CHECK(!detail::two_pass_tile<DefaultScanPolicyLarge<std::int8_t, std::int8_t>, std::int8_t, std::int8_t>);
  CHECK(detail::two_pass_tile<DefaultScanPolicyLarge<std::int16_t, std::int16_t>, std::int16_t, std::int16_t, int>);
  CHECK(DefaultScanPolicySmall<float, float>::tile_items == 2048);
  auto whole_vectors = [](auto in_stage, auto out_stage) {
    return decltype(in_stage)::chunked && decltype(out_stage)::chunked;
  };
  CHECK(whole_vectors(TileStage<float, 256, 32>{}, TileStage<float, 256, 32>{}));
  CHECK(whole_vectors(TileStage<std::int8_t, DefaultScanPolicyLarge<std::int8_t, std::int8_t>::threads,
                                DefaultScanPolicyLarge<std::int8_t, std::int8_t>::items>{},
                      TileStage<std::int8_t, DefaultScanPolicyLarge<std::int8_t, std::int8_t>::threads,
                                DefaultScanPolicyLarge<std::int8_t, std::int8_t>::items>{}));
  using I16 = DefaultScanPolicyLarge<std::int16_t, std::int16_t>;
  CHECK(whole_vectors(TileStage<std::int16_t, I16::threads, I16::items>{},
                      TileStage<std::int16_t, I16::threads, I16::items>{}));
  using U8ToI64 = DefaultScanPolicyLarge<std::uint8_t, std::int64_t>;
  CHECK(whole_vectors(TileStage<std::uint8_t, U8ToI64::threads, U8ToI64::items>{},
                      TileStage<std::int64_t, U8ToI64::threads, U8ToI64::items>{}));
  // Every default staging buffer fits the 48 KiB of static shared memory with room to spare.
  CHECK(U8ToI64::tile_items * sizeof(std::int64_t) <= 32768);
  CHECK(DefaultScanPolicyLarge<double, double>::tile_items * sizeof(double) <= 32768);
  // The swizzle is a permutation of each 128-byte row's chunks.
  for (int row = 0; row < 16; ++row) {
    int seen = 0;
    for (int c = 0; c < 8; ++c) seen |= 1 << (detail::swizzle_chunk(row * 8 + c) - row * 8);
    CHECK(seen == 0xff);
  }
  // Conflict-free staging: a 16-byte shared access is served 8 threads at a time, and those 8
  // must hit 8 different 16-byte positions of a 128-byte row (all 32 banks once). Blocked reads
  // (thread t, chunk t * V + k) for V = 1, 2, 4, 8 and striped accesses (chunk k * threads + t).
  // V a multiple of 8 above 8 takes period V (TileStage::swizzle_period).
  for (int v : {1, 2, 4, 8, 16, 32}) {
    const int period = TileStage<float, 128, 4 * 16>::swizzle_period == 16 && v > 8 ? v : 8;
    for (int k = 0; k < v; ++k) {
      for (int first = 0; first < 512; first += 8) {
        int seen = 0;
        for (int t = first; t < first + 8; ++t) seen |= 1 << (detail::swizzle_chunk(t * v + k, period) & 7);
        CHECK(seen == 0xff);
        seen = 0;
        for (int t = first; t < first + 8; ++t) seen |= 1 << (detail::swizzle_chunk(k * 512 + t, period) & 7);
        CHECK(seen == 0xff);
      }
    }
  }
  CHECK(TileStage<float, 128, 64>::swizzle_period == 16);
  CHECK(TileStage<double, 128, 64>::swizzle_period == 32);
  CHECK(TileStage<float, 256, 32>::swizzle_period == 8);
  CHECK(TileStage<float, 256, 24>::swizzle_period == 8);
}

namespace {
template <int W>
struct Bytes {
  unsigned char b[W];
};

// Whether Policy's scan kernel of W-byte items (input, output and accumulator) keeps the
// dispatch's rules: the tile's staging buffer within 40 KiB, all its static shared memory within
// 48 KiB (what scan_run asserts).
template <class Policy, int W>
constexpr bool scan_kernel_fits() {
  using T = Bytes<W>;
  return detail::stage_bytes_of<Policy, T, T>() <= detail::max_tile_stage_bytes &&
         detail::scan_kernel_smem_bytes<Policy, T, T, T>() <= 48 * 1024;
}

template <int W>
constexpr bool default_tiles_fit() {
  using T = Bytes<W>;
  return scan_kernel_fits<detail::DefaultScanPolicyLarge<T, T>, W>() &&
         scan_kernel_fits<detail::DefaultScanPolicyRegisters<T, T>, W>() &&
         scan_kernel_fits<detail::DefaultScanPolicySmall<T, T>, W>();
}

template <int... I>
constexpr int first_width_not_fitting(std::integer_sequence<int, I...>) {
  int first = 0;
  ((first == 0 && !default_tiles_fit<I + 1>() ? first = I + 1 : 0), ...);
  return first;
}
}  // namespace

TEST_CASE("the default dispatch's two-pass window: input and output from 1 MiB to half the L2") {
  using detail::two_pass_scan_by_size;
  using detail::two_pass_scan_min_bytes;
  constexpr std::int64_t h200_l2 = std::int64_t{50} << 20;
  CHECK(two_pass_scan_min_bytes == std::int64_t{1} << 20);
  CHECK_FALSE(two_pass_scan_by_size(two_pass_scan_min_bytes - 1, h200_l2));
  CHECK(two_pass_scan_by_size(two_pass_scan_min_bytes, h200_l2));
  CHECK(two_pass_scan_by_size(h200_l2 / 2, h200_l2));
  CHECK_FALSE(two_pass_scan_by_size(h200_l2 / 2 + 1, h200_l2));
  // On the H200: floats from 2^17 to 2^21 (both ways 8 bytes an item), not 2^16 or 2^22; int64
  // at 2^20, not at 2^22 (measured 19% slower in two passes).
  CHECK_FALSE(two_pass_scan_by_size(8 * (std::int64_t{1} << 16), h200_l2));
  CHECK(two_pass_scan_by_size(8 * (std::int64_t{1} << 17), h200_l2));
  CHECK(two_pass_scan_by_size(8 * (std::int64_t{1} << 21), h200_l2));
  CHECK_FALSE(two_pass_scan_by_size(8 * (std::int64_t{1} << 22), h200_l2));
  CHECK(two_pass_scan_by_size(16 * (std::int64_t{1} << 20), h200_l2));
  CHECK_FALSE(two_pass_scan_by_size(16 * (std::int64_t{1} << 22), h200_l2));
  // A GPU whose L2 is under 2 MiB (none we know) never takes them.
  for (std::int64_t moved = 1; moved <= std::int64_t{1} << 40; moved *= 3) {
    CAPTURE(moved);
    CHECK_FALSE(two_pass_scan_by_size(moved, (std::int64_t{2} << 20) - 2));
  }
  static_assert(two_pass_scan_by_size(std::int64_t{4} << 20, h200_l2));  // (usable in constant expressions)
}

TEST_CASE("the default scan tiles of items of 1 to 480 bytes fit the scan kernel's shared memory") {
  // (296-byte items once took 128 threads, whose kernel needed 49200 bytes.)
  constexpr int first = first_width_not_fitting(std::make_integer_sequence<int, 480>{});
  CHECK(first == 0);
}
