// One version of the library's block_scan behind a plain function named FN_block_scan (run.sh
// builds it twice: -Dtilecraft=tc_old -DFN=old against the old headers, tc_new / new against
// the new). The kernel is bench_scan.cu's: 32 dependent inclusive sums per block.
#include <tilecraft/block/block_scan.cuh>
#include <tilecraft/util/functional.cuh>

#include "common.cuh"

#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)

namespace {
template <class T, int Threads, int Items>
__global__ void __launch_bounds__(Threads) kernel(const T* in, T* out) {
  __shared__ tilecraft::BlockScanStorage<T, Threads> temp;
  T v[Items];
  for (int j = 0; j < Items; ++j) v[j] = in[(blockIdx.x * Threads + threadIdx.x) * Items + j];
  for (int r = 0; r < rounds; ++r) {
    tilecraft::block_inclusive_scan(temp, v, v, tilecraft::Sum{});
    __syncthreads();
    v[0] += static_cast<T>(1);
  }
  T acc{};
  for (int j = 0; j < Items; ++j) acc += v[j];
  out[blockIdx.x * Threads + threadIdx.x] = acc;
}
template <class T, int Threads, int Items>
void launch(int blocks, const void* in, void* out) {
  kernel<T, Threads, Items><<<blocks, Threads>>>(static_cast<const T*>(in), static_cast<T*>(out));
}
}  // namespace

void CAT(FN, block_scan)(int shape, int blocks, const void* in, void* out) {
  switch (shape) {
#define SHAPE(i, T, th, it)             \
  case i:                               \
    launch<T, th, it>(blocks, in, out); \
    break;
    SHAPES(SHAPE)
#undef SHAPE
  }
}
