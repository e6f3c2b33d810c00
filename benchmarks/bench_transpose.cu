// Transpose: tilecraft::transpose against cudaMemcpyAsync of the same bytes (the ceiling) and
// the course's shared-tile kernels with and without padding.
#include <cstdint>
#include <cstring>

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

// Tile-shape and cache-hint variants beside the default (detail::TransposePolicy is the knob),
// registered after the peers of their family so they report a ratio too. Named
// tc_<rows>x<cols>_<threads>, with _persistent for one wave of 16 blocks per SM that prefetches
// its next tile into registers, _stream for CacheHint::streaming loads and stores, and _band<G>
// for tiles walked in bands of G tile rows.
namespace {
template <class T, int R, int C, int Threads, int PersistentBlocksPerSm = 0,
          tilecraft::CacheHint Hint = tilecraft::CacheHint::normal, int Group = 0>
void register_variant(const char* family, int n) {
  constexpr bool persistent = PersistentBlocksPerSm > 0;
  using Policy = tilecraft::detail::TransposePolicy<T, R, C, Threads, persistent,
                                                    persistent ? PersistentBlocksPerSm : 8, Hint, Group>;
  const std::string name = std::string(family) + "/tc_" + std::to_string(R) + "x" + std::to_string(C) + "_" +
                           std::to_string(Threads) + (persistent ? "_persistent" : "") +
                           (Hint == tilecraft::CacheHint::streaming ? "_stream" : "") +
                           (Group > 0 ? "_band" + std::to_string(Group) : "") + "/" + std::to_string(n);
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
// Experiment: one whole tile row per warp instruction (32 lanes x Cols * sizeof(T) / 32 bytes)
// on both sides, as the course kernel does for doubles (which reaches ~0.96 of memcpy) --
// against copy_tile's four 128-byte lines per instruction. Whole tiles only (n a multiple).
template <class T, int Rows, int Cols, int Warps>
__global__ void __launch_bounds__(Warps * 32)
    transpose_rows_per_warp(T* __restrict__ out, const T* __restrict__ in, int n) {
  constexpr int ein = Cols / 32;
  constexpr int eout = Rows / 32;
  using VIn = typename tilecraft::detail::VectorWord<static_cast<int>(ein * sizeof(T))>::type;
  using VOut = typename tilecraft::detail::VectorWord<static_cast<int>(eout * sizeof(T))>::type;
  __shared__ T tile[Rows][Cols + 1];
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const std::int64_t tiles_x = n / Cols;
  const std::int64_t r0 = (blockIdx.x / tiles_x) * Rows, c0 = (blockIdx.x % tiles_x) * Cols;
  VIn v[Rows / Warps];
#pragma unroll
  for (int i = 0; i < Rows / Warps; ++i)
    v[i] = *reinterpret_cast<const VIn*>(in + (r0 + warp + i * Warps) * n + c0 + lane * ein);
#pragma unroll
  for (int i = 0; i < Rows / Warps; ++i) {
    T e[ein];
    std::memcpy(e, &v[i], sizeof(VIn));
#pragma unroll
    for (int k = 0; k < ein; ++k) tile[warp + i * Warps][lane * ein + k] = e[k];
  }
  __syncthreads();
  VOut w[Cols / Warps];
#pragma unroll
  for (int i = 0; i < Cols / Warps; ++i) {
    T e[eout];
#pragma unroll
    for (int k = 0; k < eout; ++k) e[k] = tile[lane * eout + k][warp + i * Warps];
    std::memcpy(&w[i], e, sizeof(VOut));
  }
#pragma unroll
  for (int i = 0; i < Cols / Warps; ++i)
    *reinterpret_cast<VOut*>(out + (c0 + warp + i * Warps) * n + r0 + lane * eout) = w[i];
}

template <class T, int Rows, int Cols, int Warps>
void register_rows_per_warp(const char* family, int n) {
  const std::string name = std::string(family) + "/rpw_" + std::to_string(Rows) + "x" + std::to_string(Cols) + "_w" +
                           std::to_string(Warps) + "/" + std::to_string(n);
  benchmark::RegisterBenchmark(name.c_str(),
                               [family](benchmark::State& state) {
                                 const int m = static_cast<int>(state.range(0));
                                 const std::size_t elems = static_cast<std::size_t>(m) * static_cast<std::size_t>(m);
                                 DeviceMemory in(elems * sizeof(T)), out(elems * sizeof(T));
                                 fill_random(in.as<T>(), elems, 1.0, 2.0, 2);
                                 const unsigned grid = static_cast<unsigned>((m / Rows) * (m / Cols));
                                 time_it(
                                     state,
                                     [&](cudaStream_t s) {
                                       transpose_rows_per_warp<T, Rows, Cols, Warps>
                                           <<<grid, Warps * 32, 0, s>>>(out.as<T>(), in.as<T>(), m);
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
  register_variant<float, 64, 64, 128>("transpose_f32", 8192);
  register_variant<float, 32, 32, 128>("transpose_f32", 8192);
  register_variant<double, 32, 32, 64>("transpose_f64", 4096);
  register_rows_per_warp<float, 64, 64, 4>("transpose_f32", 8192);
  register_rows_per_warp<float, 64, 64, 8>("transpose_f32", 8192);
  register_rows_per_warp<float, 64, 64, 16>("transpose_f32", 8192);
  register_rows_per_warp<float, 32, 32, 8>("transpose_f32", 8192);
  register_rows_per_warp<float, 32, 64, 4>("transpose_f32", 8192);
  register_rows_per_warp<float, 64, 32, 4>("transpose_f32", 8192);
  register_rows_per_warp<float, 128, 64, 8>("transpose_f32", 8192);
  register_rows_per_warp<double, 32, 32, 8>("transpose_f64", 4096);
  register_rows_per_warp<double, 32, 32, 4>("transpose_f64", 4096);
  register_rows_per_warp<double, 64, 32, 8>("transpose_f64", 4096);
  register_rows_per_warp<double, 32, 64, 8>("transpose_f64", 4096);
  register_rows_per_warp<double, 64, 64, 8>("transpose_f64", 4096);
  return true;
}();
}  // namespace
