// Bad runtime arguments to the scans and stream compaction are rejected with
// cudaErrorInvalidValue before any launch, and their size queries need no GPU: these run
// without one (every rejection happens before the first CUDA call).
#include <doctest/doctest.h>

#include <cstdint>

#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/select.cuh>
#include <tilecraft/util/functional.cuh>

using namespace tilecraft;

namespace {
struct Positive {
  __host__ __device__ bool operator()(float v) const { return v > 0; }
};
}  // namespace

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
  // Partial overlaps are refused (in place, same address and width, is allowed).
  CHECK(inclusive_scan(temp, bytes, in, const_cast<float*>(in) + 1, 1 << 20, Sum{}) == cudaErrorInvalidValue);
  std::size_t wide = 0;
  REQUIRE(exclusive_scan(nullptr, wide, in, reinterpret_cast<double*>(out), 1 << 20, Sum{}, 0.0) == cudaSuccess);
  CHECK(exclusive_scan(temp, wide, in, reinterpret_cast<double*>(const_cast<float*>(in)), 1 << 20, Sum{}, 0.0) ==
        cudaErrorInvalidValue);
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
  std::size_t tiny = 1;
  CHECK(select_if(temp, tiny, in, out, count, 1 << 20, positive) == cudaErrorInvalidValue);
}
