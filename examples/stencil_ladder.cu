// The stencil ladder: out[i] = sum_{j=-R..R} w[j + R] * in[i + j] (in[k] = 0 outside the array),
// from the course's 1D convolution to tilecraft, with bandwidth, for a short and a long window.
//   1. global memory          each thread reads its 2R + 1 inputs from global memory: every input
//                             is loaded by 2R + 1 threads (the L1 catches part of the reuse)
//   2. shared halo            the block stages its 128 + 2R inputs in shared memory once, one
//                             barrier, then each thread reads its window from there
//   3. tilecraft::stencil_1d  its default policies: R = 3 reads each thread's 16-byte window
//                             straight from global memory (L1 catches the halo), R = 16 stages
//                             one halo tile of 2048 outputs a block in shared memory (16-byte
//                             copies and loads)
// Usage: stencil_ladder [n]   (default 2^24 + 3 floats: a multiple of nothing)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tilecraft/device/stencil.cuh>

#include "course/stencil_course.cuh"
#include "example_util.cuh"

template <int R>
void ladder(const float* in, float* out, const std::vector<float>& h) {
  const auto n = static_cast<std::int64_t>(h.size());
  constexpr int taps = 2 * R + 1;
  course::ConvolveWeights<float, R> course_weights{};
  tilecraft::StencilWeights<float, R> weights{};
  for (int j = 0; j < taps; ++j)  // lopsided, summing to 1: a kernel that mirrors the window fails
    course_weights.w[j] = weights.w[j] = static_cast<float>(j + 1) / static_cast<float>(taps * (taps + 1) / 2);
  // The reference in double, and the sum of the terms' magnitudes (the float error scales with it).
  std::vector<double> ref(h.size()), scale(h.size());
  for (std::int64_t i = 0; i < n; ++i) {
    double sum = 0, abs_sum = 0;
    for (int j = -R; j <= R; ++j) {
      if (i + j < 0 || i + j >= n) continue;
      const double term = static_cast<double>(weights.w[j + R]) * h[static_cast<std::size_t>(i + j)];
      sum += term;
      abs_sum += std::fabs(term);
    }
    ref[static_cast<std::size_t>(i)] = sum;
    scale[static_cast<std::size_t>(i)] = abs_sum;
  }
  std::vector<float> got(h.size());
  auto correct = [&] {
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), out, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < h.size(); ++i)
      if (!(std::fabs(got[i] - ref[i]) <= 1e-5 * scale[i])) return false;  // a NaN (poison) fails too
    return true;
  };
  const double bytes = 2.0 * static_cast<double>(h.size()) * sizeof(float);
  auto rung = [&](const char* step, auto launch) {
    TILECRAFT_THROW_IF_ERROR(cudaMemset(out, 0xff, h.size() * sizeof(float)));  // NaN where nothing is written
    const double ms = example::time_ms(launch);
    const std::string name = std::string(step) + ", R=" + std::to_string(R);
    example::report(name.c_str(), ms, bytes, example::verdict(correct()));
  };
  rung("1 global memory",
       [&] { TILECRAFT_THROW_IF_ERROR(course::launch_convolve_global(in, out, n, course_weights)); });
  rung("2 shared halo", [&] { TILECRAFT_THROW_IF_ERROR(course::launch_convolve_shared(in, out, n, course_weights)); });
  rung("3 tilecraft::stencil_1d", [&] { TILECRAFT_THROW_IF_ERROR(tilecraft::stencil_1d<R>(in, out, n, weights)); });
}

int main(int argc, char** argv) {
  if (!example::have_gpu("stencil_ladder")) return 0;
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : (std::int64_t{1} << 24) + 3;
  if (n < 1) {
    std::fprintf(stderr, "usage: stencil_ladder [n >= 1]\n");
    return 1;
  }
  std::vector<float> h(static_cast<std::size_t>(n));
  example::UniformFloats dist(-1.0f, 1.0f, 7);
  for (auto& x : h) x = dist();
  float *in = nullptr, *out = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&in, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&out, h.size() * sizeof(float)));
  TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  std::printf("%lld floats, zero boundary\n", static_cast<long long>(n));
  const double copy_ms = example::time_ms(
      [&] { TILECRAFT_THROW_IF_ERROR(cudaMemcpyAsync(out, in, h.size() * sizeof(float), cudaMemcpyDeviceToDevice)); });
  example::report("cudaMemcpy of the same bytes", copy_ms, 2.0 * static_cast<double>(h.size()) * sizeof(float),
                  "(ceiling)");
  ladder<3>(in, out, h);
  ladder<16>(in, out, h);
  TILECRAFT_THROW_IF_ERROR(cudaFree(in));
  TILECRAFT_THROW_IF_ERROR(cudaFree(out));
  return example::exit_status();
}
