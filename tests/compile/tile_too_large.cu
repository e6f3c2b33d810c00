#include <tilecraft/memory/shared_tile.cuh>
// 256 x 256 floats = 256 KiB > 227 KiB.
__global__ void k(float* o) {
  extern __shared__ unsigned char smem[];
  auto& t = *reinterpret_cast<tilecraft::SharedTile<float, 256, 0>*>(smem);
  o[0] = t(0, 0);
}
