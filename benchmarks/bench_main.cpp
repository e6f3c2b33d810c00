// tilecraft's benchmark binary: every family (copy, transpose, reduce, block_reduce, stencil, gemm, scan, select,
// block_scan) in one run, with the GPU's name, clocks and driver in the JSON context.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <initializer_list>
#include <string>

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "tilecraft_bench: no CUDA device, nothing to measure\n");
    return 77;
  }
  // The context every result is read with: a query that fails stops the run, rather than
  // labelling the results with zeros.
  cudaDeviceProp prop{};
  int sm_clock_khz = 0, mem_clock_khz = 0, driver = 0, runtime = 0;
  for (const cudaError_t status :
       {cudaGetDeviceProperties(&prop, 0), cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, 0),
        cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0), cudaDriverGetVersion(&driver),
        cudaRuntimeGetVersion(&runtime)}) {
    if (status != cudaSuccess) {
      std::fprintf(stderr, "tilecraft_bench: a device query failed: %s\n", cudaGetErrorString(status));
      return 1;
    }
  }
  benchmark::AddCustomContext("gpu", prop.name);
  benchmark::AddCustomContext("gpu_sm", std::to_string(prop.major) + std::to_string(prop.minor));
  benchmark::AddCustomContext("gpu_sms", std::to_string(prop.multiProcessorCount));
  benchmark::AddCustomContext("gpu_sm_clock_mhz", std::to_string(sm_clock_khz / 1000));
  benchmark::AddCustomContext("gpu_mem_clock_mhz", std::to_string(mem_clock_khz / 1000));
  benchmark::AddCustomContext("gpu_l2_bytes", std::to_string(prop.l2CacheSize));
  benchmark::AddCustomContext("cuda_driver", std::to_string(driver));
  benchmark::AddCustomContext("cuda_runtime", std::to_string(runtime));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
