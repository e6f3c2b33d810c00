#include <tilecraft/gemm/gemm_shape.cuh>
// Warp tiles of 8 x 32 (LanesM 4 x RM 2): not whole 16 x 8 MMA tiles.
using Shape = tilecraft::GemmShape<32, 64, tilecraft::RegBlock<2, 4>, 8, 4, 3, float, tilecraft::GemmMath::tf32>;
static_assert(Shape::threads > 0);
