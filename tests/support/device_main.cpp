// doctest main for device tests. Without a usable GPU it exits 77 (ctest: skipped) when asked
// to run tests, but still answers listing and help requests, so test discovery works on CPU
// machines. With a GPU it prints the device and the random seed, so failures can be replayed
// with TILECRAFT_TEST_SEED=<seed>.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <cstdio>

#include "test_util.cuh"

// The oldest architecture the test was built for (0: every architecture of the build), defined
// in a file cmake/TilecraftTargets.cmake writes for each test.
int tilecraft_test_min_sm();

int main(int argc, char** argv) {
  if (!tilecraft::test::only_lists(argc, argv)) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::printf("no CUDA device: device tests skipped\n");
      return 77;
    }
    std::printf("seed: %llu\n", static_cast<unsigned long long>(tilecraft::test::seed()));
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
      std::printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
      // A twin built without code for older GPUs (tests/CMakeLists.txt: SKIP_ARCHS), whose
      // plain test runs the same paths there.
      const int min_sm = tilecraft_test_min_sm();
      if (min_sm > 0 && prop.major * 10 + prop.minor < min_sm) {
        std::printf("built for sm_%d and newer: skipped on this device (the plain test covers it)\n", min_sm);
        return 77;
      }
    }
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
