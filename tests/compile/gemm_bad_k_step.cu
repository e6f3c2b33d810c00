#include <tilecraft/gemm/gemm_shape.cuh>
// A K step of 12 cannot be split into the fill's runs of 8 rows (or 4, 2, 1).
using Shape = tilecraft::GemmShape<128, 128, tilecraft::RegBlock<8, 8>, 12>;
static_assert(Shape::threads > 0);
