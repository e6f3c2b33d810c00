// The single-tile reduce kernel (device/detail/reduce_kernels.cuh, reduce_one_tile_kernel) in
// several block shapes beside cub::DeviceReduce::Sum and tilecraft::reduce, on small float
// inputs: L2 flushed before each sample, every variant once per round (interleaved), medians.
// Each result is checked against a double host sum. Not built by CMake; see run.sh.
#include <cub/device/device_reduce.cuh>
#include <tilecraft/device/reduce.cuh>
#include <tilecraft/util/functional.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "../cuda_check.cuh"

namespace td = tilecraft::detail;

template <int Threads, int Vpt, int Rounds = 1>
void launch_tile(const float* in, int n, float* out, cudaStream_t s) {
  using P = td::ReduceSingleBlockPolicy<Threads, Vpt, Rounds>;
  td::reduce_one_tile_kernel<P, 4, tilecraft::CacheHint::normal, float, float, float, tilecraft::Sum, float>
      <<<1, Threads, 0, s>>>(in, n, out, tilecraft::Sum{}, 0.0f);
}

template <class GridPolicy>
void launch_grid(const float* in, int n, float* out, void* partials, cudaStream_t s) {
  constexpr long long tile = GridPolicy::threads * GridPolicy::vectors_per_thread * 4;
  int grid = static_cast<int>((n - 16) / tile);
  if (grid < 2) grid = 2;
  const cudaError_t e =
      td::launch_reduce<GridPolicy, 4>(grid, in, n, out, tilecraft::Sum{}, 0.0f, static_cast<float*>(partials), s);
  CK(e);
}

struct Variant {
  std::string name;
  int max_elems;  // the largest n it covers
  std::function<void(const float*, int, float*, cudaStream_t)> run;
};

int main(int argc, char** argv) {
  const int rounds = 41;
  std::vector<int> sizes = {1000,  4096,  4097,  8192,  16384, 16385, 24000,
                            32768, 40000, 50000, 65535, 65536, 65537, 100000};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  }
  int l2 = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const size_t flush_bytes = 2 * static_cast<size_t>(l2);
  void* flush = nullptr;
  CK(cudaMalloc(&flush, flush_bytes));
  const int max_n = *std::max_element(sizes.begin(), sizes.end());
  float *in = nullptr, *out = nullptr;
  CK(cudaMalloc(&in, max_n * sizeof(float)));
  CK(cudaMalloc(&out, sizeof(float)));
  std::vector<float> h(max_n);
  srand(7);
  for (auto& v : h) v = 0.5f + static_cast<float>(rand()) / RAND_MAX;
  CK(cudaMemcpy(in, h.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));
  void* temp = nullptr;
  size_t temp_bytes = 1 << 20;
  CK(cudaMalloc(&temp, temp_bytes));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));

  std::vector<Variant> vs = {
      {"cub", 1 << 30,
       [&](const float* i, int n, float* o, cudaStream_t st) {
         size_t bytes = temp_bytes;
         CK(cub::DeviceReduce::Sum(temp, bytes, i, o, n, st));
       }},
      {"library", 1 << 30,
       [&](const float* i, int n, float* o, cudaStream_t st) {
         size_t bytes = temp_bytes;
         CK(tilecraft::reduce(temp, bytes, i, o, n, tilecraft::Sum{}, 0.0f, st));
       }},
      {"tile256x4", 256 * 4 * 4, launch_tile<256, 4>},
      {"tile1024x4", 1024 * 4 * 4, launch_tile<1024, 4>},
      {"tile1024x8", 1024 * 8 * 4, launch_tile<1024, 8>},
      {"tile1024x8x2", 1024 * 8 * 2 * 4, launch_tile<1024, 8, 2>},
      {"tile512x16x2", 512 * 16 * 2 * 4, launch_tile<512, 16, 2>},
      {"tile512x8x2", 512 * 8 * 2 * 4, launch_tile<512, 8, 2>},
      {"grid128x4", 1 << 30,
       [&](const float* i, int n, float* o, cudaStream_t st) {
         if (n >= 2 * 2048 + 16)
           launch_grid<tilecraft::ReducePolicy<128, 4, 8>>(i, n, o, temp, st);
         else
           launch_tile<1024, 8>(i, n, o, st);
       }},
  };
  for (int n : sizes) {
    double ref = 0;
    for (int i = 0; i < n; ++i) ref += h[i];
    std::vector<std::vector<float>> t(vs.size());
    for (int r = -3; r < rounds; ++r) {
      for (size_t v = 0; v < vs.size(); ++v) {
        if (n > vs[v].max_elems) continue;
        CK(cudaMemsetAsync(flush, r & 0xff, flush_bytes, s));
        CK(cudaMemsetAsync(out, 0xff, sizeof(float), s));
        CK(cudaEventRecord(a, s));
        vs[v].run(in, n, out, s);
        CK(cudaGetLastError());
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        float got = 0;
        CK(cudaMemcpy(&got, out, sizeof(float), cudaMemcpyDeviceToHost));
        if (!(std::fabs(got - ref) <= 1e-5 * ref)) {
          std::printf("WRONG %s n=%d got %f ref %f\n", vs[v].name.c_str(), n, got, ref);
          return 1;
        }
        if (r >= 0) t[v].push_back(ms * 1000.0f);
      }
    }
    std::printf("n=%6d", n);
    double cub_us = 0;
    for (size_t v = 0; v < vs.size(); ++v) {
      if (t[v].empty()) continue;
      std::sort(t[v].begin(), t[v].end());
      const double med = t[v][t[v].size() / 2];
      if (v == 0) cub_us = med;
      std::printf(" | %s %.3f us (%.3f)", vs[v].name.c_str(), med, cub_us / med);
    }
    std::printf("\n");
  }
  return 0;
}
