// block_scan of two library versions and cub::BlockScan in one process (bench_scan.cu's kernel:
// 32 dependent inclusive sums per block, every SM full of blocks): medians of 21 event-timed
// launches, three passes with the versions interleaved; ratio = CUB time / tilecraft time.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include <cub/block/block_scan.cuh>

#include "common.cuh"

#include "../cuda_check.cuh"

template <class T, int Threads, int Items>
__global__ void __launch_bounds__(Threads) cub_kernel(const T* in, T* out) {
  using BlockScan = cub::BlockScan<T, Threads>;
  __shared__ typename BlockScan::TempStorage temp;
  T v[Items];
  for (int j = 0; j < Items; ++j) v[j] = in[(blockIdx.x * Threads + threadIdx.x) * Items + j];
  for (int r = 0; r < rounds; ++r) {
    BlockScan(temp).InclusiveSum(v, v);
    __syncthreads();
    v[0] += static_cast<T>(1);
  }
  T acc{};
  for (int j = 0; j < Items; ++j) acc += v[j];
  out[blockIdx.x * Threads + threadIdx.x] = acc;
}

static double median_us(const std::function<void()>& f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();
  CK(cudaGetLastError());  // (a launch in f that failed)
  std::vector<double> t;
  for (int r = 0; r < 21; ++r) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e3);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  void *in, *out_old, *out_new, *out_cub;
  const std::size_t bytes = static_cast<std::size_t>(sms) * 2048 * 4 * 16 * 4;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out_old, bytes));
  CK(cudaMalloc(&out_new, bytes));
  CK(cudaMalloc(&out_cub, bytes));
  {
    std::vector<float> h(bytes / 4);
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>(1 + (i * 2654435761u) % 97);
    CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
  }
  for (int pass = 0; pass < 3; ++pass) {
#define SHAPE(i, T, th, it)                                                                                           \
  {                                                                                                                   \
    const int blocks = sms * (2048 / th) * 4;                                                                         \
    const double to = median_us([&] { old_block_scan(i, blocks, in, out_old); });                                     \
    const double tn = median_us([&] { new_block_scan(i, blocks, in, out_new); });                                     \
    const double tc = median_us(                                                                                      \
        [&] { cub_kernel<T, th, it><<<blocks, th>>>(static_cast<const T*>(in), static_cast<T*>(out_cub)); });         \
    CK(cudaDeviceSynchronize());                                                                                      \
    std::vector<T> a(static_cast<std::size_t>(blocks) * th), b(a.size());                                             \
    CK(cudaMemcpy(a.data(), out_new, a.size() * sizeof(T), cudaMemcpyDeviceToHost));                                  \
    CK(cudaMemcpy(b.data(), out_old, b.size() * sizeof(T), cudaMemcpyDeviceToHost));                                  \
    std::size_t diff = 0;                                                                                             \
    for (std::size_t e = 0; e < a.size(); ++e) diff += a[e] != b[e];                                                  \
    std::printf(                                                                                                      \
        "pass %d %-5s %4dx%-2d old %8.2f new %8.2f cub %8.2f us | vs cub old %.3f new %.3f | old != new %zu\n", pass, \
        #T, th, it, to, tn, tc, tc / to, tc / tn, diff);                                                              \
  }
    SHAPES(SHAPE)
#undef SHAPE
  }
  return 0;
}
