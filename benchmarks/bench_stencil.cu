// 1D stencil: tilecraft::stencil_1d against cudaMemcpyAsync of the same bytes (the ceiling),
// the course's 1D convolution (global memory, then a shared halo) and the same tiling written
// with libcu++'s cuda::pipeline (benchmarks/stencil_peers.cuh). n = 2^26 floats, radius 1, 4,
// 8 and 16, and 2^26 + 3 floats at radius 4 (a row pitch of no whole vectors), zero boundary.
// Named stencil_f32/<impl>/<n>/r:<radius>; report.py shows each radius as the family
// stencil_f32_r<radius>.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <iterator>
#include <map>
#include <memory>

#include <tilecraft/device/stencil.cuh>

#include "../examples/course/stencil_course.cuh"
#include "harness.cuh"
#include "stencil_peers.cuh"

using namespace tilecraft::bench;

namespace {

enum class StencilImpl { memcpy, course_global, course_shared, libcupp_pipeline, tilecraft };

// The same 2R + 1 weights in any of the weight structs (each has a member array `w`): a
// lopsided window, so a kernel that mirrors it computes something else.
template <class Weights>
Weights stencil_weights() {
  Weights weights{};
  const int taps = static_cast<int>(std::size(weights.w));
  for (int j = 0; j < taps; ++j) weights.w[j] = static_cast<float>(j + 1) / static_cast<float>(taps * (taps + 1) / 2);
  return weights;
}

// One random input shared by every stencil benchmark of a size: it is only read, and filling
// 2^26 floats on the host takes longer than timing a kernel over them.
const float* stencil_input(std::int64_t n) {
  static std::map<std::int64_t, std::unique_ptr<DeviceMemory>> inputs;
  auto& in = inputs[n];
  if (!in) {
    in = std::make_unique<DeviceMemory>(static_cast<std::size_t>(n) * sizeof(float));
    fill_random(in->as<float>(), static_cast<std::size_t>(n), 1.0, 2.0, 4);
  }
  return in->as<float>();
}

template <int R>
void stencil_run(benchmark::State& state, StencilImpl impl, const float* in, float* out, std::int64_t n) {
  const std::string key = "stencil_f32/" + std::to_string(n) + "/r:" + std::to_string(R);
  const Measure m{2.0 * static_cast<double>(n) * sizeof(float), 0};  // read + write, as memcpy
  switch (impl) {
    case StencilImpl::memcpy:
      time_it(
          state,
          [&](cudaStream_t s) {
            TILECRAFT_BENCH_CHECK(
                cudaMemcpyAsync(out, in, static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, s));
          },
          m, key);
      break;
    case StencilImpl::course_global: {
      const auto weights = stencil_weights<course::ConvolveWeights<float, R>>();
      time_it(
          state, [&](cudaStream_t s) { TILECRAFT_BENCH_CHECK(course::launch_convolve_global(in, out, n, weights, s)); },
          m, {}, key);
      break;
    }
    case StencilImpl::course_shared: {
      const auto weights = stencil_weights<course::ConvolveWeights<float, R>>();
      time_it(
          state, [&](cudaStream_t s) { TILECRAFT_BENCH_CHECK(course::launch_convolve_shared(in, out, n, weights, s)); },
          m, {}, key);
      break;
    }
    case StencilImpl::libcupp_pipeline: {
      const auto taps = stencil_weights<peers::StencilTaps<R>>();
      time_it(
          state, [&](cudaStream_t s) { TILECRAFT_BENCH_CHECK(peers::stencil_pipeline(in, out, n, taps, s)); }, m, {},
          key);
      break;
    }
    case StencilImpl::tilecraft: {
      const auto weights = stencil_weights<tilecraft::StencilWeights<float, R>>();
      time_it(
          state,
          [&](cudaStream_t s) {
            TILECRAFT_BENCH_CHECK(tilecraft::stencil_1d<R>(in, out, n, weights, tilecraft::StencilBoundary::zero, s));
          },
          m, {}, key);
      break;
    }
  }
}

void stencil_f32(benchmark::State& state, StencilImpl impl) {
  const std::int64_t n = state.range(0);
  const float* in = stencil_input(n);
  DeviceMemory out(static_cast<std::size_t>(n) * sizeof(float));
  switch (state.range(1)) {
    case 1:
      stencil_run<1>(state, impl, in, out.as<float>(), n);
      break;
    case 4:
      stencil_run<4>(state, impl, in, out.as<float>(), n);
      break;
    case 8:
      stencil_run<8>(state, impl, in, out.as<float>(), n);
      break;
    case 16:
      stencil_run<16>(state, impl, in, out.as<float>(), n);
      break;
    default:
      state.SkipWithError("radius not instantiated: 1, 4, 8 or 16");
  }
}

}  // namespace

#define TILECRAFT_STENCIL_BENCH(impl)                     \
  BENCHMARK_CAPTURE(stencil_f32, impl, StencilImpl::impl) \
      ->ArgNames({"", "r"})                               \
      ->ArgsProduct({{1 << 26}, {1, 4, 8, 16}})           \
      ->UseManualTime()                                   \
      ->MinTime(0.1)                                      \
      ->Unit(benchmark::kMicrosecond)

