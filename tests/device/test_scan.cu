// The single-pass device scan against CUB and host references. (The select_if and partition
// tests, built on the same look-back, are test_select.cu: one unit with both was the GPU check's
// longest compile, 114 s.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/functional.cuh>

#include "ops.cuh"
#include "scan_test_util.cuh"
#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;
using tilecraft::test::download;
using tilecraft::test::host_scan;
using tilecraft::test::mismatches;
using tilecraft::test::run_scan;

// tilecraft::inclusive_scan / exclusive_scan against a host fold and cub::DeviceScan: sizes from 0
// to 2^20 + 7 (both tile sizes: one tile - 1, + 0, + 1), misaligned pointers, sum, min, max,
// 32-bit and 8-byte non-commutative operators (packed and split tile states), u8 into i64,
// natural 8- and 16-bit types, in place, and the convenience form.
namespace scan_tests {

// The small default tile of 4-byte types is 256 x 8 = 2048 elements (inputs up to 512 KiB:
// 131072 elements), the register tile 256 x 32, the large one 128 x 64 = 8192 (two passes over
// shared memory).
const std::int64_t sizes[] = {0, 1, 31, 32, 33, 1000, 2047, 2048, 2049, 4097, 65536 + 3, 131072, 131073, (1 << 20) + 7};

TEST_CASE("integer sum, min and max scans equal the host fold and CUB at every size and alignment") {
  for (std::int64_t n : sizes) {
    // Input and output shifted alike, and one of them 16-byte aligned while the other is not
    // (the element-by-element path: vectors only where both are aligned).
    for (const auto& [shift, out_shift] : {std::pair{0, 0}, std::pair{1, 1}, std::pair{1, 0}, std::pair{0, 1}}) {
      CAPTURE(n);
      CAPTURE(shift);
      CAPTURE(out_shift);
      const auto host =
          tilecraft::test::random_vector<int>(static_cast<std::size_t>(n + shift), -1000000, 1000000, n + shift);
      DeviceBuffer<int> in(host), out(static_cast<std::size_t>(n + 1)), ref(static_cast<std::size_t>(n + 1));
      const int* p = in.get() + shift;
      int* o = out.get() + out_shift;
      const auto s = static_cast<std::size_t>(shift), m = static_cast<std::size_t>(n);
      run_scan<false>(p, o, n, Sum{});
      CHECK(mismatches(download(o, m), host_scan<false, int, int>(host, s, m, Sum{})) == 0);
      if (shift != out_shift) continue;  // (the operators below take the same paths)
      run_scan<true>(p, o, n, Sum{}, 7);
      CHECK(mismatches(download(o, m), host_scan<true, int, int>(host, s, m, Sum{}, 7)) == 0);
      run_scan<false>(p, o, n, Min{});
      CHECK(mismatches(download(o, m), host_scan<false, int, int>(host, s, m, Min{})) == 0);
      run_scan<true>(p, o, n, Max{}, INT32_MIN);
      CHECK(mismatches(download(o, m), host_scan<true, int, int>(host, s, m, Max{}, INT32_MIN)) == 0);
      if (n > 0) {
        std::size_t bytes = 0;
        TILECRAFT_THROW_IF_ERROR(cub::DeviceScan::InclusiveSum(nullptr, bytes, p, ref.get(), n));
        DeviceBuffer<unsigned char> temp(bytes);
        TILECRAFT_THROW_IF_ERROR(cub::DeviceScan::InclusiveSum(temp.get(), bytes, p, ref.get(), n));
        tilecraft::test::sync_and_check();
        run_scan<false>(p, o, n, Sum{});
        CHECK(mismatches(download(o, m), download(ref.get(), m)) == 0);
      }
    }
  }
}

// Both tile paths with 8192-element tiles: 512 x 16 in registers, 128 x 64 in two passes over
// shared memory (detail::two_pass_tile), inclusive and exclusive, aligned and not; with the
// streaming cache hint too (its own loads and stores in each path).
template <class Policy>
void check_large_tile() {
  for (std::int64_t n : {std::int64_t{8191}, std::int64_t{8192}, std::int64_t{8193}, std::int64_t{3 * 8192 + 5},
                         std::int64_t{200 * 8192 + 77}}) {
    // The streaming hint changes the loads and stores, not the tiles: sanitizer-sized runs skip
    // its 200-tile size.
    if (Policy::hint == CacheHint::streaming && n > 100000 && tilecraft::test::sanitizer_sized()) continue;
    for (int shift : {0, 3}) {
      CAPTURE(n);
      CAPTURE(shift);
      const auto host =
          tilecraft::test::random_vector<int>(static_cast<std::size_t>(n + shift), -1000, 1000, 5 * n + shift);
      DeviceBuffer<int> in(host), out(static_cast<std::size_t>(n + shift));
      const auto s = static_cast<std::size_t>(shift), m = static_cast<std::size_t>(n);
      out.poison();
      run_scan<false, Policy>(in.get() + shift, out.get() + shift, n, Sum{});
      CHECK(mismatches(download(out.get() + shift, m), host_scan<false, int, int>(host, s, m, Sum{})) == 0);
      // (The streaming hint's loads and stores are an inclusive scan's too: one kernel fewer.)
      if constexpr (Policy::hint != CacheHint::streaming) {
        out.poison();
        run_scan<true, Policy>(in.get() + shift, out.get() + shift, n, Min{}, 777);
        CHECK(mismatches(download(out.get() + shift, m), host_scan<true, int, int>(host, s, m, Min{}, 777)) == 0);
      }
    }
  }
}

TEST_CASE("the large tiles: one tile - 1, + 0, + 1 and a few tiles, with explicit policies") {
  static_assert(!tilecraft::detail::two_pass_tile<ScanPolicy<512, 16>, int, int>);
  static_assert(tilecraft::detail::two_pass_tile<ScanPolicy<128, 64>, int, int>);
  check_large_tile<ScanPolicy<512, 16>>();
  check_large_tile<ScanPolicy<128, 64>>();
  check_large_tile<ScanPolicy<512, 16, detail::look_back_block_scan<512>, CacheHint::streaming>>();
  check_large_tile<ScanPolicy<128, 64, detail::look_back_block_scan<128>, CacheHint::streaming>>();
}

TEST_CASE("non-commutative operators: affine maps as an 8-byte struct and packed in 32 bits") {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{33}, std::int64_t{1025}, std::int64_t{(1 << 20) + 7}}) {
    CAPTURE(n);
    auto g = tilecraft::test::rng(900 + n);
    std::vector<test::Affine> f(static_cast<std::size_t>(n));
    for (auto& x : f) x = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
    DeviceBuffer<test::Affine> in(f), out(f.size());
    const auto m = static_cast<std::size_t>(n);
    run_scan<false>(in.get(), out.get(), n, test::Compose{});
    CHECK(mismatches(download(out.get(), m), host_scan<false, test::Affine, test::Affine>(f, 0, m, test::Compose{})) ==
          0);
    const test::Affine seed{3u, 11u};
    run_scan<true>(in.get(), out.get(), n, test::Compose{}, seed);
    CHECK(mismatches(download(out.get(), m),
                     host_scan<true, test::Affine, test::Affine>(f, 0, m, test::Compose{}, seed)) == 0);

    std::vector<std::uint32_t> q(m);
    for (auto& x : q) x = static_cast<std::uint32_t>(g()) | 0x10000u;
    DeviceBuffer<std::uint32_t> qin(q), qout(m);
    run_scan<false>(qin.get(), qout.get(), n, test::ComposePacked{});
    CHECK(mismatches(download(qout.get(), m),
                     host_scan<false, std::uint32_t, std::uint32_t>(q, 0, m, test::ComposePacked{})) == 0);

    // In place (d_out == d_in): each tile's items are overwritten by their prefixes while later
    // tiles still read theirs, and the order of every application must hold as out of place.
    in.upload(f);
    run_scan<false>(in.get(), in.get(), n, test::Compose{}, test::Affine{}, nullptr, false);
    CHECK(mismatches(download(in.get(), m), host_scan<false, test::Affine, test::Affine>(f, 0, m, test::Compose{})) ==
          0);
    in.upload(f);
    run_scan<true>(in.get(), in.get(), n, test::Compose{}, seed, nullptr, false);
    CHECK(mismatches(download(in.get(), m),
                     host_scan<true, test::Affine, test::Affine>(f, 0, m, test::Compose{}, seed)) == 0);
    run_scan<false>(qin.get(), qin.get(), n, test::ComposePacked{}, std::uint32_t{}, nullptr, false);
    CHECK(mismatches(download(qin.get(), m),
                     host_scan<false, std::uint32_t, std::uint32_t>(q, 0, m, test::ComposePacked{})) == 0);
  }
}

