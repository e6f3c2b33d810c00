#include <tilecraft/gemm/gemm_shape.cuh>
// 16-bit operands multiply on the tensor cores only: no FMA path for them.
using Shape = tilecraft::GemmShape<64, 64, tilecraft::RegBlock<4, 4>, 16, 4, 3, __half, tilecraft::GemmMath::simt>;
static_assert(Shape::threads > 0);
