#include <tilecraft/gemm/gemm_shape.cuh>
// A 32-column tile of 16-bit elements: a 16-byte fill phase would span two padded rows.
using Shape = tilecraft::GemmShape<64, 32, tilecraft::RegBlock<4, 4>, 16, 4, 3, __nv_bfloat16>;
static_assert(Shape::threads > 0);
