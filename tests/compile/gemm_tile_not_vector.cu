#include <tilecraft/gemm/gemm_shape.cuh>
// 30 rows of floats: shared rows are filled in 16-byte vectors of 4 floats.
using Shape = tilecraft::GemmShape<30, 64, tilecraft::RegBlock<2, 8>, 8>;
static_assert(Shape::threads > 0);
