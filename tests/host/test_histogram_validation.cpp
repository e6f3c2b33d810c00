// Bad arguments to histogram_even and histogram_range are rejected with cudaErrorInvalidValue
// before any launch, and the size query needs no GPU. These run without a GPU: every rejection
// happens before the first CUDA call. Compiled by the host compiler (the checks are the same
// source nvcc compiles; no kernel is instantiated).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include <tilecraft/device/histogram.cuh>

using namespace tilecraft;

namespace {
// Fake, never dereferenced addresses: validation must not touch them.
template <class T>
T* fake(std::uintptr_t where) {
  return reinterpret_cast<T*>(where);
}
constexpr cudaError_t bad = cudaErrorInvalidValue;
}  // namespace

TEST_CASE("histogram_even rejects bad arguments before launching") {
  auto* in = fake<const std::uint8_t>(std::uintptr_t{1} << 20);
  auto* hist = fake<unsigned>(std::uintptr_t{1} << 30);
  void* temp = fake<void>(std::uintptr_t{1} << 32);
  std::size_t bytes = 16;
  // The size query: 16 bytes, no GPU needed.
  std::size_t query = 0;
  CHECK(histogram_even(nullptr, query, in, hist, 256, 0, 256, 1000) == cudaSuccess);
  CHECK(query == 16);
  // Sizes and bin counts.
  CHECK(histogram_even(temp, bytes, in, hist, 256, 0, 256, -1) == bad);
  CHECK(histogram_even(nullptr, query, in, hist, 256, 0, 256, -1) == bad);
  CHECK(histogram_even(temp, bytes, in, hist, 0, 0, 256, 10) == bad);
  CHECK(histogram_even(temp, bytes, in, hist, -3, 0, 256, 10) == bad);
  CHECK(histogram_even(temp, bytes, in, hist, (1 << 22) + 1, 0, 256, 10) == bad);
  // Null pointers (a null input is fine only for zero samples... which still needs a histogram).
  CHECK(histogram_even(temp, bytes, static_cast<const std::uint8_t*>(nullptr), hist, 256, 0, 256, 10) == bad);
  CHECK(histogram_even(temp, bytes, in, static_cast<unsigned*>(nullptr), 256, 0, 256, 10) == bad);
  CHECK(histogram_even(temp, bytes, in, static_cast<unsigned*>(nullptr), 256, 0, 256, 0) == bad);
  // Temp storage too small or misaligned; a misaligned histogram or sample array.
  std::size_t small = 15;
  CHECK(histogram_even(temp, small, in, hist, 256, 0, 256, 10) == bad);
  CHECK(histogram_even(static_cast<char*>(temp) + 4, bytes, in, hist, 256, 0, 256, 10) == bad);
  CHECK(histogram_even(temp, bytes, in, fake<unsigned>((std::uintptr_t{1} << 30) + 2), 256, 0, 256, 10) == bad);
  CHECK(histogram_even(temp, bytes, in, fake<unsigned long long>((std::uintptr_t{1} << 30) + 4), 256, 0, 256, 10) ==
        bad);
  CHECK(histogram_even(temp, bytes, fake<const float>((std::uintptr_t{1} << 20) + 2), hist, 64, -1.0f, 1.0f, 10) ==
        bad);
  // Integer levels: lower < upper, any int values (past the samples' range too, as CUB's; this
  // host compiler's form then answers where nvcc's would launch).
  CHECK(histogram_even(temp, bytes, in, hist, 256, 5, 5, 10) == bad);
  CHECK(histogram_even(temp, bytes, in, hist, 256, 6, 5, 10) == bad);
  CHECK(histogram_even(nullptr, query, in, hist, 256, 6, 5, 10) == bad);
  CHECK(histogram_even(temp, bytes, in, hist, 256, -1, 256, 10) == cudaErrorInvalidDeviceFunction);
  CHECK(histogram_even(temp, bytes, in, hist, 256, 0, 257, 10) == cudaErrorInvalidDeviceFunction);
  CHECK(histogram_even(temp, bytes, in, hist, 7, std::numeric_limits<int>::min(), std::numeric_limits<int>::max(),
                       10) == cudaErrorInvalidDeviceFunction);
  auto* in16 = fake<const std::uint16_t>(std::uintptr_t{1} << 20);
  CHECK(histogram_even(temp, bytes, in16, hist, 256, 0, 65537, 10) == cudaErrorInvalidDeviceFunction);
  CHECK(histogram_even(temp, bytes, in16, hist, 256, 70000, 70001, 10) == cudaErrorInvalidDeviceFunction);
  CHECK(histogram_even(nullptr, query, in16, hist, 256, 0, 65536, 10) == cudaSuccess);
  // Samples whose bytes overflow 64 bits (the size query too); bytes up to 2^63 - 1 samples.
  constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
  CHECK(histogram_even(nullptr, query, in16, hist, 256, 0, 65536, most / 2 + 1) == bad);
  CHECK(histogram_even(temp, bytes, in16, hist, 256, 0, 65536, most / 2 + 1) == bad);
  CHECK(histogram_even(nullptr, query, in16, hist, 256, 0, 65536, most / 2) == cudaSuccess);
  CHECK(histogram_even(nullptr, query, in, hist, 256, 0, 256, most) == cudaSuccess);
  auto* in32 = fake<const std::int32_t>(std::uintptr_t{1} << 20);
  CHECK(histogram_even(nullptr, query, in32, hist, 256, std::numeric_limits<int>::min(),
                       std::numeric_limits<int>::max(), 10) == cudaSuccess);
  // Float levels: finite, lower < upper, a finite width.
  auto* inf = fake<const float>(std::uintptr_t{1} << 20);
  const float nan = std::numeric_limits<float>::quiet_NaN(), huge = std::numeric_limits<float>::max();
  CHECK(histogram_even(temp, bytes, inf, hist, 64, 1.0f, -1.0f, 10) == bad);
  CHECK(histogram_even(temp, bytes, inf, hist, 64, 1.0f, 1.0f, 10) == bad);
  CHECK(histogram_even(temp, bytes, inf, hist, 64, nan, 1.0f, 10) == bad);
  CHECK(histogram_even(temp, bytes, inf, hist, 64, -1.0f, std::numeric_limits<float>::infinity(), 10) == bad);
  CHECK(histogram_even(temp, bytes, inf, hist, 64, -huge, huge, 10) == bad);  // upper - lower overflows
  CHECK(histogram_even(nullptr, query, inf, hist, 64, -huge / 4, huge / 4, 10) == cudaSuccess);
  // A width so narrow that num_bins / width overflows to inf (every sample would land in the
  // last bin), in the size query too; the narrowest width whose scale stays finite passes.
  CHECK(histogram_even(temp, bytes, inf, hist, 1024, 0.0f, 1e-36f, 10) == bad);
  CHECK(histogram_even(nullptr, query, inf, hist, 1024, 0.0f, 1e-36f, 10) == bad);
  CHECK(histogram_even(nullptr, query, inf, hist, 1024, 0.0f, 1e-30f, 10) == cudaSuccess);
  // A width so wide that num_bins / width is subnormal (every sample in bin 0 where subnormals
  // flush), in the size query too; the widest whose scale is normal passes.
  CHECK(histogram_even(temp, bytes, inf, hist, 2, -huge / 2, huge / 2, 10) == bad);
  CHECK(histogram_even(nullptr, query, inf, hist, 2, -huge / 2, huge / 2, 10) == bad);
  CHECK(histogram_even(nullptr, query, inf, hist, 4, -huge / 2, huge / 2, 10) == cudaSuccess);
  // The histogram may share no byte with the samples (it is zeroed while other blocks read
  // them) or the temp storage. Host compilers answer a call that passes every check with
  // cudaErrorInvalidDeviceFunction (no kernels): the adjacent ranges pass.
  const std::uintptr_t at = std::uintptr_t{1} << 20;  // `in`: 10 bytes
  CHECK(histogram_even(temp, bytes, in, fake<unsigned>(at + 8), 256, 0, 256, 10) == bad);
  CHECK(histogram_even(temp, bytes, in, fake<unsigned>(at - 1020), 256, 0, 256, 10) == bad);  // ends at at + 4
  CHECK(histogram_even(temp, bytes, in, fake<unsigned>(at + 12), 256, 0, 256, 10) == cudaErrorInvalidDeviceFunction);
  CHECK(histogram_even(temp, bytes, in, fake<unsigned>(at - 1024), 256, 0, 256, 10) == cudaErrorInvalidDeviceFunction);
  const std::uintptr_t t = std::uintptr_t{1} << 32;  // `temp`: 16 bytes
  CHECK(histogram_even(temp, bytes, in, fake<unsigned>(t + 12), 256, 0, 256, 10) == bad);
  CHECK(histogram_even(temp, bytes, in, fake<unsigned>(t + 16), 256, 0, 256, 10) == cudaErrorInvalidDeviceFunction);
}

