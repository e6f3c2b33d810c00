// Bad runtime arguments to the scans and stream compaction are rejected with
// cudaErrorInvalidValue before any launch, and their size queries need no GPU: these run
// without one (every rejection happens before the first CUDA call).
#include <doctest/doctest.h>

#include <cstdint>
#include <utility>

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
  CHECK(!detail::two_pass_tile<DefaultScanPolicyLarge<std::int8_t, std::int8_t>, std::int8_t, std::int8_t, int>);
  // 2-byte scans accumulate in int: 256 x 64 holds 256 bytes of accumulators a thread.
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

TEST_CASE("the default scan tiles of items of 1 to 480 bytes fit the scan kernel's shared memory") {
  // (296-byte items once took 128 threads, whose kernel needed 49200 bytes.)
  constexpr int first = first_width_not_fitting(std::make_integer_sequence<int, 480>{});
  CHECK(first == 0);
}
