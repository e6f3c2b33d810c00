#include <tilecraft/gemm/gemm_shape.cuh>
// A 32 x 64 warp tile does not divide a 48 x 64 block tile along M.
using Shape = tilecraft::GemmShape<48, 64, tilecraft::RegBlock<8, 8>, 8>;
static_assert(Shape::threads > 0);
