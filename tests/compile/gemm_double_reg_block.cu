#include <tilecraft/gemm/gemm_shape.cuh>
// 16 x 8 doubles per thread would need 256 registers of accumulators alone.
using Shape = tilecraft::GemmShape<128, 128, tilecraft::RegBlock<16, 8>, 8, 4, 3, double>;
static_assert(Shape::threads > 0);
