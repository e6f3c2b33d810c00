#include <tilecraft/gemm/gemm_shape.cuh>
// A K step of 8 is half of one 16-bit MMA's k of 16.
using Shape = tilecraft::GemmShape<64, 64, tilecraft::RegBlock<4, 4>, 8, 4, 3, __nv_bfloat16>;
static_assert(Shape::threads > 0);
