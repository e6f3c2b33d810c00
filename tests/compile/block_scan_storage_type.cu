#include <tilecraft/block/block_scan.cuh>
// A user-written copy constructor: shared temp storage moves values as raw bytes, so it cannot
// hold the type. (A user-written default constructor alone is fine: the storage runs none.)
struct Level {
  int v = 0;
  Level() = default;
  __host__ __device__ Level(const Level& o) : v(o.v) {}
};
__global__ void k(int* out) {
  __shared__ tilecraft::BlockScanStorage<Level, 128> temp;
  out[0] = sizeof(temp) > 0;
}
