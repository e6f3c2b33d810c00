// The default transpose's first rounds after other launchers (benchmarks/TUNING.md, "Ragged
// shapes, and a first round that costs 120-160 us a call"): runs the launchers named on the
// command line once each (reduce, scan, histogram, stencil: the persistent tiled stencil of
// examples/tuning_policies), then times a 1 x 1 default transpose in four rounds of 20 calls
// (one warm-up call before each), printing each round's mean. With "carveout" first, the
// transpose kernel asks for the most shared memory (cudaFuncAttributePreferredSharedMemoryCarveout
// 100) before anything runs. Run under CUDA_MODULE_LOADING=EAGER too, to tell module loading
// from the rest.
#include <cstdio>
#include <cstring>

#include <tilecraft/device/histogram.cuh>
#include <tilecraft/device/reduce.cuh>
#include <tilecraft/device/scan.cuh>
#include <tilecraft/device/stencil.cuh>
#include <tilecraft/device/transpose.cuh>

#include "../cuda_check.cuh"

int main(int argc, char** argv) {
  const std::int64_t n = std::int64_t{1} << 24;
  float *f = nullptr, *g = nullptr;
  int *i = nullptr, *j = nullptr;
  unsigned* hist = nullptr;
  void* temp = nullptr;
  CK(cudaMalloc(&f, n * sizeof(float)));
  CK(cudaMalloc(&g, n * sizeof(float)));
  CK(cudaMalloc(&i, n * sizeof(int)));
  CK(cudaMalloc(&j, n * sizeof(int)));
  CK(cudaMalloc(&hist, 256 * sizeof(unsigned)));
  CK(cudaMalloc(&temp, 1024));
  CK(cudaMemset(f, 0, n * sizeof(float)));
  CK(cudaMemset(i, 0, n * sizeof(int)));
  for (int a = 1; a < argc; ++a) {
    const char* what = argv[a];
    if (!std::strcmp(what, "carveout")) {
      CK(cudaFuncSetAttribute(
          tilecraft::detail::transpose_tiles_kernel<float, tilecraft::DefaultTransposePolicy<float>>,
          cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    } else if (!std::strcmp(what, "reduce")) {
      CK(tilecraft::reduce(i, j, n, tilecraft::Sum{}, 0));
    } else if (!std::strcmp(what, "scan")) {
      CK(tilecraft::inclusive_scan(i, j, n, tilecraft::Sum{}));
    } else if (!std::strcmp(what, "histogram")) {
      std::size_t bytes = 1024;
      CK(tilecraft::histogram_even(temp, bytes, reinterpret_cast<const std::uint8_t*>(f), hist, 256, 0, 256, n));
    } else if (!std::strcmp(what, "stencil")) {
      using Tiled = tilecraft::StencilPolicy<128, 2, 3, 0, tilecraft::StencilAlgorithm::tiled>;
      tilecraft::StencilWeights<float, 4> w{};
      const cudaError_t status = tilecraft::stencil_1d<4, Tiled>(f, g, n, w, tilecraft::StencilBoundary::clamp);
      CK(status);
    } else {
      std::printf("unknown step %s\n", what);
      return 1;
    }
    CK(cudaDeviceSynchronize());
  }
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int round = 0; round < 4; ++round) {
    CK(tilecraft::transpose(f, 1, g, 1, 1, 1));
    CK(cudaEventRecord(a));
    for (int k = 0; k < 20; ++k) CK(tilecraft::transpose(f, 1, g, 1, 1, 1));
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    std::printf("round %d: %7.1f us a call\n", round, ms * 1e3 / 20);
  }
  return 0;
}
