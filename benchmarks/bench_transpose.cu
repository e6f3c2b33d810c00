// Transpose: tilecraft::transpose against cudaMemcpyAsync of the same bytes (the ceiling) and
// the course's shared-tile kernels with and without padding.
#include <cstdint>

#include <tilecraft/device/transpose.cuh>

#include "../examples/course/transpose_course.cuh"
#include "harness.cuh"

using namespace tilecraft::bench;

namespace {

enum class TransposeImpl { memcpy, course_unpadded, course_padded, tilecraft, tilecraft_persistent, tilecraft_narrow };

// Tuning variants measured beside the default (detail::TransposePolicy is the knob):
//   persistent: one wave of blocks loops over the tiles, prefetching the next into registers;
//   narrow:     32 x 32 tiles with 128 threads, one block per tile.
template <class T>
using PersistentPolicy =
    tilecraft::detail::TransposePolicy<T, sizeof(T) == 4 ? 64 : 32, sizeof(T) == 4 ? 64 : 32, 256, true>;
template <class T>
using NarrowPolicy = tilecraft::detail::TransposePolicy<T, 32, 32, 128, false>;

template <class T>
void transpose_bench(benchmark::State& state, TransposeImpl impl, const char* family) {
  const int n = static_cast<int>(state.range(0));
  const std::size_t elems = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  DeviceMemory in(elems * sizeof(T)), out(elems * sizeof(T));
  fill_random(in.as<T>(), elems, 1.0, 2.0, 2);
  const std::string key = std::string(family) + "/" + std::to_string(n);
  const Measure m{2.0 * static_cast<double>(elems * sizeof(T)), 0};
  switch (impl) {
    case TransposeImpl::memcpy:
      time_it(
          state,
          [&](cudaStream_t s) {
            TILECRAFT_BENCH_CHECK(
                cudaMemcpyAsync(out.as<void>(), in.as<void>(), elems * sizeof(T), cudaMemcpyDeviceToDevice, s));
          },
          m, key);
      break;
    case TransposeImpl::course_unpadded:
      time_it(
          state,
          [&](cudaStream_t s) {
            course::transpose_shared<T, 0>
                <<<course::transpose_grid(n, n), course::transpose_block(), 0, s>>>(out.as<T>(), in.as<T>(), n, n);
          },
          m, {}, key);
      break;
    case TransposeImpl::course_padded:
      time_it(
          state,
          [&](cudaStream_t s) {
            course::transpose_shared<T, 1>
                <<<course::transpose_grid(n, n), course::transpose_block(), 0, s>>>(out.as<T>(), in.as<T>(), n, n);
          },
          m, {}, key);
      break;
    case TransposeImpl::tilecraft_persistent:
      time_it(
          state,
          [&](cudaStream_t s) {
            TILECRAFT_BENCH_CHECK(
                tilecraft::detail::transpose_with<PersistentPolicy<T>>(out.as<T>(), n, in.as<T>(), n, n, n, s));
          },
          m, {}, key);
      break;
    case TransposeImpl::tilecraft_narrow:
      time_it(
          state,
          [&](cudaStream_t s) {
            TILECRAFT_BENCH_CHECK(
                tilecraft::detail::transpose_with<NarrowPolicy<T>>(out.as<T>(), n, in.as<T>(), n, n, n, s));
          },
          m, {}, key);
      break;
    case TransposeImpl::tilecraft:
      time_it(
          state,
          [&](cudaStream_t s) { TILECRAFT_BENCH_CHECK(tilecraft::transpose(out.as<T>(), n, in.as<T>(), n, n, n, s)); },
          m, {}, key);
      break;
  }
}

void transpose_f32(benchmark::State& state, TransposeImpl impl) {
  transpose_bench<float>(state, impl, "transpose_f32");
}
void transpose_f64(benchmark::State& state, TransposeImpl impl) {
  transpose_bench<double>(state, impl, "transpose_f64");
}

}  // namespace

#define TILECRAFT_TRANSPOSE_BENCH(fn, impl, ...)   \
  BENCHMARK_CAPTURE(fn, impl, TransposeImpl::impl) \
      ->Args({__VA_ARGS__})                        \
      ->UseManualTime()                            \
      ->MinTime(0.1)                               \
      ->Unit(benchmark::kMicrosecond)

TILECRAFT_TRANSPOSE_BENCH(transpose_f32, memcpy, 8192);
TILECRAFT_TRANSPOSE_BENCH(transpose_f32, course_unpadded, 8192);
TILECRAFT_TRANSPOSE_BENCH(transpose_f32, course_padded, 8192);
TILECRAFT_TRANSPOSE_BENCH(transpose_f32, tilecraft, 8192);
TILECRAFT_TRANSPOSE_BENCH(transpose_f32, tilecraft_persistent, 8192);
TILECRAFT_TRANSPOSE_BENCH(transpose_f32, tilecraft_narrow, 8192);
TILECRAFT_TRANSPOSE_BENCH(transpose_f64, memcpy, 4096);
TILECRAFT_TRANSPOSE_BENCH(transpose_f64, course_unpadded, 4096);
TILECRAFT_TRANSPOSE_BENCH(transpose_f64, course_padded, 4096);
TILECRAFT_TRANSPOSE_BENCH(transpose_f64, tilecraft, 4096);
TILECRAFT_TRANSPOSE_BENCH(transpose_f64, tilecraft_persistent, 4096);
TILECRAFT_TRANSPOSE_BENCH(transpose_f64, tilecraft_narrow, 4096);
