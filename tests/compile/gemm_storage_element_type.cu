#include <tilecraft/gemm/tiled_gemm.cuh>
// Double matrices need the double configuration's storage, not the float one's.
using Gemm = tilecraft::TiledGemm<64, 64, tilecraft::RegBlock<4, 4>>;
__global__ void kernel(tilecraft::MatrixRef<const double> a, tilecraft::MatrixRef<const double> b,
                       tilecraft::MatrixRef<double> c) {
  __shared__ Gemm::TempStorage storage;
  tilecraft::tiled_gemm(storage, a, b, c, 0, 0);
}
