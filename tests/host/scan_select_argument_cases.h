// Bad runtime arguments to the scans and stream compaction are rejected with
// cudaErrorInvalidValue before any launch, and their size queries need no GPU. Included by
// test_scan_validation.cu (nvcc's form of the algorithms) and test_scan_validation.cpp (a host
// compiler's): both forms must refuse the same calls (test_host_forms compares their size
// answers). Every rejection happens before the first CUDA call, so these run without a GPU.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>

#include <tilecraft/config.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/select.cuh>
#include <tilecraft/util/functional.cuh>

namespace tilecraft::test {

struct Positive {
  TILECRAFT_HOST_DEVICE bool operator()(float v) const { return v > 0; }
};

TEST_CASE("inclusive_scan and exclusive_scan reject bad arguments before launching") {
  // Fake, never dereferenced addresses: validation must not touch them.
  auto* in = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
  auto* out = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
  void* temp = reinterpret_cast<void*>(std::uintptr_t{1} << 32);
  std::size_t query = 0;
  // The size query depends only on the size and the types.
  REQUIRE(inclusive_scan(nullptr, query, in, out, 1 << 20, Sum{}) == cudaSuccess);
  CHECK(query > 16);
  std::size_t again = 0;
  REQUIRE(inclusive_scan(nullptr, again, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 1 << 20,
                         Sum{}) == cudaSuccess);
  CHECK(again == query);
  std::size_t bytes = query;
  CHECK(inclusive_scan(nullptr, bytes, in, out, -1, Sum{}) == cudaErrorInvalidValue);
  CHECK(inclusive_scan(temp, bytes, in, out, -1, Sum{}) == cudaErrorInvalidValue);
  CHECK(inclusive_scan(temp, bytes, in, out, INT64_MAX / 2, Sum{}) == cudaErrorInvalidValue);
  CHECK(inclusive_scan(temp, bytes, static_cast<const float*>(nullptr), out, 1 << 20, Sum{}) == cudaErrorInvalidValue);
  CHECK(inclusive_scan(temp, bytes, in, static_cast<float*>(nullptr), 1 << 20, Sum{}) == cudaErrorInvalidValue);
  CHECK(exclusive_scan(temp, bytes, in, static_cast<float*>(nullptr), 1 << 20, Sum{}, 0.0f) == cudaErrorInvalidValue);
  // Too little or misaligned temp storage.
  std::size_t small = query - 1;
  CHECK(inclusive_scan(temp, small, in, out, 1 << 20, Sum{}) == cudaErrorInvalidValue);
  CHECK(inclusive_scan(static_cast<char*>(temp) + 8, bytes, in, out, 1 << 20, Sum{}) == cudaErrorInvalidValue);
  // Storage sized by a query for fewer items than the run's (whichever path the run would take:
  // the two passes' sums or the single pass's tile states).
  for (std::int64_t more : {(std::int64_t{1} << 20) + 1, std::int64_t{1} << 22, std::int64_t{1} << 26}) {
    CAPTURE(more);
    std::size_t fewer = query;
    CHECK(inclusive_scan(temp, fewer, in, out, more, Sum{}) == cudaErrorInvalidValue);
    CHECK(exclusive_scan(temp, fewer, in, out, more, Sum{}, 0.0f) == cudaErrorInvalidValue);
  }
  // Partial overlaps are refused (in place, same address and width, is allowed).
  CHECK(inclusive_scan(temp, bytes, in, const_cast<float*>(in) + 1, 1 << 20, Sum{}) == cudaErrorInvalidValue);
  std::size_t wide = 0;
  REQUIRE(exclusive_scan(nullptr, wide, in, reinterpret_cast<double*>(out), 1 << 20, Sum{}, 0.0) == cudaSuccess);
  CHECK(exclusive_scan(temp, wide, in, reinterpret_cast<double*>(const_cast<float*>(in)), 1 << 20, Sum{}, 0.0) ==
        cudaErrorInvalidValue);
  // Pointers not aligned to their types.
  CHECK(inclusive_scan(temp, bytes, reinterpret_cast<const float*>((std::uintptr_t{1} << 20) + 2), out, 1 << 20,
                       Sum{}) == cudaErrorInvalidValue);
  CHECK(inclusive_scan(temp, bytes, in, reinterpret_cast<float*>((std::uintptr_t{1} << 30) + 1), 1 << 20, Sum{}) ==
        cudaErrorInvalidValue);
  // The temp storage shares no byte with the arrays.
  CHECK(inclusive_scan(const_cast<float*>(in) + 64, bytes, in, out, 1 << 20, Sum{}) == cudaErrorInvalidValue);
  CHECK(inclusive_scan(out + (1 << 20) - 4, bytes, in, out, 1 << 20, Sum{}) == cudaErrorInvalidValue);
  // Streaming loads take the read-only path: no in-place scan with them.
  using Streaming = ScanPolicy<256, 8, BlockScanAlgorithm::automatic, CacheHint::streaming>;
  std::size_t streaming = 0;
  REQUIRE(inclusive_scan<Streaming>(nullptr, streaming, in, out, 1 << 20, Sum{}) == cudaSuccess);
  CHECK(inclusive_scan<Streaming>(temp, streaming, in, const_cast<float*>(in), 1 << 20, Sum{}) ==
        cudaErrorInvalidValue);
  // At most 2^31 - 1 tiles: 2^37 bytes in tiles of 64 are 2^31 of them (the size query too).
  auto* bytes_in = reinterpret_cast<const std::uint8_t*>(std::uintptr_t{1} << 20);
  auto* bytes_out = reinterpret_cast<std::uint8_t*>(std::uintptr_t{1} << 30);
  std::size_t many = 0;
  CHECK(inclusive_scan<ScanPolicy<64, 1>>(nullptr, many, bytes_in, bytes_out, std::int64_t{1} << 37, Sum{}) ==
        cudaErrorInvalidValue);
  CHECK(inclusive_scan<ScanPolicy<64, 1>>(nullptr, many, bytes_in, bytes_out, (std::int64_t{1} << 37) - 64, Sum{}) ==
        cudaSuccess);
  // n == 0 is a successful no-op, even with null pointers.
  std::size_t zero = 0;
  CHECK(inclusive_scan(nullptr, zero, in, out, 0, Sum{}) == cudaSuccess);
  CHECK(inclusive_scan(temp, zero, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 0, Sum{}) ==
        cudaSuccess);
}

TEST_CASE("select_if and partition reject bad arguments before launching") {
  auto* in = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
  auto* out = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
  auto* count = reinterpret_cast<long long*>(std::uintptr_t{1} << 34);
  void* temp = reinterpret_cast<void*>(std::uintptr_t{1} << 32);
  const Positive positive{};
  std::size_t sel = 0;
  REQUIRE(select_if(nullptr, sel, in, out, count, 1 << 20, positive) == cudaSuccess);
  CHECK(sel > 16);
  CHECK(select_if(nullptr, sel, in, out, count, -1, positive) == cudaErrorInvalidValue);
  CHECK(select_if(temp, sel, in, out, static_cast<long long*>(nullptr), 1 << 20, positive) == cudaErrorInvalidValue);
  CHECK(select_if(temp, sel, static_cast<const float*>(nullptr), out, count, 1 << 20, positive) ==
        cudaErrorInvalidValue);
  CHECK(partition(temp, sel, in, static_cast<float*>(nullptr), count, 1 << 20, positive) == cudaErrorInvalidValue);
  CHECK(partition(temp, sel, in, const_cast<float*>(in) + 5, count, 1 << 20, positive) == cudaErrorInvalidValue);
  // Overlapping arrays: select_if takes one array in place, nothing else; partition none.
  CHECK(select_if(temp, sel, in, const_cast<float*>(in) + 5, count, 1 << 20, positive) == cudaErrorInvalidValue);
  CHECK(select_if(temp, sel, in + 5, const_cast<float*>(in), count, 1 << 20, positive) == cudaErrorInvalidValue);
  CHECK(partition(temp, sel, in, const_cast<float*>(in), count, 1 << 20, positive) == cudaErrorInvalidValue);
  // In place with streaming loads (the read-only path) is refused too.
  using Streaming = ScanPolicy<256, 8, BlockScanAlgorithm::automatic, CacheHint::streaming>;
  std::size_t streaming = 0;
  REQUIRE(select_if<Streaming>(nullptr, streaming, in, out, count, 1 << 20, positive) == cudaSuccess);
  CHECK(select_if<Streaming>(temp, streaming, in, const_cast<float*>(in), count, 1 << 20, positive) ==
        cudaErrorInvalidValue);
  // (In place, the count and the temp storage must still stay clear of the array.)
  CHECK(select_if(temp, sel, in, const_cast<float*>(in), reinterpret_cast<long long*>(const_cast<float*>(in) + 2),
                  1 << 20, positive) == cudaErrorInvalidValue);
  CHECK(select_if(const_cast<float*>(in) + 4, sel, in, const_cast<float*>(in), count, 1 << 20, positive) ==
        cudaErrorInvalidValue);
  std::size_t tiny = 1;
  CHECK(select_if(temp, tiny, in, out, count, 1 << 20, positive) == cudaErrorInvalidValue);
  // Storage sized by a query for fewer items than the run's.
  for (std::int64_t more : {(std::int64_t{1} << 20) + 1, std::int64_t{1} << 24}) {
    CAPTURE(more);
    std::size_t fewer = sel;
    CHECK(select_if(temp, fewer, in, out, count, more, positive) == cudaErrorInvalidValue);
    CHECK(partition(temp, fewer, in, out, count, more, positive) == cudaErrorInvalidValue);
  }
  // A negative count on the run path too, and temp storage that is not 16-byte aligned.
  CHECK(select_if(temp, sel, in, out, count, -1, positive) == cudaErrorInvalidValue);
  CHECK(partition(temp, sel, in, out, count, -1, positive) == cudaErrorInvalidValue);
  CHECK(select_if(static_cast<char*>(temp) + 8, sel, in, out, count, 1 << 20, positive) == cudaErrorInvalidValue);
  CHECK(partition(static_cast<char*>(temp) + 4, sel, in, out, count, 1 << 20, positive) == cudaErrorInvalidValue);
  // A refused size query leaves temp_storage_bytes as it was.
  std::size_t kept_bytes = 12345;
  CHECK(select_if(nullptr, kept_bytes, in, out, count, -1, positive) == cudaErrorInvalidValue);
  CHECK(kept_bytes == 12345);
  // Every item may be kept, so num_items must fit the count's type (a wrapped count would be
  // silently wrong): an int takes up to 2^31 - 1 items, an unsigned up to 2^32 - 1.
  auto* count32 = reinterpret_cast<int*>(std::uintptr_t{1} << 34);
  auto* count_u32 = reinterpret_cast<unsigned*>(std::uintptr_t{1} << 34);
  std::size_t q = 0;
  CHECK(select_if(nullptr, q, in, out, count32, std::int64_t{INT32_MAX}, positive) == cudaSuccess);
  CHECK(select_if(nullptr, q, in, out, count32, std::int64_t{INT32_MAX} + 1, positive) == cudaErrorInvalidValue);
  CHECK(partition(nullptr, q, in, out, count32, std::int64_t{INT32_MAX} + 1, positive) == cudaErrorInvalidValue);
  CHECK(select_if(nullptr, q, in, out, count_u32, std::int64_t{UINT32_MAX}, positive) == cudaSuccess);
  CHECK(partition(nullptr, q, in, out, count_u32, std::int64_t{UINT32_MAX} + 1, positive) == cudaErrorInvalidValue);
  CHECK(select_if(nullptr, q, in, out, count, std::int64_t{UINT32_MAX} + 1, positive) == cudaSuccess);
  // Pointers not aligned to their types.
  CHECK(select_if(temp, sel, reinterpret_cast<const float*>((std::uintptr_t{1} << 20) + 2), out, count, 1 << 20,
                  positive) == cudaErrorInvalidValue);
  CHECK(partition(temp, sel, in, reinterpret_cast<float*>((std::uintptr_t{1} << 30) + 2), count, 1 << 20, positive) ==
        cudaErrorInvalidValue);
  CHECK(select_if(temp, sel, in, out, reinterpret_cast<long long*>((std::uintptr_t{1} << 34) + 4), 1 << 20, positive) ==
        cudaErrorInvalidValue);
  // The count, the arrays and the temp storage share no byte.
  CHECK(select_if(temp, sel, in, out, reinterpret_cast<long long*>(out + 8), 1 << 20, positive) ==
        cudaErrorInvalidValue);
  CHECK(partition(temp, sel, in, out, reinterpret_cast<long long*>(const_cast<float*>(in) + 2), 1 << 20, positive) ==
        cudaErrorInvalidValue);
  CHECK(select_if(reinterpret_cast<char*>(count) - 16, sel, in, out, count, 1 << 20, positive) ==
        cudaErrorInvalidValue);
  CHECK(select_if(out + 16, sel, in, out, count, 1 << 20, positive) == cudaErrorInvalidValue);
  // At most 2^31 - 1 tiles (the size query too).
  std::size_t many = 0;
  CHECK(select_if<ScanPolicy<64, 1>>(nullptr, many, in, out, count, std::int64_t{1} << 37, positive) ==
        cudaErrorInvalidValue);
}

}  // namespace tilecraft::test
