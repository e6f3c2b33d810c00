// select_if's large-input tile for items of 1, 8 and 16 bytes now that the look-back walks at
// every size (4-byte items: policies.cu, where the register tile won): each item type with the
// default policy above 32 MiB ("huge": fewer threads, 256 bytes a thread) and with the register
// tile that serves up to 32 MiB ("large"), beside cub::DeviceSelect::If, about half kept (L2
// flushed, medians of 11 runs, us). Outputs compared byte for byte with the default's.
#include <cub/device/device_select.cuh>
#include <tilecraft/device/select.cuh>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../experiment_util.cuh"

namespace td = tilecraft::detail;

struct Pair {
  double a, b;
};

__host__ __device__ inline bool low(double v) { return v < 0.5; }
struct Keep {
  __host__ __device__ bool operator()(std::uint8_t v) const { return v < 128; }
  __host__ __device__ bool operator()(double v) const { return low(v); }
  __host__ __device__ bool operator()(const Pair& p) const { return low(p.a); }
};

template <class T>
__device__ T make(unsigned h) {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    return static_cast<std::uint8_t>(h >> 24);
  } else if constexpr (std::is_same_v<T, double>) {
    return (h >> 8) / 16777216.0;
  } else {
    return Pair{(h >> 8) / 16777216.0, static_cast<double>(h & 0xff)};
  }
}

template <class T>
__global__ void fill(T* p, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) p[i] = make<T>(index_hash(i));
}

template <class T>
void run(const char* type, long long n, char* flush, void* temp, cudaStream_t s) {
  T *in, *out;
  long long* count;
  CK(cudaMalloc(&in, n * sizeof(T)));
  CK(cudaMalloc(&out, n * sizeof(T)));
  CK(cudaMalloc(&count, sizeof(long long)));
  fill<<<1024, 256, 0, s>>>(in, n);
  CK(cudaGetLastError());
  std::size_t cub_bytes = 0;
  CK(cub::DeviceSelect::If(nullptr, cub_bytes, in, out, count, n, Keep{}, s));
  void* cub_temp;
  CK(cudaMalloc(&cub_temp, cub_bytes));
  const float cub = median_us([&] { CK(cub::DeviceSelect::If(cub_temp, cub_bytes, in, out, count, n, Keep{}, s)); },
                              flush, std::size_t{256} << 20, s);
  std::size_t bytes = std::size_t{64} << 20;
  CK(tilecraft::select_if(temp, bytes, in, out, count, n, Keep{}, s));
  long long kept = 0;
  CK(cudaMemcpy(&kept, count, sizeof(kept), cudaMemcpyDeviceToHost));
  std::vector<unsigned char> want(kept * sizeof(T)), got(kept * sizeof(T));
  CK(cudaMemcpy(want.data(), out, want.size(), cudaMemcpyDeviceToHost));
  std::printf("%s n=%lld: cub %.1f us, kept %lld\n", type, n, cub, kept);
  auto time = [&]<class Policy>(const char* name) {
    const float us = median_us([&] { CK(tilecraft::select_if<Policy>(temp, bytes, in, out, count, n, Keep{}, s)); },
                               flush, std::size_t{256} << 20, s);
    long long c = -1;
    CK(cudaMemcpy(&c, count, sizeof(c), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(got.data(), out, got.size(), cudaMemcpyDeviceToHost));
    const bool same = c == kept && std::memcmp(got.data(), want.data(), want.size()) == 0;
    std::printf("  %-8s %3d x %2d %8.1f us (%.3fx cub)%s\n", name, Policy::threads, Policy::items, us, cub / us,
                same ? "" : "  WRONG");
  };
  time.template operator()<td::DefaultSelectPolicyHuge<T>>("huge");
  time.template operator()<td::DefaultSelectPolicyLarge<T>>("large");
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(count));
  CK(cudaFree(cub_temp));
}

int main() {
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  char* flush;
  CK(cudaMalloc(&flush, 256 << 20));
  void* temp;
  CK(cudaMalloc(&temp, std::size_t{64} << 20));
  run<std::uint8_t>("u8", 1ll << 28, flush, temp, s);
  run<std::uint8_t>("u8", 1ll << 30, flush, temp, s);
  run<double>("f64", 1ll << 27, flush, temp, s);
  run<Pair>("2 x f64", 1ll << 26, flush, temp, s);
  return 0;
}
