// Transpose: tilecraft::transpose against cudaMemcpyAsync of the same bytes (the ceiling) and
// the course's shared-tile kernels with and without padding.
#include <cstdint>

#include <tilecraft/device/transpose.cuh>

#include "../examples/course/transpose_course.cuh"
#include "harness.cuh"

using namespace tilecraft::bench;

namespace {

enum class TransposeImpl { memcpy, course_unpadded, course_padded, tilecraft };

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
TILECRAFT_TRANSPOSE_BENCH(transpose_f64, memcpy, 4096);
TILECRAFT_TRANSPOSE_BENCH(transpose_f64, course_unpadded, 4096);
TILECRAFT_TRANSPOSE_BENCH(transpose_f64, course_padded, 4096);
TILECRAFT_TRANSPOSE_BENCH(transpose_f64, tilecraft, 4096);

// Tile-shape, mapping and cache-hint variants beside the defaults (detail::TransposePolicy is
// the knob), registered after the peers of their family so they report a ratio too. Named
// tc_<rows>x<cols>_<threads>, with _persistent for one wave of blocks that prefetch their next
// tile into registers, _rows for TileMapping::rows, _stream for CacheHint::streaming and _min<B>
// for __launch_bounds__ asking B blocks per multiprocessor (a register cap).
// benchmarks/TUNING.md records what each measured.
namespace {
template <class T, int R, int C, int Threads, tilecraft::TileMapping Mapping = tilecraft::TileMapping::lines,
          tilecraft::CacheHint Hint = tilecraft::CacheHint::normal, int PersistentBlocksPerSm = 0, int MinBlocks = 1>
void register_variant(const char* family, int n) {
  constexpr bool persistent = PersistentBlocksPerSm > 0;
  using Policy =
      tilecraft::detail::TransposePolicy<T, R, C, Threads, persistent, persistent ? PersistentBlocksPerSm : 8,
                                         tilecraft::TileCopy<Hint, Mapping>, MinBlocks>;
  const std::string name = std::string(family) + "/tc_" + std::to_string(R) + "x" + std::to_string(C) + "_" +
                           std::to_string(Threads) + (persistent ? "_persistent" : "") +
                           (Mapping == tilecraft::TileMapping::rows ? "_rows" : "") +
                           (Hint == tilecraft::CacheHint::streaming ? "_stream" : "") +
                           (MinBlocks > 1 ? "_min" + std::to_string(MinBlocks) : "") + "/" + std::to_string(n);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [family](benchmark::State& state) {
        const int m = static_cast<int>(state.range(0));
        const std::size_t elems = static_cast<std::size_t>(m) * static_cast<std::size_t>(m);
        DeviceMemory in(elems * sizeof(T)), out(elems * sizeof(T));
        fill_random(in.as<T>(), elems, 1.0, 2.0, 2);
        time_it(
            state,
            [&](cudaStream_t s) {
              TILECRAFT_BENCH_CHECK(tilecraft::detail::transpose_with<Policy>(out.as<T>(), m, in.as<T>(), m, m, m, s));
            },
            Measure{2.0 * static_cast<double>(elems * sizeof(T)), 0}, {},
            std::string(family) + "/" + std::to_string(m));
      })
      ->Arg(n)
      ->UseManualTime()
      ->MinTime(0.1)
      ->Unit(benchmark::kMicrosecond);
}
constexpr auto rows = tilecraft::TileMapping::rows;
constexpr auto lines = tilecraft::TileMapping::lines;
constexpr auto stream = tilecraft::CacheHint::streaming;
const bool variants_registered = [] {
  constexpr auto normal = tilecraft::CacheHint::normal;
  register_variant<float, 64, 32, 128>("transpose_f32", 8192);  // the previous default
  register_variant<float, 32, 32, 128>("transpose_f32", 8192);
  register_variant<float, 64, 64, 128, lines, normal, 0, 8>("transpose_f32", 8192);
  register_variant<float, 64, 32, 128, lines, normal, 0, 8>("transpose_f32", 8192);
  register_variant<float, 32, 32, 128, rows, normal, 0, 8>("transpose_f32", 8192);
  register_variant<float, 64, 64, 128, lines, stream>("transpose_f32", 8192);
  register_variant<double, 32, 32, 128>("transpose_f64", 4096);  // the previous default
  register_variant<double, 32, 32, 128, rows, normal, 0, 8>("transpose_f64", 4096);
  register_variant<double, 32, 32, 256, rows, normal, 0, 4>("transpose_f64", 4096);
  register_variant<double, 32, 32, 64, rows>("transpose_f64", 4096);
  register_variant<double, 32, 32, 128, lines, normal, 0, 8>("transpose_f64", 4096);
  register_variant<double, 32, 32, 128, rows, stream>("transpose_f64", 4096);
  return true;
}();
}  // namespace
