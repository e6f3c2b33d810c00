// The .cu half of test_host_forms: tilecraft::reduce<void, float, float, Sum, float>, as nvcc
// compiles it.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include <tilecraft/config.cuh>
#include <tilecraft/util/functional.cuh>

namespace tilecraft::test {

inline constexpr std::int64_t host_forms_items = 1000;

//! tilecraft::reduce<void, float, float, Sum, float>'s type. Both files call it through a volatile
//! pointer to it: a call the compiler inlines would run its own file's form whatever the linker
//! kept, and the test could not see a broken one-definition rule at -O3.
using HostFormsReduce = cudaError_t (*)(void*, std::size_t&, const float*, float*, std::int64_t, Sum, float,
                                        cudaStream_t);

struct HostFormsRun {
  cudaError_t status;  // the .cu file's reduce (or the CUDA call before it that failed)
  bool had_device;     // device memory was allocated, so the reduce ran on it
  float sum;           // its result, where it ran
  float expected;
};

HostFormsRun reduce_from_cu();

//! The size queries of nvcc's forms (temp bytes, or 0 where the query failed) of
//! tilecraft::inclusive_scan<void>(const float*, float*, n, Sum) and
//! tilecraft::select_if<void>(const float*, float*, long long*, n, HostFormsPositive), the .cpp
//! file asking its own forms the same.
struct HostFormsPositive {
  TILECRAFT_HOST_DEVICE bool operator()(float v) const { return v > 0.0f; }
};
std::size_t scan_query_from_cu(std::int64_t n);
std::size_t select_query_from_cu(std::int64_t n);

//! tilecraft::transpose<void, float>'s type, called through a volatile pointer from both files
//! (as HostFormsReduce).
using HostFormsTranspose = cudaError_t (*)(const float*, std::int64_t, float*, std::int64_t, std::int64_t, std::int64_t,
                                           cudaStream_t);
inline constexpr std::int64_t host_forms_rows = 33;
inline constexpr std::int64_t host_forms_cols = 65;

struct HostFormsTransposeRun {
  cudaError_t status;  // the .cu file's transpose (or the CUDA call before it that failed)
  bool had_device;     // device memory was allocated, so the transpose ran on it
  bool correct;        // every element in its transposed place, where it ran
};

HostFormsTransposeRun transpose_from_cu();

}  // namespace tilecraft::test
