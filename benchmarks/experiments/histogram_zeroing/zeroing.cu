// histogram_even on global counters (2^20 and 2^22 bins, int32 samples) with few samples and
// many, beside a cudaMemsetAsync of the counters: what zeroing the output costs when the
// samples alone size the grid. Medians of 11, L2 flushed, us. (CUB's HistogramEven refused these
// bin counts with cudaErrorInvalidValue on an H200: not compared.)
#include <tilecraft/device/histogram.cuh>

#include "../experiment_util.cuh"

__global__ void fill(int* v, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x)
    v[i] = static_cast<int>(index_hash(i));
}

int main() {
  const long long max_n = 1ll << 24;
  int* in = nullptr;
  unsigned* out = nullptr;
  char *flush = nullptr, *temp = nullptr;
  const std::size_t flush_bytes = 256u << 20, temp_bytes = 64u << 20;
  CK(cudaMalloc(&in, max_n * sizeof(int)));
  CK(cudaMalloc(&out, (1u << 22) * sizeof(unsigned)));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&temp, temp_bytes));
  fill<<<1024, 256>>>(in, max_n);
  CK(cudaDeviceSynchronize());
  cudaStream_t s = nullptr;
  const int lo = -(1 << 30), hi = 1 << 30;
  std::printf("%8s %9s | %10s %10s\n", "bins", "samples", "tilecraft", "memset");
  for (int bins : {1 << 20, 1 << 22}) {
    for (long long n : {1000ll, 1ll << 20, 1ll << 24}) {
      const float tc = median_us(
          [&] {
            std::size_t bytes = temp_bytes;
            CK(tilecraft::histogram_even(temp, bytes, in, out, bins, lo, hi, static_cast<std::int64_t>(n), s));
          },
          flush, flush_bytes, s);
      const float ms =
          median_us([&] { CK(cudaMemsetAsync(out, 0, bins * sizeof(unsigned), s)); }, flush, flush_bytes, s);
      std::printf("%8d %9lld | %10.1f %10.1f\n", bins, n, tc, ms);
    }
  }
  return 0;
}