TEST_CASE("histogram_range rejects bad arguments before launching") {
  auto* in = fake<const int>(std::uintptr_t{1} << 20);
  auto* levels = fake<const int>(std::uintptr_t{1} << 24);
  auto* hist = fake<unsigned long long>(std::uintptr_t{1} << 30);
  void* temp = fake<void>(std::uintptr_t{1} << 32);
  std::size_t bytes = 16, query = 0;
  CHECK(histogram_range(nullptr, query, in, hist, 2048, levels, 1000) == cudaSuccess);
  CHECK(query == 16);
  CHECK(histogram_range(temp, bytes, in, hist, 2048, levels, -1) == bad);
  CHECK(histogram_range(temp, bytes, in, hist, 0, levels, 10) == bad);
  CHECK(histogram_range(temp, bytes, in, hist, 2048, static_cast<const int*>(nullptr), 10) == bad);
  CHECK(histogram_range(temp, bytes, in, hist, 2048, fake<const int>((std::uintptr_t{1} << 24) + 1), 10) == bad);
  CHECK(histogram_range(temp, bytes, static_cast<const int*>(nullptr), hist, 2048, levels, 10) == bad);
  CHECK(histogram_range(temp, bytes, in, static_cast<unsigned long long*>(nullptr), 2048, levels, 10) == bad);
  std::size_t small = 8;
  CHECK(histogram_range(temp, small, in, hist, 2048, levels, 10) == bad);
  // Levels (2049 ints from 2^24) and samples (10 ints from 2^20) share no byte with the
  // histogram (2048 8-byte counters); adjacent ranges pass the checks (see histogram_even's).
  const std::uintptr_t lv = std::uintptr_t{1} << 24, at = std::uintptr_t{1} << 20;
  CHECK(histogram_range(temp, bytes, in, fake<unsigned long long>(lv + 2048 * 4), 2048, levels, 10) == bad);
  CHECK(histogram_range(temp, bytes, in, fake<unsigned long long>(lv + 2049 * 4 + 4), 2048, levels, 10) ==
        cudaErrorInvalidDeviceFunction);
  CHECK(histogram_range(temp, bytes, in, fake<unsigned long long>(lv - 2048 * 8 + 8), 2048, levels, 10) == bad);
  CHECK(histogram_range(temp, bytes, in, fake<unsigned long long>(at + 32), 2048, levels, 10) == bad);
  CHECK(histogram_range(temp, bytes, in, fake<unsigned long long>(at + 40), 2048, levels, 10) ==
        cudaErrorInvalidDeviceFunction);
  // Bin counts up to 2^22, in the size query too; samples whose bytes overflow 64 bits; float
  // levels aligned to 4 bytes.
  CHECK(histogram_range(temp, bytes, in, hist, (1 << 22) + 1, levels, 10) == bad);
  CHECK(histogram_range(nullptr, query, in, hist, (1 << 22) + 1, levels, 10) == bad);
  CHECK(histogram_range(nullptr, query, in, hist, 1 << 22, levels, 10) == cudaSuccess);
  constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
  CHECK(histogram_range(nullptr, query, in, hist, 2048, levels, most / 4 + 1) == bad);
  CHECK(histogram_range(temp, bytes, in, hist, 2048, levels, most / 4 + 1) == bad);
  CHECK(histogram_range(nullptr, query, in, hist, 2048, levels, most / 4) == cudaSuccess);
  auto* inf = fake<const float>(std::uintptr_t{1} << 20);
  auto* flevels = fake<const float>(std::uintptr_t{1} << 24);
  CHECK(histogram_range(temp, bytes, inf, hist, 64, fake<const float>((std::uintptr_t{1} << 24) + 2), 10) == bad);
  CHECK(histogram_range(temp, bytes, inf, hist, 64, flevels, 10) == cudaErrorInvalidDeviceFunction);
}
