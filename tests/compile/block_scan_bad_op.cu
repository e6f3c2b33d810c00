#include <tilecraft/block/block_scan.cuh>
struct NotAnOp {};
__global__ void k(int* p) {
  __shared__ tilecraft::BlockScanStorage<int, 128> temp;
  p[threadIdx.x] = tilecraft::block_inclusive_scan(temp, p[threadIdx.x], NotAnOp{});
}
