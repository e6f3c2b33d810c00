#include <tilecraft/gemm/gemm_shape.cuh>
// A K step of 4 is less than one MMA's k of 8.
using Shape = tilecraft::GemmShape<64, 64, tilecraft::RegBlock<4, 4>, 4, 4, 3, float, tilecraft::GemmMath::tf32>;
static_assert(Shape::threads > 0);
