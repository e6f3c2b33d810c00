// Bad runtime arguments to transpose and stencil_1d are rejected with cudaErrorInvalidValue
// before any launch. Included by test_validation.cu (nvcc's form of the launchers) and
// test_transpose_stencil_validation.cpp (a host compiler's): both forms must refuse the same
// calls. Every rejection happens before the first CUDA call, so these run without a GPU.
#pragma once

#include <doctest/doctest.h>

#include <climits>
#include <cstdint>

#include <tilecraft/device/stencil.cuh>
#include <tilecraft/device/transpose.cuh>

namespace tilecraft::test {

TEST_CASE("transpose rejects bad arguments before launching") {
  // Fake, never dereferenced addresses: validation must not touch them.
  auto* in = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
  auto* out = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
  CHECK(transpose(in, 4, out, 4, -1, 4) == cudaErrorInvalidValue);
  CHECK(transpose(in, 4, out, 4, 4, -1) == cudaErrorInvalidValue);
  CHECK(transpose(in, 4, static_cast<float*>(nullptr), 4, 4, 4) == cudaErrorInvalidValue);
  CHECK(transpose(static_cast<const float*>(nullptr), 4, out, 4, 4, 4) == cudaErrorInvalidValue);
  CHECK(transpose(in, 3, out, 4, 4, 4) == cudaErrorInvalidValue);              // ld_in < cols
  CHECK(transpose(in, 4, out, 3, 4, 4) == cudaErrorInvalidValue);              // ld_out < rows
  CHECK(transpose(in, INT64_MAX / 2, out, 4, 4, 4) == cudaErrorInvalidValue);  // overflows
  CHECK(transpose(in, 4, out, INT64_MAX / 2, 4, 4) == cudaErrorInvalidValue);  // the output's extent overflows
  // 2^38 columns: more tile columns than a grid's x dimension holds (the arrays 1 TiB each, apart).
  auto* far_out = reinterpret_cast<float*>(std::uintptr_t{1} << 50);
  CHECK(transpose(in, std::int64_t{1} << 38, far_out, 1, 1, std::int64_t{1} << 38) == cudaErrorInvalidValue);
  // In-place or overlapping.
  CHECK(transpose(in, 4, const_cast<float*>(in), 4, 4, 4) == cudaErrorInvalidValue);
  CHECK(transpose(in, 4, const_cast<float*>(in) + 3, 4, 4, 4) == cudaErrorInvalidValue);
  // Pointers not aligned to the element type.
  const auto* in_odd = reinterpret_cast<const float*>((std::uintptr_t{1} << 20) + 2);
  auto* out_odd = reinterpret_cast<double*>((std::uintptr_t{1} << 30) + 4);
  CHECK(transpose(in_odd, 4, out, 4, 4, 4) == cudaErrorInvalidValue);
  CHECK(transpose(reinterpret_cast<const double*>(in), 4, out_odd, 4, 4, 4) == cudaErrorInvalidValue);
  // Empty matrices are a successful no-op, even with null pointers.
  CHECK(transpose(static_cast<const float*>(nullptr), 0, static_cast<float*>(nullptr), 0, 0, 7) == cudaSuccess);
  CHECK(transpose(static_cast<const double*>(nullptr), 0, static_cast<double*>(nullptr), 5, 5, 0) == cudaSuccess);
}

TEST_CASE("stencil_1d rejects bad arguments before launching") {
  auto* in = reinterpret_cast<const float*>(std::uintptr_t{1} << 20);
  auto* out = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
  const StencilWeights<float, 2> w{{1, 2, 3, 2, 1}};
  CHECK(stencil_1d(in, out, -1, w) == cudaErrorInvalidValue);
  CHECK(stencil_1d(in, static_cast<float*>(nullptr), 10, w) == cudaErrorInvalidValue);
  CHECK(stencil_1d(static_cast<const float*>(nullptr), out, 10, w) == cudaErrorInvalidValue);
  CHECK(stencil_1d(in, out, INT64_MAX / 2, w) == cudaErrorInvalidValue);  // byte offsets overflow
  CHECK(stencil_1d(in, out, 10, w, static_cast<StencilBoundary>(7)) == cudaErrorInvalidValue);
  // 2^42 elements (16 TiB each, apart): more blocks than a grid holds, for radius 2's direct
  // policy and for radius 8's tiled one of one tile a block.
  auto* far_out = reinterpret_cast<float*>(std::uintptr_t{1} << 50);
  CHECK(stencil_1d(in, far_out, std::int64_t{1} << 42, w) == cudaErrorInvalidValue);
  const StencilWeights<float, 8> w8{};
  CHECK(stencil_1d(in, far_out, std::int64_t{1} << 42, w8) == cudaErrorInvalidValue);
  // In-place or overlapping.
  CHECK(stencil_1d(in, const_cast<float*>(in), 10, w) == cudaErrorInvalidValue);
  CHECK(stencil_1d(in, const_cast<float*>(in) + 9, 10, w, StencilBoundary::clamp) == cudaErrorInvalidValue);
  CHECK(stencil_1d(in, const_cast<float*>(in) - 9, 10, w) == cudaErrorInvalidValue);
  // Pointers not aligned to the element type.
  CHECK(stencil_1d(reinterpret_cast<const float*>((std::uintptr_t{1} << 20) + 2), out, 10, w) == cudaErrorInvalidValue);
  CHECK(stencil_1d(in, reinterpret_cast<float*>((std::uintptr_t{1} << 30) + 3), 10, w) == cudaErrorInvalidValue);
  // n == 0 is a successful no-op, even with null pointers.
  CHECK(stencil_1d(static_cast<const float*>(nullptr), static_cast<float*>(nullptr), 0, w) == cudaSuccess);
  const StencilWeights<double, 16> wd{};
  CHECK(stencil_1d(static_cast<const double*>(nullptr), static_cast<double*>(nullptr), 0, wd) == cudaSuccess);
}

}  // namespace tilecraft::test
