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
                <<<course::transpose_grid(n, n), course::transpose_block(), 0, s>>>(in.as<T>(), out.as<T>(), n, n);
          },
          m, {}, key);
      break;
    case TransposeImpl::course_padded:
      time_it(
          state,
          [&](cudaStream_t s) {
            course::transpose_shared<T, 1>
                <<<course::transpose_grid(n, n), course::transpose_block(), 0, s>>>(in.as<T>(), out.as<T>(), n, n);
          },
          m, {}, key);
      break;
    case TransposeImpl::tilecraft:
      time_it(
          state,
          [&](cudaStream_t s) { TILECRAFT_BENCH_CHECK(tilecraft::transpose(in.as<T>(), n, out.as<T>(), n, n, n, s)); },
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

// Tile-shape, layout, mapping and cache-hint variants beside the defaults
// (tilecraft::TransposePolicy is the knob), registered after the peers of their family so they
// report a ratio too. Named tc_<rows>x<cols>_<threads>_<fill>_<drain> with the mappings as
// lines / rows / wide / blocks (transposed_blocks), _swz for Swizzled<16, 16 / sizeof(T)>
// (otherwise Padded<1>), _stream for CacheHint::streaming and _min<B> for __launch_bounds__
// asking B blocks per multiprocessor (a register cap). benchmarks/TUNING.md records what each
// measured.
namespace {
using tilecraft::TileMapping;
constexpr const char* mapping_name(TileMapping m) {
  switch (m) {
    case TileMapping::lines:
      return "lines";
    case TileMapping::rows:
      return "rows";
    case TileMapping::wide:
      return "wide";
    case TileMapping::transposed_blocks:
      return "blocks";
  }
  return "?";
}
template <class T, int R, int C, int Threads, TileMapping Fill, TileMapping Drain, bool Swizzle = false,
          tilecraft::CacheHint Hint = tilecraft::CacheHint::normal, int MinBlocks = 1>
void register_variant(const char* family, int n) {
  using Layout =
      std::conditional_t<Swizzle, tilecraft::Swizzled<16, static_cast<int>(16 / sizeof(T))>, tilecraft::Padded<1>>;
  using Policy = tilecraft::TransposePolicy<T, R, C, Threads, Layout, tilecraft::TileCopy<Hint, Fill>,
                                            tilecraft::TileCopy<Hint, Drain>, MinBlocks>;
  const std::string name = std::string(family) + "/tc_" + std::to_string(R) + "x" + std::to_string(C) + "_" +
                           std::to_string(Threads) + "_" + mapping_name(Fill) + "_" + mapping_name(Drain) +
                           (Swizzle ? "_swz" : "") + (Hint == tilecraft::CacheHint::streaming ? "_stream" : "") +
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
              TILECRAFT_BENCH_CHECK(tilecraft::transpose<Policy>(in.as<T>(), m, out.as<T>(), m, m, m, s));
            },
            Measure{2.0 * static_cast<double>(elems * sizeof(T)), 0}, {},
            std::string(family) + "/" + std::to_string(m));
      })
      ->Arg(n)
      ->UseManualTime()
      ->MinTime(0.1)
      ->Unit(benchmark::kMicrosecond);
}
const bool variants_registered = [] {
  constexpr auto lines = TileMapping::lines;
  constexpr auto rows = TileMapping::rows;
  constexpr auto wide = TileMapping::wide;
  constexpr auto blocks = TileMapping::transposed_blocks;
  constexpr auto stream = tilecraft::CacheHint::streaming;
  constexpr auto normal = tilecraft::CacheHint::normal;
  register_variant<float, 64, 64, 128, lines, lines>("transpose_f32", 8192);  // the previous default
  register_variant<float, 64, 64, 128, wide, blocks, true>("transpose_f32", 8192);
  register_variant<float, 64, 64, 256, wide, blocks, true>("transpose_f32", 8192);
  register_variant<float, 64, 64, 64, wide, blocks, true, normal, 12>("transpose_f32", 8192);
  register_variant<float, 64, 64, 64, lines, blocks, true>("transpose_f32", 8192);
  register_variant<float, 128, 64, 128, wide, blocks, true>("transpose_f32", 8192);
  register_variant<float, 64, 128, 128, wide, blocks, true>("transpose_f32", 8192);
  register_variant<float, 128, 64, 256, wide, blocks, true>("transpose_f32", 8192);
  register_variant<float, 32, 64, 64, wide, blocks, true>("transpose_f32", 8192);
  register_variant<float, 64, 64, 64, wide, blocks, true, stream>("transpose_f32", 8192);
  register_variant<double, 32, 32, 128, lines, lines>("transpose_f64", 4096);  // the previous default
  register_variant<double, 32, 32, 128, rows, rows>("transpose_f64", 4096);
  register_variant<double, 32, 32, 32, rows, rows>("transpose_f64", 4096);
  register_variant<double, 32, 32, 64, wide, blocks, true>("transpose_f64", 4096);
  register_variant<double, 64, 32, 64, wide, blocks, true>("transpose_f64", 4096);
  register_variant<double, 64, 32, 128, wide, blocks, true>("transpose_f64", 4096);
  register_variant<double, 32, 32, 64, rows, rows, false, stream>("transpose_f64", 4096);
  return true;
}();
}  // namespace
