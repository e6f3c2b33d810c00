// The histogram ladder: the course's atomics lesson rung by rung, then tilecraft, with bandwidth.
//   1. global atomics              one L2 atomic per byte
//   2. shared atomics              a private histogram per block, merged once
//   3. privatized, vector loads    a sub-histogram per warp, 16 bytes per load
//   4. tilecraft::histogram_even   per-lane counters (conflict-free whatever the data), a
//                                  persistent grid, 8 loads in flight per thread, one launch
// Each rung runs on uniform bytes and on bytes that are all one value (the worst case for
// atomic contention), checks itself against a host count and prints WRONG on a mismatch.
// Usage: histogram_ladder [n]   (default 2^26 bytes)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tilecraft/device/histogram.cuh>

#include "course/histogram_course.cuh"
#include "example_util.cuh"

int main(int argc, char** argv) {
  if (!example::have_gpu("histogram_ladder")) return 0;
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : (std::int64_t{1} << 26);
  int sms = 0;
  TILECRAFT_THROW_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned char* in = nullptr;
  unsigned* hist = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&in, static_cast<std::size_t>(n)));
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&hist, 256 * sizeof(unsigned)));
  std::size_t temp_bytes = 0;
  TILECRAFT_THROW_IF_ERROR(
      tilecraft::histogram_even(nullptr, temp_bytes, static_cast<const std::uint8_t*>(in), hist, 256, 0, 256, n));
  void* temp = nullptr;
  TILECRAFT_THROW_IF_ERROR(cudaMalloc(&temp, temp_bytes));
  bool all_ok = true;
  for (bool one_value : {false, true}) {
    std::vector<unsigned char> h(static_cast<std::size_t>(n));
    std::vector<unsigned> ref(256, 0);
    for (std::size_t i = 0; i < h.size(); ++i) {
      h[i] = one_value ? 42 : static_cast<unsigned char>((i * 2654435761u) >> 13);
      ++ref[h[i]];
    }
    TILECRAFT_THROW_IF_ERROR(cudaMemcpy(in, h.data(), h.size(), cudaMemcpyHostToDevice));
    std::printf("%lld bytes, %s\n", static_cast<long long>(n), one_value ? "all one value" : "uniform");
    auto rung = [&](const char* name, auto launch) {
      // The course kernels add into the histogram: zero it inside the timed launch, as
      // tilecraft's launcher does in its kernel.
      auto run = [&] {
        TILECRAFT_THROW_IF_ERROR(cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned)));
        launch();
      };
      const double ms = example::time_ms(run, 10);
      std::vector<unsigned> got(256);
      TILECRAFT_THROW_IF_ERROR(cudaMemcpy(got.data(), hist, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));
      all_ok = all_ok && got == ref;
      example::report(name, ms, static_cast<double>(n), example::verdict(got == ref));
    };
    const int grid = sms * 8;
    const int t = course::histogram_threads;
    rung("1 global atomics", [&] {
      course::histogram_global_atomics<<<grid, t>>>(in, n, hist);
      TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
    });
    rung("2 shared atomics", [&] {
      course::histogram_shared_atomics<<<grid, t>>>(in, n, hist);
      TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
    });
    rung("3 privatized, vector loads", [&] {
      course::histogram_privatized_vectors<<<grid, t>>>(in, n, hist);
      TILECRAFT_THROW_IF_ERROR(cudaGetLastError());
    });
    rung("4 tilecraft::histogram_even", [&] {
      TILECRAFT_THROW_IF_ERROR(
          tilecraft::histogram_even(temp, temp_bytes, static_cast<const std::uint8_t*>(in), hist, 256, 0, 256, n));
    });
  }
  for (void* p : {static_cast<void*>(in), static_cast<void*>(hist), temp}) TILECRAFT_THROW_IF_ERROR(cudaFree(p));
  return all_ok ? 0 : 1;
}
