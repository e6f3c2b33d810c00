// transpose's and stencil_1d's argument checks in a host compiler's form: g++ compiles this
// file, so every call below takes the form that checks its arguments and returns
// cudaErrorInvalidDeviceFunction where nvcc's would launch (transpose_stencil_argument_cases.h
// holds the checks both forms share).
#include <doctest/doctest.h>

#include <cstdint>

#include <tilecraft/device/stencil.cuh>
#include <tilecraft/device/transpose.cuh>

#include "transpose_stencil_argument_cases.h"

#if defined(__CUDACC__)
#error "test_transpose_stencil_validation.cpp tests the host compiler's form: compile it as C++, not CUDA"
#endif

using namespace tilecraft;

TEST_CASE("a host compiler's transpose and stencil_1d return cudaErrorInvalidDeviceFunction where they would launch") {
  auto* in = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
  auto* out = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
  auto* in_d = reinterpret_cast<const double*>(std::uintptr_t{1} << 20);
  auto* out_d = reinterpret_cast<double*>(std::uintptr_t{1} << 30);
  for (const std::int64_t m : {std::int64_t{1}, std::int64_t{33}, std::int64_t{1000}}) {
    for (const std::int64_t n : {std::int64_t{1}, std::int64_t{65}, std::int64_t{4097}}) {
      CAPTURE(m);
      CAPTURE(n);
      CHECK(transpose(in, n, out, m, m, n) == cudaErrorInvalidDeviceFunction);
      CHECK(transpose(in_d, n + 3, out_d, m, m, n) == cudaErrorInvalidDeviceFunction);
    }
  }
  // Every default algorithm (direct for small radii, tiled above), both boundaries, any offset.
  const StencilWeights<float, 1> w1{{1, 2, 1}};
  const StencilWeights<float, 8> w8{};
  const StencilWeights<double, 16> w16{};
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{1} << 26}) {
    CAPTURE(n);
    CHECK(stencil_1d(in, out, n, w1) == cudaErrorInvalidDeviceFunction);
    CHECK(stencil_1d(in + 1, out + 3, n, w8, StencilBoundary::clamp) == cudaErrorInvalidDeviceFunction);
    CHECK(stencil_1d(in_d, out_d, n, w16) == cudaErrorInvalidDeviceFunction);
    // A persistent tiled policy (no grid to refuse: its blocks are the resident ones) and one of
    // several tiles a block.
    CHECK(stencil_1d<8, StencilPolicy<128, 2, 3, 0>>(in, out, n, w8) == cudaErrorInvalidDeviceFunction);
    CHECK(stencil_1d<8, StencilPolicy<128, 2, 3, 4>>(in, out, n, w8) == cudaErrorInvalidDeviceFunction);
  }
}
