#include <tilecraft/gemm/gemm_shape.cuh>
// With tensor-core math a K-contiguous operand fills 8 rows of K at a time: 8 * TK / 4 = 48
// vectors (TK = 24) and 128 threads do not divide one another.
using Shape = tilecraft::GemmShape<128, 128, tilecraft::RegBlock<16, 8>, 24, 4, 3, float, tilecraft::GemmMath::tf32>;
static_assert(Shape::threads > 0);
