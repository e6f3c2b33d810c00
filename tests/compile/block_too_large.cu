#include <tilecraft/block/block_reduce.cuh>
__global__ void k(float* o) {
  __shared__ tilecraft::BlockReduceStorage<float, 2048> temp;
  o[0] = sizeof(temp);
}
