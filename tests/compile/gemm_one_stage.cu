#include <tilecraft/gemm/gemm_shape.cuh>
// With one stage nothing could load while the block computes.
using Shape = tilecraft::GemmShape<128, 128, tilecraft::RegBlock<8, 8>, 8, 4, 1>;
static_assert(Shape::threads > 0);
