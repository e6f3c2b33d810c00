#include <tilecraft/gemm/gemm_shape.cuh>
// 64 warps of 4 x 8 accumulators: more than a block may have.
using Shape = tilecraft::GemmShape<256, 256, tilecraft::RegBlock<4, 2>, 8>;
static_assert(Shape::threads > 0);
