#include <tilecraft/util/functional.cuh>
#include <tilecraft/warp/warp_scan.cuh>
__global__ void k(int* p) { p[threadIdx.x] = tilecraft::warp_inclusive_scan<12>(p[threadIdx.x], tilecraft::Sum{}); }
