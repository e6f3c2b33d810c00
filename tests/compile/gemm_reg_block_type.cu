#include <tilecraft/gemm/gemm_shape.cuh>
// The register block is named by tilecraft::RegBlock<RM, RN>, not by any type.
struct NotARegBlock {};
using Shape = tilecraft::GemmShape<64, 64, NotARegBlock, 8>;
static_assert(Shape::threads > 0);
