// The .cu half of test_host_forms: tilecraft::reduce<void, float, float, Sum, float>, as nvcc
// compiles it.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace tilecraft::test {

inline constexpr std::int64_t host_forms_items = 1000;

struct HostFormsRun {
  cudaError_t status;  // the .cu file's reduce (or the CUDA call before it that failed)
  bool had_device;     // device memory was allocated, so the reduce ran on it
  float sum;           // its result, where it ran
  float expected;
};

HostFormsRun reduce_from_cu();

}  // namespace tilecraft::test
