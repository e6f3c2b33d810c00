#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/functional.cuh>
// An output pointer to const elements: the scan cannot write through it.
int main() {
  const float* in = nullptr;
  const float* out = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::inclusive_scan(nullptr, bytes, in, out, 1, tilecraft::Sum{}));
}
