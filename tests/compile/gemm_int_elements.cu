#include <tilecraft/gemm/tiled_gemm.cuh>
// tiled_gemm multiplies float or double matrices: int is refused.
using Gemm = tilecraft::TiledGemm<64, 64, tilecraft::RegBlock<4, 4>>;
__global__ void kernel(tilecraft::MatrixRef<const int> a, tilecraft::MatrixRef<const int> b,
                       tilecraft::MatrixRef<int> c) {
  __shared__ Gemm::TempStorage storage;
  tilecraft::tiled_gemm<64, 64, tilecraft::RegBlock<4, 4>>(storage, a, b, c, 0, 0);
}