TEST_CASE("floats: exact on small integers, within the rounding bound on real values") {
  for (std::int64_t n : {std::int64_t{33}, std::int64_t{1025}, std::int64_t{(1 << 20) + 7}}) {
    for (int shift : {0, 1}) {
      CAPTURE(n);
      CAPTURE(shift);
      const auto m = static_cast<std::size_t>(n), s = static_cast<std::size_t>(shift);
      // Values 0..3: every prefix is an integer below 2^24, exact in any association.
      const auto ints = tilecraft::test::random_vector<int>(m + s, 0, 3, 7 * n + shift);
      std::vector<float> exact(ints.begin(), ints.end());
      // (16 guard elements past the output, and the shift before it: nothing written there.)
      DeviceBuffer<float> in(exact), out(m + s + 16);
      out.poison();
      run_scan<false>(in.get() + shift, out.get() + shift, n, Sum{});
      CHECK(mismatches(download(out.get() + shift, m), host_scan<false, float, float>(exact, s, m, Sum{})) == 0);
      CHECK(tilecraft::test::guards_touched(out, s, m) == 0);
      run_scan<true>(in.get() + shift, out.get() + shift, n, Sum{}, 0.5f);
      CHECK(mismatches(download(out.get() + shift, m), host_scan<true, float, float>(exact, s, m, Sum{}, 0.5f)) == 0);
      CHECK(tilecraft::test::guards_touched(out, s, m) == 0);
      // Real values against a double prefix: error bound from the depth of the association
      // (tile count + tile-local levels).
      const auto real = tilecraft::test::random_vector<float>(m + s, -1.0, 1.0, 11 * n + shift);
      in.upload(real);
      run_scan<false>(in.get() + shift, out.get() + shift, n, Sum{});
      CHECK(tilecraft::test::float_sum_errors(download(out.get() + shift, m), real, s, m) == 0);
    }
  }
}

