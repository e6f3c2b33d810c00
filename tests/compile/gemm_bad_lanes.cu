#include <tilecraft/gemm/gemm_shape.cuh>
// A lane grid of 0 rows: the rule alone, no division by zero behind it.
using Shape = tilecraft::GemmShape<128, 128, tilecraft::RegBlock<8, 8>, 8, 0>;
static_assert(Shape::threads > 0);
