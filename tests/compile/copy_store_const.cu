#include <tilecraft/memory/tile_copy.cuh>
// A tile cannot be stored into a read-only matrix view.
__global__ void k(const float* out) {
  __shared__ tilecraft::SharedTile<float, 32, 1> t;
  tilecraft::copy_tile<128>(tilecraft::MatrixRef<const float>{out, 32, 32, 32}, 0, 0, t);
}