TEST_CASE("u8 and int into i64, natural i8 and i16, double and in place") {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{4099}, std::int64_t{(1 << 20) + 7}, std::int64_t{5 << 20}}) {
    for (int shift : {0, 1}) {
      CAPTURE(n);
      CAPTURE(shift);
      const auto m = static_cast<std::size_t>(n), s = static_cast<std::size_t>(shift);
      const auto ints = tilecraft::test::random_vector<int>(m + s, 0, 255, 13 * n + shift);
      const std::vector<std::uint8_t> bytes(ints.begin(), ints.end());
      DeviceBuffer<std::uint8_t> in(bytes);
      DeviceBuffer<std::int64_t> out(m + s + 16);
      out.poison();
      run_scan<false>(in.get() + shift, out.get() + shift, n, Sum{});
      CHECK(mismatches(download(out.get() + shift, m),
                       host_scan<false, std::int64_t, std::int64_t>(bytes, s, m, Sum{})) == 0);
      run_scan<true>(in.get() + shift, out.get() + shift, n, Sum{}, std::int64_t{-5});
      CHECK(mismatches(download(out.get() + shift, m),
                       host_scan<true, std::int64_t, std::int64_t>(bytes, s, m, Sum{}, std::int64_t{-5})) == 0);
      CHECK(tilecraft::test::guards_touched(out, s, m) == 0);
      // int into i64, the prefixes past 2^31 from the third on: the accumulator must be the
      // output's type (what op(*d_out, *d_in) returns), not the input's.
      std::vector<int> big(m + s);
      for (std::size_t i = 0; i < m + s; ++i) big[i] = (1 << 30) + ints[i] * 4000000;
      DeviceBuffer<int> big_in(big);
      run_scan<false>(big_in.get() + shift, out.get() + shift, n, Sum{});
      CHECK(mismatches(download(out.get() + shift, m),
                       host_scan<false, std::int64_t, std::int64_t>(big, s, m, Sum{})) == 0);

      // i8 into i8 and i16 into i16 (accumulated in int, wrapped on output).
      std::vector<std::int8_t> i8(m + s);
      std::vector<std::int16_t> i16(m + s);
      for (std::size_t i = 0; i < m + s; ++i) {
        i8[i] = static_cast<std::int8_t>(ints[i] - 128);
        i16[i] = static_cast<std::int16_t>(ints[i] * 97 - 12000);
      }
      // 1-byte sums (int accumulators) run in two passes over shared memory from 512 KiB on:
      // inclusive, exclusive from an int init, and in place; 16 guard bytes past the output.
      DeviceBuffer<std::int8_t> a(i8), ao(m + s + 16);
      ao.poison();
      run_scan<false>(a.get() + shift, ao.get() + shift, n, Sum{});
      CHECK(mismatches(download(ao.get() + shift, m), host_scan<false, int, std::int8_t>(i8, s, m, Sum{})) == 0);
      CHECK(tilecraft::test::guards_touched(ao, s, m) == 0);
      run_scan<true>(a.get() + shift, ao.get() + shift, n, Sum{}, 101);
      CHECK(mismatches(download(ao.get() + shift, m), host_scan<true, int, std::int8_t>(i8, s, m, Sum{}, 101)) == 0);
      CHECK(tilecraft::test::guards_touched(ao, s, m) == 0);
      run_scan<false>(a.get() + shift, a.get() + shift, n, Sum{}, 0, nullptr, false);
      CHECK(mismatches(download(a.get() + shift, m), host_scan<false, int, std::int8_t>(i8, s, m, Sum{})) == 0);
      DeviceBuffer<std::int16_t> b(i16), bo(m + s);
      run_scan<false>(b.get() + shift, bo.get() + shift, n, Sum{});
      CHECK(mismatches(download(bo.get() + shift, m), host_scan<false, int, std::int16_t>(i16, s, m, Sum{})) == 0);
      // Exclusive from an int init (the 2-byte two-pass tile's first tile seeds its block scan).
      run_scan<true>(b.get() + shift, bo.get() + shift, n, Sum{}, -7);
      CHECK(mismatches(download(bo.get() + shift, m), host_scan<true, int, std::int16_t>(i16, s, m, Sum{}, -7)) == 0);

      // double (8-byte accumulator: the two-word tile state), in place.
      std::vector<double> d(ints.begin(), ints.end());
      DeviceBuffer<double> dd(d);
      run_scan<true>(dd.get() + shift, dd.get() + shift, n, Sum{}, 1.0, nullptr, false);
      CHECK(mismatches(download(dd.get() + shift, m), host_scan<true, double, double>(d, s, m, Sum{}, 1.0)) == 0);
      // int in place.
      DeviceBuffer<int> ii(ints);
      run_scan<false>(ii.get() + shift, ii.get() + shift, n, Max{}, 0, nullptr, false);
      CHECK(mismatches(download(ii.get() + shift, m), host_scan<false, int, int>(ints, s, m, Max{})) == 0);
    }
  }
}

