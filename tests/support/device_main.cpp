// doctest main for device tests. Without a usable GPU it exits 77 (ctest: skipped) when asked
// to run tests, but still answers listing and help requests, so test discovery works on CPU
// machines. With a GPU it prints the device and the random seed, so failures can be replayed
// with TILECRAFT_TEST_SEED=<seed>.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

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
    // A host thread that waits for the GPU sleeps instead of spinning (the runtime's default,
    // with one context in a process, is to spin): in the GPU check about twenty test and
    // sanitizer processes wait at once beside a build on 16 cores, and racecheck's long kernels
    // had each of them hold a core for nothing. Set before the context exists (nothing above
    // creates it); a failure only costs that, so it is reported and the tests run.
    if (const cudaError_t status = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync); status != cudaSuccess) {
      std::printf("cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync): %s (waits spin)\n", cudaGetErrorString(status));
      (void)cudaGetLastError();
    }
    std::printf("seed: %llu\n", static_cast<unsigned long long>(tilecraft::test::seed()));
    cudaDeviceProp prop{};
    if (const cudaError_t status = cudaGetDeviceProperties(&prop, 0); status != cudaSuccess) {
      std::printf("cudaGetDeviceProperties failed: %s\n", cudaGetErrorString(status));
      return 1;
    }
    std::printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
    // A twin built without code for older GPUs (tests/CMakeLists.txt: SKIP_ARCHS), whose plain
    // test runs the same paths there.
    const int min_sm = tilecraft_test_min_sm();
    if (min_sm > 0 && prop.major * 10 + prop.minor < min_sm) {
      std::printf("built for sm_%d and newer: skipped on this device (the plain test covers it)\n", min_sm);
      return 77;
    }
    // TILECRAFT_TEST_LOAD_ONLY=1: create the context and exit without running a test. Under
    // CUDA_MODULE_LOADING=EAGER the driver then loads every kernel of the executable, and for a
    // PTX-only build (the sm_75 compat variants on a newer GPU) JIT-compiles it into its compute
    // cache, so that the tests' later runs start at once (.ci/gpu-check does this while the
    // other variants build: the JIT was most of test_gemm.sm75's and test_mma.sm75's 50 s).
    if (const char* load_only = std::getenv("TILECRAFT_TEST_LOAD_ONLY");
        load_only && std::strcmp(load_only, "1") == 0) {
      const cudaError_t status = cudaFree(nullptr);
      std::printf("modules loaded: %s\n", cudaGetErrorString(status));
      return status == cudaSuccess ? 0 : 1;
    }
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  // TILECRAFT_TEST_DURATIONS=1: print each test case's time (.ci/gpu-check lists the slowest).
  if (const char* durations = std::getenv("TILECRAFT_TEST_DURATIONS"); durations && std::strcmp(durations, "1") == 0)
    context.setOption("duration", "true");
  return context.run();
}
