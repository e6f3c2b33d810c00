// tilecraft::stencil_1d against a double-precision host reference: float and double, every
// radius class (radius mod the 16-byte vector width), both boundaries, sizes around every edge
// (0, 1, 2R, 2R + 1, a tile, odd sizes, 2^24 + 3), unaligned input and output, several policies.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <tilecraft/device/stencil.cuh>

#include "test_util.cuh"

using namespace tilecraft;
using tilecraft::test::DeviceBuffer;

namespace {

template <class T, int R>
StencilWeights<T, R> random_weights(std::uint64_t salt) {
  const auto v = tilecraft::test::random_vector<T>(2 * R + 1, -1, 1, salt);
  StencilWeights<T, R> w{};
  for (int j = 0; j < 2 * R + 1; ++j) w.w[j] = v[static_cast<std::size_t>(j)];
  return w;
}

// Runs the stencil on in[in_shift ...] into out[out_shift ...] (shifts break 16-byte alignment)
// and checks every output against the double reference and the poison beyond.
template <int R, class Policy = void, class T>
void check_stencil(std::int64_t n, StencilBoundary boundary, int in_shift, int out_shift, std::uint64_t salt) {
  CAPTURE(R);
  CAPTURE(n);
  CAPTURE(static_cast<int>(boundary));
  CAPTURE(in_shift);
  CAPTURE(out_shift);
  const auto w = random_weights<T, R>(salt);
  const auto host = tilecraft::test::random_vector<T>(static_cast<std::size_t>(n + in_shift), -10, 10, salt + 1);
  DeviceBuffer<T> in(host.size()), out(static_cast<std::size_t>(n + out_shift + 4));
  if (!host.empty()) in.upload(host);
  out.poison();
  TILECRAFT_THROW_IF_ERROR(stencil_1d<R, Policy>(in.get() + in_shift, out.get() + out_shift, n, w, boundary));
  tilecraft::test::sync_and_check();
  const auto h = out.download();
  const T* x = host.data() + in_shift;
  auto value = [&](std::int64_t i) -> double {
    if (i >= 0 && i < n) return x[i];
    if (boundary == StencilBoundary::zero) return 0.0;
    return i < 0 ? x[0] : x[n - 1];
  };
  const double eps = sizeof(T) == 4 ? 6e-8 : 1.2e-16;
  const T poison = tilecraft::test::poison_value<T>();
  int bad = 0;
  std::int64_t first_bad = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    double want = 0, mag = 0;
    for (int j = -R; j <= R; ++j) {
      want += static_cast<double>(w.w[j + R]) * value(i + j);
      mag += std::abs(static_cast<double>(w.w[j + R]) * value(i + j));
    }
    const double got = h[static_cast<std::size_t>(i + out_shift)];
    if (!(std::abs(got - want) <= tilecraft::test::sum_tolerance(mag, 2 * R + 1, eps))) {
      if (first_bad < 0) first_bad = i;
      ++bad;
    }
  }
  CAPTURE(first_bad);
  CHECK(bad == 0);
  // Nothing written before or after out[0, n).
  int stray = 0;
  for (int i = 0; i < out_shift; ++i) stray += std::memcmp(&h[static_cast<std::size_t>(i)], &poison, sizeof(T)) != 0;
  for (std::size_t i = static_cast<std::size_t>(n + out_shift); i < h.size(); ++i)
    stray += std::memcmp(&h[i], &poison, sizeof(T)) != 0;
  CHECK(stray == 0);
}

