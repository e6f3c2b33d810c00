#include <tilecraft/arch/cp_async.cuh>
// cp.async.cg exists for 16-byte copies only.
__global__ void k(const float* in) {
  __shared__ alignas(16) float s[4];
  tilecraft::arch::cp_async_cg<8>(s, in);
}
