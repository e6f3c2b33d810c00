#include <tilecraft/gemm/gemm_shape.cuh>
// 8 stages of 256 x 64 and 64 x 256 float tiles: about 1 MiB of shared memory.
using Shape = tilecraft::GemmShape<256, 256, tilecraft::RegBlock<8, 8>, 64, 4, 8>;
static_assert(Shape::threads > 0);