TILECRAFT_STENCIL_BENCH(memcpy);  // the peer first: the others report their ratio to it
TILECRAFT_STENCIL_BENCH(course_global);
TILECRAFT_STENCIL_BENCH(course_shared);
TILECRAFT_STENCIL_BENCH(libcupp_pipeline);
TILECRAFT_STENCIL_BENCH(tilecraft);
// 2^26 + 3 floats (a row pitch of no whole vectors) at radius 4: tilecraft and memcpy only (the
// libcu++ peer takes multiples of 4 floats).
BENCHMARK_CAPTURE(stencil_f32, memcpy, StencilImpl::memcpy)
    ->ArgNames({"", "r"})
    ->Args({(1 << 26) + 3, 4})
    ->UseManualTime()
    ->MinTime(0.1)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(stencil_f32, tilecraft, StencilImpl::tilecraft)
    ->ArgNames({"", "r"})
    ->Args({(1 << 26) + 3, 4})
    ->UseManualTime()
    ->MinTime(0.1)
    ->Unit(benchmark::kMicrosecond);

// Tiling variants beside the default (tilecraft::StencilPolicy<Threads, VectorsPerThread,
// Stages>), named stencil_f32/tc_<threads>x<vectors>x<stages>/<n>/r:<R>. Compiled only with
// -DTILECRAFT_BENCH_VARIANTS=ON (CMake: their 44 kernels would take most of this file's build
// time) and registered only when the environment variable TILECRAFT_BENCH_VARIANTS is set
// (benchmarks/experiment.sh does both), so the default run stays the product and its peers;
// benchmarks/TUNING.md records what each measured.
#if defined(TILECRAFT_BENCH_VARIANTS_BUILT)
namespace {
template <class Policy, int R>
void register_stencil_variant(std::int64_t n) {
  const std::string name = "stencil_f32/tc_" + std::to_string(Policy::threads) + "x" +
                           std::to_string(Policy::vectors_per_thread) + "x" + std::to_string(Policy::stages) +
                           (Policy::tiles_per_block > 0 ? "_t" + std::to_string(Policy::tiles_per_block) : "") +
                           (Policy::algorithm == tilecraft::StencilAlgorithm::direct ? "_direct" : "") + "/" +
                           std::to_string(n) + "/r:" + std::to_string(R);
  benchmark::RegisterBenchmark(name.c_str(),
                               [n](benchmark::State& state) {
                                 const float* in = stencil_input(n);
                                 DeviceMemory out(static_cast<std::size_t>(n) * sizeof(float));
                                 const auto weights = stencil_weights<tilecraft::StencilWeights<float, R>>();
                                 const std::string key = "stencil_f32/" + std::to_string(n) + "/r:" + std::to_string(R);
                                 time_it(
                                     state,
                                     [&](cudaStream_t s) {
                                       TILECRAFT_BENCH_CHECK((tilecraft::stencil_1d<R, Policy>(
                                           in, out.as<float>(), n, weights, tilecraft::StencilBoundary::zero, s)));
                                     },
                                     Measure{2.0 * static_cast<double>(n) * sizeof(float), 0}, {}, key);
                               })
      ->UseManualTime()
      ->MinTime(0.1)
      ->Unit(benchmark::kMicrosecond);
}
template <class Policy>
void register_stencil_variants(std::int64_t n) {
  register_stencil_variant<Policy, 1>(n);
  register_stencil_variant<Policy, 4>(n);
  register_stencil_variant<Policy, 8>(n);
  register_stencil_variant<Policy, 16>(n);
}
const bool stencil_variants_registered = [] {
  if (std::getenv("TILECRAFT_BENCH_VARIANTS") == nullptr) return false;
  using tilecraft::StencilPolicy;
  constexpr std::int64_t n = std::int64_t{1} << 26;
  constexpr auto direct = tilecraft::StencilAlgorithm::direct;
  register_stencil_variants<StencilPolicy<256, 1, 1, 0, direct>>(n);
  register_stencil_variants<StencilPolicy<128, 2, 1, 0, direct>>(n);
  register_stencil_variants<StencilPolicy<128, 8, 2, 1>>(n);  // 2 stages asked, 1 allocated
  register_stencil_variants<StencilPolicy<128, 8, 1, 1>>(n);
  register_stencil_variants<StencilPolicy<64, 8, 1, 1>>(n);
  register_stencil_variants<StencilPolicy<128, 4, 1, 1>>(n);
  register_stencil_variants<StencilPolicy<128, 2, 1, 1>>(n);
  register_stencil_variants<StencilPolicy<256, 4, 1, 1>>(n);
  register_stencil_variants<StencilPolicy<256, 8, 1, 1>>(n);
  register_stencil_variants<StencilPolicy<128, 8, 2, 2>>(n);
  register_stencil_variants<StencilPolicy<128, 8, 2, 4>>(n);
  register_stencil_variants<StencilPolicy<128, 4, 3, 0>>(n);
  return true;
}();
}  // namespace
#endif  // TILECRAFT_BENCH_VARIANTS_BUILT
