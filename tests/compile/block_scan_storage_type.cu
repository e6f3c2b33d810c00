#include <tilecraft/block/block_scan.cuh>
// A user-written default constructor: shared temp storage cannot hold it.
struct Level {
  int v;
  __host__ __device__ Level() : v(0) {}
};
__global__ void k(int* out) {
  __shared__ tilecraft::BlockScanStorage<Level, 128> temp;
  out[0] = sizeof(temp) > 0;
}
