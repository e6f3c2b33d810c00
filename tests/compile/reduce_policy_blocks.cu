#include <tilecraft/device/reduce.cuh>
// sm_75 and sm_86 keep at most 16 blocks resident on a multiprocessor: a cooperative grid of
// more per SM could not launch there.
using Policy = tilecraft::ReducePolicy<32, 4, 17>;
static_assert(Policy::blocks_per_sm > 0);
