#include <tilecraft/device/scan.cuh>
#include <tilecraft/util/functional.cuh>
// 1024 threads of 16 floats: a 64 KiB tile.
int main() {
  float* p = nullptr;
  std::size_t bytes = 0;
  return static_cast<int>(tilecraft::inclusive_scan<tilecraft::ScanPolicy<1024, 16>>(
      nullptr, bytes, static_cast<const float*>(p), p, 1, tilecraft::Sum{}));
}
