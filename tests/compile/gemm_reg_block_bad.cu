#include <tilecraft/gemm/register_block.cuh>
// Register blocks are powers of two.
static_assert(tilecraft::RegBlock<3, 4>::accumulators == 12);
