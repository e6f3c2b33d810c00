#include <tilecraft/gemm/gemm_shape.cuh>
// GemmMath::mma16 multiplies 16-bit elements; float takes simt, tf32 or tf32x3.
using Shape = tilecraft::GemmShape<64, 64, tilecraft::RegBlock<4, 4>, 16, 4, 3, float, tilecraft::GemmMath::mma16>;
static_assert(Shape::threads > 0);
