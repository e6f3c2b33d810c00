#include <tilecraft/memory/copy_async.cuh>
// An asynchronous copy moves 4, 8 or 16 bytes.
__global__ void k(const char* in) {
  __shared__ alignas(16) char s[16];
  tilecraft::copy_async<2>(s, in);
}
