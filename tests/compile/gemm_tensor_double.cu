#include <tilecraft/gemm/gemm_shape.cuh>
// The tensor-core maths multiply TF32 operands: float elements only.
using Shape = tilecraft::GemmShape<64, 64, tilecraft::RegBlock<4, 4>, 8, 4, 3, double, tilecraft::GemmMath::tf32x3>;
static_assert(Shape::threads > 0);
