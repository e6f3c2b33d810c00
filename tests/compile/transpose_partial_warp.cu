#include <tilecraft/device/transpose.cuh>
// A transpose policy takes whole warps: the bank model groups accesses by 32 threads.
int main() {
  float* p = nullptr;
  using Policy = tilecraft::TransposePolicy<float, 32, 32, 100>;
  return static_cast<int>(tilecraft::transpose<Policy>(static_cast<const float*>(p), 1, p, 1, 1, 1));
}
