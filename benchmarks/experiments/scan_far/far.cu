// How far the scan's walk over the aggregates (look_back_far) should reach: the default
// inclusive_scan of f32 and int from 2^21 to 2^28 items beside cub::DeviceScan::InclusiveSum
// (L2 flushed, medians of 11 runs, us), built once per variant of the library by run.sh (the
// tile-count threshold of the walk, its windows, int's look-back). Each output's bits are
// hashed: the walk and waiting in place must give the same bits, so every variant must print
// the same hashes.
#include <cub/device/device_scan.cuh>
#include <tilecraft/device/scan.cuh>

#include <cstdio>
#include <vector>

#include "../experiment_util.cuh"

template <class T>
__global__ void fill(T* p, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const unsigned h = index_hash(i);
    p[i] = static_cast<T>(static_cast<int>(h >> 24) - 128) / 16.0f + 1e-3f * static_cast<float>(h & 0xff);
  }
}

template <class T>
void sizes(const char* variant, const char* type, cudaStream_t s, char* flush, void* temp, std::size_t temp_bytes) {
  for (int lg = 21; lg <= 28; ++lg) {
    const long long n = 1ll << lg;
    T *in, *out;
    CK(cudaMalloc(&in, n * sizeof(T)));
    CK(cudaMalloc(&out, n * sizeof(T)));
    fill<<<1024, 256, 0, s>>>(in, n);
    CK(cudaGetLastError());
    std::size_t cub_bytes = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, out, n, s));
    void* cub_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    const float cub = median_us([&] { CK(cub::DeviceScan::InclusiveSum(cub_temp, cub_bytes, in, out, n, s)); }, flush,
                                std::size_t{256} << 20, s);
    std::size_t bytes = temp_bytes;
    const float lib = median_us([&] { CK(tilecraft::inclusive_scan(temp, bytes, in, out, n, tilecraft::Sum{}, s)); },
                                flush, std::size_t{256} << 20, s);
    CK(cudaStreamSynchronize(s));
    std::vector<unsigned> got(n);
    CK(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    unsigned long long h = 1469598103934665603ull;
    for (const unsigned w : got) h = (h ^ w) * 1099511628211ull;
    std::printf("%-10s %s 2^%d: cub %7.1f us, tilecraft %7.1f us, %.3fx cub, bits %016llx\n", variant, type, lg, cub,
                lib, cub / lib, h);
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(cub_temp));
  }
}

int main(int argc, char** argv) {
  const char* variant = argc > 1 ? argv[1] : "library";
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  char* flush;
  CK(cudaMalloc(&flush, 256 << 20));
  void* temp;
  const std::size_t temp_bytes = std::size_t{64} << 20;
  CK(cudaMalloc(&temp, temp_bytes));
  sizes<float>(variant, "f32", s, flush, temp, temp_bytes);
  sizes<int>(variant, "i32", s, flush, temp, temp_bytes);
  return 0;
}
