// The scans' and stream compaction's argument checks in a host compiler's form: g++ compiles
// this file, so every call below takes the form that checks its arguments, answers the size
// query and returns cudaErrorInvalidDeviceFunction where nvcc's would launch
// (scan_select_argument_cases.h holds the checks both forms share).
#include <doctest/doctest.h>

#include <cstdint>

#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/select.cuh>
#include <tilecraft/util/functional.cuh>

#include "scan_select_argument_cases.h"

#if defined(__CUDACC__)
#error "test_scan_validation.cpp tests the host compiler's form: compile it as C++, not CUDA"
#endif

using namespace tilecraft;

TEST_CASE("a host compiler's scan and select return cudaErrorInvalidDeviceFunction where they would launch") {
  auto* in = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
  auto* out = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
  auto* count = reinterpret_cast<long long*>(std::uintptr_t{1} << 34);
  void* temp = reinterpret_cast<void*>(std::uintptr_t{1} << 32);
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{2049}, std::int64_t{1} << 20, std::int64_t{1} << 26}) {
    CAPTURE(n);
    std::size_t bytes = 0;
    REQUIRE(inclusive_scan(nullptr, bytes, in, out, n, Sum{}) == cudaSuccess);
    CHECK(bytes > 16);
    CHECK(inclusive_scan(temp, bytes, in, out, n, Sum{}) == cudaErrorInvalidDeviceFunction);
    CHECK(exclusive_scan(temp, bytes, in, out, n, Sum{}, 0.0f) == cudaErrorInvalidDeviceFunction);
    CHECK(inclusive_scan(temp, bytes, in, const_cast<float*>(in), n, Sum{}) == cudaErrorInvalidDeviceFunction);
    std::size_t sel = 0;
    REQUIRE(select_if(nullptr, sel, in, out, count, n, test::Positive{}) == cudaSuccess);
    CHECK(sel > 16);
    CHECK(select_if(temp, sel, in, out, count, n, test::Positive{}) == cudaErrorInvalidDeviceFunction);
    CHECK(partition(temp, sel, in, out, count, n, test::Positive{}) == cudaErrorInvalidDeviceFunction);
  }
  // No items: the scan has nothing to do; select_if would still write the count 0.
  std::size_t bytes = 0;
  REQUIRE(inclusive_scan(nullptr, bytes, in, out, 0, Sum{}) == cudaSuccess);
  CHECK(inclusive_scan(temp, bytes, in, out, 0, Sum{}) == cudaSuccess);
  std::size_t sel = 0;
  REQUIRE(select_if(nullptr, sel, in, out, count, 0, test::Positive{}) == cudaSuccess);
  CHECK(select_if(temp, sel, in, out, count, 0, test::Positive{}) == cudaErrorInvalidDeviceFunction);
}

namespace {
struct alignas(32) Wide32 {  // an accumulator aligned to more than 16 bytes
  double v[4];
};
struct Odd12 {  // wider than 8 bytes, aligned to 4
  float v[3];
};

// The value arrays of accumulators wider than 8 bytes lie inside tile_status_bytes, apart, each
// aligned for the accumulator, wherever the 16-byte aligned base falls.
template <class Acc>
void check_wide_status_layout() {
  static_assert(detail::tile_status_kind<Acc> == 2);
  alignas(256) static unsigned char arena[1 << 17];
  for (const std::int64_t tiles : {std::int64_t{1}, std::int64_t{3}, std::int64_t{33}, std::int64_t{1000}}) {
    for (const std::size_t offset : {std::size_t{0}, std::size_t{16}, std::size_t{48}, std::size_t{80}}) {
      CAPTURE(tiles);
      CAPTURE(offset);
      unsigned char* base = arena + offset;
      const std::size_t bytes = detail::tile_status_bytes<Acc>(tiles);
      REQUIRE(offset + bytes <= sizeof(arena));
      CHECK(bytes % 16 == 0);
      const detail::TileStatus<Acc> status(base, tiles);
      const auto at = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
      CHECK(status.flags == reinterpret_cast<unsigned*>(base));
      CHECK(at(status.aggregates) % alignof(Acc) == 0);
      CHECK(at(status.inclusives) % alignof(Acc) == 0);
      CHECK(at(status.aggregates) >= at(status.flags + tiles));
      CHECK(at(status.inclusives) >= at(status.aggregates + tiles));
      CHECK(at(status.inclusives + tiles) <= at(base + bytes));
    }
  }
}
}  // namespace

TEST_CASE("the tile states of accumulators wider than 8 bytes: arrays aligned for them, inside their bytes") {
  check_wide_status_layout<Wide32>();
  check_wide_status_layout<Odd12>();
}