TEST_CASE("n == 0 launches nothing; the convenience form on a stream") {
  const auto host = tilecraft::test::random_vector<int>(5000, -1000, 1000, 5000);
  DeviceBuffer<int> in(host), out(5000);
  std::size_t bytes = 0;
  CHECK(inclusive_scan(nullptr, bytes, in.get(), out.get(), 0, Sum{}) == cudaSuccess);
  CHECK(inclusive_scan(nullptr, bytes, static_cast<const int*>(nullptr), static_cast<int*>(nullptr), 0, Sum{}) ==
        cudaSuccess);
  // Run with n == 0 (temp of the queried size): the output keeps its poison.
  std::size_t ex_bytes = 0;
  CHECK(exclusive_scan(nullptr, ex_bytes, in.get(), out.get(), 0, Sum{}, 3) == cudaSuccess);
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>({bytes, ex_bytes, 1}));
  out.poison();
  CHECK(inclusive_scan(temp.get(), bytes, in.get(), out.get(), 0, Sum{}) == cudaSuccess);
  CHECK(exclusive_scan(temp.get(), ex_bytes, in.get(), out.get(), 0, Sum{}, 3) == cudaSuccess);
  tilecraft::test::sync_and_check();
  std::size_t touched = 0;
  for (const int v : out.download()) touched += v != tilecraft::test::poison_value<int>();
  CHECK(touched == 0);
  const tilecraft::test::Stream stream;
  out.poison();
  CHECK(inclusive_scan(in.get(), out.get(), 5000, Sum{}, stream) == cudaSuccess);
  CHECK(exclusive_scan(in.get(), in.get(), 5000, Sum{}, 1, stream) == cudaSuccess);  // in place
  stream.synchronize();
  CHECK(mismatches(out.download(), host_scan<false, int, int>(host, 0, 5000, Sum{})) == 0);
  CHECK(mismatches(in.download(), host_scan<true, int, int>(host, 0, 5000, Sum{}, 1)) == 0);
  // Refusals (a negative count, a null input) leave an earlier call's cudaErrorInvalidValue in
  // the last-error slot, in both forms, and launch nothing: the output keeps its poison.
  out.poison();
  using tilecraft::test::check_keeps_earlier_invalid_value;
  check_keeps_earlier_invalid_value([&] { return inclusive_scan(in.get(), out.get(), -1, Sum{}); });
  check_keeps_earlier_invalid_value([&] { return exclusive_scan(in.get(), out.get(), -1, Sum{}, 1); });
  check_keeps_earlier_invalid_value(
      [&] { return inclusive_scan(static_cast<const int*>(nullptr), out.get(), 5000, Sum{}); });
  check_keeps_earlier_invalid_value([&] { return inclusive_scan(temp.get(), bytes, in.get(), out.get(), -1, Sum{}); });
  check_keeps_earlier_invalid_value(
      [&] { return exclusive_scan(temp.get(), ex_bytes, in.get(), out.get(), -1, Sum{}, 3); });
  // And the refusals of the tile plan's checks: a null input, too little temp storage.
  std::size_t run_bytes = 0;
  REQUIRE(inclusive_scan(nullptr, run_bytes, in.get(), out.get(), 5000, Sum{}) == cudaSuccess);
  DeviceBuffer<unsigned char> run_temp(run_bytes);
  check_keeps_earlier_invalid_value([&] {
    return inclusive_scan(run_temp.get(), run_bytes, static_cast<const int*>(nullptr), out.get(), 5000, Sum{});
  });
  check_keeps_earlier_invalid_value([&] {
    std::size_t small = run_bytes - 1;
    return exclusive_scan(run_temp.get(), small, in.get(), out.get(), 5000, Sum{}, 3);
  });
  tilecraft::test::sync_and_check();
  CHECK(out.unpoisoned() == 0);
}

