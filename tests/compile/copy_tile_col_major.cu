#include <tilecraft/memory/tile_copy.cuh>
// Tile copies take row-major views; a column-major matrix goes through transposed(m).
__global__ void f(const float* a, int m, int n) {
  __shared__ tilecraft::SharedMatrix<float, 32, 32> tile;
  const tilecraft::MatrixRef<const float, tilecraft::Order::col_major> src{a, m, n, m};
  tilecraft::copy_tile<256>(tile, src, 0, 0);
}
