// The floats sel.cu and policies.cu select from: values in [-8, 8) off the integers' sixteenths
// (so none is zero), about half of them below zero, the half Below keeps.
#pragma once

#include "../experiment_util.cuh"

struct Below {
  __host__ __device__ bool operator()(float x) const { return x < 0.0f; }
};

__global__ void fill(float* p, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const unsigned h = index_hash(i);
    p[i] = static_cast<float>(static_cast<int>(h >> 24) - 128) / 16.0f + 1e-3f;
  }
}