// A non-commutative map type with default member initializers (not trivially default
// constructible: block_scan's storage and the look-back's buffer hold it as raw bytes), over
// one tile and many.
TEST_CASE("scans of a type with default member initializers") {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{(1 << 20) + 7}}) {
    CAPTURE(n);
    const auto m = static_cast<std::size_t>(n);
    const auto f = test::random_affine_init(m, 11 * n);
    const test::AffineInit init{3u, 5u};
    DeviceBuffer<test::AffineInit> in(f), out(m);
    run_scan<false>(in.get(), out.get(), n, test::ComposeInit{});
    CHECK(out.download() == host_scan<false, test::AffineInit, test::AffineInit>(f, 0, m, test::ComposeInit{}));
    run_scan<true>(in.get(), out.get(), n, test::ComposeInit{}, init);
    CHECK(out.download() == host_scan<true, test::AffineInit, test::AffineInit>(f, 0, m, test::ComposeInit{}, init));
  }
}

// Negates every element: a producer kernel on the scan's stream right before it.
__global__ void negate_all(int* p, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    p[i] = -p[i];
  }
}

// On a non-blocking stream, behind an upload and a producer kernel on that stream: the scan's
// kernels (the tile-state reset, and the scan, which on sm_90 starts as the reset's programmatic
// dependent) must read the input only after both, never race them from another stream. (Values
// in [-15, 15]: no prefix of 2^26 of them leaves int.)
TEST_CASE("inclusive_scan and exclusive_scan run in the order of the stream they are given") {
  if (tilecraft::test::racecheck_sized()) return;  // (the order between kernels and copies: no shared memory in it)
  const std::int64_t n = std::int64_t{1} << (tilecraft::test::sanitizer_sized() ? 20 : 26);
  const auto m = static_cast<std::size_t>(n);
  tilecraft::test::PinnedBuffer<int> pinned(m);
  const auto host = tilecraft::test::random_vector<int>(m, -15, 15, 91);
  std::copy(host.begin(), host.end(), pinned.get());
  std::vector<int> negated(m);
  std::transform(host.begin(), host.end(), negated.begin(), [](int v) { return -v; });
  DeviceBuffer<int> in(m), out(m);
  TILECRAFT_THROW_IF_ERROR(cudaMemset(in.get(), 0, m * sizeof(int)));
  const tilecraft::test::Stream stream(cudaStreamNonBlocking);
  TILECRAFT_THROW_IF_ERROR(cudaDeviceSynchronize());
  for (bool exclusive : {false, true}) {
    CAPTURE(exclusive);
    auto run = [&](void* temp, std::size_t& bytes) {
      return exclusive ? exclusive_scan(temp, bytes, in.get(), out.get(), n, Sum{}, 7, stream)
                       : inclusive_scan(temp, bytes, in.get(), out.get(), n, Sum{}, stream);
    };
    std::size_t bytes = 0;
    REQUIRE(run(nullptr, bytes) == cudaSuccess);
    DeviceBuffer<unsigned char> temp(bytes);
    out.poison();
    TILECRAFT_THROW_IF_ERROR(cudaMemsetAsync(in.get(), 0, m * sizeof(int), stream));
    TILECRAFT_THROW_IF_ERROR(cudaMemcpyAsync(in.get(), pinned.get(), m * sizeof(int), cudaMemcpyHostToDevice, stream));
    negate_all<<<264, 256, 0, stream>>>(in.get(), n);
    TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
    REQUIRE(run(temp.get(), bytes) == cudaSuccess);
    stream.synchronize();
    const auto want = exclusive ? host_scan<true, int, int>(negated, 0, m, Sum{}, 7)
                                : host_scan<false, int, int>(negated, 0, m, Sum{});
    CHECK(mismatches(out.download(), want) == 0);
  }
}

}  // namespace scan_tests

