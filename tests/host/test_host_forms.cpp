// One program whose .cpp and .cu files call the same device algorithm (the same template
// arguments): each file gets its own compiler's form. Under g++ tilecraft::reduce checks its
// arguments and answers the size query, and returns cudaErrorInvalidDeviceFunction where it would
// launch; under nvcc it launches (or, without a GPU, reports why it could not). The two forms
// live in inline namespaces of their own (TILECRAFT_LAUNCH_NAMESPACE_BEGIN): without them they
// would be two bodies of one function, and the linker would give both files the same one.
#include <doctest/doctest.h>

#include <cstdint>

#include <tilecraft/device/reduce.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/select.cuh>
#include <tilecraft/device/transpose.cuh>
#include <tilecraft/util/functional.cuh>

#include "host_forms.h"

namespace {
// Fake, never dereferenced addresses: the host form checks them and launches nothing.
template <class T>
T* fake(std::uintptr_t where) {
  return reinterpret_cast<T*>(where);
}
}  // namespace

TEST_CASE("a .cpp and a .cu file calling one device algorithm each get their own compiler's form") {
  const auto* in = fake<const float>(std::uintptr_t{1} << 20);
  auto* out = fake<float>(std::uintptr_t{1} << 30);
  void* temp = fake<void>(std::uintptr_t{1} << 32);
  const std::int64_t n = tilecraft::test::host_forms_items;
  std::size_t bytes = 0;
  const tilecraft::test::HostFormsReduce volatile call = &tilecraft::reduce<void, float, float, tilecraft::Sum, float>;
  REQUIRE(call(nullptr, bytes, in, out, n, tilecraft::Sum{}, 0.0f, nullptr) == cudaSuccess);
  CHECK(bytes > 0);
  CHECK(call(temp, bytes, in, out, n, tilecraft::Sum{}, 0.0f, nullptr) == cudaErrorInvalidDeviceFunction);
  // The same specialization from the .cu file: nvcc's form, which runs (on device memory) where
  // a GPU is present and otherwise fails at its first CUDA call, never with the host form's error.
  const tilecraft::test::HostFormsRun run = tilecraft::test::reduce_from_cu();
  CHECK(run.status != cudaErrorInvalidDeviceFunction);
  if (run.had_device) {
    CHECK(run.status == cudaSuccess);
    CHECK(run.sum == doctest::Approx(run.expected));
  }
}

TEST_CASE("a host compiler's scan and select answer the size query with nvcc's bytes") {
  // Sizes on each side of the default tiles' thresholds (512 KiB, 4 MiB, 32 MiB of floats) and
  // past 2^32 items (64-bit kept counts).
  const auto* in = fake<const float>(std::uintptr_t{1} << 20);
  auto* out = fake<float>(std::uintptr_t{1} << 30);
  auto* count = fake<long long>(std::uintptr_t{1} << 34);
  for (const std::int64_t n :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{2049}, std::int64_t{131072}, std::int64_t{131073},
        std::int64_t{1} << 20, (std::int64_t{1} << 20) + 1, std::int64_t{1} << 23, (std::int64_t{1} << 23) + 1,
        std::int64_t{1} << 28, (std::int64_t{1} << 32) + 5}) {
    CAPTURE(n);
    std::size_t scan_bytes = 0;
    REQUIRE(tilecraft::inclusive_scan(nullptr, scan_bytes, in, out, n, tilecraft::Sum{}) == cudaSuccess);
    CHECK(scan_bytes > 0);
    CHECK(scan_bytes == tilecraft::test::scan_query_from_cu(n));
    std::size_t select_bytes = 0;
    REQUIRE(tilecraft::select_if(nullptr, select_bytes, in, out, count, n, tilecraft::test::HostFormsPositive{}) ==
            cudaSuccess);
    CHECK(select_bytes > 0);
    CHECK(select_bytes == tilecraft::test::select_query_from_cu(n));
  }
}

TEST_CASE("a .cpp and a .cu file calling one transpose each get their own compiler's form") {
  const auto* in = fake<const float>(std::uintptr_t{1} << 20);
  auto* out = fake<float>(std::uintptr_t{1} << 30);
  const std::int64_t m = tilecraft::test::host_forms_rows, n = tilecraft::test::host_forms_cols;
  const tilecraft::test::HostFormsTranspose volatile call = &tilecraft::transpose<void, float>;
  CHECK(call(in, n, out, m, m, n, nullptr) == cudaErrorInvalidDeviceFunction);
  CHECK(call(in, n - 1, out, m, m, n, nullptr) == cudaErrorInvalidValue);  // (ld_in < cols: refused first)
  const tilecraft::test::HostFormsTransposeRun run = tilecraft::test::transpose_from_cu();
  CHECK(run.status != cudaErrorInvalidDeviceFunction);
  if (run.had_device) {
    CHECK(run.status == cudaSuccess);
    CHECK(run.correct);
  }
}
