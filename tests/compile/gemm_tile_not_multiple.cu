#include <tilecraft/gemm/gemm_shape.cuh>
// A 32 x 64 warp tile does not divide a 96 x 96 block tile along N.
using Shape = tilecraft::GemmShape<96, 96, tilecraft::RegBlock<8, 8>, 8>;
static_assert(Shape::threads > 0);