template <int R, class T>
void check_radius(std::uint64_t salt) {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{2 * R}, std::int64_t{2 * R + 1}, std::int64_t{1000},
                         std::int64_t{1024}, std::int64_t{1025}, std::int64_t{4093}, std::int64_t{100000}}) {
    for (auto b : {StencilBoundary::zero, StencilBoundary::clamp}) {
      check_stencil<R, void, T>(n, b, 0, 0, salt++);
      check_stencil<R, void, T>(n, b, 1, 0, salt++);  // unaligned input
      check_stencil<R, void, T>(n, b, 0, 1, salt++);  // unaligned output
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("stencil_1d: every radius class, both boundaries, edge sizes, alignments", T, float, double) {
  check_radius<1, T>(100);
  check_radius<2, T>(200);
  check_radius<3, T>(300);
  check_radius<4, T>(400);
  check_radius<5, T>(500);
  check_radius<8, T>(800);
  check_radius<13, T>(1300);
  check_radius<16, T>(1600);
}

TEST_CASE("stencil_1d: n = 0 writes nothing") {
  check_stencil<3, void, float>(0, StencilBoundary::zero, 0, 0, 7);
  check_stencil<3, void, double>(0, StencilBoundary::clamp, 1, 1, 8);
}

TEST_CASE("stencil_1d: 2^24 + 3 elements") {
  if (const char* env = std::getenv("TILECRAFT_TEST_HUGE"); env != nullptr && std::strcmp(env, "0") == 0) {
    MESSAGE("TILECRAFT_TEST_HUGE=0: skipping the 2^24 + 3 element cases");
    return;
  }
  check_stencil<1, void, float>((std::int64_t{1} << 24) + 3, StencilBoundary::zero, 0, 0, 9);
  check_stencil<16, void, float>((std::int64_t{1} << 24) + 3, StencilBoundary::clamp, 1, 0, 10);
  check_stencil<8, void, double>((std::int64_t{1} << 24) + 3, StencilBoundary::zero, 0, 1, 11);
}

TEST_CASE("stencil_1d: persistent grids whose blocks walk several tiles") {
  // The user policies below (no new kernels), on as many blocks as fit (an H200 holds 32 blocks
  // of 32 or 64 threads an SM, 16 of 128) over more elements than one tile a block: 64 x 2
  // vectors of floats, one stage (acquire after the compute), about 2.8 tiles a block; 128 x 2,
  // two stages, 2.8; 32 x 1 vectors of doubles, eight stages, 7.4: each stage refilled on the way.
  check_stencil<3, StencilPolicy<64, 2, 1>, float>(6000007, StencilBoundary::clamp, 0, 0, 40);
  check_stencil<4, StencilPolicy<128, 2, 2>, float>(6000007, StencilBoundary::zero, 1, 0, 41);
  check_stencil<16, StencilPolicy<32, 1, 8>, double>(2000003, StencilBoundary::clamp, 0, 1, 42);
}

TEST_CASE("stencil_1d: user policies, both algorithms, persistent and per-block grids, 1 to 8 stages") {
  constexpr auto direct = StencilAlgorithm::direct;
  for (std::int64_t n : {1, 33, 5000, 77777}) {
    check_stencil<4, StencilPolicy<128, 2, 2>, float>(n, StencilBoundary::clamp, 0, 0, 20);
    check_stencil<7, StencilPolicy<64, 4, 4>, float>(n, StencilBoundary::zero, 1, 0, 21);
    check_stencil<16, StencilPolicy<32, 1, 8>, double>(n, StencilBoundary::clamp, 0, 1, 22);
    check_stencil<3, StencilPolicy<64, 2, 1>, float>(n, StencilBoundary::clamp, 0, 0, 23);  // persistent, 1 stage
    check_stencil<9, StencilPolicy<64, 2, 3, 4>, float>(n, StencilBoundary::zero, 0, 1, 24);
    check_stencil<5, StencilPolicy<96, 3, 2, 1>, double>(n, StencilBoundary::clamp, 1, 1, 25);
    check_stencil<16, StencilPolicy<128, 4, 1, 0, direct>, float>(n, StencilBoundary::clamp, 1, 0, 26);
    check_stencil<6, StencilPolicy<32, 8, 1, 0, direct>, double>(n, StencilBoundary::zero, 0, 1, 27);
    // A direct policy whose stages would not fit as tiles (direct keeps none in shared memory).
    check_stencil<1, StencilPolicy<512, 8, 3, 0, direct>, float>(n, StencilBoundary::zero, 1, 1, 28);
  }
}
