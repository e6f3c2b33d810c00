#include <tilecraft/warp/warp_reduce.cuh>
#include <tilecraft/util/functional.cuh>
__global__ void k(float* o) { o[0] = tilecraft::warp_reduce<12>(o[1], tilecraft::Sum{}); }
