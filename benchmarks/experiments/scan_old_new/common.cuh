#pragma once
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>
struct Positive {
  __host__ __device__ bool operator()(float x) const { return x > 0.0f; }
};
#define DECL(P)                                                                                                  \
  cudaError_t P##_scan_f32(void*, std::size_t&, const float*, float*, std::int64_t, cudaStream_t);               \
  cudaError_t P##_scan_i32(void*, std::size_t&, const int*, int*, std::int64_t, cudaStream_t);                   \
  cudaError_t P##_scan_i64(void*, std::size_t&, const std::int64_t*, std::int64_t*, std::int64_t, cudaStream_t); \
  cudaError_t P##_select_f32(void*, std::size_t&, const float*, float*, long long*, std::int64_t, cudaStream_t);
DECL(old)
DECL(new)
