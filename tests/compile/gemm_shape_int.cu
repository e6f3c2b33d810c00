#include <tilecraft/gemm/gemm_shape.cuh>
// A GEMM configuration's element type is float or double.
using Shape = tilecraft::GemmShape<64, 64, tilecraft::RegBlock<4, 4>, 8, 4, 3, int>;
static_assert(Shape::threads > 0);
