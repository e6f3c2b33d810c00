#include <tilecraft/gemm/tiled_gemm.cuh>
// tiled_gemm multiplies matrices of one element type: a double A with float B and C is refused.
using Gemm = tilecraft::TiledGemm<64, 64, tilecraft::RegBlock<4, 4>>;
__global__ void kernel(tilecraft::MatrixRef<const double> a, tilecraft::MatrixRef<const float> b,
                       tilecraft::MatrixRef<float> c) {
  __shared__ Gemm::TempStorage storage;
  tilecraft::tiled_gemm<64, 64, tilecraft::RegBlock<4, 4>>(storage, a, b, c, 0, 0);
}
