#include <tilecraft/memory/tile_copy.cuh>
// The second template argument of copy_tile is a TileCopy policy, not a bare hint type.
struct NotAPolicy {};
__global__ void k(const float* in) {
  __shared__ tilecraft::SharedTile<float, 32, 1> t;
  tilecraft::copy_tile<128, NotAPolicy>(t, tilecraft::MatrixRef<const float>{in, 32, 32, 32}, 0, 0);
}