// Cases an audit found no test would catch: the device scan's tiles on every block_scan
// algorithm and on thread counts that are not powers of two, the two-pass tile converting inputs
// to the accumulator before op, and an init that makes the accumulator wider than both arrays.
namespace scan_gaps {

// Adds like Sum on the accumulator type; on a raw int it would add twice the value. Inputs are
// converted to the accumulator before op (CUB's rule; every tile path), so the int overload only
// names the accumulator type (float).
struct SumOnAcc {
  __host__ __device__ float operator()(float a, float b) const { return a + b; }
  __host__ __device__ float operator()(float a, int b) const { return a + 2.0f * static_cast<float>(b); }
};

template <class Policy>
void check_tiles_of() {
  constexpr std::int64_t tile = Policy::tile_items;
  for (std::int64_t n : {std::int64_t{1}, tile - 1, tile, tile + 1, 37 * tile + 5}) {
    CAPTURE(Policy::threads);
    CAPTURE(Policy::items);
    CAPTURE(static_cast<int>(Policy::block_algorithm));
    CAPTURE(n);
    const auto m = static_cast<std::size_t>(n);
    auto g = tilecraft::test::rng(4000 + n + Policy::threads);
    std::vector<test::Affine> f(m);
    for (auto& x : f) x = {static_cast<std::uint32_t>(g()) | 1u, static_cast<std::uint32_t>(g())};
    DeviceBuffer<test::Affine> in(f), out(m);
    run_scan<false, Policy>(in.get(), out.get(), n, test::Compose{});
    CHECK(mismatches(download(out.get(), m), host_scan<false, test::Affine, test::Affine>(f, 0, m, test::Compose{})) ==
          0);
    const auto ints = tilecraft::test::random_vector<int>(m, -1000, 1000, 4100 + n);
    DeviceBuffer<int> iin(ints), iout(m);
    run_scan<true, Policy>(iin.get(), iout.get(), n, Sum{}, 5);
    CHECK(mismatches(download(iout.get(), m), host_scan<true, int, int>(ints, 0, m, Sum{}, 5)) == 0);
  }
}

TEST_CASE("the device scan's tiles on every block_scan algorithm, 96 to 1024 threads") {
  check_tiles_of<ScanPolicy<256, 8, BlockScanAlgorithm::raking>>();
  check_tiles_of<ScanPolicy<512, 2, BlockScanAlgorithm::automatic>>();
  check_tiles_of<ScanPolicy<96, 8, BlockScanAlgorithm::warp_scans>>();
  check_tiles_of<ScanPolicy<192, 4, BlockScanAlgorithm::two_level>>();
  check_tiles_of<ScanPolicy<160, 4, BlockScanAlgorithm::raking>>();
  check_tiles_of<ScanPolicy<1024, 2>>();
}

TEST_CASE("int into float: inputs converted to the accumulator before op, on the two-pass tile and the defaults") {
  static_assert(tilecraft::detail::two_pass_tile<ScanPolicy<128, 64>, int, float>);
  for (std::int64_t n : {std::int64_t{8191}, std::int64_t{8193}, std::int64_t{(1 << 20) + 7}}) {
    CAPTURE(n);
    const auto m = static_cast<std::size_t>(n);
    // Values 0..3: every prefix an integer below 2^24, exact in float in any association.
    const auto ints = tilecraft::test::random_vector<int>(m, 0, 3, 4200 + n);
    DeviceBuffer<int> in(ints);
    DeviceBuffer<float> out(m);
    const auto want = host_scan<false, float, float>(ints, 0, m, Sum{});
    run_scan<false, ScanPolicy<128, 64>>(in.get(), out.get(), n, SumOnAcc{});
    CHECK(mismatches(download(out.get(), m), want) == 0);
    run_scan<false>(in.get(), out.get(), n, SumOnAcc{});
    CHECK(mismatches(download(out.get(), m), want) == 0);
    const auto want_ex = host_scan<true, float, float>(ints, 0, m, Sum{}, 0.5f);
    run_scan<true, ScanPolicy<128, 64>>(in.get(), out.get(), n, SumOnAcc{}, 0.5f);
    CHECK(mismatches(download(out.get(), m), want_ex) == 0);
  }
}

// An int64 init makes the accumulator 64-bit for int input and float output (4 bytes each: the
// two-pass tile). Results rounded to float keep the high bits, which a 32-bit accumulator (int
// wrapping, or float) would lose; a sum cut back to int could not tell (wrapping adds agree
// modulo 2^32).
TEST_CASE("an int64 init accumulates int input in 64 bits, each result rounded to float") {
  static_assert(std::is_same_v<exclusive_scan_accumulator_t<Sum, int, std::int64_t>, std::int64_t>);
  for (std::int64_t n : {std::int64_t{33}, std::int64_t{70001}, std::int64_t{(1 << 20) + 7}}) {
    CAPTURE(n);
    const auto m = static_cast<std::size_t>(n);
    // Values near 2^30: the sums pass 2^31 within a few elements.
    const auto ints = tilecraft::test::random_vector<int>(m, 1 << 29, 1 << 30, 4300 + n);
    DeviceBuffer<int> in(ints);
    DeviceBuffer<float> out(m);
    run_scan<true>(in.get(), out.get(), n, Sum{}, std::int64_t{-7});
    CHECK(mismatches(download(out.get(), m),
                     host_scan<true, std::int64_t, float>(ints, 0, m, Sum{}, std::int64_t{-7})) == 0);
  }
}

// Accumulators narrower than the items (doubles summed in float, int64 in int): the one-wave
// forms whose tile needs wider accumulators (the split tile's shared part is a two-pass tile
// only where a thread's accumulators pass 128 bytes) must not be taken, and the scan must
// compile. Values 0..3: every prefix exact in either accumulator.
struct FloatSum {
  __host__ __device__ float operator()(float a, float b) const { return a + b; }
};
struct IntSum {
  __host__ __device__ int operator()(int a, int b) const { return a + b; }
};

TEST_CASE("accumulators narrower than the items: doubles summed in float, int64 in int") {
  const bool small = tilecraft::test::sanitizer_sized();
  for (std::int64_t n : {std::int64_t{70001}, std::int64_t{(1 << 20) + 7}, std::int64_t{(1 << 23) + 3}}) {
    if (small && n > (1 << 20) + 7) continue;
    CAPTURE(n);
    const auto m = static_cast<std::size_t>(n);
    const auto ints = tilecraft::test::random_vector<int>(m, 0, 3, 4400 + n);
    const std::vector<double> doubles(ints.begin(), ints.end());
    const std::vector<long long> longs(ints.begin(), ints.end());
    DeviceBuffer<double> din(doubles), dout(m);
    run_scan<false>(din.get(), dout.get(), n, FloatSum{});
    CHECK(mismatches(download(dout.get(), m), host_scan<false, float, double>(doubles, 0, m, FloatSum{})) == 0);
    DeviceBuffer<long long> lin(longs), lout(m);
    run_scan<true>(lin.get(), lout.get(), n, IntSum{}, 3);
    CHECK(mismatches(download(lout.get(), m), host_scan<true, int, long long>(longs, 0, m, IntSum{}, 3)) == 0);
  }
}

}  // namespace scan_gaps
